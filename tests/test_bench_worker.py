"""The page's timing path: a sweep in a worker process, read back, cancelled and capped; no process left."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from linecnn.bench import in_worker
from linecnn.bench.config import BenchConfig
from linecnn.bench.factors import FACTORS, SINGLE
from linecnn.bench.in_worker import run_in_worker, start_worker
from linecnn.bench.plan import Caps, SweepPlan, SweepRequest
from linecnn.bench.results import CellStatus
from linecnn.bench.worker import read_request, request
from linecnn.classroom.cores import CoreSplit
from linecnn.classroom.sharing import SharedExclusive
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
def test_a_train_run_holding_a_slot_cannot_share_a_reserved_cell_cores():
    """A Train run with a slot no longer marks the cell 'training': its cores were the cell's alone."""
    plan = SweepPlan(SINGLE, (TINY,), ("cpu",), compare_eager=False)
    [result] = run_in_worker(plan, busy=lambda device: device == "cpu")
    assert result.ok and "training" not in result.disturbed and result.mode is not None


def test_each_cell_runs_while_its_cores_are_held_and_says_what_it_had(monkeypatch):
    """Alone mode: the CPU clock is held exactly while each cell runs (never during start-up nor after);
    a training run beside the sweep waits, and each result says threads, cores, mode and the wait."""
    clock = SharedExclusive()
    monkeypatch.setattr(in_worker, "CPU_CLOCK", clock)
    held_at_progress, stop, waited = [], threading.Event(), []

    def training() -> None:  # a Train run's epochs, each in its share of the CPU clock
        while not stop.is_set():
            with clock.shared("run-a") as turn:
                waited.append(turn.waited)
                time.sleep(0.002)

    envs = []
    run = threading.Thread(target=training, daemon=True)
    run.start()
    try:
        split = CoreSplit((0, 1), (0, 1), affinity=False)
        cells = run_in_worker(
            two_cells(),
            progress=lambda _: held_at_progress.append(clock._exclusive is not None),
            on_env=lambda env: envs.append(clock._exclusive is not None),
            split=split,
        )
        results = list(cells)
        assert clock._exclusive is None
    finally:
        stop.set()
        run.join(10)
    assert held_at_progress and all(held_at_progress) and envs == [False]
    for result in results:
        assert (result.mode, result.threads, result.machine_cores) == ("alone", 2, 2)
        assert result.cores == len(os.sched_getaffinity(0)) and result.waited_runs == 1
        assert result.waited_seconds > 0 and result.run_queue is not None
    assert sum(waited) == pytest.approx(sum(r.waited_seconds for r in results), abs=0.05)


@pytest.mark.slow  # one more worker process
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a split needs two cores")
def test_split_mode_moves_the_server_threads_aside_and_pins_the_worker_to_its_core(monkeypatch):
    """With a core left over, the server's threads go to it for each cell and come back after; the
    worker pins itself to the cell's core and runs one torch thread."""
    here = tuple(sorted(os.sched_getaffinity(0)))
    calls: list[tuple[int, ...]] = []

    class Recorder:
        supported = True

        def tasks(self) -> list[int]:
            return [0]

        def confine(self, tid: int, cores) -> None:  # noqa: ANN001
            calls.append(tuple(cores))

    plan = SweepPlan(SINGLE, (TINY,), ("cpu",), compare_eager=False)
    split = CoreSplit(here, here[-1:], affinity=True)
    [result] = run_in_worker(plan, split=split, affinity=Recorder(), busy=lambda _: False)
    assert calls == [here[:-1], here]
    assert (result.mode, result.threads, result.cores, result.machine_cores) == ("split", 1, 1, len(here))
    assert result.waited_runs == 0


@pytest.mark.slow  # one more worker process
def test_a_worker_waiting_for_its_go_exits_at_once_when_stdin_ends():
    """A cancel while the worker waits for its cores (stdin closed) ends it at once, beats kept till then."""
    plan = SweepPlan(SINGLE, (TINY,), ("cpu",), compare_eager=False)
    worker = start_worker("linecnn.bench.worker")
    try:
        worker.send(request(plan, None, (0,), 1, handshake=True))
        keys = []
        while "ready" not in keys:
            keys.extend(json.loads(worker.lines.get(timeout=60)))
        assert json.loads(worker.lines.get(timeout=5)) == {"beat": True}  # alive while it waits
        worker.process.stdin.close()
        assert worker.process.wait(timeout=5) == 0
    finally:
        worker.end()


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
