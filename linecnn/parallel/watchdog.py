"""The launcher's watchdog: a rank that falls silent past the host's bound ends the run.

Every rank beats about once a second (``rank.Heartbeat``). A process that froze (SIGSTOP, a debugger,
a swapped-out machine) sends nothing, while the ranks waiting for it in a collective would wait for
the process group's timeout and torchrun then for its own grace: minutes, and a message about the
signal torchrun sent last. The watchdog names the silent rank instead, within the bound.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from linecnn.classroom.settings import env_number, seconds_field
from linecnn.errors import Message
from linecnn.stop import Stopped, StopReason

WATCH_ENV = "LINECNN_RANK_TIMEOUT"  # host setting: seconds a rank may stay silent before the run ends
WATCH_SECONDS = 20.0  # its default: a beat comes every second, so this is twenty missed beats
MIN_WATCH_SECONDS = 2.0  # a bound shorter than two beats would end healthy runs
START_SECONDS = 60.0  # a rank may take at least this long to import torch and say it is ready


def watch_seconds() -> float:
    """The host's bound on a rank's silence ($LINECNN_RANK_TIMEOUT, else WATCH_SECONDS)."""
    return env_number(WATCH_ENV, WATCH_SECONDS, MIN_WATCH_SECONDS)


class Watchdog:
    """When each rank of one run was last heard from, and the check that ends the run on a silence."""

    def __init__(self, ranks: int, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.ranks = ranks  # processes the run has
        self.seconds = seconds  # silence allowed once a rank has been heard from
        self.clock = clock
        self.started = clock()
        self.heard: dict[int, float] = {}  # rank -> clock() of its last line

    def hear(self, rank: int) -> None:
        """Note a sign of life from ``rank``."""
        self.heard[rank] = self.clock()

    def silent(self) -> tuple[int, float] | None:
        """(rank, seconds silent) of the rank silent longest past its bound; None when all are well."""
        now, worst = self.clock(), None
        for rank in range(self.ranks):
            last = self.heard.get(rank)
            bound = self.seconds if last is not None else max(self.seconds, START_SECONDS)
            quiet = now - (self.started if last is None else last)
            if quiet > bound and (worst is None or quiet > worst[1]):
                worst = (rank, quiet)
        return worst

    def check(self, ended: Callable[[int], bool] = lambda _rank: False) -> None:
        """Raise Stopped (no progress), naming the rank, once one has been silent past its bound.

        ``ended(rank)``: that rank's process has exited; its silence then means torchrun, which
        reaps the ranks and ends the run, is the one that froze."""
        found = self.silent()
        if found is None:
            return
        rank, _quiet = found
        started = rank in self.heard
        bound = self.seconds if started else max(self.seconds, START_SECONDS)
        key = "rank_silent" if started else "rank_no_start"
        key = "torchrun_silent" if started and ended(rank) else key
        message = Message(key, rank=rank, ranks=self.ranks, seconds=seconds_field(bound))
        raise Stopped(StopReason.NO_PROGRESS, message)
