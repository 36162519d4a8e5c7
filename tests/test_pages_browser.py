"""Every page in English and Spanish, each loaded once per language and checked four ways on that visit.

- Accessibility: axe-core finds no serious or critical WCAG 2.0/2.1 A or AA violation on the page as
  first loaded.
- The page scripts' contract (English): what each file in linecnn/ui/web names in its header is on its
  pages, as loaded and after the three actions (ACTIONS: a box typed in, a dropdown opened, the sidebar
  collapsed) for what only they show. A Streamlit or canvas upgrade that renames a test id, a class, an
  English text or a theme variable a script relies on fails here, naming the file and the selector,
  instead of leaving the script to find nothing, silently, in every browser.
- The widgets' own words: a Spanish page shows no English that Streamlit or the canvas write themselves
  (tests/page_texts.py), no number the English way, and nothing cut short on a projector's or a phone's
  narrower screen; Train is read after a run, and a focused help icon is read with its help text.
- Layout (English): filled (Train after a short run, Draw with a prediction) and narrowed to a projector's
  1024 and 800 px and a phone's 390 px, nothing is cut short or off screen, the Draw prediction sits under
  its canvas on a phone, with no empty band under Draw's input choice; and the page asks no other host.

One visit serves the four, so each page is loaded and drawn once per language instead of four times: the
checks that only read the page come first, on the page as loaded; those that change it (a run, a stroke,
another width, an action) follow. A failure names the page, the language and the check.
"""

from __future__ import annotations

import json
import re
from contextlib import suppress
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from linecnn.bench.store import DB_NAME, History
from linecnn.device import cpu_model
from linecnn.ui.web import ACTIONS, PAGES, Reliance, header, names
from tests.axe_check import blocking_violations, load_axe, settled
from tests.bench_fixture import cpu_document
from tests.helpers import wait_for_app
from tests.i18n_check import is_builtin_english
from tests.layout_helpers import (
    VIEWPORTS,
    OutsideRequests,
    assert_small_text_reads_on_a_projector,
    assert_the_verdict_follows_the_canvas_on_one_phone_screen,
    band_under_the_input_choice,
    fill_page,
    settled_layout_problems,
)
from tests.page_texts import (
    WAIT_MS,
    assert_help_is_read_with_its_button,
    back_in_english,
    bring_to_reading,
    cut_when_narrow,
    english_on,
    read_page,
)

pytestmark = pytest.mark.browser

PATHS = {"Home": "", "Train": "Train", "Benchmark": "Benchmark", "Draw": "Draw", "Lesson": "Lesson"}
DESKTOP = {"width": 1400, "height": 1000}  # where a page is first loaded, read and audited
# English first: a Spanish page is compared with what the English one showed.
VISITS = [(language, name) for language in ("en", "es") for name in PAGES]
# Each page's (texts, labels) as its English visit read them, for its Spanish visit.
ENGLISH: dict[str, tuple[list[str], list[str]]] = {}
# Streamlit remembers a sidebar collapsed by hand in the browser's storage: the next visit, in the same
# tab, must find it as a new visitor does.
FORGET_THE_COLLAPSED_SIDEBAR = """() => Object.keys(localStorage)
    .filter((key) => key.startsWith("stSidebarCollapsed")).forEach((key) => localStorage.removeItem(key))"""
CONTRACT_WAIT_MS = 15_000  # how long a page may take to draw what its scripts rely on (the canvas comes last)

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
        box = tab.locator('[data-testid="stTextInput"] input').first
        box.press_sequentially("1", timeout=CONTRACT_WAIT_MS)
    elif action == "dropdown":  # Benchmark's devices, filtered by a name no device has: "No results"
        box = tab.locator('[data-testid="stMultiSelect"] input').first
        box.click(timeout=CONTRACT_WAIT_MS)
        box.press_sequentially("zzz", timeout=CONTRACT_WAIT_MS)
    else:  # the collapse button shows while the pointer is over the sidebar
        tab.locator('[data-testid="stSidebar"]').hover(timeout=CONTRACT_WAIT_MS)
        tab.locator('[data-testid="stSidebarCollapseButton"] button').click(timeout=CONTRACT_WAIT_MS)


def missing(tab, wanted: list[Reliance]) -> list[tuple[Reliance, object]]:
    """Wait until each of ``wanted`` is found on the open page; return those never found, with why."""
    entries = [[reliance.kind, reliance.value] for reliance in wanted]
    every = f"(entries) => ({FOUND_JS})(entries).every((found) => found === true)"
    with suppress(PlaywrightTimeout):  # what is still missing then is said below
        tab.wait_for_function(every, arg=entries, timeout=CONTRACT_WAIT_MS)
    found = tab.evaluate(FOUND_JS, entries)
    return [(reliance, result) for reliance, result in zip(wanted, found, strict=True) if result is not True]


def contract_failures(tab, name: str, action: str | None) -> list[str]:
    """What the page ``name`` lacks of what the headers say it has after ``action`` (None: as loaded),
    one line each: the file, the kind and value, why, and where; the action is performed first."""
    wanted = [r for r in reliances() if r.needs is None and name in r.pages and r.after == action]
    if not wanted:
        return []
    where = f"{name} after {action}" if action else name
    try:
        if action is not None:
            act(tab, action)
    except PlaywrightTimeout as error:
        return [f"could not perform {action}: {error.message.splitlines()[0]} on {name}"]
    lines = []
    for reliance, why in missing(tab, wanted):
        reason = "not found" if why is False else why
        lines.append(f"{reliance.file}: {reliance.kind} {reliance.value} -- {reason} on {where}")
    return lines


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe.min.js's text (see ``load_axe``)."""
    return load_axe()


@pytest.fixture(scope="module")
def stored_run(server_env: dict[str, str]):
    """A stored benchmark run on the shared server while the pages are visited, so the Benchmark page's
    class board has a table of fractional numbers (its cells as a screen reader reads them are page text)."""
    history = History(Path(server_env["LINECNN_DATA_DIR"]) / DB_NAME)
    # Named after this machine's CPU: a model name reads the same in both languages, as the check knows.
    text = json.dumps(cpu_document(1.0)).replace("Imaginary 16-core CPU (test fixture)", cpu_model())
    run_id = history.import_json(text)
    yield run_id
    history.delete(run_id)  # the other browser tests find the history as they left it


@pytest.fixture(scope="module")
def tab(browser):
    """One tab for every visit: each visit is a new page load, so a new session of the app, while the
    browser keeps what it has already fetched and compiled of the app's own scripts."""
    context = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    tab = context.new_page()
    tab.set_default_timeout(WAIT_MS)
    yield tab
    context.close()


def open_visit(tab, server, name: str, language: str) -> OutsideRequests:
    """Load the page ``name`` in ``language`` on a desktop screen and wait until it is settled; its
    requests to other hosts are recorded from the first one on."""
    tab.set_viewport_size(DESKTOP)
    outside = OutsideRequests(tab, server.url)
    tab.goto(f"{server.url}/{PATHS[name]}?lang={language}")
    settled(tab)
    return outside


def english_texts(browser, server, name: str) -> tuple[list[str], list[str]]:
    """The English page's texts as its English visit read them; read now when that visit has not run."""
    if name not in ENGLISH:
        context = browser.new_context(viewport=DESKTOP)
        own = context.new_page()
        own.set_default_timeout(WAIT_MS)
        open_visit(own, server, name, "en").stop()
        bring_to_reading(own, name, "en")
        ENGLISH[name] = read_page(own, "en")
        context.close()
    return ENGLISH[name]


def layout_failures(tab, name: str, widths: tuple[int, ...]) -> list[str]:
    """What each of ``widths`` shows cut short or off screen on the page, one line each; on Draw also a
    band under its input choice wider than Streamlit's ordinary gap, at any of them."""
    found, bands = [], {}
    for width in widths:
        tab.set_viewport_size({"width": width, "height": VIEWPORTS[width]})
        found += [f"layout at {width} px: {problem}" for problem in settled_layout_problems(tab)]
        if name == "Draw":
            bands[width] = band_under_the_input_choice(tab)
    if not all(band <= 24 for band in bands.values()):
        found.append(f"layout: empty band under Draw's input choice: {bands}")
    return found


@pytest.mark.parametrize(("language", "name"), VISITS, ids=[f"{name}-{lang}" for lang, name in VISITS])
def test_the_page_passes_axe_its_scripts_contract_its_language_and_its_layout(
    server, browser, tab, axe_source, stored_run, language, name
):
    """The page in ``language``, loaded once: axe, the contract (English), its texts and its layout."""
    outside = open_visit(tab, server, name, language)
    view = f"/{PATHS[name]}?lang={language}"
    try:
        problems = [f"axe: {line}" for line in blocking_violations(tab, axe_source, view)]
        if language == "en":
            problems += [f"contract: {line}" for line in contract_failures(tab, name, None)]
        bring_to_reading(tab, name, language)
        texts = read_page(tab, language)
        if name == "Train":
            assert_help_is_read_with_its_button(tab, language)
        if language == "en":
            ENGLISH[name] = texts
            problems += english_visit_rest(tab, name)
        else:
            problems += spanish_visit_rest(tab, name, texts, english_texts(browser, server, name))
        problems += [f"asks another host: {url}" for url in outside.found()]
    finally:
        outside.stop()
    assert not problems, f"{view}:\n" + "\n".join(problems)


def english_visit_rest(tab, name: str) -> list[str]:
    """The English visit after its texts are read: the page filled and narrowed to each of VIEWPORTS,
    then, back on a desktop screen, the contract's actions."""
    widest = max(VIEWPORTS)
    tab.set_viewport_size({"width": widest, "height": VIEWPORTS[widest]})
    fill_page(tab, PATHS[name], run=2)  # Train's first run is the one its texts were read after
    if name == "Train":
        assert_small_text_reads_on_a_projector(tab)
    problems = layout_failures(tab, name, tuple(VIEWPORTS))
    if name == "Draw":
        assert_the_verdict_follows_the_canvas_on_one_phone_screen(tab)
    tab.set_viewport_size(DESKTOP)
    wait_for_app(tab)
    for action in ACTIONS:
        problems += [f"contract: {line}" for line in contract_failures(tab, name, action)]
    tab.evaluate(FORGET_THE_COLLAPSED_SIDEBAR)
    return problems


def spanish_visit_rest(tab, name: str, texts, english) -> list[str]:
    """The Spanish visit after its texts are read: no English in them, nothing cut short on narrower
    screens, the class board's cells in Spanish numbers; on Draw, back to English mid-way, the widgets'
    English shows again (the Spanish script stops)."""
    problems = [f"English: {found}" for found in english_on(english, texts)]
    problems += [f"cut short at {found}" for found in cut_when_narrow(tab)]
    if name == "Benchmark" and not [text for text in texts[0] if re.fullmatch(r"\d+,\d+", text)]:
        problems.append("the class board's cells should be read as Spanish numbers")
    if name == "Draw":
        tab.locator('[data-testid="stSidebar"] button').filter(has_text="English").click()
        wait_for_app(tab, WAIT_MS)
        widgets = {text for text in english[0] + english[1] if is_builtin_english(text)}
        if not widgets:
            problems.append("the English Draw page showed none of the widgets' own English")
        back = back_in_english(tab, widgets)
        problems += [f"not back in English: {text!r}" for text in sorted(widgets - back)]
    return problems
