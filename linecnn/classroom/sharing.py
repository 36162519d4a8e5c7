"""Fair sharing of one server between many sessions: a training queue, the GPU-state and CPU-clock locks,
a thread policy.

A class shares one process: every browser tab is a thread of the same Streamlit server. Runs that
all train at once on a few cores slow each other down many times over and all finish late; in a
queue they take turns at full speed and everyone waiting sees their place. Nothing here imports
Streamlit.
"""

from __future__ import annotations

import contextlib
import ipaddress
import itertools
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch

from linecnn.classroom.line import WaitingLine
from linecnn.classroom.settings import env_number, env_whole
from linecnn.device import core_share

SLOTS_ENV = "LINECNN_TRAIN_SLOTS"  # host setting: CPU runs that may train at once
GPU_SLOTS_ENV = "LINECNN_TRAIN_GPU_SLOTS"  # host setting: runs that may train at once on each GPU
GPU_SLOTS = 4  # a tiny model leaves a GPU mostly idle, but each run also needs a CPU core to launch work
STALL_ENV = "LINECNN_TRAIN_STALL_SECONDS"  # host setting: a slot holder silent this long loses its slot
STALL_SECONDS = 30.0  # its default: every optimizer step beats, so a healthy run is never silent this long
MIN_STALL_SECONDS = 1.0
BEAT_SECONDS = 1.0  # how often work waiting for an exclusive hold says it is still alive


def default_cpu_slots(cpu_count: int | None = None) -> int:
    """CPU runs at once by default: one per two cores, so each run's ops get two threads."""
    return max(1, (cpu_count or os.cpu_count() or 1) // 2)


def slots_from_env(name: str, default: int) -> int:
    """A host's whole-number setting of at least 1 from the environment, else ``default`` (logged)."""
    return env_whole(name, default) or default


@dataclass
class Turn:
    """One shared turn: how long it waited for an exclusive hold to end before it began."""

    waited: float = 0.0  # seconds


@dataclass
class Ledger:
    """One exclusive hold's cost to the others: who waited for it, and for how long all together."""

    runs: set[str] = field(default_factory=set)  # the names of those who waited
    seconds: float = 0.0


class SharedExclusive:
    """Shared use of something for ordinary work; exclusive use while one holder needs it alone.

    Used twice: the GPUs' process-wide state (``torch.backends.cudnn.benchmark``, CUDA-graph capture
    and ``torch.compile`` affect every thread of the process, and a capture fails when another thread
    launches work meanwhile), and the CPU clock (a benchmark cell timed on every core while Train
    epochs wait). Writers go first once they wait, so a stream of short training epochs cannot
    starve a benchmark cell. A reader that had to wait adds its wait to the hold it waited for
    (``Ledger``), so the holder can say what it cost.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._cond = threading.Condition()
        self._sharing = 0  # blocks inside shared()
        self._exclusive: Ledger | None = None  # the ledger of the block inside exclusive(), if any
        self._writers_waiting = 0
        self._tokens = itertools.count()
        self._waiting: dict[int, tuple[str, float]] = {}  # reader -> (its name, clock() since it waits)

    @property
    def readers_waiting(self) -> int:
        """Ordinary work waiting now for an exclusive hold to end."""
        with self._cond:
            return len(self._waiting)

    @contextlib.contextmanager
    def shared(self, who: str = "", beat: Callable[[], None] | None = None) -> Iterator[Turn]:
        """Ordinary work, alongside other ordinary work; ``who`` names it in the holder's ledger, and
        ``beat`` runs every BEAT_SECONDS while it waits (a training slot's lease: waiting is not stalling)."""
        turn = Turn()
        with self._cond:
            if self._exclusive is not None or self._writers_waiting:
                token, since = next(self._tokens), self.clock()
                self._waiting[token] = (who or f"#{token}", since)
                try:
                    while self._exclusive is not None or self._writers_waiting:
                        self._cond.wait(BEAT_SECONDS)
                        if beat is not None:
                            beat()
                finally:
                    del self._waiting[token]
                turn.waited = self.clock() - since
            self._sharing += 1
        try:
            yield turn
        finally:
            with self._cond:
                self._sharing -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[Ledger]:
        """Work that needs the thing alone: nothing shared meanwhile. The ledger is complete on exit."""
        ledger = Ledger()
        with self._cond:
            self._writers_waiting += 1
            try:
                while self._exclusive is not None or self._sharing:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._exclusive = ledger
        try:
            yield ledger
        finally:
            with self._cond:
                now = self.clock()
                for token, (who, since) in self._waiting.items():
                    ledger.runs.add(who)
                    ledger.seconds += now - since
                    self._waiting[token] = (who, now)  # any further wait is the next holder's cost
                self._exclusive = None
                self._cond.notify_all()


GPU_STATE = SharedExclusive()  # one per process: every session of a Streamlit server shares it
CPU_CLOCK = SharedExclusive()  # held exclusively while a benchmark cell is timed on every core


def gpu_shared(
    device: torch.device | str, who: str = "", beat: Callable[[], None] | None = None
) -> contextlib.AbstractContextManager:
    """``GPU_STATE.shared()`` for work on a GPU; nothing to wait for on other devices."""
    cuda = torch.device(device).type == "cuda"
    return GPU_STATE.shared(who, beat) if cuda else contextlib.nullcontext(Turn())


@contextlib.contextmanager
def machine_turn(
    device: torch.device | str, who: str = "", beat: Callable[[], None] | None = None
) -> Iterator[Turn]:
    """One step of ordinary work: its share of the GPU state (on a GPU), then of the CPU clock (on any
    device: a CUDA step's launching thread needs a core too). A benchmark takes them in the same order.
    ``beat`` keeps the run's training slot while it waits."""
    with gpu_shared(device, who, beat) as gpu, CPU_CLOCK.shared(who, beat) as cpu:
        yield Turn(gpu.waited + cpu.waited)


def sharing_machine(
    records: Iterator,
    device: torch.device | str,
    who: str = "",
    waited: Callable[[float], None] | None = None,
    beat: Callable[[], None] | None = None,
) -> Iterator:
    """Yield from ``records`` with each step taken in ``machine_turn(device, who, beat)``;
    ``waited(seconds)`` hears of each step that had to wait.

    Per step, not per run: a benchmark cell then waits at most one epoch, never a whole run. The
    turn lasts until the consumer asks for the next record, so what it does with a record (a page
    redraws its charts) is done before a cell takes the clock, not on the cell's cores while it is
    timed. A consumer that stops early ends the turn when it closes this generator (CPython does on
    leaving the loop).
    """
    while True:
        with machine_turn(device, who, beat) as turn:
            if turn.waited and waited is not None:
                waited(turn.waited)
            record = next(records, None)
            if record is None:
                return
            yield record


_QUEUES: dict[str, WaitingLine] = {}
_QUEUES_LOCK = threading.Lock()


def training_queue(device: torch.device | str) -> WaitingLine:
    """The server-wide queue of one device ('cpu', 'cuda:0', ...), made on first use."""
    key = str(torch.device(device))
    key = "cuda:0" if key == "cuda" else key
    with _QUEUES_LOCK:
        if key not in _QUEUES:
            cpu = key == "cpu"
            default = default_cpu_slots() if cpu else min(GPU_SLOTS, os.cpu_count() or 1)
            slots = slots_from_env(SLOTS_ENV if cpu else GPU_SLOTS_ENV, default)
            _QUEUES[key] = WaitingLine(slots, env_number(STALL_ENV, STALL_SECONDS, MIN_STALL_SECONDS))
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
    return core_share(slots, cpu_count)
