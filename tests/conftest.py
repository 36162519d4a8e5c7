"""Shared fixtures: a real streamlit server and Debian's Chromium driven by Playwright.

Browser tests skip when no Chromium is installed, except with CI=true, where a
missing browser is a failure: .ci/run installs it, so the tests must run there.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import CHROMIUM_ARGS, StreamlitServer, find_chromium, in_ci


@pytest.fixture(scope="session")
def worker_locks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two lock files shared by every xdist worker of this run (the parent of each worker's temp dir)."""
    shared = tmp_path_factory.getbasetemp().parent
    return shared / "linecnn-gate.lock", shared / "linecnn-tests.lock"


@pytest.fixture(autouse=True)
def machine_share(request: pytest.FixtureRequest, worker_locks: tuple[Path, Path]) -> Iterator[None]:
    """A test marked ``alone`` has the machine to itself; the others share it.

    Every test holds the tests lock shared; an ``alone`` test holds it exclusively, so the other
    worker's test in progress finishes first and the next one waits. The gate stops new tests from
    starting while an ``alone`` test waits, so it is never starved.
    """
    gate_path, tests_path = worker_locks
    alone = request.node.get_closest_marker("alone") is not None
    with open(gate_path, "a") as gate, open(tests_path, "a") as tests:
        fcntl.flock(gate, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        fcntl.flock(tests, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if not alone:
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(tests, fcntl.LOCK_UN)
            fcntl.flock(gate, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def server_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment for test servers: a private data directory, nothing shared with the user."""
    return {"LINECNN_DATA_DIR": str(tmp_path_factory.mktemp("linecnn-data"))}


@pytest.fixture(scope="session")
def server(server_env: dict[str, str]) -> Iterator[StreamlitServer]:
    """One streamlit server shared by the browser tests of a session."""
    instance = StreamlitServer(server_env).start()
    yield instance
    instance.stop()


@pytest.fixture
def fresh_server(server_env: dict[str, str]) -> Iterator[StreamlitServer]:
    """A newly started server, for tests about first requests (deep links)."""
    instance = StreamlitServer(server_env).start()
    yield instance
    instance.stop()


@pytest.fixture(scope="session")
def chromium() -> str:
    """Chromium's path; skips locally without it, fails under CI."""
    path = find_chromium()
    if path is None:
        message = "Debian's chromium is not installed (apt-get install -y chromium)"
        if in_ci():
            pytest.fail(f"{message}; browser tests are mandatory in CI")
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def browser(chromium: str):
    """A headless Chromium driven by Playwright, for the whole session."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    """A fresh browser tab (own cookies and storage) with a desktop-sized viewport."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    tab = context.new_page()
    tab.set_default_timeout(30_000)
    yield tab
    context.close()
