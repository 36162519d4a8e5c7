"""A benchmark worker's replies with a beat every second among them, and the host's bound on its silence.

The Benchmark page's workers (``worker``, ``profile_worker``) reply in JSON lines and beat with
``{"beat": true}`` through ``linecnn.procs.beat``; their parent ends one silent past the host's bound
($LINECNN_WORKER_TIMEOUT) with ``linecnn.procs.beat.Silence``.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from typing import IO

from linecnn.classroom.settings import env_number
from linecnn.procs.beat import MIN_SILENCE_SECONDS, Beater

TIMEOUT_ENV = "LINECNN_WORKER_TIMEOUT"  # host setting: seconds a benchmark worker may stay silent
TIMEOUT_SECONDS = 20.0  # its default: a beat comes every second, so this is twenty missed beats
BEAT = "beat"  # the key of a beat line: {"beat": true}


def open_replies(name: str, commands: queue.Queue | None = None) -> Replies:
    """A worker's replies, started, on its original stdout; everything else printed goes to stderr,
    and the process exits at once when its stdin ends (the parent cancelled, or is gone). Each line
    the parent writes meanwhile goes to ``commands`` (dropped without one)."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    reader = threading.Thread(target=_read_commands, args=(commands,), name=f"{name}-stdin", daemon=True)
    reader.start()
    replies = Replies(out)
    replies.start()
    return replies


def _read_commands(commands: queue.Queue | None) -> None:
    """Pass the parent's lines on to ``commands``; exit at once when stdin ends."""
    for line in iter(sys.stdin.readline, ""):
        if commands is not None:
            commands.put(line)
    os._exit(0)


def worker_timeout() -> float:
    """The host's bound on a worker's silence ($LINECNN_WORKER_TIMEOUT, else TIMEOUT_SECONDS)."""
    return env_number(TIMEOUT_ENV, TIMEOUT_SECONDS, MIN_SILENCE_SECONDS)


class Replies:
    """A worker's reply channel: whole JSON lines, one at a time, with a beat every second once started.

    ``close`` stops the beats before the worker's last line: a daemon thread writing during
    interpreter shutdown can abort the process.
    """

    def __init__(self, out: IO[str]) -> None:
        self.out = out  # the channel the parent reads
        self._lock = threading.Lock()  # the beat thread and the main thread write whole lines
        self._beater = Beater(lambda: self.send({BEAT: True}), name="linecnn-worker-heartbeat")

    def send(self, message: dict) -> None:
        """Write one reply line, flushed at once."""
        with self._lock:
            self.out.write(json.dumps(message) + "\n")
            self.out.flush()

    def start(self) -> None:
        """Start beating."""
        self._beater.start()

    def close(self) -> None:
        """Stop beating and wait for the thread to end."""
        self._beater.stop()
