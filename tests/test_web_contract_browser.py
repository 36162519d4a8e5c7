"""The page scripts' contract: what each file in linecnn/ui/web names in its header is on its pages.

One visit per page, in English, and three actions (ACTIONS: a box typed in, a dropdown opened, the
sidebar collapsed) for what only they show. A Streamlit or canvas upgrade that renames a test id, a class, an
English text or a theme variable a script relies on fails here, naming the file and the selector,
instead of leaving the script to find nothing, silently, in every browser.
"""

from __future__ import annotations

from contextlib import suppress

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from linecnn.ui.web import ACTIONS, PAGES, Reliance, header, names
from tests.helpers import wait_for_app

ADDRESSES = {"Home": "/", "Train": "/Train", "Benchmark": "/Benchmark", "Draw": "/Draw", "Lesson": "/Lesson"}
WAIT_MS = 15_000  # how long a page may take to draw what its scripts rely on (the canvas comes last)
# For each [kind, value]: true when found in the page, shadow roots included; a string when the
# selector or expression is not valid at all.
FOUND_JS = """(entries) => {
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {
    for (const element of roots[i].querySelectorAll("*")) {
      if (element.shadowRoot) roots.push(element.shadowRoot);
    }
  }
  let texts = null;  // gathered only when a text is asked for
  const allTexts = () => {
    const found = [];
    for (const root of roots) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) found.push(node.nodeValue.trim());
      for (const element of root.querySelectorAll("[title], [aria-label], [data-title]")) {
        for (const name of ["title", "aria-label", "data-title"]) {
          if (element.hasAttribute(name)) found.push(element.getAttribute(name));
        }
      }
    }
    return found;
  };
  const hosts = [document.documentElement, ...roots.slice(1).map((root) => root.host)];
  return entries.map(([kind, value]) => {
    try {
      if (kind === "selector") return roots.some((root) => root.querySelector(value) !== null);
      if (kind === "text") {
        const pattern = new RegExp(value);
        texts = texts || allTexts();
        return texts.some((text) => pattern.test(text));
      }
      return hosts.some((host) => getComputedStyle(host).getPropertyValue(value).trim() !== "");
    } catch (error) {
      return String(error);
    }
  });
}"""


def reliances() -> list[Reliance]:
    """Every relies-on line of every file in linecnn/ui/web."""
    return [reliance for name in names() for reliance in header(name).relies_on]


def act(tab, action: str) -> None:
    """Perform one of linecnn.ui.web.ACTIONS on the open page."""
    if action == "typing":
        tab.locator('[data-testid="stTextInput"] input').first.press_sequentially("1", timeout=WAIT_MS)
    elif action == "dropdown":  # Benchmark's devices, filtered by a name no device has: "No results"
        box = tab.locator('[data-testid="stMultiSelect"] input').first
        box.click(timeout=WAIT_MS)
        box.press_sequentially("zzz", timeout=WAIT_MS)
    else:  # the collapse button shows while the pointer is over the sidebar
        tab.locator('[data-testid="stSidebar"]').hover(timeout=WAIT_MS)
        tab.locator('[data-testid="stSidebarCollapseButton"] button').click(timeout=WAIT_MS)


def missing(tab, wanted: list[Reliance]) -> list[tuple[Reliance, object]]:
    """Wait until each of ``wanted`` is found on the open page; return those never found, with why."""
    entries = [[reliance.kind, reliance.value] for reliance in wanted]
    every = f"(entries) => ({FOUND_JS})(entries).every((found) => found === true)"
    with suppress(PlaywrightTimeout):  # what is still missing then is said below
        tab.wait_for_function(every, arg=entries, timeout=WAIT_MS)
    found = tab.evaluate(FOUND_JS, entries)
    return [(reliance, result) for reliance, result in zip(wanted, found, strict=True) if result is not True]


def test_every_page_has_what_its_scripts_rely_on(server, page):
    """Each selector, English text and theme variable a header names is found on each page it names."""
    checked = [reliance for reliance in reliances() if reliance.needs is None]
    failures: dict[str, list[str]] = {}  # what is missing -> where
    for name in PAGES:
        page.goto(server.url + ADDRESSES[name])
        wait_for_app(page)
        for action in (None, *ACTIONS):
            wanted = [reliance for reliance in checked if name in reliance.pages and reliance.after == action]
            if not wanted:
                continue
            where = f"{name} after {action}" if action else name
            try:
                if action is not None:
                    act(page, action)
            except PlaywrightTimeout as error:
                what = f"could not perform {action}: {error.message.splitlines()[0]}"
                failures.setdefault(what, []).append(name)
                continue
            for reliance, why in missing(page, wanted):
                reason = "not found" if why is False else why
                what = f"{reliance.file}: {reliance.kind} {reliance.value} -- {reason} on"
                failures.setdefault(what, []).append(where)
    unchecked = len(reliances()) - len(checked)
    lines = [f"{what} {', '.join(on)}" for what, on in failures.items()]
    summary = f"{len(lines)} of {len(checked)} checked ({unchecked} more need a state not made here)"
    assert not failures, summary + ":\n" + "\n".join(lines)
