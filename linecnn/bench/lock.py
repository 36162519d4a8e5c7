"""Who may use the machine while a benchmark times it: one benchmark per process in turn, CUDA cells alone."""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from linecnn.serve.sharing import GPU_STATE


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

    Waiters get the lock in order of arrival, and anyone can see who holds it and who waits how long.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._tickets = itertools.count()
        self._waiting: dict[int, tuple[str, float]] = {}  # ticket -> (who, time.monotonic() at arrival)
        self.holder: str | None = None  # who runs now, for the queued message
        self._since = 0.0  # time.monotonic() when the holder took the lock

    @contextlib.contextmanager
    def hold(
        self, who: str, on_wait: Callable[[str | None, float], None] | None = None, poll: float = 0.25
    ) -> Iterator[None]:
        """Run the block alone; while queued, call ``on_wait(holder, seconds waited)`` every ``poll`` s.

        Whatever ``on_wait`` raises (a cancel) leaves the queue at once.
        """
        queued = time.monotonic()
        with self._cond:
            ticket = next(self._tickets)
            self._waiting[ticket] = (who, queued)
        try:
            while not self._take(ticket, who, poll):
                if on_wait is not None:
                    on_wait(self.holder, time.monotonic() - queued)
        finally:
            with self._cond:
                if self._waiting.pop(ticket, None) is not None:
                    self._cond.notify_all()  # left the queue without the lock: the next may go
        try:
            yield
        finally:
            with self._cond:
                self.holder = None
                self._cond.notify_all()

    def _take(self, ticket: int, who: str, poll: float) -> bool:
        """Take the lock if it is free and ``ticket`` is first in line, else wait up to ``poll`` s."""
        with self._cond:
            if self.holder is None and next(iter(self._waiting)) == ticket:
                del self._waiting[ticket]
                self.holder, self._since = who, time.monotonic()
                return True
            self._cond.wait(poll)
            return False

    def queue(self) -> tuple[Waiter | None, list[Waiter]]:
        """Who holds the lock (and since how long), and who waits, first in line first."""
        now = time.monotonic()
        with self._cond:
            holder = None if self.holder is None else Waiter(self.holder, now - self._since)
            return holder, [Waiter(who, now - since) for who, since in self._waiting.values()]

    @property
    def busy(self) -> bool:
        """True while some benchmark holds the lock."""
        return self.holder is not None


BENCH_LOCK = BenchLock()  # shared by every session of a Streamlit server (module state is per process)
