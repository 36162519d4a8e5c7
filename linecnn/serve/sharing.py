"""Fair sharing of one server between many sessions: a training queue, a GPU-state lock, a thread policy.

A class shares one process: every browser tab is a thread of the same Streamlit server. Runs that
all train at once on a few cores slow each other down many times over and all finish late; in a
queue they take turns at full speed and everyone waiting sees their place. Nothing here imports
Streamlit.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import threading
from collections.abc import Iterator

import torch

from linecnn.serve.queue import SlotQueue
from linecnn.serve.settings import env_number, env_whole

SLOTS_ENV = "LINECNN_TRAIN_SLOTS"  # host setting: CPU runs that may train at once
GPU_SLOTS_ENV = "LINECNN_TRAIN_GPU_SLOTS"  # host setting: runs that may train at once on each GPU
GPU_SLOTS = 4  # a tiny model leaves a GPU mostly idle, but each run also needs a CPU core to launch work
STALL_ENV = "LINECNN_TRAIN_STALL_SECONDS"  # host setting: a slot holder silent this long loses its slot
STALL_SECONDS = 30.0  # its default: every optimizer step beats, so a healthy run is never silent this long
MIN_STALL_SECONDS = 1.0


def default_cpu_slots(cpu_count: int | None = None) -> int:
    """CPU runs at once by default: one per two cores, so each run's ops get two threads."""
    return max(1, (cpu_count or os.cpu_count() or 1) // 2)


def slots_from_env(name: str, default: int) -> int:
    """A host's whole-number setting of at least 1 from the environment, else ``default`` (logged)."""
    return env_whole(name, default) or default


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
            slots = slots_from_env(SLOTS_ENV if cpu else GPU_SLOTS_ENV, default)
            _QUEUES[key] = SlotQueue(slots, env_number(STALL_ENV, STALL_SECONDS, MIN_STALL_SECONDS))
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
