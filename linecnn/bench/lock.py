"""Who may use the machine while a benchmark times it: one benchmark per process, CUDA cells alone."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

import torch

from linecnn.serve.sharing import GPU_STATE


def gpu_alone(device: torch.device) -> contextlib.AbstractContextManager:
    """Exclusive use of the GPUs for a CUDA cell; nothing to wait for on other devices."""
    return GPU_STATE.exclusive() if device.type == "cuda" else contextlib.nullcontext()


class BenchLock:
    """One benchmark at a time in this process (the server), so that runs never share the machine."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.holder: str | None = None  # who runs now, for the queued message

    @contextlib.contextmanager
    def hold(
        self, who: str, on_wait: Callable[[str | None, float], None] | None = None, poll: float = 0.25
    ) -> Iterator[None]:
        """Run the block alone; while queued, call ``on_wait(holder, seconds waited)`` every ``poll`` s."""
        queued = time.monotonic()
        while not self._lock.acquire(timeout=poll):
            if on_wait is not None:
                on_wait(self.holder, time.monotonic() - queued)
        self.holder = who
        try:
            yield
        finally:
            self.holder = None
            self._lock.release()

    @property
    def busy(self) -> bool:
        """True while some benchmark holds the lock."""
        return self._lock.locked()


BENCH_LOCK = BenchLock()  # shared by every session of a Streamlit server (module state is per process)
