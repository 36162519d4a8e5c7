"""The cores a benchmark cell owns while it is timed, and what the rest of the server does meanwhile.

On a shared server the cores are the measurement: an op split over two threads waits for whichever
thread the scheduler pushed aside for a Train run. So while a cell is timed the benchmark reserves
R of the machine's cores. When other cores are left (R') and the system can confine threads to
cores, every thread of the server moves to R' for the cell (*split* mode) and training goes on
there; the worker process pins itself to R and runs one torch thread per core it owns. When no core
is left, or threads cannot be confined (macOS), training waits between epochs while the cell is on
the clock (*alone* mode, through a shared/exclusive lock). Nothing here imports torch or streamlit.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from linecnn.classroom.settings import env_whole, warn_once

BENCH_CORES_ENV = "LINECNN_BENCH_CORES"  # host setting: cores a benchmark cell owns while timed
SMALL_MACHINE = 3  # up to this many cores, a cell takes them all and training waits
SPLIT = "split"  # the server's threads on the other cores while a cell is timed
ALONE = "alone"  # training waits between epochs while a cell is timed
MODES = (SPLIT, ALONE)


class Affinity(Protocol):
    """Which threads this process has, and the call that confines one of them to some cores."""

    supported: bool  # False where the system cannot confine threads (then nothing is split)

    def tasks(self) -> list[int]:
        """The ids of this process's threads now."""

    def confine(self, tid: int, cores: Sequence[int]) -> None:
        """Let thread ``tid`` run only on ``cores`` (a thread that ended meanwhile is no error)."""


class OsAffinity:
    """Linux's affinity calls, on the threads listed in /proc/self/task."""

    supported = hasattr(os, "sched_setaffinity") and os.path.isdir("/proc/self/task")

    def tasks(self) -> list[int]:
        """The ids of this process's threads now."""
        return [int(name) for name in os.listdir("/proc/self/task")]

    def confine(self, tid: int, cores: Sequence[int]) -> None:
        """Let thread ``tid`` run only on ``cores``; a thread gone meanwhile is skipped."""
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(tid, cores)


OS_AFFINITY = OsAffinity()


def usable_cores() -> tuple[int, ...]:
    """The cores this process may run on now (its affinity), else every core the system counts."""
    try:
        return tuple(sorted(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return tuple(range(os.cpu_count() or 1))


@functools.cache
def machine_cores() -> tuple[int, ...]:
    """The cores this process could use when it first asked: a cell's confinement never shrinks them."""
    return usable_cores()


def default_bench_cores(count: int) -> int:
    """Cores a cell owns by default: all of a small machine, else a quarter (at least two)."""
    return count if count <= SMALL_MACHINE else max(2, count // 4)


def bench_core_count(count: int) -> int:
    """A cell's cores on a machine of ``count``: $LINECNN_BENCH_CORES (at most ``count``), else a default."""
    wanted = env_whole(BENCH_CORES_ENV, None)
    if wanted is None:
        return default_bench_cores(count)
    if wanted > count:
        line = f"Ignoring {BENCH_CORES_ENV}={wanted}: this machine has {count} cores; using {count}."
        warn_once(BENCH_CORES_ENV, str(wanted), line)
        return count
    return wanted


@dataclass(frozen=True)
class CoreSplit:
    """The machine's cores, split between a timed benchmark cell and everything else."""

    cores: tuple[int, ...]  # every core this server may use
    bench: tuple[int, ...]  # the cell's cores while it is timed (the last ones: the first take interrupts)
    affinity: bool  # whether this system can confine threads to cores

    @property
    def rest(self) -> tuple[int, ...]:
        """The cores left to the server's other threads while a cell is timed."""
        return tuple(core for core in self.cores if core not in self.bench)

    @property
    def mode(self) -> str:
        """SPLIT when the server's threads can move to other cores, else ALONE (training waits)."""
        return SPLIT if self.affinity and self.rest else ALONE


def core_split(
    cores: Sequence[int] | None = None, count: int | None = None, affinity: Affinity = OS_AFFINITY
) -> CoreSplit:
    """The split of ``cores`` (this machine's) that gives a cell ``count`` of them (the host's setting)."""
    cores = tuple(cores if cores is not None else machine_cores())
    count = min(len(cores), count if count is not None else bench_core_count(len(cores)))
    return CoreSplit(cores, cores[len(cores) - count :], affinity.supported)


def confine_all(cores: Sequence[int], affinity: Affinity = OS_AFFINITY) -> None:
    """Let every thread of this process run only on ``cores`` (threads it starts later inherit it)."""
    for tid in affinity.tasks():
        affinity.confine(tid, cores)


@contextlib.contextmanager
def confined(
    cores: Sequence[int], everywhere: Sequence[int], affinity: Affinity = OS_AFFINITY
) -> Iterator[None]:
    """Every thread of this process on ``cores`` in the block, then all of them on ``everywhere``,
    those started meanwhile included (they inherited ``cores``)."""
    confine_all(cores, affinity)
    try:
        yield
    finally:
        confine_all(everywhere, affinity)


class ExclusiveLock(Protocol):
    """What ``hold_cores`` needs of the CPU clock: an exclusive hold with a waiting ledger."""

    def exclusive(self) -> contextlib.AbstractContextManager: ...


@dataclass
class CoreHold:
    """What one timed cell had, and what it cost the server's training runs (filled in on release)."""

    mode: str  # SPLIT or ALONE
    cores: int  # cores the cell owned
    machine: int  # cores of the machine
    runs: int = 0  # training runs that waited for the cell (ALONE only: in SPLIT mode none waits)
    seconds: float = 0.0  # seconds they waited, all together


@contextlib.contextmanager
def hold_cores(
    split: CoreSplit, clock: ExclusiveLock, affinity: Affinity = OS_AFFINITY
) -> Iterator[CoreHold]:
    """Reserve the cell's cores in the block: the server's threads on the rest (SPLIT), or training
    paused between epochs through ``clock``'s exclusive hold (ALONE), its ledger read on release."""
    hold = CoreHold(split.mode, len(split.bench), len(split.cores))
    if split.mode == SPLIT:
        with confined(split.rest, split.cores, affinity):
            yield hold
        return
    ledger = None
    try:
        with clock.exclusive() as ledger:
            yield hold
    finally:
        if ledger is not None:
            hold.runs, hold.seconds = len(ledger.runs), ledger.seconds
