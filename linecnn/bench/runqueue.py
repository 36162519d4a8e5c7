"""What the kernel says a cell's threads got: the time they spent runnable but waiting for a core.

Linux keeps, per thread, the nanoseconds it spent on a run queue without running
(``/proc/self/task/<tid>/schedstat``, second field). Summed over this process's threads during the
timed repeats and divided by the thread-seconds the cell computed (wall time × its threads), it
says how much of the cell was spent waiting for a core that something else held: near 0 on a quiet
machine, 0.35 when its threads waited 35 % of the time. Where the kernel does not keep it, the
answer is None (unknown), never a guess.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

TASKS = Path("/proc/self/task")
LIMIT = 0.10  # above this share of the wall time spent waiting for a core, a cell is disturbed ("cores")

Reader = Callable[[], dict[int, int] | None]


def waits_now() -> dict[int, int] | None:
    """Nanoseconds each thread of this process has spent waiting for a core so far; None where unknown."""
    if not TASKS.is_dir():
        return None
    waits = {}
    for name in os.listdir(TASKS):
        with contextlib.suppress(OSError, ValueError, IndexError):  # a thread that ended meanwhile
            waits[int(name)] = int((TASKS / name / "schedstat").read_text().split()[1])
    return waits or None


def waited_share(before: dict[int, int] | None, after: dict[int, int] | None, seconds: float) -> float | None:
    """The threads' time waiting for a core between two readings, as a share of ``seconds``
    (the wall time times the threads that compute).

    A thread started in between counts from 0; one that ended in between is not counted (its
    reading is gone), so the share is a lower bound in that rare case.
    """
    if before is None or after is None or seconds <= 0:
        return None
    waited = sum(max(0, ns - before.get(tid, 0)) for tid, ns in after.items())
    return waited / 1e9 / seconds
