"""In Chromium, every page in Spanish: no English the widgets write themselves, no number the English way.

The AppTest language check reads what our code gives Streamlit; this one reads the page as the
browser shows it, so it also sees what Streamlit and the drawing canvas write on their own: the
uploader's button and size limit, help icons' screen-reader names, the canvas toolbar's tooltips
(``title`` and ``aria-label`` attributes, inside the canvas's shadow root too), slider values and
table cells. Code blocks are left out: code is the same in both languages.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from linecnn.ui.builtin_texts import RULES
from tests.helpers import wait_for_app
from tests.i18n_check import english_numbers_in

pytestmark = pytest.mark.browser

WAIT_MS = 120_000  # the first Draw page of a server trains the default model
# Streamlit's and the canvas's English, as the patterns linecnn.ui.builtin_texts looks for.
BUILTIN_ENGLISH = [re.compile(pattern.replace("(?<", "(?P<")) for _, pattern, _ in RULES]

# Every visible text node outside code, and every title and aria-label, shadow roots included.
_READ_PAGE = """() => {
  const roots = [document];
  for (const host of document.querySelectorAll("div")) if (host.shadowRoot) roots.push(host.shadowRoot);
  const texts = [], labels = [];
  for (const root of roots) {
    for (const element of root.querySelectorAll("[title], [aria-label]")) {
      for (const name of ["title", "aria-label"]) {
        const value = element.getAttribute(name);
        if (value) labels.push(value.trim());
      }
    }
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const value = node.nodeValue.trim();
    if (value && !node.parentElement.closest('pre, code, [data-testid="stCode"], script, style')) {
      texts.push(value);
    }
  }
  return { texts, labels };
}"""


def english_on(tab) -> list[str]:
    """What the page shows in English although it is Spanish: widget texts and numbers."""
    page = tab.evaluate(_READ_PAGE)
    found = [f"widget: {text!r}" for text in page["texts"] + page["labels"] if is_builtin_english(text)]
    found += [f"number: {n!r} in {text[:60]!r}" for text in page["texts"] for n in english_numbers_in(text)]
    return found


def is_builtin_english(text: str) -> bool:
    """True when ``text`` is one of Streamlit's or the canvas's own English texts."""
    return any(pattern.fullmatch(text) for pattern in BUILTIN_ENGLISH)


def test_the_checker_knows_the_widgets_english():
    """The uploader's and the toolbar's English are recognised; the Spanish we write is not."""
    assert is_builtin_english("Upload") and is_builtin_english("8MB per file")
    assert is_builtin_english("Help for Imágenes por clase") and is_builtin_english("Reset canvas & history")
    assert not is_builtin_english("Subir") and not is_builtin_english("Ayuda sobre Imágenes por clase")


def open_in_spanish(tab, url: str) -> None:
    tab.goto(url)
    wait_for_app(tab, WAIT_MS)


def test_spanish_pages_show_no_english_of_the_widgets_and_no_english_numbers(server, page):
    """Home, Train with a finished run, Benchmark, Draw and Lesson in Spanish, as the browser shows them."""
    page.set_default_timeout(WAIT_MS)
    problems = {}
    open_in_spanish(page, f"{server.url}/Train?lang=es")
    page.get_by_role("button", name="Paso", exact=True).click()
    expect(page.get_by_role("button", name="Reanudar", exact=True)).to_be_visible(timeout=WAIT_MS)
    page.get_by_role("button", name="Detener", exact=True).click()
    expect(page.get_by_text("Comparar ejecuciones")).to_be_visible(timeout=WAIT_MS)
    wait_for_app(page, WAIT_MS)
    expect(page.get_by_role("button", name="Subir", exact=True)).to_be_visible()
    problems["Train"] = english_on(page)
    for name, path in (("Home", ""), ("Benchmark", "Benchmark"), ("Lesson", "Lesson")):
        open_in_spanish(page, f"{server.url}/{path}?lang=es")
        problems[name] = english_on(page)
    open_in_spanish(page, f"{server.url}/Draw?lang=es")
    expect(page.get_by_text("El lienzo está vacío.")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("div").filter(has=page.locator("canvas")).first).to_be_visible()
    page.wait_for_function(
        """() => [...document.querySelectorAll("div")].some(
            (host) => host.shadowRoot && host.shadowRoot.querySelector('[aria-label="Deshacer"]'))""",
        timeout=WAIT_MS,
    )
    problems["Draw"] = english_on(page)
    assert {name: found for name, found in problems.items() if found} == {}
