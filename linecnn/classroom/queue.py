"""A first-come, first-served queue of runs with a fixed number of slots, where each waiter sees its place.

``linecnn.classroom.sharing`` makes one per device for the Train page. A holder proves it advances by
beating its ``Lease``; one silent past the queue's bound loses the slot to the next in line.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from linecnn.classroom.settings import seconds_field
from linecnn.errors import Message
from linecnn.stop import Stopped, StopReason

REJOIN_SECONDS = 10.0  # a waiter whose page reran (any click does that) keeps its place this long


@dataclass(frozen=True)
class Wait:
    """Where a waiting run stands, for the page to show."""

    place: int  # 1 = next to start
    waiting: int  # runs waiting, this one included
    training: int  # runs training now
    slots: int  # runs that may train at once
    seconds: float  # how long this run has waited so far


class Lease:
    """One held slot: the holder beats as it advances, and checks between units of work that it still has it.

    ``beat`` only notes the time (cheap enough for every optimizer step, and it never interrupts one);
    ``check`` raises Stopped (no progress) once the queue gave the slot away.
    """

    def __init__(self, ticket: str, clock: Callable[[], float]) -> None:
        self.ticket = ticket  # whose slot it is
        self.clock = clock
        self.last = clock()  # when the holder last beat
        self.lost: Message | None = None  # why the slot was taken back, once it was

    def beat(self) -> None:
        """Note that the holder advanced."""
        self.last = self.clock()

    def check(self) -> None:
        """Raise Stopped (no progress) when the queue has taken the slot back."""
        if self.lost is not None:
            raise Stopped(StopReason.NO_PROGRESS, self.lost)


class SlotQueue:
    """At most ``slots`` holders at once; the others wait in order of arrival and can see their place.

    A waiter is named by a ticket (one per run). Leaving ``hold`` without a slot, as an interrupted
    page does, keeps the ticket's place for REJOIN_SECONDS so that a rerun picks it up again; a
    cancelled ticket leaves at once, its ``hold`` raising Stopped (cancelled). Waiters that are away
    never block the ones behind them. A holder whose lease has not beaten for ``stall_seconds``
    (None: no bound) loses its slot as soon as another run waits for one.
    """

    def __init__(
        self, slots: int, stall_seconds: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if slots < 1:
            raise ValueError(f"A queue needs at least one slot; got {slots}.")
        self.slots = slots
        self.stall_seconds = stall_seconds  # a holder silent this long loses its slot; None = never
        self.clock = clock
        self._leases: list[Lease] = []  # the slots held now, one lease each
        self._cond = threading.Condition()
        self._order = itertools.count()
        self._arrival: dict[str, int] = {}  # ticket -> arrival number, for every waiter
        self._since: dict[str, float] = {}  # ticket -> clock() at arrival
        self._present: dict[str, int] = {}  # ticket -> hold() calls waiting with it now
        self._away: dict[str, float] = {}  # ticket -> when its last waiter left without a slot
        self._holders: dict[str, int] = {}  # ticket -> slots it holds (a rerun may overlap its old run)

    def _expire(self, now: float) -> None:
        for ticket, left in list(self._away.items()):
            if now - left > REJOIN_SECONDS:
                self._forget(ticket)
        if self.stall_seconds is None or not self._arrival:
            return
        for lease in [lease for lease in self._leases if now - lease.last > self.stall_seconds]:
            lease.lost = Message("slot_lost", seconds=seconds_field(self.stall_seconds))
            self._release(lease)

    def _release(self, lease: Lease) -> None:
        """Give ``lease``'s slot back (once) and wake the waiters."""
        if lease not in self._leases:
            return
        self._leases.remove(lease)
        self._holders[lease.ticket] -= 1
        if not self._holders[lease.ticket]:
            del self._holders[lease.ticket]
        self._cond.notify_all()

    def _forget(self, ticket: str) -> None:
        for table in (self._arrival, self._since, self._present, self._away):
            table.pop(ticket, None)

    def _waiters(self) -> list[str]:
        """Tickets waiting now, first come first."""
        return sorted(self._arrival, key=self._arrival.__getitem__)

    def _may_start(self, ticket: str) -> bool:
        if sum(self._holders.values()) >= self.slots:
            return False
        ahead = [t for t in self._waiters() if t not in self._away]
        return ahead.index(ticket) < self.slots - sum(self._holders.values())

    def status(self, ticket: str) -> Wait | None:
        """Where ``ticket`` stands while it waits; None when it is not waiting."""
        with self._cond:
            return self._status(ticket, self.clock())

    def _status(self, ticket: str, now: float) -> Wait | None:
        waiters = self._waiters()
        if ticket not in waiters:
            return None
        return Wait(
            place=waiters.index(ticket) + 1,
            waiting=len(waiters),
            training=sum(self._holders.values()),
            slots=self.slots,
            seconds=now - self._since[ticket],
        )

    @property
    def training(self) -> int:
        """Runs holding a slot now."""
        with self._cond:
            return sum(self._holders.values())

    def cancel(self, ticket: str) -> None:
        """Take ``ticket`` out of the queue now (a slot it holds is released by its own ``hold``)."""
        with self._cond:
            self._forget(ticket)
            self._cond.notify_all()

    @contextlib.contextmanager
    def hold(
        self, ticket: str, on_wait: Callable[[Wait], None] | None = None, poll: float = 0.25
    ) -> Iterator[Lease]:
        """Run the block in a slot, given its Lease; while waiting, call ``on_wait`` every ``poll`` seconds.

        ``on_wait`` may raise (a page interrupted by a click does): the ticket then keeps its
        place for a while, as described on the class.
        """
        self._enter(ticket)
        try:
            lease = self._wait_for_slot(ticket, on_wait, poll)
        except BaseException:
            self._leave_waiting(ticket)
            raise
        try:
            yield lease
        finally:
            with self._cond:
                self._release(lease)

    def _enter(self, ticket: str) -> None:
        with self._cond:
            now = self.clock()
            self._expire(now)
            if ticket not in self._arrival:
                self._arrival[ticket], self._since[ticket] = next(self._order), now
            self._present[ticket] = self._present.get(ticket, 0) + 1
            self._away.pop(ticket, None)

    def _wait_for_slot(self, ticket: str, on_wait: Callable[[Wait], None] | None, poll: float) -> Lease:
        while True:
            with self._cond:
                if ticket not in self._arrival:  # cancelled while waiting
                    raise Stopped(StopReason.CANCELLED, "This run left the training queue.")
                if self._may_start(ticket):
                    self._present[ticket] -= 1
                    if not self._present[ticket]:
                        self._forget(ticket)
                    self._holders[ticket] = self._holders.get(ticket, 0) + 1
                    self._leases.append(Lease(ticket, self.clock))
                    return self._leases[-1]
                wait = self._status(ticket, self.clock())
            # Reported before the first pause too: a page says "waiting" from the moment it must wait.
            if wait is not None and on_wait is not None:
                on_wait(wait)
            with self._cond:
                self._cond.wait(timeout=poll)
                self._expire(self.clock())

    def _leave_waiting(self, ticket: str) -> None:
        with self._cond:
            if ticket in self._present:
                self._present[ticket] -= 1
                if not self._present[ticket]:
                    self._away[ticket] = self.clock()
            self._cond.notify_all()
