"""Shared fixtures: a real streamlit server and Debian's Chromium driven by Playwright.

Browser tests skip when no Chromium is installed, except with CI=true, where a
missing browser is a failure: .ci/run installs it, so the tests must run there.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Two workers share the machine's cores, so a torch operation split over two threads in one of them
# often waits for a thread the other worker has pushed aside. OpenMP's default keeps a waiting
# thread spinning on its core meanwhile, taking that core from the other worker too; passive
# threads sleep instead. Set before anything imports torch (OpenMP reads it once), and inherited
# by the workers, the servers and every command the tests start.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from tests.helpers import CHROMIUM_ARGS, StreamlitServer, find_chromium, in_ci

BACKGROUND_NICENESS = 5  # the non-browser worker's niceness: a quarter of a core's weight under contention


def is_browser_file(nodeid: str) -> bool:
    """True for a test in a file named test_*browser.py, where every browser test lives."""
    return Path(nodeid.split("::")[0]).stem.endswith("browser")


# Browser test files whose servers are all their own and that check nothing against the clock: each is
# a work unit of its own, queued last, for whichever worker runs out of work first. The other files'
# tests (clock-sensitive ones among them) run together in one worker, started first.
FLOATING_BROWSER_FILES = frozenset(
    {
        "test_hostile_browser",
        "test_hosting_browser",
        "test_login_browser",
        "test_rerun_browser",
        "test_roles_browser",
    }
)


def is_floating(nodeid: str) -> bool:
    """True for a test in one of FLOATING_BROWSER_FILES."""
    return Path(nodeid.split("::")[0]).stem in FLOATING_BROWSER_FILES


def queue_rank(nodeid: str) -> int:
    """0: the browser group, run first in one worker; 1: every other test; 2: the floating browser files."""
    if is_floating(nodeid):
        return 2
    return 0 if is_browser_file(nodeid) else 1


def pytest_itemcollected(item: pytest.Item) -> None:
    """A test that uses Chromium is a browser test, and every browser test is slow: the fast tier
    (-m "not slow") never starts a browser, even for a test whose file forgot its marker. A browser
    test outside a *browser.py file is refused: the workers keep browser tests apart by file name."""
    if "chromium" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("browser"):
        item.add_marker(pytest.mark.browser)
    if item.get_closest_marker("browser"):
        if not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
        if not is_browser_file(item.nodeid):
            raise pytest.UsageError(f"{item.nodeid} uses a browser: move it to a tests/test_*browser.py file")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser group first, so one worker starts on it at once while the other takes the rest; the
    floating browser files last, taken by the worker that is free first."""
    items.sort(key=lambda item: queue_rank(item.nodeid))  # stable: files keep their order


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook, known only where it is installed
def pytest_xdist_make_scheduler(config: pytest.Config, log):  # noqa: ANN201 - xdist's scheduler
    """The browser group in one work unit, run in one worker one after another (two clock-sensitive
    browser tests at once make them flaky on 2 cores); each floating browser file a unit of its own;
    every other test on its own. Units go out in collection order (xdist would put the biggest first)."""
    from xdist.scheduler import LoadScopeScheduling

    class BrowserTestsTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if is_floating(nodeid):
                return nodeid.split("::")[0]
            return "browser tests" if is_browser_file(nodeid) else nodeid

    config.option.loadscopereorder = False
    return BrowserTestsTogether(config, log)


_first_test_seen = False


def pytest_runtest_setup(item: pytest.Item) -> None:
    """In a worker whose first test is not in the browser group, run at a lower CPU priority.

    The browser group waits on pages, servers and timers in real time; the others only need CPU, or
    (the floating browser files) have no clock to beat. Given the cores first, the browser group's
    worker (the longest run) is not slowed by the other's, which takes whatever the browser leaves,
    for its own Chromium and servers too (they inherit the niceness)."""
    global _first_test_seen
    if _first_test_seen:
        return
    _first_test_seen = True
    if os.environ.get("PYTEST_XDIST_WORKER") and queue_rank(item.nodeid) != 0:
        os.nice(BACKGROUND_NICENESS)


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
    from playwright.sync_api import expect, sync_playwright

    # Assertions wait for what they expect, however busy the machine; Playwright's own 5 s is a
    # rerun or two on a loaded 2-core machine.
    expect.set_options(timeout=30_000)
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


DESKTOP = {"width": 1400, "height": 1000}
TAB_TIMEOUT_MS = 60_000


def new_desktop_tab(browser, **options):
    """A tab in a context of its own (own cookies and storage), desktop-sized, downloads accepted;
    ``options``: more of the context's (``locale``, ``is_mobile``, ``has_touch``...)."""
    tab = browser.new_context(viewport=DESKTOP, accept_downloads=True, **options).new_page()
    tab.set_default_timeout(TAB_TIMEOUT_MS)
    return tab


class TabPool:
    """Tabs lent to one test after another, each wiped when its test ends.

    A new tab starts a renderer process: on a 2-core machine that costs about 1.7 s of Chromium's CPU
    more than loading the same page in a tab that is already open, and the browser tests open dozens.
    Each tab has a context of its own, so two tabs lent at once are two strangers, as two new tabs were.
    """

    def __init__(self, browser) -> None:
        self.browser = browser
        self.free: dict[tuple, list] = {}  # the context's options -> its idle tabs
        self.lent: list[tuple[tuple, object]] = []

    def lend(self, viewport: dict[str, int] = DESKTOP, **options):
        """A tab on a blank page at ``viewport``'s size, with nothing left by an earlier test: no cookies,
        storage, request routes, listeners of its fixtures or timeouts. ``options`` are its context's
        (``locale="es-ES"``, ``is_mobile=True``...), which only a new context sets: tabs are kept apart
        by them. A test that routes a tab's WebSocket, which nothing undoes, takes a tab of its own
        (``fresh_page``, or the browser's)."""
        key = tuple(sorted(options.items()))
        idle = self.free.setdefault(key, [])
        tab = idle.pop() if idle else new_desktop_tab(self.browser, **options)
        if tab.viewport_size != viewport:
            tab.set_viewport_size(viewport)
        self.lent.append((key, tab))
        return tab

    def take_back(self) -> None:
        """Wipe every lent tab for the next test; one that cannot be wiped (crashed, stuck) is closed."""
        from playwright.sync_api import Error

        for key, tab in self.lent:
            try:
                # Storage is per address: cleared while the tab is still there (restart-watch.js keeps
                # the server's start in sessionStorage; another server on the same port would differ).
                tab.evaluate("() => { try { sessionStorage.clear(); localStorage.clear(); } catch (e) {} }")
                tab.unroute_all(behavior="ignoreErrors")
                tab.goto("about:blank")  # ends the page's Streamlit session, as closing the tab would
                tab.context.clear_cookies()
                tab.context.clear_permissions()
                tab.set_default_timeout(TAB_TIMEOUT_MS)
                self.free[key].append(tab)
            except Error:
                with contextlib.suppress(Error):
                    tab.context.close()
        self.lent.clear()

    def close(self) -> None:
        """Close every tab and its context."""
        for tab in [tab for idle in self.free.values() for tab in idle] + [tab for _, tab in self.lent]:
            tab.context.close()


@pytest.fixture(scope="session")
def tab_pool(browser) -> Iterator[TabPool]:
    """This worker's tabs, lent through ``tabs`` and ``page``."""
    pool = TabPool(browser)
    yield pool
    pool.close()


@pytest.fixture
def tabs(tab_pool: TabPool) -> Iterator[TabPool]:
    """Lends tabs to one test (``tabs.lend(viewport)``) and takes them back when it ends."""
    yield tab_pool
    tab_pool.take_back()


@pytest.fixture
def page(tabs: TabPool):
    """A desktop-sized tab on a blank page, lent for this test (``TabPool.lend``)."""
    return tabs.lend()


@pytest.fixture
def fresh_page(browser):
    """A tab of its own, in a context of its own, closed after the test."""
    tab = new_desktop_tab(browser)
    yield tab
    tab.context.close()
