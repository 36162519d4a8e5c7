"""What a rank tells the launcher: ``LINECNN {json}`` lines on stdout, and a heartbeat every second.

Every rank's stdout is torchrun's, which the launcher reads; a line without the prefix is passed
through as ordinary output.
"""

from __future__ import annotations

import json
import threading

PREFIX = "LINECNN "  # marks the lines of stdout the launcher reads; anything else is passed through
BEAT_SECONDS = 1.0  # how often each rank tells the launcher it is alive, with its step count
_EMIT = threading.Lock()  # the heartbeat thread and the main thread print whole lines, one at a time


def emit(event: str, **values: object) -> None:
    """Print one event for the launcher as a ``LINECNN {json}`` line."""
    line = PREFIX + json.dumps({"event": event, **values})
    with _EMIT:
        print(line, flush=True)


class Heartbeat:
    """A thread that emits ``beat`` with this rank's optimizer steps every BEAT_SECONDS until stopped.

    A frozen or stopped process sends nothing, which is what the launcher's watchdog looks for; the
    step count lets a reader see training advance. ``step`` runs inside the timed epoch: one addition.
    It is stopped before the process exits: a daemon thread writing to stdout during interpreter
    shutdown can abort the process.
    """

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.steps = 0  # optimizer steps this rank has finished
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="linecnn-rank-heartbeat", daemon=True)

    def step(self) -> None:
        """Count one optimizer step (``train_epoch``'s ``after_step``)."""
        self.steps += 1

    def start(self) -> None:
        """Start beating."""
        self._thread.start()

    def stop(self) -> None:
        """Stop beating and wait for the thread to end."""
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        while not self._stop.is_set():
            emit("beat", rank=self.rank, steps=self.steps)
            self._stop.wait(BEAT_SECONDS)
