"""A page's address in lowercase (/train, /draw) opens that page with its query parameters; on a hosted
server, in any other case too."""

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from linecnn.deploy.page_case import page_address
from linecnn.ui.i18n import catalog
from linecnn.ui.sidebar import PAGES
from tests.helpers import run_apart

ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = "deploy/serve.py"
BASE_OPTION = "server.baseUrlPath"
PAGE_FILES = [(path, name) for path, name, _icon in PAGES if path != "app.py"]


def lowercase_address(path: str) -> str:
    """The file Streamlit serves at a page's address in lowercase: pages/1_Train.py -> pages/train.py."""
    return f"pages/{Path(path).stem.split('_', 1)[1].lower()}.py"


@pytest.mark.parametrize(("path", "name"), PAGE_FILES)
def test_a_lowercase_address_opens_its_page_in_the_linked_language(path, name):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.query_params["lang"] = "es"
    at.run()
    at.switch_page(lowercase_address(path)).run()
    assert not at.exception
    assert at.title[0].value.startswith(catalog("es")[f"sidebar.page.{name}"])  # that page, in Spanish
    assert at.query_params["lang"] == "es"


def test_every_page_has_its_lowercase_address_and_nothing_else_does():
    """A page added to the sidebar gets its lowercase address too; no address points nowhere."""
    aliases = {p.name for p in (ROOT / "pages").glob("*.py") if not p.name[0].isdigit()}
    assert aliases == {Path(lowercase_address(path)).name for path, _name in PAGE_FILES}
    for path, _name in PAGE_FILES:
        assert f'open_page("{path}")' in (ROOT / lowercase_address(path)).read_text(encoding="utf-8")


@pytest.fixture
def base_path() -> Iterator[Callable[[str], None]]:
    """Sets server.baseUrlPath as a host behind a path prefix sets it; restored afterwards."""
    before = config.get_option(BASE_OPTION)
    yield lambda base: config.set_option(BASE_OPTION, base)
    config.set_option(BASE_OPTION, before)


def test_a_page_address_in_any_case_leads_to_the_page(base_path):
    """The hosted server sends /TRAIN, /tRaIn, /Benchmark/ on to the page's own address."""
    base_path("")
    assert page_address("/TRAIN") == "/Train"
    assert page_address("/tRaIn") == "/Train"
    assert page_address("/benchMARK/") == "/Benchmark"
    assert page_address("/lesSon") == "/Lesson"
    base_path("/class/")
    assert page_address("/class/DRAW") == "/class/Draw"
    assert page_address("/DRAW") is None  # outside the app's root


LEFT_ALONE = ["/Train", "/train", "/", "/Home", "/TRAINING", "//evil.example/TRAIN", "/x/TRAIN", "/_stcore/a"]


@pytest.mark.parametrize("path", LEFT_ALONE)
def test_addresses_that_open_a_page_already_or_are_no_page_are_left_alone(base_path, path):
    """Streamlit's own addresses, the lowercase ones, and anything that is not a page's are passed on."""
    base_path("")
    assert page_address(path) is None


# Asks the launcher's app for two pages typed in other cases; prints each answer's status and Location.
PROBE = """
import asyncio, json, runpy, sys
app = runpy.run_path(sys.argv[1])["app"]
sent = []
async def receive():
    return {"type": "http.request", "body": b"", "more_body": False}
async def send(message):
    sent.append(message)
for path, query in (("/TRAIN", b"lang=es"), ("/dRaW", b"")):
    scope = {"type": "http", "method": "GET", "path": path, "query_string": query, "root_path": ""}
    where = {"headers": [(b"host", b"127.0.0.1:8501")], "scheme": "http", "server": ("127.0.0.1", 8501)}
    asyncio.run(app({**scope, **where}, receive, send))
starts = [m for m in sent if m["type"] == "http.response.start"]
print(json.dumps([[m["status"], dict(m["headers"]).get(b"location", b"").decode()] for m in starts]))
"""


def test_the_hosted_server_answers_a_page_in_another_case_with_that_page_in_the_same_language(tmp_path):
    """deploy/serve.py, as a class's browser meets it: /TRAIN?lang=es goes to /Train?lang=es."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("STREAMLIT_")}
    env |= {"PYTHONPATH": str(ROOT), "HOME": str(tmp_path), "LINECNN_DATA_DIR": str(tmp_path / "data")}
    command = [sys.executable, "-c", PROBE, LAUNCHER]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [[307, "/Train?lang=es"], [307, "/Draw"]]


@pytest.mark.parametrize(
    ("query", "location"),
    [
        (b"lang=es", "/Train?lang=es"),
        (b"", "/Train"),
        (b"name=%C3%B1", "/Train?name=%C3%B1"),  # escaped by the browser: kept as it came
        ("name=ñ".encode(), "/Train?name=%C3%B1"),  # left raw by a client: escaped once
    ],
)
def test_the_redirect_keeps_the_query_as_it_was_sent(query, location):
    """The query reaches the page as the browser sent it, never escaped twice."""
    from linecnn.deploy.page_case import PageCase

    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def unused(*_: object) -> None:
        raise AssertionError("the request should have been answered with a redirect")

    scope = {"type": "http", "path": "/TRAIN", "query_string": query, "headers": [], "method": "GET"}
    run_apart(PageCase(unused)(scope, unused, send))
    headers = dict(sent[0]["headers"])
    assert sent[0]["status"] == 307 and headers[b"location"].decode() == location
