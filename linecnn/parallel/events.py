"""What a rank tells the launcher: ``LINECNN {json}`` lines on stdout, and a heartbeat every second.

Every rank's stdout is torchrun's, which the launcher reads; a line without the prefix is passed
through as ordinary output.
"""

from __future__ import annotations

import json
import os
import sys
import threading

from linecnn.procs.beat import Beater

PREFIX = "LINECNN "  # marks the lines of stdout the launcher reads; anything else is passed through
_EMIT = threading.Lock()  # the heartbeat thread and the main thread write whole lines, one at a time


def emit(event: str, **values: object) -> None:
    """Write one event for the launcher as a ``LINECNN {json}`` line.

    Every rank writes to the same pipe: the line and its newline go out in one write() call, which a pipe
    keeps whole (up to PIPE_BUF, 4 KiB) whatever the other ranks write meanwhile. print() writes them
    apart, and another rank's line could land between the two and spoil both."""
    data = (PREFIX + json.dumps({"event": event, **values}) + "\n").encode()
    with _EMIT:
        sys.stdout.flush()  # anything printed before goes out first
        os.write(sys.stdout.fileno(), data)


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
