"""Teacher and student in Chromium, signed in through the local OIDC provider: two users at once, and what a
teacher types or a Spanish browser meets on the way in."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from linecnn.bench.document import BenchDocument
from linecnn.bench.store import History
from tests.bench_fixture import fake_gpu_document
from tests.helpers import ROOT, StreamlitServer, in_ci, stop_processes, wait_for_app
from tests.oidc_provider import ACCOUNT, STUDENT, OidcProvider, node_missing_reason

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def class_app(tmp_path_factory) -> Iterator[StreamlitServer]:
    """The app with Ada as the class's teacher and one GPU run in its history, and its OIDC provider."""
    reason = node_missing_reason()
    if reason is not None:
        if in_ci():
            pytest.fail(f"{reason}; the login tests are mandatory in CI")
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("class")
    History(folder / "bench.sqlite3").save(BenchDocument.from_dict(fake_gpu_document(gpu_only=False)), "cli")
    env = {
        "LINECNN_DATA_DIR": str(folder),
        "LINECNN_TEACHERS": ACCOUNT["email"],
        "STREAMLIT_SECRETS_FILES": str(folder / "secrets.toml"),
    }
    app = StreamlitServer(env)
    provider = OidcProvider([app.url])
    (folder / "secrets.toml").write_text(provider.secrets_toml(app.url))  # needs only the provider's address
    app.launch()  # side by side with the provider
    try:
        provider.start()
        yield app.wait_until_healthy()
    finally:
        stop_processes([app.process, provider.process])


def sign_in(tab, app: StreamlitServer, login: str) -> None:
    """Through the provider's login and consent forms as ``login``, back to the Benchmark page."""
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


def test_a_student_cannot_delete_or_reserve_and_a_teachers_reservation_refuses_their_run(class_app, browser):
    """Grace, a student, sees no Delete or Reserve; Ada, the teacher, reserves; Grace's Run is refused.

    Ada's 1000 minutes are refused with the range and Reserve waits; 20 typed and Reserve pressed at once
    reserve 20 minutes, never the 90 the box last accepted nor the 45 it offered first."""
    size = {"width": 1366, "height": 900}
    contexts = [browser.new_context(viewport=size, timezone_id="UTC") for _ in range(2)]
    student, teacher = (context.new_page() for context in contexts)
    for tab in (student, teacher):
        tab.set_default_timeout(90_000)
    try:
        sign_in(student, class_app, STUDENT["login"])
        expect(student.get_by_text("Class board").first).to_be_visible()
        assert student.get_by_text("Delete a run").count() == 0
        assert student.get_by_text("Class controls").count() == 0
        expect(student.get_by_text("You have no runs in this server's history yet")).to_be_visible()

        sign_in(teacher, class_app, ACCOUNT["login"])
        teacher.get_by_text("Class controls").click()
        minutes = teacher.get_by_label("Minutes", exact=True)
        reserve = teacher.get_by_role("button", name="Reserve", exact=True)
        minutes.fill("1000")
        minutes.press("Enter")
        refusal = "1,000 is outside the allowed range. Enter a number from 1 to 240."
        expect(teacher.get_by_text(refusal)).to_be_visible()
        expect(reserve).to_be_disabled()
        minutes.fill("90")
        minutes.press("Enter")
        expect(reserve).to_be_enabled()
        minutes.fill("20")  # no Enter: the click itself takes the typed number along
        before = datetime.now(UTC)
        reserve.click()
        teacher.get_by_text("The benchmark is reserved until").wait_for()
        assert timedelta(minutes=18) <= reserved_for(teacher, before) <= timedelta(minutes=22)
        # The notice above must not close the class controls: End the reservation stays in sight.
        expect(teacher.get_by_role("button", name="End the reservation")).to_be_visible()
        _shot(teacher, "teacher-reserved")

        student.reload()
        wait_for_app(student)
        student.get_by_text("Ada Lovelace has reserved the benchmark until").first.wait_for()
        student.get_by_role("button", name="Run benchmark").click()
        student.get_by_text("Run refused: Ada Lovelace has reserved the benchmark until").wait_for()
        _shot(student, "student-refused")
    finally:
        for context in contexts:
            context.close()


def _shot(tab, name: str) -> None:
    """Keep a screenshot of each step under artifacts/, beside the servers' logs."""
    tab.screenshot(path=str(ROOT / "artifacts" / f"roles-{name}.png"), full_page=True)
