"""Bounded waits: a silent holder of a training slot or of the benchmark turn loses it, a silent rank ends
its run, each with a sentence; fake clocks make the bounds exact and the tests fast."""

from __future__ import annotations

import contextlib
import os
import threading

import pytest

from linecnn.classroom.bench_turns import bench_turns
from linecnn.classroom.line import Lease, WaitingLine
from linecnn.errors import Message, UserError
from linecnn.parallel.config import RanksConfig
from linecnn.parallel.memory import check_memory, process_bytes
from linecnn.parallel.watchdog import Watchdog
from linecnn.procs.beat import START_SECONDS
from linecnn.stop import Stopped, StopReason
from linecnn.train.config import RunConfig
from linecnn.train.trainer import Trainer
from linecnn.ui.i18n import say
from tests.helpers import ManualClock

JOIN = 10.0  # seconds a test waits for a thread it expects to finish; a hang fails instead of blocking


class Holder(threading.Thread):
    """Takes ``enter()`` (a slot or a benchmark turn), keeps its lease, and leaves when ``release`` is set."""

    def __init__(self, enter) -> None:  # noqa: ANN001 - a callable returning a context manager
        super().__init__(daemon=True)
        self.enter = enter
        self.lease: Lease | None = None
        self.holding = threading.Event()
        self.release = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with self.enter() as lease:
                self.lease = lease
                self.holding.set()
                self.release.wait(JOIN)
                lease.check()
        except BaseException as error:  # noqa: BLE001 - the test reads it
            self.error = error


def test_a_slot_holder_silent_past_the_bound_loses_its_slot_to_the_next_run():
    """A holder that has not beaten for stall_seconds loses the slot once a run waits; it learns why at its
    next check, and its leaving does not free a second slot."""
    clock = ManualClock()
    queue = WaitingLine(slots=1, stall_seconds=30, clock=clock)
    frozen = Holder(lambda: queue.hold("frozen", poll=0.01))
    frozen.start()
    assert frozen.holding.wait(JOIN)
    clock.now += 29
    frozen.lease.beat()  # still advancing: the bound counts from the last beat
    waiting = Holder(lambda: queue.hold("next", poll=0.01))
    waiting.start()
    clock.now += 29
    assert not waiting.holding.wait(0.2) and queue.held == 1
    clock.now += 2  # 31 s since the last beat
    assert waiting.holding.wait(JOIN)
    assert queue.held == 1
    frozen.release.set()
    frozen.join(JOIN)
    assert isinstance(frozen.error, Stopped) and frozen.error.reason is StopReason.NO_PROGRESS
    assert str(frozen.error).startswith("This run made no progress for 30 s while it held a training slot")
    assert "no avanzó en 30 s" in say(frozen.error, "es")
    assert queue.held == 1  # the frozen run's exit gave nothing back twice
    waiting.release.set()
    waiting.join(JOIN)
    assert waiting.error is None and queue.held == 0


def test_a_silent_holder_keeps_its_slot_while_nobody_waits():
    """Nothing is taken from a run while no other run wants the slot."""
    clock = ManualClock()
    queue = WaitingLine(slots=1, stall_seconds=5, clock=clock)
    with queue.hold("alone") as lease:
        clock.now += 60
        assert queue.status("alone") is None and queue.held == 1
        lease.check()


def test_every_optimizer_step_of_a_trainer_runs_its_after_step():
    """The Train page beats its lease from Trainer.after_step: once per optimizer step, never raising."""
    config = RunConfig.from_flat(per_class=8, val_per_class=2, epochs=2, batch_size=4)
    trainer = Trainer(config, "cpu")
    steps: list[int] = []
    trainer.after_step = lambda: steps.append(1)
    list(trainer.run())
    assert len(steps) == config.train.epochs * 6  # 24 images in steps of 4


def test_the_benchmark_lock_goes_to_the_next_benchmark_when_its_holder_falls_silent():
    """A benchmark silent for stall_seconds loses its turn to a queued one; its next check says why."""
    clock = ManualClock()
    turns = bench_turns(stall_seconds=120, clock=clock)
    stuck = Holder(lambda: turns.hold("stuck", poll=0.01))
    stuck.start()
    assert stuck.holding.wait(JOIN)
    waits: list[tuple[str | None, float]] = []
    queued = Holder(
        lambda: turns.hold("queued", on_wait=lambda w: waits.append((*w.holders, w.seconds)), poll=0.01)
    )
    queued.start()
    while not waits:
        threading.Event().wait(0.01)
    assert waits[0][0] == "stuck" and not queued.holding.is_set()
    clock.now += 121
    assert queued.holding.wait(JOIN) and [h.who for h in turns.holders()] == ["queued"] and turns.busy
    stuck.release.set()
    stuck.join(JOIN)
    assert isinstance(stuck.error, Stopped) and stuck.error.reason is StopReason.NO_PROGRESS
    assert str(stuck.error) == (
        "This benchmark made no progress for 120 s, so the next benchmark in line took its turn and this one "
        "was stopped."
    )
    assert [h.who for h in turns.holders()] == ["queued"]  # the stuck one's exit left the new holder alone
    queued.release.set()
    queued.join(JOIN)
    assert queued.error is None and not turns.busy


def test_the_watchdog_names_the_rank_silent_past_its_bound():
    """A rank has `seconds` after its last line (START_SECONDS to start); the most silent one is named."""
    clock = ManualClock()
    watchdog = Watchdog(ranks=2, seconds=20, clock=clock)
    clock.now += 30
    watchdog.hear(0)
    watchdog.hear(1)
    watchdog.check()  # both heard from within the bound
    clock.now += 15
    watchdog.hear(0)
    clock.now += 6  # rank 1 silent for 21 s, rank 0 for 6 s
    with pytest.raises(Stopped) as stop:
        watchdog.check()
    assert stop.value.reason is StopReason.NO_PROGRESS
    assert str(stop.value).startswith("Rank 1 of 2 made no progress for 20 s (the process froze or hung)")
    assert "no queda ningún proceso" in say(stop.value, "es")

    starting = Watchdog(ranks=2, seconds=5, clock=clock)
    starting.hear(0)
    clock.now += START_SECONDS - 1
    starting.hear(0)
    starting.check()  # rank 1 has START_SECONDS to say it is ready
    clock.now += 2
    with pytest.raises(Stopped, match=f"Rank 1 of 2 did not start within {START_SECONDS:g} s"):
        starting.check()


def test_a_silent_rank_whose_process_ended_names_torchrun_as_the_frozen_one():
    """A rank that finished and exited is silent because torchrun froze before reaping it: said so."""
    import subprocess
    import time

    from linecnn.procs.groups import exited

    clock = ManualClock()
    watchdog = Watchdog(ranks=2, seconds=20, clock=clock)
    watchdog.hear(0)
    watchdog.hear(1)
    clock.now += 21
    with pytest.raises(Stopped) as stop:
        watchdog.check(ended=lambda rank: rank == 0)
    assert str(stop.value).startswith("Rank 0 of 2 ended, but torchrun, which reaps the ranks")
    assert "torchrun" in say(stop.value, "es")

    child = subprocess.Popen(["true"])  # not reaped until the end: a zombie, as under a frozen torchrun
    deadline = time.monotonic() + JOIN
    while not exited(child.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert exited(child.pid) and not exited(os.getpid()) and not exited(None)
    child.wait()
    assert exited(child.pid)


def test_a_series_that_cannot_fit_in_free_memory_is_refused_with_a_setting_that_fits():
    """N ranks each build the whole data set: more than free memory is refused, naming a size that fits."""
    config = RanksConfig.from_flat(per_class=2_000_000, batch_size=64)
    one = process_bytes(config.bench.run)
    check_memory(config, [1, 2], available=2 * one)
    with pytest.raises(UserError) as refused:
        check_memory(config, [1, 2, 4], available=2 * one)
    text = str(refused.value)
    assert (
        text.startswith("Each process builds the whole data set: the largest run (4 at once) needs about")
        and "Choose at most" in text
    )
    fits = int(text.rsplit("at most ", 1)[1].split(" ")[0].replace(",", ""))
    assert 0 < fits < 2_000_000
    smaller = RanksConfig.from_flat(per_class=fits, batch_size=64)
    check_memory(smaller, [4], available=2 * one)
    with pytest.raises(UserError, match="Choose fewer processes"):
        check_memory(config, [4], available=1)


def test_a_run_whose_slot_was_taken_back_is_filed_and_the_page_says_why(monkeypatch):
    """When the queue takes a run's slot back, the Train page stops it after the epoch in flight, files
    its finished epochs and shows the sentence."""
    from linecnn.ui.train import sharing as page_sharing
    from tests.helpers import app_test
    from tests.test_pages import TRAIN, click

    class TakenBack(WaitingLine):
        """A queue that has already given each new holder's slot away."""

        @contextlib.contextmanager
        def hold(self, ticket, on_wait=None, poll=0.25):  # noqa: ANN001, ANN202 - WaitingLine.hold's
            with super().hold(ticket, on_wait, poll) as lease:
                lease.lost = Message("slot_lost", seconds=30)
                yield lease

    queue = TakenBack(slots=1)
    monkeypatch.setattr(page_sharing, "training_queue", lambda device: queue)
    at = app_test(TRAIN)
    at.text_input(key="train.epochs.text").input("50")
    at.run()
    click(at, "Start")
    assert not at.exception
    [run] = at.session_state["train.runs"]
    assert len(run.history) == 1 and "train.live" not in at.session_state
    assert any(error.value.startswith("This run made no progress for 30 s") for error in at.error)
    assert queue.held == 0
