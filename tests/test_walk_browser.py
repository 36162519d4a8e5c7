"""What a class trips on, walked in Chromium as a student on a phone and a teacher on a laptop would."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.helpers import StreamlitServer, in_ci, stop_processes, wait_for_app
from tests.oidc_provider import ACCOUNT, OidcProvider, node_missing_reason

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}


def test_the_lessons_closing_lists_stack_on_a_phone(server, browser):
    """On a phone, what to remember and the usual mistakes each take the page's width, one under the other,
    instead of two columns of a few words a line."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    tab = context.new_page()
    tab.set_default_timeout(60_000)
    try:
        tab.goto(f"{server.url}/Lesson")
        tab.get_by_text("Common mistakes").wait_for(state="attached")
        wait_for_app(tab)
        heading = tab.locator("h2#recap")
        heading.scroll_into_view_if_needed()
        rows = tab.locator("[data-testid='stHorizontalBlock']").filter(has_text="Common mistakes")
        columns = rows.last.locator("[data-testid='stColumn']")
        expect(columns).to_have_count(2)
        width = heading.bounding_box()["width"]
        remember, mistakes = (columns.nth(i).bounding_box() for i in range(2))
        assert remember["width"] >= 0.9 * width, (remember, width)
        assert mistakes["y"] >= remember["y"] + remember["height"], (remember, mistakes)
    finally:
        context.close()


def test_a_file_over_the_uploads_size_says_why_on_a_phone_in_spanish(server, browser):
    """A 3 MB JSON on a phone: the chip says, in Spanish, that files may be 2 MB at most, without a hover
    (a finger never hovers); the text is not only for screen readers."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="es-ES")
    tab = context.new_page()
    tab.set_default_timeout(60_000)
    try:
        tab.goto(f"{server.url}/Benchmark?lang=es")
        wait_for_app(tab)
        big = {"name": "grande.json", "mimeType": "application/json", "buffer": b" " * 3_000_000}
        tab.locator("[data-testid='stMain'] input[type=file]").first.set_input_files(big)
        refusal = "El archivo debe ocupar 2,0 MB como mucho."
        why = tab.locator("[data-testid='stFileChip']").get_by_text(refusal)
        why.wait_for(state="attached")
        why.scroll_into_view_if_needed()
        shown = why.bounding_box()
        assert shown is not None and shown["width"] > 100 and shown["height"] > 10, shown
    finally:
        context.close()


def test_an_empty_json_is_said_to_be_empty_not_broken_at_line_1_column_1(server, browser):
    """A 0-byte JSON (a download that failed) on Benchmark's import, in Spanish, and as Train's history:
    the page says the file is empty, not where its JSON breaks."""
    context = browser.new_context(viewport=LAPTOP, locale="es-ES")
    tab = context.new_page()
    tab.set_default_timeout(60_000)
    empty = {"name": "vacio.json", "mimeType": "application/json", "buffer": b""}
    try:
        tab.goto(f"{server.url}/Benchmark?lang=es")
        wait_for_app(tab)
        tab.locator("[data-testid='stMain'] input[type=file]").first.set_input_files(empty)
        expect(tab.get_by_text("Este archivo no es JSON válido (el archivo está vacío).")).to_be_visible()
        tab.goto(f"{server.url}/Train?lang=en")
        wait_for_app(tab)
        tab.locator("[data-testid='stMain'] input[type=file]").first.set_input_files(empty)
        expect(tab.get_by_text("is not valid JSON (the file is empty)")).to_be_visible()
    finally:
        context.close()


@pytest.fixture(scope="module")
def class_app(tmp_path_factory) -> Iterator[StreamlitServer]:
    """The app with Ada as the class's teacher, signed in through the local OIDC provider."""
    reason = node_missing_reason()
    if reason is not None:
        if in_ci():
            pytest.fail(f"{reason}; the login tests are mandatory in CI")
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("walk-class")
    env = {
        "LINECNN_DATA_DIR": str(folder),
        "LINECNN_TEACHERS": ACCOUNT["email"],
        "STREAMLIT_SECRETS_FILES": str(folder / "secrets.toml"),
    }
    app = StreamlitServer(env)
    provider = OidcProvider([app.url])
    (folder / "secrets.toml").write_text(provider.secrets_toml(app.url))
    app.launch()
    try:
        provider.start()
        yield app.wait_until_healthy()
    finally:
        stop_processes([app.process, provider.process])


def sign_in_to_benchmark(tab, app: StreamlitServer, login: str) -> None:
    """Through the provider's login and consent forms as ``login``, then to the Benchmark page."""
    tab.goto(f"{app.url}/Benchmark")
    tab.get_by_role("button", name="Log in").click()
    tab.locator("input[name=login]").fill(login)
    tab.locator("input[name=password]").fill("any password")
    tab.get_by_role("button", name="Sign-in").click()
    tab.get_by_role("button", name="Continue").click()  # the provider's consent form
    tab.wait_for_url(re.compile(re.escape(app.url)))
    tab.goto(f"{app.url}/Benchmark")  # the provider returns to the app's home page
    wait_for_app(tab)
    tab.get_by_role("heading", name="Class board").wait_for()


def reserved_for(tab, before: datetime) -> timedelta:
    """How long the reservation the page just announced lasts, from ``before`` (the click) to its end."""
    said = tab.get_by_text(re.compile(r"The benchmark is reserved until (\d\d:\d\d) UTC"))
    hour, minute = map(int, re.search(r"until (\d\d):(\d\d)", said.inner_text()).groups())
    until = before.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return until + (timedelta(days=1) if until < before else timedelta()) - before


def test_a_reservation_longer_than_allowed_is_refused_not_swapped_for_another(class_app, browser):
    """Ada types 1000 minutes: the page says the range and Reserve waits; 90 then reserves 90 minutes,
    never the 45 the box offered before; 20 typed and Reserve pressed at once reserves 20."""
    context = browser.new_context(viewport=LAPTOP, timezone_id="UTC")
    tab = context.new_page()
    tab.set_default_timeout(90_000)
    try:
        sign_in_to_benchmark(tab, class_app, ACCOUNT["login"])
        tab.get_by_text("Class controls").click()
        minutes = tab.get_by_label("Minutes", exact=True)
        reserve = tab.get_by_role("button", name="Reserve", exact=True)
        minutes.fill("1000")
        minutes.press("Enter")
        refusal = "1,000 is outside the allowed range. Enter a number from 1 to 240."
        expect(tab.get_by_text(refusal)).to_be_visible()
        expect(reserve).to_be_disabled()

        minutes.fill("90")
        minutes.press("Enter")
        expect(reserve).to_be_enabled()
        before = datetime.now(UTC)
        reserve.click()
        tab.get_by_text("The benchmark is reserved until").wait_for()
        assert timedelta(minutes=88) <= reserved_for(tab, before) <= timedelta(minutes=92)
        tab.get_by_role("button", name="End the reservation").click()
        tab.get_by_text("The reservation has ended").wait_for()

        minutes.fill("20")  # no Enter: the click itself takes the typed number along
        before = datetime.now(UTC)
        reserve.click()
        tab.get_by_text("The benchmark is reserved until").wait_for()
        assert timedelta(minutes=18) <= reserved_for(tab, before) <= timedelta(minutes=22)
        tab.get_by_role("button", name="End the reservation").click()
        tab.get_by_text("The reservation has ended").wait_for()
    finally:
        context.close()


def test_the_sign_in_screen_is_all_spanish_for_a_spanish_browser(class_app, browser):
    """Before signing in, a Spanish browser gets the skip link in Spanish and a page tagged lang="es", so a
    screen reader reads the screen with Spanish sounds."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="es-ES")
    tab = context.new_page()
    tab.set_default_timeout(90_000)
    try:
        tab.goto(f"{class_app.url}/Train")
        tab.get_by_role("button", name="Iniciar sesión").wait_for()
        expect(tab.locator("html")).to_have_attribute("lang", "es")
        expect(tab.get_by_role("link", name="Saltar al contenido principal")).to_have_count(1)
        expect(tab.get_by_text("Skip to main content")).to_have_count(0)
    finally:
        context.close()
