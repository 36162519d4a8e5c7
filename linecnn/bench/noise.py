"""Whether a cell's timing can be trusted: its spread, and what else competed for the machine while it ran.

A cell is *disturbed* for one or more reasons, kept in its JSON as short codes that every reader
(the page in either language, a script) turns into words:

- ``spread``: its slow and fast timed epochs differ too much (``CellResult.wide_spread``);
- ``load``: the 1-minute load average went above the number of cores while it ran;
- ``training``: a Train run of the same server shared its cores while it ran (only the server knows; with
  the cell's cores reserved, ``linecnn.classroom.cores``, it cannot), or, for a GPU cell, the server ran
  other GPU work (a Draw prediction, a Lesson snippet) meanwhile;
- ``cores``: its threads spent more than ``runqueue.LIMIT`` of the timed wall time waiting for a core.
"""

from __future__ import annotations

import os
from dataclasses import replace

from linecnn.bench.results import DISTURBANCES, CellResult
from linecnn.bench.runqueue import LIMIT


def load_average() -> float | None:
    """The machine's 1-minute load average now; None where the system does not report one."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def overloaded(load: float | None, cores: int | None) -> bool:
    """True when the load average is above the core count.

    The cell's own torch threads count in it (one per core on a CPU cell), so a machine running the
    cell alone sits at about the core count; above it, some other thread was waiting for a core.
    """
    return load is not None and cores is not None and load > cores


def mark(result: CellResult, load: float | None, cores: int | None = None) -> CellResult:
    """The result with the highest load average seen while it ran and its reasons to be distrusted."""
    cores = cores or os.cpu_count()
    reasons = [*result.disturbed]
    reasons += ["spread"] if result.wide_spread else []
    reasons += ["load"] if result.ok and overloaded(load, cores) else []
    reasons += ["cores"] if result.ok and result.run_queue is not None and result.run_queue > LIMIT else []
    return replace(result, load_average=load, disturbed=ordered(reasons))


def add_reason(result: CellResult, reason: str) -> CellResult:
    """The result with one more reason (a timed cell only: a cell without timings has nothing to distrust)."""
    if not result.ok:
        return result
    return replace(result, disturbed=ordered([*result.disturbed, reason]))


def ordered(reasons: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Known reasons once each, in DISTURBANCES order."""
    return tuple(reason for reason in DISTURBANCES if reason in reasons)


def highest(*loads: float | None) -> float | None:
    """The highest of the load averages known, or None."""
    known = [load for load in loads if load is not None]
    return max(known) if known else None
