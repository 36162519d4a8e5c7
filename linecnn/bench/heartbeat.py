"""A worker process's replies with a beat every second among them, and the parent's bound on its silence.

The Benchmark page's workers (``worker``, ``profile_worker``) reply in JSON lines. A worker that froze
(SIGSTOP, a debugger, a swapped-out machine) or hung sends nothing, while its parent would wait for
the time cap and its grace (minutes, or for ever without a cap), holding the benchmark lock, and then
blame the time cap. Each worker beats once a second from a thread of its own, so a silence past the
host's bound means the process itself stopped, not that an epoch is long.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import IO

from linecnn.classroom.settings import env_number, seconds_field
from linecnn.errors import Message
from linecnn.stop import Stopped, StopReason

TIMEOUT_ENV = "LINECNN_WORKER_TIMEOUT"  # host setting: seconds a benchmark worker may stay silent
TIMEOUT_SECONDS = 20.0  # its default: a beat comes every second, so this is twenty missed beats
MIN_TIMEOUT_SECONDS = 2.0  # a bound shorter than two beats would end healthy workers
START_SECONDS = 60.0  # a worker may take at least this long to import torch and send its first line
BEAT_SECONDS = 1.0  # how often a worker says it is alive
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
    return env_number(TIMEOUT_ENV, TIMEOUT_SECONDS, MIN_TIMEOUT_SECONDS)


class Replies:
    """A worker's reply channel: whole JSON lines, one at a time, with a beat every BEAT_SECONDS once started.

    ``close`` stops the beats before the worker's last line: a daemon thread writing during
    interpreter shutdown can abort the process.
    """

    def __init__(self, out: IO[str]) -> None:
        self.out = out  # the channel the parent reads
        self._lock = threading.Lock()  # the beat thread and the main thread write whole lines
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="linecnn-worker-heartbeat", daemon=True)

    def send(self, message: dict) -> None:
        """Write one reply line, flushed at once."""
        with self._lock:
            self.out.write(json.dumps(message) + "\n")
            self.out.flush()

    def start(self) -> None:
        """Start beating."""
        self._thread.start()

    def close(self) -> None:
        """Stop beating and wait for the thread to end."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _beat(self) -> None:
        while not self._stop.is_set():
            try:
                self.send({BEAT: True})
            except (OSError, ValueError):  # the parent closed the pipe: it no longer listens
                return
            self._stop.wait(BEAT_SECONDS)


class Silence:
    """When a worker was last heard from, and the check that ends the wait once it fell silent.

    Before its first line the worker has at least START_SECONDS (importing torch on a busy machine)."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds  # silence allowed once the worker has been heard from
        self.clock = clock
        self.last = clock()  # when the worker was started or last heard from
        self.started = False  # heard from at least once

    def heard(self) -> None:
        """Note a line from the worker."""
        self.last, self.started = self.clock(), True

    def check(self) -> None:
        """Raise Stopped (no progress) once the worker has been silent past its bound."""
        bound = self.seconds if self.started else max(self.seconds, START_SECONDS)
        if self.clock() - self.last > bound:
            key = "worker_silent" if self.started else "worker_no_start"
            raise Stopped(StopReason.NO_PROGRESS, Message(key, seconds=seconds_field(bound)))
