"""Reading a page as the browser shows it, for the check that a Spanish page shows no English.

The AppTest language check reads what our code gives Streamlit; this reads the page as the
browser shows it, so it also sees what Streamlit and the drawing canvas write on their own: the
uploader's button and size limit, help icons' screen-reader names, the canvas toolbar's tooltips
(``title`` and ``aria-label`` attributes, inside the canvas's shadow root too), slider values and
table cells. Code blocks are left out: code is the same in both languages.
"""

from __future__ import annotations

import re
import time

from playwright.sync_api import expect

from linecnn.ui.i18n import translate
from tests.helpers import wait_for_app
from tests.i18n_check import english_numbers_in, is_builtin_english, is_untranslated
from tests.layout_helpers import settled_layout_problems

PYTHON_ERROR = re.compile(r"\w+Error: ")  # PyTorch's own words, quoted as it says them
CODE_NAME = re.compile(r"[a-z_][a-z0-9_.]*")  # a name from the code, e.g. the lesson's `device`
WAIT_MS = 120_000  # the first Draw page of a server trains the default model

# Every visible text node outside code, and every title, aria-label and data-title (Plotly's
# tooltips), shadow roots included.
_READ_PAGE = """() => {
  const roots = [document];
  for (const host of document.querySelectorAll("div")) if (host.shadowRoot) roots.push(host.shadowRoot);
  const texts = [], labels = [];
  for (const root of roots) {
    for (const element of root.querySelectorAll("[title], [aria-label], [data-title]")) {
      for (const name of ["title", "aria-label", "data-title"]) {
        const value = element.getAttribute(name);
        if (value) labels.push(value.trim());
      }
    }
  }
  // Code, and icons: a Material icon is a word ("upload") its font draws as a picture.
  const skipped = ['pre, code, [data-testid="stCode"], [data-testid*="Icon"]', 'script, style, noscript'];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const value = node.nodeValue.trim();
    if (value && !node.parentElement.closest(skipped.join(', '))) {
      texts.push(value);
    }
  }
  return { texts, labels };
}"""


_NEXT_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
SETTLE_MS = 2000  # how long a widget's own English may stay on a Spanish page before it counts


def read_page(tab, language: str) -> tuple[list[str], list[str]]:
    """(visible texts outside code, title / aria-label / data-title values) of the page as shown.

    The translating script answers a change on the next animation frame; a Spanish page that still
    shows a widget's English is read again until SETTLE_MS have passed, so only English that stays
    counts."""
    deadline = time.monotonic() + SETTLE_MS / 1000
    while True:
        tab.evaluate(_NEXT_FRAMES)
        page = tab.evaluate(_READ_PAGE)
        texts, labels = page["texts"], page["labels"]
        settled = language == "en" or not any(is_builtin_english(text) for text in texts + labels)
        if settled or time.monotonic() > deadline:
            return texts, labels
        tab.wait_for_timeout(200)


def english_on(english: tuple[list[str], list[str]], spanish: tuple[list[str], list[str]]) -> list[str]:
    """What a Spanish page shows in English: the widgets' known texts, texts and labels it shows
    exactly as the English page does (words both languages share aside), and English numbers."""
    texts, labels = spanish
    found = [f"widget: {text!r}" for text in texts + labels if is_builtin_english(text)]
    same = set(english[0] + english[1]) & set(texts + labels)
    same = {text for text in same if not PYTHON_ERROR.match(text) and not CODE_NAME.fullmatch(text)}
    found += [f"untranslated: {text!r}" for text in sorted(same) if is_untranslated(text, text)]
    found += [f"number: {n!r} in {text[:60]!r}" for text in texts for n in english_numbers_in(text)]
    return found


WORDS = {  # the Train page's buttons and a heading the finished run shows, in each language
    "en": ("Step", "Resume", "Stop", "Compare runs"),
    "es": ("Paso", "Reanudar", "Detener", "Comparar ejecuciones"),
}


# Spanish words are longer than English ones: at a projector's 800 px and a phone's 390 px, what the
# English layout test passes may still be cut short in Spanish.
NARROW = ({"width": 800, "height": 600}, {"width": 390, "height": 844})


def cut_when_narrow(tab) -> list[str]:
    """What a reader would see cut short on the page at each NARROW size; the tab's size is put back."""
    wide = tab.viewport_size
    found = []
    for size in NARROW:
        tab.set_viewport_size(size)
        found += [f"{size['width']} px: {problem}" for problem in settled_layout_problems(tab)]
    tab.set_viewport_size(wide)
    return found


def assert_help_is_read_with_its_button(tab, language: str) -> None:
    """A focused help icon's "?" button has the widget's help text as what a screen reader reads after
    its name: Streamlit gives that description to an element around the button, which is never focused."""
    name = translate(language, "builtin.help_for", label=translate(language, "train.settings.width"))
    button = tab.get_by_role("button", name=name, exact=True)
    button.focus()
    expect(button).to_have_accessible_description(translate(language, "train.settings.width_help"))
    button.blur()  # the tooltip closes, as it would for a reader moving on


_TABLES_FILLED = """() => {
    const tables = [...document.querySelectorAll('[data-testid="data-grid-canvas"]')];
    return tables.length > 0 && tables.every((table) => table.querySelector("td"));
}"""
_HAS_TOOLBAR = """() => [...document.querySelectorAll("div")].some(
    (host) => host.shadowRoot && host.shadowRoot.querySelector(".dc-toolbar-card button"))"""


def back_in_english(tab, widgets: set[str]) -> set[str]:
    """The page's texts and labels once all of ``widgets`` show again, or after SETTLE_MS."""
    deadline = time.monotonic() + SETTLE_MS / 1000
    while True:
        texts, labels = read_page(tab, "en")
        if widgets <= set(texts + labels) or time.monotonic() > deadline:
            return set(texts + labels)
        tab.wait_for_timeout(200)


def bring_to_reading(tab, name: str, language: str) -> None:
    """From the page ``name`` as first loaded, the state its texts are read in: Train after a one-step
    run (paused, then stopped), Draw with its canvas toolbar, Benchmark with its tables' cells filled."""
    if name == "Train":
        step, resume, stop, compare = WORDS[language]
        tab.get_by_role("button", name=step, exact=True).click()
        expect(tab.get_by_role("button", name=resume, exact=True)).to_be_visible(timeout=WAIT_MS)
        tab.get_by_role("button", name=stop, exact=True).click()
        expect(tab.get_by_text(compare)).to_be_visible(timeout=WAIT_MS)
        wait_for_app(tab, WAIT_MS)
    if name == "Draw":  # the canvas builds its toolbar in its shadow root after the page is drawn
        tab.wait_for_function(_HAS_TOOLBAR, timeout=WAIT_MS)
    if name == "Benchmark":  # a table fills its screen reader's cells a moment after it is drawn
        tab.wait_for_function(_TABLES_FILLED, timeout=WAIT_MS)
