"""The page's timing path: a sweep in a worker process, read back, cancelled and capped; no process left."""

from __future__ import annotations

import os
import threading
import time

import pytest

from linecnn.bench.config import BenchConfig
from linecnn.bench.factors import FACTORS, SINGLE
from linecnn.bench.plan import Caps, SweepPlan, SweepRequest
from linecnn.bench.remote import run_in_worker
from linecnn.bench.results import CellStatus
from linecnn.bench.worker import read_request, request
from linecnn.stop import Stopped, StopReason

TINY = BenchConfig.from_flat(per_class=20, warmup=1, repeats=2)


def two_cells() -> SweepPlan:
    """A data sweep of the two smallest sizes on the CPU, one warm-up and two timed epochs each."""
    return SweepRequest(TINY, FACTORS["data"], ("cpu",), up_to=1_200).plan()


def test_a_request_line_gives_back_the_same_plan():
    """The worker reads exactly the cells the page planned, and the time cap left."""
    plan = SweepRequest(TINY.with_run(batch_size=64), FACTORS["batch"], ("cpu",), up_to=256).plan()
    again, caps = read_request(request(plan, 30.0))
    assert again.cells() == plan.cells() and again.factor is plan.factor
    assert 29.0 < caps.max_seconds <= 30.0


def test_the_worker_times_every_cell_and_reports_its_environment():
    """Each cell comes back timed, with progress between epochs and the worker's own environment."""
    seen, envs = [], []
    results = list(run_in_worker(two_cells(), progress=seen.append, on_env=envs.append, busy=lambda _: False))
    assert [r.config.images for r in results] == [360, 1_200]
    assert all(r.ok and len(r.times_ms) == 2 and r.median_ms > 0 for r in results)
    assert all(r.load_average is not None or not hasattr(os, "getloadavg") for r in results)
    assert {p.phase for p in seen} >= {"setup", "warm-up", "timing"} and seen[-1].cell == 2
    assert len(envs) == 1 and envs[0].torch_threads >= 1 and envs[0].cpu_count == os.cpu_count()


@pytest.mark.slow  # one more worker process
def test_a_train_run_beside_a_cell_marks_it_disturbed():
    """A Train run holding a slot while a cell runs (the server knows) marks that cell 'training'."""
    plan = SweepPlan(SINGLE, (TINY,), ("cpu",), compare_eager=False)
    [result] = run_in_worker(plan, busy=lambda device: device == "cpu")
    assert result.ok and "training" in result.disturbed


@pytest.mark.slow  # a worker process and a long cell
def test_cancel_ends_the_worker_at_once_and_leaves_no_process():
    """Cancel during a long cell raises Stopped (cancelled) within seconds, and the worker is gone."""
    config = BenchConfig.from_flat(per_class=40_000, warmup=5, repeats=50)
    long = SweepPlan(SINGLE, (config,), ("cpu",), compare_eager=False)
    cancel, when = threading.Event(), []

    def progress(cell) -> None:  # noqa: ANN001 - a CellProgress
        if cell.phase == "warm-up" and not cancel.is_set():  # the worker is inside a long epoch now
            when.append(time.monotonic())
            cancel.set()

    with pytest.raises(Stopped) as stopped:
        list(run_in_worker(long, cancel=cancel, progress=progress, busy=lambda _: False))
    assert stopped.value.reason is StopReason.CANCELLED
    assert time.monotonic() - when[0] < 5
    assert _my_workers() == []


@pytest.mark.slow  # one more worker process
def test_the_time_cap_stops_the_running_cell_and_skips_the_rest():
    """A cap shorter than the first cell: it is stopped at the cap, the cells after it skipped."""
    results = list(run_in_worker(two_cells(), caps=Caps(max_seconds=0.001), busy=lambda _: False))
    assert [r.status for r in results] == [CellStatus.STOPPED, CellStatus.SKIPPED]


def _my_workers() -> list[int]:
    """Worker processes this test process started that still exist (reaped or not)."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as file:
                command = file.read()
            with open(f"/proc/{name}/stat") as file:
                parent = int(file.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if b"linecnn.bench.worker" in command and parent == os.getpid():
            found.append(int(name))
    return found
