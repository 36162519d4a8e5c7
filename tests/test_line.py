"""The one waiting line with leases (Train slots, benchmark turns), on a fake clock: places, N slots and
one, leases taken back from silent holders, and a rerun's return to its place."""

from __future__ import annotations

import contextlib
import threading

import pytest

from linecnn.classroom.bench_turns import bench_turns
from linecnn.classroom.line import InLine, Wait, WaitingLine
from linecnn.stop import Stopped, StopReason
from tests.helpers import ManualClock

JOIN = 10.0  # seconds a test waits for a thread it expects to finish; a hang fails instead of blocking


class Rerun(Exception):
    """Stands for a page's script run ended by a click while it waits (or a benchmark's cancel)."""


def interrupted(line: WaitingLine, ticket: str, who: str = "") -> Wait:
    """Join the line as ``ticket`` and leave at the first report, as a rerun page does; the report."""
    seen: list[Wait] = []

    def leave(wait: Wait) -> None:
        seen.append(wait)
        raise Rerun

    with pytest.raises(Rerun), line.hold(ticket, on_wait=leave, poll=JOIN, who=who):
        pass
    return seen[0]


class Taker(threading.Thread):
    """Waits in ``line`` as ``ticket`` and keeps the slot until ``release`` is set."""

    def __init__(self, line: WaitingLine, ticket: str) -> None:
        super().__init__(daemon=True)
        self.line, self.ticket = line, ticket
        self.holding, self.release = threading.Event(), threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with self.line.hold(self.ticket, poll=0.01) as lease:
                self.holding.set()
                self.release.wait(JOIN)
                lease.check()
        except BaseException as error:  # noqa: BLE001 - the test reads it
            self.error = error


def test_n_slots_go_first_come_first_served_and_each_waiter_sees_its_place_and_time():
    """Three slots: three take one at once; the others wait in arrival order with place, count and wait."""
    clock = ManualClock()
    line = WaitingLine(slots=3, clock=clock)
    with contextlib.ExitStack() as held:
        for name in ("a", "b", "c"):
            held.enter_context(line.hold(name, who=name.upper()))
        clock.now += 4
        first = interrupted(line, "d")
        clock.now += 2
        second = interrupted(line, "e")
        assert (first.place, first.waiting, first.holders, first.slots) == (1, 1, ("A", "B", "C"), 3)
        assert (second.place, second.waiting, second.held) == (2, 2, 3)
        clock.now += 1
        assert line.status("d") == Wait(1, 2, ("A", "B", "C"), 3, 3.0)
        assert line.status("e") == Wait(2, 2, ("A", "B", "C"), 3, 1.0)
        assert line.holders() == [InLine("A", 7.0), InLine("B", 7.0), InLine("C", 7.0)]
        assert line.waiters() == [InLine("d", 3.0), InLine("e", 1.0)]
        assert line.busy and line.held == 3
    assert not line.busy and line.held == 0 and line.status("a") is None


def test_a_rerun_gets_its_place_back_within_rejoin_seconds_and_loses_it_after():
    """A page that left the line by a rerun comes back to its place; one that stayed away too long is gone."""
    clock = ManualClock()
    line = WaitingLine(slots=1, clock=clock, rejoin_seconds=10)
    with line.hold("holder"):
        interrupted(line, "early")
        assert interrupted(line, "late").place == 2
        clock.now += 9
        back = interrupted(line, "early")  # the rerun, 9 s later: same place, its wait counted from arrival
        assert (back.place, back.seconds) == (1, 9.0)
        clock.now += 10.5  # "late" left 19.5 s ago, "early" 10.5 s ago
        fresh = interrupted(line, "fresh")  # joining expires those away too long
        assert (fresh.place, fresh.waiting) == (1, 1)
        assert line.status("early") is None and line.status("late") is None


def test_a_waiter_that_is_away_keeps_its_place_but_never_blocks_the_one_behind():
    """The slot goes to the first waiter that is there; the one away keeps place 1 for its rerun."""
    line = WaitingLine(slots=1, clock=ManualClock())
    holder = Taker(line, "holder")
    holder.start()
    assert holder.holding.wait(JOIN)
    interrupted(line, "away")
    behind = Taker(line, "behind")
    behind.start()
    while line.status("behind") is None:
        behind.holding.wait(0.005)
    holder.release.set()
    assert behind.holding.wait(JOIN)
    assert line.status("away").place == 1 and [h.who for h in line.holders()] == ["behind"]
    behind.release.set()
    for taker in (holder, behind):
        taker.join(JOIN)
        assert taker.error is None


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda clock: WaitingLine(1, stall_seconds=30, clock=clock), "This run made no progress for 30"),
        (lambda clock: bench_turns(stall_seconds=30, clock=clock), "This benchmark made no progress for 30"),
    ],
    ids=["training-slot", "benchmark-turn"],
)
def test_a_holder_silent_past_the_bound_loses_its_slot_only_once_someone_waits(make, said):
    """Silence alone takes nothing; with a waiter in line, a lease not beaten for the bound is taken back,
    the holder's next check says why, and its exit does not free the slot a second time."""
    clock = ManualClock()
    line = make(clock)
    frozen = Taker(line, "frozen")
    frozen.start()
    assert frozen.holding.wait(JOIN)
    clock.now += 60
    assert line.held == 1 and interrupted(line, "gone").held == 1  # a waiter that left at once takes nothing
    line.cancel("gone")
    waiting = Taker(line, "next")
    waiting.start()
    assert waiting.holding.wait(JOIN)
    frozen.release.set()
    frozen.join(JOIN)
    assert isinstance(frozen.error, Stopped) and frozen.error.reason is StopReason.NO_PROGRESS
    assert str(frozen.error).startswith(said)
    assert [h.who for h in line.holders()] == ["next"]
    waiting.release.set()
    waiting.join(JOIN)
    assert waiting.error is None and not line.busy


def test_a_beat_keeps_the_lease_and_the_bound_counts_from_the_last_one():
    """A holder that beats every 20 s of a 30 s bound keeps its slot while another waits."""
    clock = ManualClock()
    line = WaitingLine(1, stall_seconds=30, clock=clock)
    with line.hold("busy") as lease:
        waiting = Taker(line, "next")
        waiting.start()
        for _ in range(3):
            clock.now += 20
            lease.beat()
            assert not waiting.holding.wait(0.05)
        lease.check()
        clock.now += 31
        assert waiting.holding.wait(JOIN)
        with pytest.raises(Stopped):
            lease.check()
    waiting.release.set()
    waiting.join(JOIN)


def test_benchmark_turns_are_one_slot_and_a_cancelled_request_leaves_at_once():
    """The benchmark's line has one turn; a cancel (its wait report raising) leaves no place behind,
    where a Train waiter keeps its place for a rerun."""
    clock = ManualClock()
    turns, training = bench_turns(clock=clock), WaitingLine(1, clock=clock)
    with turns.hold("job-1", who="ada"), training.hold("run-1"):
        wait = interrupted(turns, "job-2", who="grace")
        assert (wait.place, wait.holders, wait.slots) == (1, ("ada",), 1)
        assert turns.waiters() == [] and turns.status("job-2") is None
        interrupted(training, "run-2")
        assert [w.who for w in training.waiters()] == ["run-2"]
        assert [h.who for h in turns.holders()] == ["ada"]


def test_a_cancelled_waiter_stops_and_the_next_moves_up():
    """cancel() takes a waiting ticket out: its hold raises Stopped (cancelled)."""
    line = WaitingLine(1, clock=ManualClock())
    with line.hold("holder"):
        leaving = Taker(line, "leaving")
        leaving.start()
        while line.status("leaving") is None:
            leaving.holding.wait(0.005)
        interrupted(line, "behind")
        line.cancel("leaving")
        leaving.join(JOIN)
        assert isinstance(leaving.error, Stopped) and leaving.error.reason is StopReason.CANCELLED
        assert line.status("behind").place == 1
