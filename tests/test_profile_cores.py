""" "Inside one step" owns its cores as a sweep cell does: the server reserves them for each profiled cell
(training waits, or the server's threads move aside), and the profile worker pins itself to them."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from linecnn.bench import profile_worker
from linecnn.bench.config import BenchConfig
from linecnn.bench.in_worker import start_worker
from linecnn.classroom.cores import CoreSplit
from linecnn.classroom.sharing import SharedExclusive

TINY = BenchConfig.from_flat(per_class=20, warmup=1, repeats=2)
TWO_CELLS = [(TINY, "cpu"), (TINY.with_run(batch_size=30), "cpu")]


class Recorder:
    """Fake affinity: one server thread, and every call that confines it."""

    supported = True

    def __init__(self) -> None:
        self.calls: list[tuple[int, ...]] = []

    def tasks(self) -> list[int]:
        return [0]

    def confine(self, tid: int, cores) -> None:  # noqa: ANN001
        self.calls.append(tuple(cores))


def test_training_waits_while_each_cell_is_profiled_and_never_during_start_up(tmp_path, monkeypatch):
    """Alone mode: the CPU clock is held while a cell is profiled, not while the worker starts nor
    after; a training run beside it waits between its epochs."""
    clock = SharedExclusive()
    monkeypatch.setattr(profile_worker, "CPU_CLOCK", clock)
    held, stop, waited = [], threading.Event(), []

    def training() -> None:  # a Train run's epochs, each in its share of the CPU clock
        while not stop.is_set():
            with clock.shared("run-a") as turn:
                waited.append(turn.waited)
                time.sleep(0.002)

    run = threading.Thread(target=training, daemon=True)
    run.start()
    try:
        split = CoreSplit((0, 1), (0, 1), affinity=False)
        check = lambda: held.append(clock._exclusive is not None)  # noqa: E731
        profiles = list(profile_worker.profile_in_worker(TWO_CELLS, tmp_path, None, check, split=split))
        assert clock._exclusive is None
    finally:
        stop.set()
        run.join(10)
    assert len(profiles) == 2
    assert held[0] is False and True in held  # the worker's start-up was not on the clock
    assert sum(waited) > 0


@pytest.mark.slow  # one more worker process
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a split needs two cores")
def test_split_mode_moves_the_server_threads_aside_for_each_profiled_cell(tmp_path):
    """With a core left over, the server's threads go to the others for each cell and come back after."""
    here = tuple(sorted(os.sched_getaffinity(0)))
    recorder = Recorder()
    split = CoreSplit(here, here[-1:], affinity=True)
    profiles = list(
        profile_worker.profile_in_worker(
            TWO_CELLS, tmp_path, None, lambda: None, split=split, affinity=recorder
        )
    )
    assert len(profiles) == 2
    assert recorder.calls == [here[:-1], here, here[:-1], here]


@pytest.mark.slow  # one more worker process
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="pinning to one core needs two")
def test_the_profile_worker_pins_itself_to_its_cores_before_it_says_ready(tmp_path):
    """The worker waits for the go on the cores the request names, as a sweep's worker does."""
    core = max(os.sched_getaffinity(0))
    worker = start_worker("linecnn.bench.profile_worker")
    try:
        line = {
            "cells": [[TINY.to_flat(), "cpu"]],
            "folder": str(tmp_path),
            "max_seconds": None,
            "cores": [core],
        }
        worker.send(json.dumps(line))
        replies = (json.loads(reply) for reply in worker.lines.follow(lambda: None))
        assert next(r for r in replies if "beat" not in r) == {"ready": 1}
        assert os.sched_getaffinity(worker.process.pid) == {core}
        worker.send("go")
        assert "profile" in next(r for r in replies if "beat" not in r)
    finally:
        worker.end()
