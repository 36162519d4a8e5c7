"""GPU work of this server beside its Train runs and benchmarks: a Draw prediction, a Lesson snippet.

Such work is short and never waits for a benchmark (a drawing is classified at once), but while a
benchmark's CUDA cell runs in its worker process it shares the GPU with it, so the cell's timing is
marked disturbed. Nothing here imports Streamlit.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import torch


class GpuUse:
    """Counts GPU work as it starts and ends, for one reader to ask whether any ran since it last asked."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0  # blocks inside using() now
        self._started = 0  # blocks started so far
        self._seen = 0  # _started when the reader last asked

    @contextlib.contextmanager
    def using(self, device: torch.device | str) -> Iterator[None]:
        """Mark the block as GPU work when ``device`` is a GPU; nothing on other devices."""
        if torch.device(device).type != "cuda":
            yield
            return
        with self._lock:
            self._active += 1
            self._started += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1

    def since_last_look(self) -> bool:
        """True when GPU work runs now or started since the previous call."""
        with self._lock:
            seen = self._active > 0 or self._started != self._seen
            self._seen = self._started
            return seen


GPU_USE = GpuUse()  # one per process: every session of a Streamlit server shares it
