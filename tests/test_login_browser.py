"""Sign-in end to end: Chromium, the app, and a real OIDC provider (oidc-provider under node)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.helpers import ROOT, StreamlitServer, in_ci, wait_for_app
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


@pytest.fixture(scope="session")
def login_app(server_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> StreamlitServer:
    """The app's server, not started yet: the provider must know its URL first."""
    secrets_path = tmp_path_factory.mktemp("login") / "secrets.toml"
    return StreamlitServer({**server_env, "STREAMLIT_SECRETS_FILES": str(secrets_path)})


@pytest.fixture(scope="session")
def oidc_provider(node: None, login_app: StreamlitServer) -> Iterator[OidcProvider]:
    """The test OIDC provider, with one client that returns to ``login_app``."""
    provider = OidcProvider(login_app.url).start()
    yield provider
    provider.stop()


@pytest.fixture(scope="session")
def login_server(login_app: StreamlitServer, oidc_provider: OidcProvider) -> Iterator[StreamlitServer]:
    """The app with an [auth] section pointing at the provider, in a secrets file outside the repo."""
    with open(login_app.env["STREAMLIT_SECRETS_FILES"], "w") as secrets:
        secrets.write(oidc_provider.secrets_toml())
    login_app.start()
    yield login_app
    login_app.stop()


def test_sign_in_through_the_provider_then_log_out(login_server, oidc_provider, page):
    page.goto(login_server.url)
    page.get_by_role("heading", name=SIGN_IN_HEADER).wait_for()
    assert page.get_by_test_id("stPageLink").count() == 0, "no page is reachable before sign-in"
    _shot(page, "sign-in")

    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(re.escape(oidc_provider.issuer) + "/interaction/"))
    page.locator("input[name=login]").fill(ACCOUNT["login"])
    page.locator("input[name=password]").fill("any password")
    _shot(page, "provider-login")
    page.get_by_role("button", name="Sign-in").click()

    page.get_by_role("button", name="Continue").click()  # the provider's consent screen
    page.wait_for_url(re.compile(re.escape(login_server.url)))
    wait_for_app(page)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text(f"Signed in as {ACCOUNT['name']}").wait_for()
    page.get_by_role("heading", name="linecnn", exact=True).wait_for()
    assert sidebar.get_by_test_id("stPageLink").count() == 4
    _shot(page, "signed-in")

    sidebar.get_by_role("button", name="Log out").click()
    page.get_by_role("button", name="Yes, sign me out").click()  # the provider's logout confirmation
    page.get_by_role("heading", name=SIGN_IN_HEADER).wait_for()
    assert page.get_by_text(f"Signed in as {ACCOUNT['name']}").count() == 0


def _shot(page, name: str) -> None:
    """Keep a screenshot of each step under artifacts/, beside the servers' logs."""
    page.screenshot(path=str(ROOT / "artifacts" / f"login-{name}.png"))
