"""A run trains in one tab while another times a CPU cell: the cell owns every core, the run waits, and
both pages say so."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from linecnn.classroom.cores import BENCH_CORES_ENV, usable_cores
from tests.helpers import StreamlitServer, wait_for_app

pytestmark = pytest.mark.browser
WAIT_MS = 90_000  # a 2-core machine loaded many times over took over 30 s to redraw a page
CORES = len(usable_cores())


@pytest.fixture(scope="module")
def alone_server(server_env: dict[str, str]) -> Iterator[StreamlitServer]:
    """A server whose benchmark cells own every core (training waits), whatever this machine's size."""
    instance = StreamlitServer({**server_env, BENCH_CORES_ENV: str(CORES)}).start()
    yield instance
    instance.stop()


def test_a_run_waits_while_a_cpu_cell_is_timed_and_both_pages_say_so(tabs, alone_server):
    """Start a long run, time one CPU cell in another session: its card names the cores it had and the
    page says one training run waited; stopped, the run's summary says how long it waited."""
    train, bench = tabs.lend(), tabs.lend()
    for tab in (train, bench):
        tab.set_default_timeout(WAIT_MS)
    train.goto(f"{alone_server.url}/Train")
    wait_for_app(train)
    # The longest run the server allows (epochs x images within its budget): it outlasts the cell.
    for label, value in (("Epochs", "5000"), ("Images per class", "600")):
        field = train.get_by_label(label, exact=True).first
        field.fill(value)
        field.press("Enter")
        wait_for_app(train)
    train.get_by_role("button", name="Start").click()
    train.get_by_text(re.compile(r"Epoch [\d,]+ / 5,?000")).wait_for()

    bench.goto(f"{alone_server.url}/Benchmark")
    wait_for_app(bench)
    bench.get_by_role("radio", name="Single cell").click()
    wait_for_app(bench)
    bench.get_by_role("button", name="Run benchmark").click()
    bench.get_by_text("Benchmark done in").wait_for(timeout=120_000)
    wait_for_app(bench)
    expect(bench.get_by_text(re.compile(rf"CPU · .*, {CORES} of {CORES} cores?")).first).to_be_visible()
    waited = bench.get_by_text(re.compile(r"^1 training run of this server waited .+ while the CPU was"))
    expect(waited).to_be_visible()

    train.get_by_role("button", name="Stop").click()
    train.get_by_text(re.compile(r"^Summary · Run 1")).wait_for()
    summary = train.get_by_text(re.compile(r"^Waited .+ between epochs while the Benchmark page timed"))
    expect(summary).to_be_visible()
    for tab in (train, bench):
        assert tab.locator('[data-testid="stException"]').count() == 0
