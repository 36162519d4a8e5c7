"""Sign-in end to end: Chromium, the app, and a real OIDC provider (oidc-provider under node)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.helpers import ROOT, StreamlitServer, in_ci, stop_processes, wait_for_app
from tests.oidc_provider import ACCOUNT, OidcProvider, node_missing_reason

pytestmark = pytest.mark.browser

SIGN_IN_HEADER = "Sign in to linecnn"


@pytest.fixture(scope="session")
def node() -> None:
    """Skips locally without node or the provider's packages; fails under CI, which installs both."""
    reason = node_missing_reason()
    if reason is not None:
        if in_ci():
            pytest.fail(f"{reason}; the login tests are mandatory in CI")
        pytest.skip(reason)


def _unstarted_app(server_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> StreamlitServer:
    """An app server whose secrets file lies in a temporary folder, outside the repo."""
    secrets_path = tmp_path_factory.mktemp("login") / "secrets.toml"
    return StreamlitServer({**server_env, "STREAMLIT_SECRETS_FILES": str(secrets_path)})


@pytest.fixture(scope="session")
def login_app(server_env, tmp_path_factory) -> StreamlitServer:
    """The app open to every account of the provider; not started yet, the provider needs its URL."""
    return _unstarted_app(server_env, tmp_path_factory)


@pytest.fixture(scope="session")
def allow_list_app(server_env, tmp_path_factory) -> StreamlitServer:
    """The app open only to school.edu addresses; not started yet."""
    return _unstarted_app(server_env, tmp_path_factory)


@pytest.fixture(scope="session")
def oidc_provider(node: None, login_app, allow_list_app) -> Iterator[OidcProvider]:
    """The test OIDC provider, with one client that may return to either app. The apps' secrets need
    only the provider's address, so both apps start side by side with it; each test waits for its own."""
    provider = OidcProvider([login_app.url, allow_list_app.url])
    _launch(login_app, provider.secrets_toml(login_app.url))
    _launch(allow_list_app, provider.secrets_toml(allow_list_app.url, ["school.edu"]))
    try:
        yield provider.start()
    finally:
        stop_processes([provider.process, login_app.process, allow_list_app.process])


def _launch(app: StreamlitServer, secrets_toml: str) -> None:
    with open(app.env["STREAMLIT_SECRETS_FILES"], "w") as secrets:
        secrets.write(secrets_toml)
    app.launch()


@pytest.fixture(scope="session")
def login_server(login_app, oidc_provider) -> StreamlitServer:
    """The app with an [auth] section pointing at the provider."""
    return login_app.wait_until_healthy()


@pytest.fixture(scope="session")
def allow_list_server(allow_list_app, oidc_provider) -> StreamlitServer:
    """The app with [auth] and an allow-list that the test account is not on."""
    return allow_list_app.wait_until_healthy()


def _sign_in(page, app: StreamlitServer, provider: OidcProvider, shot_prefix: str) -> None:
    """From the app's sign-in screen through the provider's login and consent forms, back to the app."""
    page.goto(app.url)
    page.get_by_role("heading", name=SIGN_IN_HEADER).wait_for()
    assert page.get_by_test_id("stPageLink").count() == 0, "no page is reachable before sign-in"
    _shot(page, f"{shot_prefix}sign-in")

    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(re.escape(provider.issuer) + "/interaction/"))
    page.locator("input[name=login]").fill(ACCOUNT["login"])
    page.locator("input[name=password]").fill("any password")
    _shot(page, f"{shot_prefix}provider-login")
    page.get_by_role("button", name="Sign-in").click()
    page.get_by_role("button", name="Continue").click()  # the provider's consent form
    page.wait_for_url(re.compile(re.escape(app.url)))


def _log_out(page, button) -> None:
    """Log out, confirm on the provider's logout page, and land on the sign-in screen again."""
    button.click()
    page.get_by_role("button", name="Yes, sign me out").click()
    page.get_by_role("heading", name=SIGN_IN_HEADER).wait_for()
    assert page.get_by_text("Signed in as").count() == 0


def test_sign_in_through_the_provider_then_log_out(login_server, oidc_provider, page):
    _sign_in(page, login_server, oidc_provider, "")
    wait_for_app(page)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text(f"Signed in as {ACCOUNT['name']}").wait_for()
    page.get_by_role("heading", name="linecnn", exact=True).wait_for()
    expect(sidebar.get_by_test_id("stPageLink")).to_have_count(5)
    _shot(page, "signed-in")

    _log_out(page, sidebar.get_by_role("button", name="Log out"))


def test_an_account_off_the_allow_list_is_told_so_and_can_log_out(allow_list_server, oidc_provider, page):
    _sign_in(page, allow_list_server, oidc_provider, "allow-list-")
    page.get_by_role("heading", name="This account has no access").wait_for()
    refusal = page.get_by_text("which is not on this class's list")
    refusal.wait_for()
    # The address is shown as text: an invisible word joiner keeps it from turning into a mailto link.
    assert f"You are signed in as {ACCOUNT['email']}," in refusal.inner_text().replace("\u2060", "")
    assert page.get_by_test_id("stPageLink").count() == 0
    assert page.get_by_role("heading", name="linecnn", exact=True).count() == 0
    _shot(page, "not-allowed")

    _log_out(page, page.get_by_role("button", name="Log out"))


def _shot(page, name: str) -> None:
    """Keep a screenshot of each step under artifacts/, beside the servers' logs."""
    page.screenshot(path=str(ROOT / "artifacts" / f"login-{name}.png"))
