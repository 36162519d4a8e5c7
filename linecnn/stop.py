"""The one exception that ends work early, with why as data: a cancel, a time cap, a killed process.

Everything that stops a run raises ``Stopped``: the bench timing's Watch, the training queue
(Stop while queued, a slot lost for lack of progress), the torchrun launcher (and its watchdog)
and the Benchmark page's background jobs. Whoever
handles one kind of stop (the sweep and the series handle the time cap) re-raises the others.
This module imports nothing from linecnn, so every module may import it without a cycle.
"""

from __future__ import annotations

from enum import Enum


class StopReason(Enum):
    """Why work ended early."""

    CANCELLED = "cancelled"  # someone asked: Cancel on the Benchmark page, Stop while queued for training
    TIME_CAP = "time cap"  # the server's cap on a benchmark's wall time ran out
    PROCESS_KILLED = "process killed"  # a process of a torchrun run died and torchrun ended the others
    NO_PROGRESS = "no progress"  # a process, a training run or a benchmark went silent past its host's bound


class Stopped(Exception):
    """Work ended before its end; ``reason`` says why and the text says it in a sentence (or a short note)."""

    def __init__(self, reason: StopReason, text: str = "") -> None:
        super().__init__(text or reason.value)
        self.reason = reason  # why it stopped

    @classmethod
    def time_cap(cls, seconds: float) -> Stopped:
        """The time cap of ``seconds`` ran out ("time cap of 15 s", the reason a stopped cell records)."""
        return cls(StopReason.TIME_CAP, f"time cap of {seconds:g} s")

