"""What a rank tells the launcher: ``LINECNN {json}`` lines on stdout, and a heartbeat every second.

Every rank's stdout is torchrun's, which the launcher reads; a line without the prefix is passed
through as ordinary output.
"""

from __future__ import annotations

import json
import threading

from linecnn.procs.beat import Beater

PREFIX = "LINECNN "  # marks the lines of stdout the launcher reads; anything else is passed through
_EMIT = threading.Lock()  # the heartbeat thread and the main thread print whole lines, one at a time


def emit(event: str, **values: object) -> None:
    """Print one event for the launcher as a ``LINECNN {json}`` line."""
    line = PREFIX + json.dumps({"event": event, **values})
    with _EMIT:
        print(line, flush=True)


class Heartbeat:
    """Emits ``beat`` with this rank's optimizer steps every second until stopped (``linecnn.procs.beat``).

    A frozen or stopped process sends nothing, which is what the launcher's watchdog looks for; the
    step count lets a reader see training advance. ``step`` runs inside the timed epoch: one addition.
    """

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.steps = 0  # optimizer steps this rank has finished
        self._beater = Beater(self._beat, name="linecnn-rank-heartbeat")

    def step(self) -> None:
        """Count one optimizer step (``train_epoch``'s ``after_step``)."""
        self.steps += 1

    def start(self) -> None:
        """Start beating."""
        self._beater.start()

    def stop(self) -> None:
        """Stop beating and wait for the thread to end (before the process exits)."""
        self._beater.stop()

    def _beat(self) -> None:
        emit("beat", rank=self.rank, steps=self.steps)
