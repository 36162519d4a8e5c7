"""Fair sharing of one server between many sessions: a training queue, a GPU-state lock, a thread policy.

A class shares one process: every browser tab is a thread of the same Streamlit server. Without a
queue, five runs on two cores each took 25x longer than one alone, and all finished late. With one,
runs take turns at full speed and everyone waiting sees their place. Nothing here imports Streamlit.
"""

from __future__ import annotations

import contextlib
import ipaddress
import itertools
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

SLOTS_ENV = "LINECNN_TRAIN_SLOTS"  # host setting: CPU runs that may train at once
GPU_SLOTS_ENV = "LINECNN_TRAIN_GPU_SLOTS"  # host setting: runs that may train at once on each GPU
GPU_SLOTS = 4  # a tiny model leaves a GPU mostly idle, but each run also needs a CPU core to launch work
REJOIN_SECONDS = 10.0  # a waiter whose page reran (any click does that) keeps its place this long


def default_cpu_slots(cpu_count: int | None = None) -> int:
    """CPU runs at once by default: one per two cores, so each run's ops get two threads."""
    return max(1, (cpu_count or os.cpu_count() or 1) // 2)


def slots_from_env(name: str, default: int) -> int:
    """A host's whole-number setting of at least 1 from the environment, else ``default``."""
    value = os.environ.get(name, "").strip()
    return int(value) if value.isdigit() and int(value) >= 1 else default


@dataclass(frozen=True)
class Wait:
    """Where a waiting run stands, for the page to show."""

    place: int  # 1 = next to start
    waiting: int  # runs waiting, this one included
    training: int  # runs training now
    slots: int  # runs that may train at once
    seconds: float  # how long this run has waited so far


class SlotQueue:
    """At most ``slots`` holders at once; the others wait in order of arrival and can see their place.

    A waiter is named by a ticket (one per run). Leaving ``hold`` without a slot, as an interrupted
    page does, keeps the ticket's place for REJOIN_SECONDS so that a rerun picks it up again; a
    cancelled ticket leaves at once. Waiters that are away never block the ones behind them.
    """

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"A queue needs at least one slot; got {slots}.")
        self.slots = slots
        self._cond = threading.Condition()
        self._order = itertools.count()
        self._arrival: dict[str, int] = {}  # ticket -> arrival number, for every waiter
        self._since: dict[str, float] = {}  # ticket -> time.monotonic() of arrival
        self._present: dict[str, int] = {}  # ticket -> hold() calls waiting with it now
        self._away: dict[str, float] = {}  # ticket -> when its last waiter left without a slot
        self._holders: dict[str, int] = {}  # ticket -> slots it holds (a rerun may overlap its old run)

    def _expire(self, now: float) -> None:
        for ticket, left in list(self._away.items()):
            if now - left > REJOIN_SECONDS:
                self._forget(ticket)

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
            return self._status(ticket, time.monotonic())

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
    ) -> Iterator[None]:
        """Run the block in a slot; while waiting, call ``on_wait`` every ``poll`` seconds.

        ``on_wait`` may raise (a page interrupted by a click does): the ticket then keeps its
        place for a while, as described on the class.
        """
        self._enter(ticket)
        try:
            self._wait_for_slot(ticket, on_wait, poll)
        except BaseException:
            self._leave_waiting(ticket)
            raise
        try:
            yield
        finally:
            with self._cond:
                self._holders[ticket] -= 1
                if not self._holders[ticket]:
                    del self._holders[ticket]
                self._cond.notify_all()

    def _enter(self, ticket: str) -> None:
        with self._cond:
            now = time.monotonic()
            self._expire(now)
            if ticket not in self._arrival:
                self._arrival[ticket], self._since[ticket] = next(self._order), now
            self._present[ticket] = self._present.get(ticket, 0) + 1
            self._away.pop(ticket, None)

    def _wait_for_slot(self, ticket: str, on_wait: Callable[[Wait], None] | None, poll: float) -> None:
        while True:
            with self._cond:
                if ticket not in self._arrival:  # cancelled while waiting
                    raise Cancelled("This run left the training queue.")
                if self._may_start(ticket):
                    self._present[ticket] -= 1
                    if not self._present[ticket]:
                        self._forget(ticket)
                    self._holders[ticket] = self._holders.get(ticket, 0) + 1
                    return
                self._cond.wait(timeout=poll)
                now = time.monotonic()
                self._expire(now)
                wait = self._status(ticket, now)
            if wait is not None and on_wait is not None:
                on_wait(wait)

    def _leave_waiting(self, ticket: str) -> None:
        with self._cond:
            if ticket in self._present:
                self._present[ticket] -= 1
                if not self._present[ticket]:
                    self._away[ticket] = time.monotonic()
            self._cond.notify_all()


class Cancelled(Exception):
    """A waiting run was taken out of the queue."""


class GpuState:
    """Shared use of the GPUs for ordinary work; exclusive use while process-wide CUDA state changes.

    ``torch.backends.cudnn.benchmark``, CUDA-graph capture and ``torch.compile`` affect every thread
    of the process: a Train run beside them would be timed or computed under another session's
    settings, and a capture fails when another thread launches work meanwhile. Writers go first
    once they wait, so a stream of short training epochs cannot starve a benchmark cell.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._sharing = 0  # blocks inside shared()
        self._exclusive = False  # a block inside exclusive()
        self._writers_waiting = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        """Ordinary GPU work, alongside other ordinary work."""
        with self._cond:
            while self._exclusive or self._writers_waiting:
                self._cond.wait()
            self._sharing += 1
        try:
            yield
        finally:
            with self._cond:
                self._sharing -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Work that changes process-wide CUDA state: nothing else on a GPU meanwhile."""
        with self._cond:
            self._writers_waiting += 1
            try:
                while self._exclusive or self._sharing:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._exclusive = True
        try:
            yield
        finally:
            with self._cond:
                self._exclusive = False
                self._cond.notify_all()


GPU_STATE = GpuState()  # one per process: every session of a Streamlit server shares it


def gpu_shared(device: torch.device | str) -> contextlib.AbstractContextManager:
    """``GPU_STATE.shared()`` for work on a GPU; nothing to wait for on other devices."""
    return GPU_STATE.shared() if torch.device(device).type == "cuda" else contextlib.nullcontext()


def sharing_gpu(records: Iterator, device: torch.device | str) -> Iterator:
    """Yield from ``records`` with each step taken in ``gpu_shared(device)``.

    Per step, not per run: a benchmark cell then waits at most one epoch, never a whole run.
    """
    while True:
        with gpu_shared(device):
            record = next(records, None)
        if record is None:
            return
        yield record


_QUEUES: dict[str, SlotQueue] = {}
_QUEUES_LOCK = threading.Lock()


def training_queue(device: torch.device | str) -> SlotQueue:
    """The server-wide queue of one device ('cpu', 'cuda:0', ...), made on first use."""
    key = str(torch.device(device))
    key = "cuda:0" if key == "cuda" else key
    with _QUEUES_LOCK:
        if key not in _QUEUES:
            cpu = key == "cpu"
            default = default_cpu_slots() if cpu else min(GPU_SLOTS, os.cpu_count() or 1)
            _QUEUES[key] = SlotQueue(slots_from_env(SLOTS_ENV if cpu else GPU_SLOTS_ENV, default))
        return _QUEUES[key]


def is_local_client(address: str | None) -> bool:
    """True when a browser's address is this machine (or unknown): it then shares our cores."""
    if not address:
        return True
    try:
        return ipaddress.ip_address(address.strip().strip("[]")).is_loopback
    except ValueError:
        return True


def cpu_share(slots: int, cpu_count: int | None = None) -> int:
    """CPU threads one run gets when ``slots`` runs train at once: the cores split evenly."""
    return max(1, (cpu_count or os.cpu_count() or 1) // max(1, slots))
