"""A data-parallel series running in a background thread that never calls Streamlit; the page reads it."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import torch

from linecnn.bench.lock import BENCH_LOCK, gpu_alone
from linecnn.bench.plan import Caps
from linecnn.parallel.config import RanksConfig
from linecnn.parallel.launch import Launch
from linecnn.parallel.results import Series
from linecnn.parallel.series import run_series

POLL_SECONDS = 0.5  # how often a queued job checks for a cancel, and the page redraws the progress


class _Cancel(BaseException):
    """Raised in the job's thread from its callbacks when the user cancels."""


@dataclass
class RanksJob:
    """A series of torchrun runs in a background thread; the thread writes it, the page only reads it."""

    config: RanksConfig  # the problem every run trains
    counts: list[int]  # the rank counts, fewest first
    caps: Caps  # this server's limits (the time cap ends the series)
    who: str  # the session's short name, for the lock
    series: Series | None = None  # what has been measured so far
    ranks: int = 0  # the run in flight: its number of processes
    done: int = 0  # its epochs done
    total: int = 0  # its epochs planned
    waited: float | None = None  # seconds queued behind another benchmark, while queued
    locked: bool = False  # holds the benchmark lock: the reference or the runs are under way
    cancel: threading.Event = field(default_factory=threading.Event)  # set by the Cancel button
    finished: threading.Event = field(default_factory=threading.Event)  # set when the thread has ended
    cancelled: bool = False  # the user cancelled it
    error: str | None = None  # what ended it unexpectedly (a dead rank), if anything did
    started: float = field(default_factory=time.monotonic)  # time.monotonic() at Run
    seconds: float = 0.0  # how long it ran, once finished

    @property
    def fraction(self) -> float:
        """Share of the series done, for the progress bar."""
        if not self.ranks:
            return 0.0
        index = self.counts.index(self.ranks)
        return min(1.0, (index + self.done / max(1, self.total)) / len(self.counts))

    def queued(self, _holder: str | None, waited: float) -> None:
        """BENCH_LOCK's wait callback: note the wait; a cancel lands here too."""
        self.waited = waited
        self.check()

    def progress(self, launch: Launch) -> None:
        """run_series' callback: note where the run in flight is; a cancel ends its processes from here."""
        self.ranks, self.done, self.total = launch.ranks, launch.done, launch.total
        self.check()

    def check(self) -> None:
        """run_series' callback between the reference's epochs: a cancel lands here too."""
        if self.cancel.is_set():
            raise _Cancel

    def keep(self, series: Series) -> None:
        """run_series' callback after each finished run: keep the rows, whatever ends the series later."""
        self.series = series

    def run(self) -> None:
        """The thread's body: the series under the server-wide lock (and the GPUs alone for NCCL)."""
        try:
            with BENCH_LOCK.hold(self.who, on_wait=self.queued, poll=POLL_SECONDS):
                self.waited, self.locked = None, True
                with gpu_alone(torch.device(self.config.device)):
                    self.series = run_series(
                        self.config,
                        self.counts,
                        self.progress,
                        self.caps.max_seconds,
                        on_row=self.keep,
                        check=self.check,
                    )
        except _Cancel:
            self.cancelled = True
        except Exception as error:  # noqa: BLE001 - a dead rank or a failed launch: said on the page
            self.error = str(error)
        finally:
            self.seconds = time.monotonic() - self.started
            self.finished.set()
