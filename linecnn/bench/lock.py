"""Who may use the machine while a benchmark times it: one benchmark per process in turn, CUDA cells alone.

Waiters get the lock in order of arrival, and anyone can see who holds it and who waits how long.
The holder beats its lease as it reports progress; a holder silent past the host's bound (a thread
stuck in a call that never returns) loses the lock to the next benchmark, and its own next check
raises Stopped (no progress) with a sentence saying so.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from linecnn.classroom.queue import Lease
from linecnn.classroom.settings import env_number, seconds_field
from linecnn.classroom.sharing import GPU_STATE
from linecnn.errors import Message

STALL_ENV = "LINECNN_BENCH_STALL_SECONDS"  # host setting: a benchmark silent this long loses the lock
STALL_SECONDS = 120.0  # its default: longer than any one epoch or set-up of a cell the caps allow
MIN_STALL_SECONDS = 1.0


def gpu_alone(device: torch.device) -> contextlib.AbstractContextManager:
    """Exclusive use of the GPUs for a CUDA cell; nothing to wait for on other devices."""
    return GPU_STATE.exclusive() if device.type == "cuda" else contextlib.nullcontext()


@dataclass(frozen=True)
class Waiter:
    """Someone in the benchmark queue, for the page to show."""

    who: str  # the session's short name
    seconds: float  # how long it has held the lock, or waited for it, so far


class BenchLock:
    """One benchmark at a time in this process (the server), so that runs never share the machine.

    A holder whose lease has not beaten for ``stall_seconds`` (None: no bound) loses the lock as
    soon as another benchmark waits for it.
    """

    def __init__(
        self, stall_seconds: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.stall_seconds = stall_seconds  # silence after which the holder loses the lock; None = never
        self.clock = clock
        self._cond = threading.Condition()
        self._tickets = itertools.count()
        self._waiting: dict[int, tuple[str, float]] = {}  # ticket -> (who, clock() at arrival)
        self._lease: Lease | None = None  # the holder's lease, None while free
        self.holder: str | None = None  # who runs now, for the queued message
        self._since = 0.0  # clock() when the holder took the lock

    @contextlib.contextmanager
    def hold(
        self, who: str, on_wait: Callable[[str | None, float], None] | None = None, poll: float = 0.25
    ) -> Iterator[Lease]:
        """Run the block alone, given its lease; while queued, call ``on_wait(holder, seconds waited)``
        every ``poll`` s. Whatever ``on_wait`` raises (a cancel) leaves the queue at once."""
        queued = self.clock()
        with self._cond:
            ticket = next(self._tickets)
            self._waiting[ticket] = (who, queued)
        try:
            while (lease := self._take(ticket, who, poll)) is None:
                if on_wait is not None:
                    on_wait(self.holder, self.clock() - queued)
        finally:
            with self._cond:
                if self._waiting.pop(ticket, None) is not None:
                    self._cond.notify_all()  # left the queue without the lock: the next may go
        try:
            yield lease
        finally:
            with self._cond:
                if self._lease is lease:
                    self._lease, self.holder = None, None
                self._cond.notify_all()

    def _take(self, ticket: int, who: str, poll: float) -> Lease | None:
        """A lease for ``ticket`` when it is first in line and the lock is free or its holder fell silent,
        else None after waiting up to ``poll`` s."""
        with self._cond:
            lease, bound = self._lease, self.stall_seconds
            if lease is not None and bound is not None and self.clock() - lease.last > bound:
                lease.lost = Message("bench_stalled", seconds=seconds_field(bound))
                self._lease, self.holder = None, None
            if self._lease is None and next(iter(self._waiting)) == ticket:
                del self._waiting[ticket]
                self._lease, self.holder, self._since = Lease(who, self.clock), who, self.clock()
                return self._lease
            self._cond.wait(poll)
            return None

    def queue(self) -> tuple[Waiter | None, list[Waiter]]:
        """Who holds the lock (and since how long), and who waits, first in line first."""
        now = self.clock()
        with self._cond:
            holder = None if self.holder is None else Waiter(self.holder, now - self._since)
            return holder, [Waiter(who, now - since) for who, since in self._waiting.values()]

    @property
    def busy(self) -> bool:
        """True while some benchmark holds the lock."""
        return self._lease is not None


# Shared by every session of a Streamlit server (module state is per process).
BENCH_LOCK = BenchLock(env_number(STALL_ENV, STALL_SECONDS, MIN_STALL_SECONDS))
