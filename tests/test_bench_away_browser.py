"""In a real browser: a benchmark whose tab is reloaded (or closed) mid-run gives the class's turn back.

The old page's session can neither be seen nor cancel its run from the new page; the server cancels
that run once its browser has stayed away for the grace period, and the next benchmark, queued behind
it, runs.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from linecnn.jobs.absence import GRACE_SECONDS
from tests.test_bench_browser import open_benchmark

pytestmark = pytest.mark.browser

GONE_LINE = re.compile(r"A benchmark's browser \(session .+\) stopped answering for \d+ s while it ran")
# After the grace period: the next check of the orphan, then a whole 360-image sweep started afresh
# (a worker process that imports torch) on a machine that may be busy.
MARGIN_SECONDS = 45


class Line:
    """The page's WebSocket to the server, routed through the test, which can cut it and keep it cut."""

    def __init__(self, page) -> None:
        self.open = True  # while False, each reconnect the page tries is refused at once
        self.routes: list = []  # (the page's side, the server's side) of each connection let through
        page.route_web_socket(re.compile(r"/_stcore/stream"), self._connect)

    def _connect(self, ws) -> None:
        if not self.open:
            ws.close()
            return
        self.routes.append((ws, ws.connect_to_server()))

    def cut(self) -> None:
        """Close the connection on both sides and refuse the page's reconnects: to the server, the
        browser has gone; to the page, the server does not answer."""
        self.open = False
        for ws, to_server in self.routes:
            to_server.close()
            ws.close()


def test_a_benchmark_whose_browser_went_gives_the_next_one_the_turn_and_reads_why_on_return(
    fresh_page, tabs, server
):
    """The first tab starts a sweep that would take minutes, then its connection is cut and stays cut: to
    the server that is what a closed or reloaded tab is. A second tab's benchmark, queued behind the
    run no page can see or cancel, runs to its end within the grace period and a margin; the server's
    log says once why the first run was cancelled. When the first page reconnects to its session, the
    run's end says why it stopped, before what Cancel says.

    Only the end is waited for: how long a run of 360,000 images takes plays no part."""
    before = len(GONE_LINE.findall(server.log_path.read_text(encoding="utf-8")))
    first = fresh_page  # a tab of its own: its WebSocket is cut (Line), which no wipe undoes
    second = tabs.lend()
    line = Line(first)
    open_benchmark(first, server, "360,000 images", "10")
    first.get_by_role("button", name="Run benchmark").click()
    first.get_by_text(re.compile(r"^Cell 1 of \d")).wait_for(timeout=60_000)
    line.cut()
    open_benchmark(second, server, "360 images", "1")
    second.get_by_role("button", name="Run benchmark").click()
    second.get_by_text("Benchmark done in").wait_for(timeout=(GRACE_SECONDS + MARGIN_SECONDS) * 1000)
    # Logged before the turn was given back; the server's stderr is written line by line.
    assert len(GONE_LINE.findall(server.log_path.read_text(encoding="utf-8"))) == before + 1

    line.open = True
    why = "Your browser stopped answering, so after 10 s without it the server cancelled this benchmark"
    said = first.get_by_text(re.compile(rf"^{why} .+ Benchmark cancelled after \d+ of \d+ cells"))
    expect(said).to_be_visible(timeout=MARGIN_SECONDS * 1000)
