"""Real browser: the Lesson page in Spanish runs a snippet on the server and shows its real output."""

import pytest
from playwright.sync_api import expect

from linecnn.device import resolve
from tests.helpers import wait_for_app

pytestmark = pytest.mark.browser


def test_run_shows_the_real_output_in_spanish(server, page):
    """?lang=es: the section reads in Spanish, and Ejecutar prints where the data and model went."""
    page.goto(f"{server.url}/Lesson?lang=es")
    wait_for_app(page)
    page.get_by_role("heading", name="Lección: la GPU en PyTorch").wait_for()
    section = page.locator(".st-key-lesson-move")
    expect(section.get_by_role("heading", level=2)).to_contain_text("Mover los datos y el modelo")
    output = page.locator(".st-key-lesson-output-move")
    output.get_by_role("button", name="Ejecutar").click()
    device = str(resolve("auto"))  # the sidebar starts on the lesson's pattern: the GPU when there is one
    expect(output.locator('[data-testid="stCode"]')).to_contain_text(f"después: {device} {device} {device}")
    expect(output).to_contain_text("Salida real de la última ejecución")
    assert page.locator('[data-testid="stException"]').count() == 0
