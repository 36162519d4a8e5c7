"""One waiting line with leases: at most N holders at once, the others wait first come first served.

Two are made: one per device for the Train page's runs (``classroom.sharing.training_queue``, N slots
each) and one per server for the benchmark (``classroom.bench_turns.BENCH_TURNS``, one slot). Each
waiter sees its place. A holder proves it advances by beating its ``Lease``; one silent past the line's
bound loses its slot to the next in line, and learns why at its next ``check``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from linecnn.classroom.settings import seconds_field
from linecnn.errors import Message
from linecnn.stop import Stopped, StopReason

REJOIN_SECONDS = 10.0  # a Train waiter whose page reran (any click does that) keeps its place this long


@dataclass(frozen=True)
class Wait:
    """Where a waiting ticket stands, for the page to show."""

    place: int  # 1 = next to start
    waiting: int  # tickets in line, this one included
    holders: tuple[str, ...]  # who holds a slot now, first to take one first
    slots: int  # holders allowed at once
    seconds: float  # how long this ticket has waited so far

    @property
    def held(self) -> int:
        """Slots in use now."""
        return len(self.holders)


@dataclass(frozen=True)
class InLine:
    """Someone holding a slot or waiting for one, for the page to show."""

    who: str  # the name given to ``hold``
    seconds: float  # how long it has held its slot, or waited for one, so far


class Lease:
    """One held slot: the holder beats as it advances, and checks between units of work that it still has it.

    ``beat`` only notes the time (cheap enough for every optimizer step, and it never interrupts one);
    ``check`` raises Stopped (no progress) once the line gave the slot away.
    """

    def __init__(self, ticket: str, who: str, clock: Callable[[], float]) -> None:
        self.ticket = ticket  # whose slot it is
        self.who = who  # the holder's name, for the others to see
        self.clock = clock
        self.taken = self.last = clock()  # when the slot was taken; when the holder last beat
        self.lost: Message | None = None  # why the slot was taken back, once it was

    def beat(self) -> None:
        """Note that the holder advanced."""
        self.last = self.clock()

    def check(self) -> None:
        """Raise Stopped (no progress) when the line has taken the slot back."""
        if self.lost is not None:
            raise Stopped(StopReason.NO_PROGRESS, self.lost)


@dataclass
class _Ticket:
    """One ticket in line: its name and how it stands."""

    who: str  # shown to the others
    since: float  # clock() at arrival
    present: int = 0  # hold() calls waiting with this ticket now (a rerun may overlap its old script run)
    away: float | None = None  # clock() when its last waiter left without a slot; None while one waits


class WaitingLine:
    """At most ``slots`` holders at once; the others wait in order of arrival and can see their place.

    A waiter is named by a ticket. Leaving ``hold`` without a slot, as an interrupted page does, keeps
    the ticket's place for ``rejoin_seconds`` so that a rerun picks it up again (0: it leaves at once);
    a cancelled ticket leaves at once, its ``hold`` raising Stopped (cancelled). Waiters that are away
    never block the ones behind them. A holder whose lease has not beaten for ``stall_seconds`` (None:
    no bound) loses its slot as soon as someone waits in line; its next check says so in the
    sentence ``lost`` names (an errors.toml key taking ``seconds``).
    """

    def __init__(
        self,
        slots: int,
        stall_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        rejoin_seconds: float = REJOIN_SECONDS,
        lost: str = "slot_lost",
    ) -> None:
        if slots < 1:
            raise ValueError(f"A queue needs at least one slot; got {slots}.")
        self.slots = slots
        self.stall_seconds = stall_seconds  # a holder silent this long loses its slot; None = never
        self.clock = clock
        self.rejoin_seconds = rejoin_seconds  # how long a ticket that left without a slot keeps its place
        self.lost = lost  # the sentence a holder that lost its slot for silence is stopped with
        self._cond = threading.Condition()
        self._line: dict[str, _Ticket] = {}  # the tickets waiting, first come first (a dict keeps order)
        self._leases: list[Lease] = []  # the slots held now, first taken first

    def _expire(self, now: float) -> None:
        for ticket, entry in list(self._line.items()):
            if entry.away is not None and now - entry.away > self.rejoin_seconds:
                del self._line[ticket]
        if self.stall_seconds is None or not self._line:
            return
        for lease in [lease for lease in self._leases if now - lease.last > self.stall_seconds]:
            lease.lost = Message(self.lost, seconds=seconds_field(self.stall_seconds))
            self._release(lease)

    def _release(self, lease: Lease) -> None:
        """Give ``lease``'s slot back (once) and wake the waiters."""
        if lease in self._leases:
            self._leases.remove(lease)
            self._cond.notify_all()

    def _may_start(self, ticket: str) -> bool:
        free = self.slots - len(self._leases)
        ahead = [waiting for waiting, entry in self._line.items() if entry.away is None]
        return free > 0 and ahead.index(ticket) < free

    def status(self, ticket: str) -> Wait | None:
        """Where ``ticket`` stands while it waits; None when it is not waiting."""
        with self._cond:
            return self._status(ticket, self.clock())

    def _status(self, ticket: str, now: float) -> Wait | None:
        entry = self._line.get(ticket)
        if entry is None:
            return None
        return Wait(
            place=list(self._line).index(ticket) + 1,
            waiting=len(self._line),
            holders=tuple(lease.who for lease in self._leases),
            slots=self.slots,
            seconds=now - entry.since,
        )

    def holders(self) -> list[InLine]:
        """Who holds a slot, and since how long, first to take one first."""
        with self._cond:
            now = self.clock()
            return [InLine(lease.who, now - lease.taken) for lease in self._leases]

    def waiters(self) -> list[InLine]:
        """Who waits in line (a ticket keeping its place included), and since how long, first come first."""
        with self._cond:
            now = self.clock()
            return [InLine(entry.who, now - entry.since) for entry in self._line.values()]

    @property
    def held(self) -> int:
        """Slots held now."""
        with self._cond:
            return len(self._leases)

    @property
    def busy(self) -> bool:
        """True while someone holds a slot."""
        return self.held > 0

    def cancel(self, ticket: str) -> None:
        """Take ``ticket`` out of the line now (a slot it holds is released by its own ``hold``)."""
        with self._cond:
            self._line.pop(ticket, None)
            self._cond.notify_all()

    @contextlib.contextmanager
    def hold(
        self, ticket: str, on_wait: Callable[[Wait], None] | None = None, poll: float = 0.25, who: str = ""
    ) -> Iterator[Lease]:
        """Run the block in a slot, given its Lease; while waiting, call ``on_wait`` every ``poll`` seconds.

        ``who`` (default: the ticket) names the ticket to the others. ``on_wait`` may raise (a page
        interrupted by a click does, and so does a cancelled benchmark): the ticket then keeps its
        place for a while, as described on the class.
        """
        self._enter(ticket, who or ticket)
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

    def _enter(self, ticket: str, who: str) -> None:
        with self._cond:
            now = self.clock()
            self._expire(now)
            entry = self._line.setdefault(ticket, _Ticket(who, now))
            entry.present += 1
            entry.away = None

    def _wait_for_slot(self, ticket: str, on_wait: Callable[[Wait], None] | None, poll: float) -> Lease:
        while True:
            with self._cond:
                entry = self._line.get(ticket)
                if entry is None:  # cancelled while waiting
                    raise Stopped(StopReason.CANCELLED, "This run left the line.")
                if self._may_start(ticket):
                    entry.present -= 1
                    if not entry.present:
                        del self._line[ticket]
                    self._leases.append(Lease(ticket, entry.who, self.clock))
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
            entry = self._line.get(ticket)
            if entry is not None:
                entry.present -= 1
                if not entry.present and self.rejoin_seconds > 0:
                    entry.away = self.clock()
                elif not entry.present:
                    del self._line[ticket]
            self._cond.notify_all()
