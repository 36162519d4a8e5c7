"""Beats and silence: a child says it is alive once a second, and its parent bounds how long it may not.

A child that froze (SIGSTOP, a debugger, a swapped-out machine) or hung sends nothing, while its parent
would wait for a time cap (minutes, or for ever without one) and then blame the wrong thing. Each
child beats from a thread of its own (``Beater``), so a silence past the bound (``Silence``) means the
process itself stopped, not that its work is long. The benchmark and profile workers beat with
``{"beat": true}`` lines, each data-parallel rank with a ``beat`` event; the mechanism is this one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from linecnn.classroom.settings import seconds_field
from linecnn.errors import Message
from linecnn.stop import Stopped, StopReason

BEAT_SECONDS = 1.0  # how often a child says it is alive
MIN_SILENCE_SECONDS = 2.0  # a bound shorter than two beats would end healthy children
START_SECONDS = 60.0  # a child may take at least this long to import torch and send its first line


class Beater:
    """A daemon thread that calls ``beat()`` every BEAT_SECONDS until stopped, or until ``beat`` raises
    OSError or ValueError (the parent closed the pipe: nobody listens any more).

    Stop it before the process exits: a daemon thread writing during interpreter shutdown can abort it."""

    def __init__(self, beat: Callable[[], object], name: str = "linecnn-heartbeat") -> None:
        self._send = beat
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        """Start beating."""
        self._thread.start()

    def stop(self) -> None:
        """Stop beating and wait for the thread to end."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._send()
            except (OSError, ValueError):
                return
            self._stop.wait(BEAT_SECONDS)


class Silence:
    """When one child was last heard from, and the check that ends the wait once it fell silent.

    Before its first line the child has at least START_SECONDS. ``keys``: the message keys for a child
    silent after it was heard from and for one never heard from; ``values`` go into the message."""

    def __init__(
        self,
        seconds: float,
        clock: Callable[[], float] = time.monotonic,
        keys: tuple[str, str] = ("worker_silent", "worker_no_start"),
        **values: object,
    ) -> None:
        self.seconds = seconds  # silence allowed once the child has been heard from
        self.clock = clock
        self.keys = keys
        self.values = values
        self.last = clock()  # when the child was started or last heard from
        self.started = False  # heard from at least once

    def heard(self) -> None:
        """Note a line from the child."""
        self.last, self.started = self.clock(), True

    @property
    def bound(self) -> float:
        """The silence allowed now: ``seconds``, or START_SECONDS at least before the first line."""
        return self.seconds if self.started else max(self.seconds, START_SECONDS)

    def quiet(self) -> float | None:
        """Seconds the child has been silent, when that is past its bound; None while it is within it."""
        quiet = self.clock() - self.last
        return quiet if quiet > self.bound else None

    def check(self, key: str | None = None) -> None:
        """Raise Stopped (no progress) once the child has been silent past its bound; ``key`` replaces the
        message key of a child heard from before."""
        if self.quiet() is None:
            return
        silent, no_start = self.keys
        chosen = (key or silent) if self.started else no_start
        message = Message(chosen, **self.values, seconds=seconds_field(self.bound))
        raise Stopped(StopReason.NO_PROGRESS, message)
