"""Real browser: a link to a Lesson section opens there in Spanish; Run shows the real output."""

import re

import pytest
from playwright.sync_api import expect

from linecnn.device import resolve
from tests.helpers import wait_for_app

pytestmark = pytest.mark.browser


@pytest.fixture
def spanish_page(tabs):
    """A tab in a browser set to Spanish, so an address without ?lang= opens in Spanish."""
    return tabs.lend(locale="es-ES")


def test_a_section_link_lands_there_and_run_shows_the_real_output_in_spanish(server, spanish_page):
    """/Lesson#move in a Spanish browser: the address gains ?lang=es and keeps #move, the section is on
    screen and reads in Spanish, each Run button has a name of its own, and section 3's prints where
    the data and model went."""
    page = spanish_page
    page.goto(f"{server.url}/Lesson#move")
    wait_for_app(page)
    page.get_by_role("heading", name="Lección: la GPU en PyTorch").wait_for()
    section = page.locator(".st-key-lesson-move")
    expect(section.get_by_role("heading", level=2)).to_contain_text("Mover los datos y el modelo")
    expect(page).to_have_url(re.compile(r"/Lesson\?lang=es#move$"))
    expect(section.get_by_role("heading", level=2)).to_be_in_viewport()
    output = page.locator(".st-key-lesson-output-move")
    # Each Run button has a name of its own, as a screen reader lists them: this one names its section.
    names = [f"Ejecutar la sección {number}" for number in (1, 2, 3, 5, 6, 7)]
    for name in [*names, "Ejecutar la sección 4: la solución"]:
        expect(page.get_by_role("button", name=name, exact=True)).to_have_count(1)
    output.get_by_role("button", name="Ejecutar la sección 3", exact=True).click()
    device = str(resolve("auto"))  # the sidebar starts on the lesson's pattern: the GPU when there is one
    expect(output.locator('[data-testid="stCode"]')).to_contain_text(f"después: {device} {device} {device}")
    expect(output).to_contain_text("Salida real de la última ejecución")
    assert page.locator('[data-testid="stException"]').count() == 0
