"""The launcher's watchdog: a rank that falls silent past the host's bound ends the run.

Every rank beats about once a second (``events.Heartbeat``). A process that froze (SIGSTOP, a debugger,
a swapped-out machine) sends nothing, while the ranks waiting for it in a collective would wait for
the process group's timeout and torchrun then for its own grace: minutes, and a message about the
signal torchrun sent last. The watchdog is one ``linecnn.procs.beat.Silence`` per rank and names the
silent rank instead, within the bound.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from linecnn.classroom.settings import env_number
from linecnn.procs.beat import MIN_SILENCE_SECONDS, Silence

WATCH_ENV = "LINECNN_RANK_TIMEOUT"  # host setting: seconds a rank may stay silent before the run ends
WATCH_SECONDS = 20.0  # its default: a beat comes every second, so this is twenty missed beats


def watch_seconds() -> float:
    """The host's bound on a rank's silence ($LINECNN_RANK_TIMEOUT, else WATCH_SECONDS)."""
    return env_number(WATCH_ENV, WATCH_SECONDS, MIN_SILENCE_SECONDS)


class Watchdog:
    """Each rank's silence in one run, and the check that ends the run on the rank silent longest."""

    def __init__(self, ranks: int, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.ranks = ranks  # processes the run has
        keys = ("rank_silent", "rank_no_start")
        self.silences = [Silence(seconds, clock, keys, rank=rank, ranks=ranks) for rank in range(ranks)]

    def hear(self, rank: int) -> None:
        """Note a sign of life from ``rank``."""
        self.silences[rank].heard()

    def silent(self) -> tuple[int, float] | None:
        """(rank, seconds silent) of the rank silent longest past its bound; None when all are well."""
        quiet = [(rank, silence.quiet()) for rank, silence in enumerate(self.silences)]
        return max(
            ((rank, q) for rank, q in quiet if q is not None), key=lambda found: found[1], default=None
        )

    def check(self, ended: Callable[[int], bool] = lambda _rank: False) -> None:
        """Raise Stopped (no progress), naming the rank, once one has been silent past its bound.

        ``ended(rank)``: that rank's process has exited; its silence then means torchrun, which
        reaps the ranks and ends the run, is the one that froze."""
        found = self.silent()
        if found is not None:
            rank = found[0]
            self.silences[rank].check("torchrun_silent" if ended(rank) else None)
