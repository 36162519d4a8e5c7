"""The hosted app (deploy/serve.py with its profile) and the laptop app as a class meets them: in
Chromium, over HTTP and over its WebSocket. Configs and the image: tests/test_hosting.py."""

from __future__ import annotations

import base64
import http.client
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.helpers import StreamlitServer, wait_for_app
from tests.test_hosting import LAUNCHER, PUBLIC_HOST, attempts, recorded_env


def websocket_status(port: int, host: str) -> int:
    """HTTP status of a WebSocket handshake on the app's stream, sent with ``host`` as the Host header."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(
            "GET",
            "/_stcore/stream",
            headers={
                "Host": host,
                "Upgrade": "websocket",
                "Connection": "Upgrade",
                "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
                "Sec-WebSocket-Version": "13",
            },
        )
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StreamlitServer, Path]]:
    """The app served by the launcher with the public host name, and only it, from the environment."""
    home = tmp_path_factory.mktemp("hosted")
    record = home / "record.txt"
    env = {**recorded_env(record, home), "STREAMLIT_SERVER_ALLOWED_HOSTS": PUBLIC_HOST}
    instance = StreamlitServer(env, pin_address=False, script=LAUNCHER).start()
    yield instance, record
    instance.stop()


@pytest.fixture
def laptop(tmp_path: Path) -> Iterator[tuple[StreamlitServer, Path]]:
    """`streamlit run app.py` in the repository as the README starts it: its config picks the address."""
    record = tmp_path / "record.txt"
    instance = StreamlitServer(recorded_env(record, tmp_path), pin_address=False).start()
    yield instance, record
    instance.stop()


def open_home(page, url: str) -> None:
    """Load the Home page in the browser and wait until its script has run."""
    page.goto(url)
    wait_for_app(page)
    # Waits for it: the status widget can read idle before the page's first script run is drawn.
    expect(page.get_by_role("heading", name="This machine")).to_be_visible(timeout=30_000)


@pytest.mark.browser
def test_laptop_start_up_and_first_page_reach_nothing_outside(page, laptop):
    server, record = laptop
    open_home(page, server.url)
    assert attempts(record) == []


@pytest.mark.browser
def test_hosted_start_up_and_first_page_reach_nothing_outside(page, hosted):
    server, record = hosted
    # By the loopback address, which the host's list does not name: it is always allowed.
    open_home(page, f"http://127.0.0.1:{server.port}")
    assert attempts(record) == []


def test_hosted_app_opens_its_websocket_only_for_allowed_host_names(hosted):
    """The public name and, whatever the host's list says, the loopback names; no other name."""
    server, _ = hosted
    assert websocket_status(server.port, PUBLIC_HOST) == 101
    assert websocket_status(server.port, f"localhost:{server.port}") == 101
    assert websocket_status(server.port, "rebound.attacker.example") == 403
    assert websocket_status(server.port, f"127.0.0.1:{server.port}") == 101
    assert websocket_status(server.port, f"[::1]:{server.port}") == 101


def page_request(port: int, host: str, language: str = "en") -> tuple[int, str]:
    """Status and body of the app's page asked for under ``host``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/Train", headers={"Host": host, "Accept-Language": language})
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", errors="replace")
    finally:
        connection.close()


def test_hosted_app_answers_a_refused_name_with_a_page_naming_the_setting(hosted):
    server, _ = hosted
    status, body = page_request(server.port, "rebound.attacker.example")
    assert status == 403
    assert "rebound.attacker.example" in body and "STREAMLIT_SERVER_ALLOWED_HOSTS" in body
    assert f"http://127.0.0.1:{server.port}" in body
    status, body = page_request(server.port, f"127.0.0.1:{server.port}")
    assert status == 200 and 'id="root"' in body  # Streamlit's own page


def test_hosted_start_up_banner_names_the_hosts_it_answers_to(hosted):
    server, _ = hosted
    log = server.log_path.read_text(encoding="utf-8", errors="replace")
    assert f"Host names allowed: {PUBLIC_HOST}, localhost, 127.0.0.1, ::1" in log
    assert f"https://{PUBLIC_HOST}/" in log and f"http://127.0.0.1:{server.port}/" in log


@pytest.mark.browser
@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_a_browser_under_a_refused_name_reads_which_setting_to_change(browser, hosted, locale):
    """Chromium takes every *.localhost name to this machine, under a name the server was not given."""
    server, _ = hosted
    context = browser.new_context(locale=locale)
    try:
        tab = context.new_page()
        tab.goto(f"http://class.localhost:{server.port}/")
        heading = "linecnn does not answer to this address" if locale == "en-US" else "linecnn no responde"
        expect(tab.get_by_role("heading", name=heading)).to_be_visible()
        expect(tab.get_by_text('STREAMLIT_SERVER_ALLOWED_HOSTS="class.localhost"')).to_be_visible()
    finally:
        context.close()
