"""The benchmark reserved by a teacher for a while: this server's sessions share one reservation.

It lives in the server's memory: a restart ends it, as it ends every running benchmark.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MAX_MINUTES = 240  # the longest reservation: a lesson's length, so a forgotten one ends the same day


@dataclass(frozen=True)
class Reservation:
    """Only teachers may run the benchmark until ``until``."""

    by: str  # the teacher who reserved it, as the class sees them
    until: datetime  # when students may run again (UTC)


_lock = threading.Lock()
_current: list[Reservation] = []  # at most one, shared by every session of this process


def reserve(by: str, minutes: int, now: datetime | None = None) -> Reservation:
    """Reserve the benchmark for ``minutes`` from now (1 to MAX_MINUTES), replacing any reservation."""
    if not 1 <= minutes <= MAX_MINUTES:
        raise ValueError(f"A reservation lasts from 1 to {MAX_MINUTES} minutes; got {minutes}.")
    reservation = Reservation(by, (now or datetime.now(UTC)) + timedelta(minutes=minutes))
    with _lock:
        _current[:] = [reservation]
    return reservation


def release() -> None:
    """End the reservation now, if there is one."""
    with _lock:
        _current.clear()


def current(now: datetime | None = None) -> Reservation | None:
    """The reservation in force, or None (one whose time is up is forgotten)."""
    now = now or datetime.now(UTC)
    with _lock:
        if _current and _current[0].until <= now:
            _current.clear()
        return _current[0] if _current else None
