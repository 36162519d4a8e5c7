"""Both languages in a real browser: ?lang= links, the sidebar toggle, page switches, the browser locale."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.draw_helpers import DRAWN, INKED_JS, Stroke, draw, stroke_landed, wait_until

pytestmark = pytest.mark.browser

DRAW_TIMEOUT = 120_000  # the first Draw page of a server trains the default model
WAIT = 60_000  # each click reruns the page: on a loaded 2-core machine that took up to 30 s


def sidebar(tab):
    return tab.get_by_test_id("stSidebar")


def heading(tab, name: str):
    return tab.get_by_role("heading", name=name, exact=True)


def test_a_deep_link_opens_draw_in_spanish_and_the_toggle_changes_the_page_and_the_address(server, page):
    """/Draw?lang=es: title, empty-canvas warning and the in-browser Clear button read in Spanish.
    Clicking English, then Español, redraws the page in that language and the URL's lang and the
    page's language tag follow;
    there, Borrar empties a drawn canvas."""
    page.goto(f"{server.url}/Draw?lang=es")
    expect(page.get_by_text("El lienzo está vacío.")).to_be_visible(timeout=DRAW_TIMEOUT)
    expect(heading(page, "Dibujar")).to_be_visible(timeout=WAIT)
    expect(page.get_by_role("button", name="Borrar", exact=True)).to_be_visible(timeout=WAIT)
    expect(sidebar(page).get_by_role("link", name="Inicio")).to_be_visible(timeout=WAIT)
    assert page.get_by_text("The canvas is empty.").count() == 0
    # The page's language tag follows, so a screen reader reads Spanish with a Spanish voice.
    expect(page.locator("html")).to_have_attribute("lang", "es", timeout=WAIT)

    sidebar(page).get_by_role("radio", name="English").click(timeout=WAIT)
    expect(heading(page, "Draw")).to_be_visible(timeout=WAIT)
    expect(page.locator("html")).to_have_attribute("lang", "en", timeout=WAIT)
    expect(page.get_by_role("button", name="Clear", exact=True)).to_be_visible(timeout=WAIT)
    expect(page).to_have_url(re.compile(r"/Draw\?lang=en$"), timeout=WAIT)
    sidebar(page).get_by_role("radio", name="Español").click(timeout=WAIT)
    expect(heading(page, "Dibujar")).to_be_visible(timeout=WAIT)
    expect(page).to_have_url(re.compile(r"/Draw\?lang=es$"), timeout=WAIT)

    # Spanish Clear empties the canvas: it finds the canvas's reset by a label the translator rewrote.
    draw(page, Stroke("vertical", "vertical", ((100, 30), (104, 250))))
    assert stroke_landed(page), "the stroke left no ink"
    expect(page.get_by_text("El lienzo está vacío.")).to_have_count(0, timeout=WAIT)
    page.get_by_role("button", name="Borrar", exact=True).click(timeout=WAIT)
    assert not wait_until(page, lambda: page.locator(DRAWN).evaluate(INKED_JS), False), "Borrar left ink"
    expect(page.get_by_text("El lienzo está vacío.")).to_be_visible(timeout=WAIT)


def test_the_language_survives_a_sidebar_page_switch(server, page):
    """Spanish chosen on Home stays on Draw and back, when moving through the sidebar's links."""
    page.goto(server.url)
    expect(heading(page, "This machine")).to_be_visible(timeout=WAIT)
    sidebar(page).get_by_role("radio", name="Español").click(timeout=WAIT)
    expect(heading(page, "Esta máquina")).to_be_visible(timeout=WAIT)
    sidebar(page).get_by_role("link", name="Dibujar").click(timeout=WAIT)
    expect(page.get_by_text("El lienzo está vacío.")).to_be_visible(timeout=DRAW_TIMEOUT)
    expect(heading(page, "Dibujar")).to_be_visible(timeout=WAIT)
    expect(page).to_have_url(re.compile(r"/Draw\?lang=es$"), timeout=WAIT)
    sidebar(page).get_by_role("link", name="Inicio").click(timeout=WAIT)
    expect(heading(page, "Esta máquina")).to_be_visible(timeout=WAIT)
    expect(page).to_have_url(re.compile(r"/\?lang=es$"), timeout=WAIT)


def test_a_spanish_browser_starts_in_spanish(server, tabs):
    """A browser set to Spanish (es-ES) opening the bare address gets Spanish; one set to English, English."""
    for locale, machine in (("es-ES", "Esta máquina"), ("en-US", "This machine")):
        tab = tabs.lend(locale=locale)
        tab.goto(server.url)
        expect(heading(tab, machine)).to_be_visible(timeout=WAIT)
        expect(tab).to_have_url(re.compile(rf"/\?lang={locale[:2]}$"), timeout=WAIT)
