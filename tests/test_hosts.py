"""Host names of a hosted server: loopback always allowed, other refused names told which setting to change.

The server-level and browser checks are in test_hosting.py; these run the gate in-process.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.responses import PlainTextResponse
from streamlit import config

from linecnn.deploy.host_gate import (
    HOSTS_OPTION,
    HOSTS_VARIABLE,
    HostGate,
    allow_loopback,
    hosting_lifespan,
    refused_page,
)
from linecnn.deploy.host_names import LOOPBACK_NAMES, host_name, public_names, with_loopback
from tests.helpers import run_apart

PUBLIC = "class.example.org"


@pytest.fixture
def allowed_hosts() -> Iterator[None]:
    """server.allowedHosts set as a host sets it, restored afterwards."""
    before = list(config.get_option(HOSTS_OPTION))
    config.set_option(HOSTS_OPTION, [PUBLIC])
    yield
    config.set_option(HOSTS_OPTION, before)


def test_loopback_names_join_a_named_list_once():
    assert with_loopback([PUBLIC]) == [PUBLIC, *LOOPBACK_NAMES]
    assert with_loopback([PUBLIC, "LOCALHOST."]) == [PUBLIC, "LOCALHOST.", "127.0.0.1", "::1"]


@pytest.mark.parametrize("hosts", [[], ["*"], [PUBLIC, " * "]])
def test_a_list_that_allows_every_name_stays_as_it_is(hosts):
    """An empty list or '*' lets in every name: adding loopback would shut the others out."""
    assert with_loopback(hosts) == hosts


def test_public_names_leave_out_loopback_and_patterns():
    assert public_names([PUBLIC, "localhost", "::1", "*.example.org", "lab.school.edu"]) == [
        PUBLIC,
        "lab.school.edu",
    ]


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("class.example.org:8501", PUBLIC),
        ("[::1]:8501", "::1"),
        ("127.0.0.1", "127.0.0.1"),
        ("[::1", ""),
        (None, ""),
    ],
)
def test_host_name_drops_the_port(header, name):
    assert host_name(header) == name


def test_the_refusal_page_quotes_a_hostile_name_as_text():
    page = refused_page("<script>alert(1)</script>.example:80", "en", 8501)
    assert "<script>" not in page
    assert HOSTS_VARIABLE in page and "http://127.0.0.1:8501" in page


async def _app(scope, receive, send) -> None:
    """Stands for Streamlit behind the gate: every page answers 'app'."""
    await PlainTextResponse("app")(scope, receive, send)


def get(path: str, host: str, language: str = "") -> tuple[int, str]:
    """Status and body of a GET of ``path`` through HostGate, with ``host`` as the Host header."""
    path, _, query = path.partition("?")
    headers = [(b"host", host.encode()), (b"accept-language", language.encode())]
    scope = {"type": "http", "method": "GET", "path": path, "query_string": query.encode()}
    scope["headers"] = headers
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    run_apart(HostGate(_app)(scope, receive, send))
    body = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return sent[0]["status"], body.decode("utf-8")


@pytest.mark.parametrize("host", [PUBLIC, "localhost:8501", "127.0.0.1:8501", "[::1]:8501"])
def test_allowed_and_loopback_names_reach_the_app(allowed_hosts, host):
    allow_loopback()
    assert get("/Train", host) == (200, "app")


def test_a_refused_name_gets_a_page_naming_the_setting_in_the_browsers_language(allowed_hosts):
    status, english = get("/", "rebound.attacker.example:8501")
    assert status == 403
    assert "rebound.attacker.example" in english and HOSTS_VARIABLE in english
    assert english.startswith("<!DOCTYPE html>")
    _, spanish = get("/Train", "evil.example", "es-ES,es;q=0.9")
    assert 'lang="es"' in spanish and "variable de entorno" in spanish
    assert 'lang="es"' in get("/?lang=es", "evil.example")[1]


def test_health_checks_answer_under_any_name(allowed_hosts):
    assert get("/_stcore/health", "10.0.0.7:8501") == (200, "app")


def test_loopback_stays_allowed_when_streamlit_rereads_its_config(allowed_hosts):
    """A config file change makes Streamlit re-read everything; the loopback names come back with it."""

    async def reread_while_serving() -> list[str]:
        async with hosting_lifespan(None):
            config.get_config_options(force_reparse=True, options_from_flags={HOSTS_OPTION: [PUBLIC]})
            return list(config.get_option(HOSTS_OPTION))

    options = config._config_options  # the re-read replaces them: other tests get them back as they were
    try:
        assert run_apart(reread_while_serving()) == [PUBLIC, *LOOPBACK_NAMES]
    finally:
        config._config_options = options
