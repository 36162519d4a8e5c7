"""Whose turn it is to train a run's next epoch, when several threads drive the same run.

A Streamlit page's loop can keep running in an old thread after a click has asked, from another
thread, to pause, stop or step. So every epoch is one turn, taken under one lock, and just before
it, under that lock, the turn checks that it still owns the run (the latest ``claim`` made it) and
that the run is neither paused nor stopped. ``pause()`` and ``stop()`` set their flag, then take the
lock, so they return only once the epoch in flight has ended, and no other starts. ``stop()`` copies
the run under the lock, so a filed run's epochs and weights match and never change. A stepping
claim pauses the run, ends an older owner before its next epoch, and trains through the pause.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Turn:
    """One claim on a run: it may train epochs until a later claim, a pause or a stop."""

    def __init__(self, turns: Turns, through_pause: bool) -> None:
        self._turns = turns
        self._through_pause = through_pause  # a step trains while the run is paused

    def take(self, work: Callable[[], T | None]) -> T | None:
        """``work()`` under the lock when this claim still may train; None when it may not."""
        turns = self._turns
        with turns.lock:
            if turns.paused and not self._through_pause:
                return None
            if turns.owner is not self or turns.stopped:
                return None
            return work()


class Turns:
    """The lock every epoch of one run trains under, and the flags Pause and Stop set."""

    def __init__(self) -> None:
        self.paused = False  # a paused run trains only when stepped
        self.stopped = False  # a stopped run never trains again
        self.lock = threading.Lock()  # held while an epoch trains or the run is copied
        self.owner: Turn | None = None  # the claim allowed to train; a later claim replaces it

    def claim(self, step: bool = False) -> Turn:
        """A new claim, which ends any older one before its next epoch; ``step`` pauses the run first."""
        turn = self.owner = Turn(self, through_pause=step)
        if step:
            self.paused = True
        return turn

    def pause(self) -> None:
        """Let no epoch start until a step or ``resume``; returns once the epoch in flight has ended."""
        self.paused = True
        with self.lock:
            pass

    def resume(self) -> None:
        """Let the next claim train again."""
        self.paused = False

    def stop(self, copy: Callable[[], T | None]) -> T | None:
        """End the run for good after the epoch in flight and return ``copy()``, taken under the lock;
        None if the run was already stopped."""
        self.owner = None
        with self.lock:
            if self.stopped:
                return None
            self.stopped = True
            return copy()
