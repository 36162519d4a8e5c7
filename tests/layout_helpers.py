"""Reading a page's layout in the browser: text cut short, horizontal overflow, positions below the
fold, and requests to other hosts."""

from __future__ import annotations

# Every visible label-like element whose text does not fit its box (CSS ellipsis or clipped),
# every button or metric whose text ends in an ellipsis, Plotly titles sticking out of their
# chart, and whether the page scrolls sideways. Returns {"cut": [...], "overflow": px}.
LAYOUT_JS = """() => {
  const LABELS = [
    "button", "[data-testid='stMetricLabel']", "[data-testid='stMetricValue']",
    "[data-testid='stMetricDelta']", "[data-testid='stWidgetLabel']", "[data-testid='stPageLink'] a",
    "h1", "h2", "h3", "[data-testid='stMarkdownContainer'] p", "[data-testid='stCaptionContainer']",
  ].join(",");
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== "hidden";
  };
  const cut = [];
  const roots = ["stMain", "stSidebar"].map((id) => document.querySelector(`[data-testid='${id}']`));
  const clipped = (el) => el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1
    && getComputedStyle(el).overflowX !== "visible";
  for (const root of roots.filter(Boolean)) {
    // A sidebar collapsing (a phone width) still has a box while it slides away: nobody reads it.
    const shut = root.getAttribute("aria-expanded") === "false" || root.dataset.collapsed === "true";
    if (!visible(root) || shut) continue;
    for (const label of root.querySelectorAll(LABELS)) {
      if (!visible(label) || label.closest(".js-plotly-plot, [data-testid='stDataFrame']")) continue;
      const named = label.matches("button, [data-testid^='stMetric']");
      for (const el of [label, ...label.querySelectorAll("*")]) {
        const text = (el.innerText || "").trim();
        if (!text) continue;
        if (clipped(el)) {
          cut.push(`clipped: ${text.slice(0, 60)} (${el.scrollWidth} > ${el.clientWidth} px)`);
          break;
        }
        // Prose may end in an ellipsis ("Starting…"); a button or a metric cut short by code does.
        if (named && text.endsWith("…")) { cut.push(`ellipsis: ${text.slice(0, 60)}`); break; }
      }
    }
    // A button pushed past the edge of its widget is cut off by it (e.g. segmented controls).
    for (const button of root.querySelectorAll("[data-testid='stElementContainer'] button")) {
      const widget = button.closest("[data-testid='stElementContainer']").getBoundingClientRect();
      const box = button.getBoundingClientRect();
      if (visible(button) && box.right > widget.right + 1) {
        cut.push(`past its widget's edge: ${button.innerText.trim().slice(0, 60)}`);
      }
    }
    for (const plot of root.querySelectorAll(".js-plotly-plot")) {
      const frame = plot.getBoundingClientRect();
      for (const title of plot.querySelectorAll(".gtitle, .g-xtitle text, .g-ytitle text")) {
        const box = title.getBoundingClientRect();
        if (box.width && (box.left < frame.left - 1 || box.right > frame.right + 1)) {
          const span = `${Math.round(box.left)}..${Math.round(box.right)} px`;
          cut.push(`plot title: ${title.textContent.slice(0, 60)} (${span}; the chart: ${frame.right})`);
        }
      }
    }
  }
  return { cut, overflow: document.scrollingElement.scrollWidth - window.innerWidth };
}"""


def layout_problems(tab) -> list[str]:
    """What a user would see cut short on the page now, as readable lines (empty when all fits)."""
    found = tab.evaluate(LAYOUT_JS)
    problems = list(found["cut"])
    if found["overflow"] > 0:
        problems.append(f"the page scrolls sideways by {found['overflow']} px")
    return problems


# True once the layout reading has been the same on three polls in a row.
_SETTLED = """() => {
    const reading = JSON.stringify(layout());
    const same = window.lastLayoutReading === reading;
    window.lastLayoutReading = reading;
    window.sameLayoutReadings = same ? (window.sameLayoutReadings || 0) + 1 : 0;
    return window.sameLayoutReadings >= 2;
}""".replace("layout()", f"({LAYOUT_JS})()")


def settled_layout_problems(tab) -> list[str]:
    """``layout_problems`` once the page has stopped moving after a resize (charts redraw, columns
    stack): the same reading on three polls in a row."""
    tab.wait_for_function(_SETTLED, polling=250, timeout=60_000)
    problems = layout_problems(tab)
    if problems:
        # A sidebar sliding open or shut after a resize can hold still for a few polls; what is
        # still cut a second later, after settling again, is what a reader sees.
        tab.wait_for_timeout(1_000)
        tab.evaluate("() => { window.sameLayoutReadings = 0; window.lastLayoutReading = null; }")
        return settled_once_more(tab)
    return problems


def settled_once_more(tab) -> list[str]:
    """``layout_problems`` after one more settling, without a further retry."""
    tab.wait_for_function(_SETTLED, polling=250, timeout=60_000)
    return layout_problems(tab)


# An element's place on the screen, whether or not it has finished drawing (a busy browser may still
# be drawing a chart that a run redraws twice a second; where it will show is what counts here).
PLACE_JS = "el => { const b = el.getBoundingClientRect(); return {y: b.y, height: b.height}; }"


def below_the_fold(tab, elements: dict, room: dict[str, int] | None = None) -> list[str]:
    """Each named element (a Playwright locator) that a user would have to scroll to see: its bottom
    lies past the viewport's lower edge, or it is missing. Empty when all are in view.

    ``room``: the height a named element needs at least, for one a busy browser may not have drawn yet
    (a chart remounted at every redraw of a run can have no size at the moment of looking)."""
    height = tab.viewport_size["height"]
    found = []
    for name, element in elements.items():
        box = element.evaluate(PLACE_JS) if element.count() else None
        if box is not None:
            box["height"] = max(box["height"], (room or {}).get(name, 0))
        if box is None or box["height"] == 0:
            found.append(f"{name}: not shown")
        elif box["y"] < 0 or box["y"] + box["height"] > height + 1:
            span = f"{box['y']:.0f}..{box['y'] + box['height']:.0f} px"
            found.append(f"{name}: {span}, the screen ends at {height}")
    return found


# Every address the page's elements point at: icons, scripts, styles, images, frames.
ADDRESSES_JS = """() => [
  ...document.querySelectorAll("link[href], script[src], img[src], iframe[src], source[src]"),
].map((el) => el.href || el.src)"""


class OutsideRequests:
    """Records every request a tab makes, and every address its elements point at, to another origin
    than the server's: a classroom may be offline, and the app promises never to phone home."""

    def __init__(self, tab, origin: str) -> None:
        self.origin, self.tab, self.requests = origin, tab, []
        tab.on("request", lambda request: self._note(request.url))

    def _note(self, url: str) -> None:
        if not self._local(url):
            self.requests.append(url)

    def _local(self, url: str) -> bool:
        return url.startswith((self.origin + "/", "data:", "blob:", "about:")) or url == self.origin

    def found(self) -> list[str]:
        """The outside requests so far, and the outside addresses the page now points at."""
        pointed = [url for url in self.tab.evaluate(ADDRESSES_JS) if not self._local(url)]
        return sorted(set(self.requests) | {f"points at {url}" for url in pointed})


def rgb(colour: str) -> tuple[int, int, int]:
    """(r, g, b) of '#rrggbb' or of a browser's 'rgb(r, g, b)' / 'rgba(r, g, b, a)'."""
    if colour.startswith("#"):
        return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return tuple(int(float(part)) for part in colour[colour.index("(") + 1 : -1].split(",")[:3])


def faded(colour: str, opacity: float, paper: str) -> tuple[int, int, int]:
    """What ``colour`` drawn at ``opacity`` over ``paper`` looks like."""
    return tuple(round(opacity * c + (1 - opacity) * p) for c, p in zip(rgb(colour), rgb(paper), strict=True))


def contrast(one: tuple[int, int, int], other: tuple[int, int, int]) -> float:
    """WCAG contrast ratio of two colours, 1 to 21 (small text needs 4.5)."""

    def luminance(colour: tuple[int, int, int]) -> float:
        share = [c / 255 for c in colour]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in share]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)
