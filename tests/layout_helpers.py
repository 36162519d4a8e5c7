"""Reading a page's layout in the browser: text cut short, horizontal overflow, positions below the
fold, and requests to other hosts."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.draw_helpers import CANVAS, PREDICTION, Stroke, draw, read_prediction

VIEWPORTS = {1024: 768, 800: 600, 390: 844}  # width: height, a projector's two and a phone's
SIDEBAR = "[data-testid='stSidebar']"

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
        tab.on("request", self._on_request)

    def _on_request(self, request) -> None:
        self._note(request.url)

    def stop(self) -> None:
        """Stop recording: the tab goes on to other pages, for another recorder."""
        self.tab.remove_listener("request", self._on_request)

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


def wait_for_page(tab, timeout_ms: int = 120_000) -> None:
    """Wait until the page's script has run to the end (the sidebar may be hidden on a phone)."""
    tab.locator(f"{SIDEBAR} [data-testid='stPageLink']").first.wait_for(state="attached", timeout=timeout_ms)
    tab.wait_for_function(
        """() => {
            const status = document.querySelector('[data-testid="stStatusWidget"]');
            return !status || !status.innerText.includes('Running');
        }""",
        timeout=timeout_ms,
    )


def fill_page(tab, path: str, run: int = 1) -> None:
    """Bring the page to its fullest state: Train after a short run (the session's ``run``-th), Draw
    with a prediction."""
    if path == "Train":
        epochs = tab.get_by_label("Epochs", exact=True)  # not a summary heading that names its epochs
        epochs.fill("3")
        epochs.press("Enter")
        wait_for_page(tab)
        tab.get_by_role("button", name="Start").click()
        tab.get_by_text(f"Summary · Run {run}").wait_for(timeout=120_000)
        expect(tab.get_by_role("button", name="Start")).to_be_enabled(timeout=60_000)  # the run is over
        wait_for_page(tab)
    if path == "Draw":
        tab.locator(CANVAS).scroll_into_view_if_needed()
        draw(tab, Stroke("v", "vertical", ((140, 20), (140, 260))))
        read_prediction(tab, 60_000)


# The colour and opacity of the page's first caption, the fill of a chart's axis number, the paper.
_SMALL_TEXT_JS = """() => {
  const style = (selector) => getComputedStyle(document.querySelector(selector));
  const caption = style("[data-testid='stMain'] [data-testid='stCaptionContainer']");
  const tick = style(".stPlotlyChart .xtick text");
  return [caption.color, parseFloat(caption.opacity), tick.fill, style(".stApp").backgroundColor];
}"""


def assert_small_text_reads_on_a_projector(tab) -> None:
    """A caption and a chart's axis numbers reach 4.5:1 on the page's paper, as text of their size needs."""
    colour, opacity, tick, paper = tab.evaluate(_SMALL_TEXT_JS)
    assert contrast(faded(colour, opacity, paper), rgb(paper)) >= 4.5, "captions too pale"
    assert contrast(rgb(tick), rgb(paper)) >= 4.5, "chart axis numbers too pale"


def band_under_the_input_choice(tab) -> float:
    """Pixels between Draw's input choice and the next thing below it in its row of choices (the model
    line when the row wraps): Streamlit's ordinary gap is 16."""
    return tab.evaluate("""() => {
        const mode = document.querySelector(".st-key-draw-mode").getBoundingClientRect();
        const below = [...document.querySelectorAll(".st-key-draw-choices > *")]
            .map((child) => child.getBoundingClientRect().top).filter((top) => top >= mode.bottom);
        return below.length ? Math.min(...below) - mode.bottom : 0;
    }""")


def assert_the_verdict_follows_the_canvas_on_one_phone_screen(tab) -> None:
    """On a phone the verdict sits under the canvas: both fit on one screen, with no scrolling between."""
    canvas = tab.locator(CANVAS).bounding_box()
    verdict = tab.locator(PREDICTION).bounding_box()
    assert verdict["y"] > canvas["y"]
    assert verdict["y"] + verdict["height"] - canvas["y"] <= VIEWPORTS[390], "the verdict is screens away"
