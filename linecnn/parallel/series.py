"""Data-parallel training as a benchmark factor: a series of torchrun runs checked against one device.

A series runs 1, 2, 4 ... ranks in turn (``launch`` starts and follows each torchrun run) and
reports time per epoch, images/s, the speed-up against 1 process of the same thread budget and the
scaling efficiency T1 / (N * TN), with the all-reduce time apart (``results``). On the CPU, when 1 is
among the counts, it also runs 1 process at each other thread count those two readings compare with.
CPU ranks talk over gloo, GPU ranks over NCCL with one rank per GPU.
Every run's final loss is checked against the same epochs trained on one device in this process.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import torch

from linecnn.bench.noise import highest, load_average
from linecnn.parallel.config import RanksConfig, check_ranks, threads_per_rank
from linecnn.parallel.launch import Launch, RanksProgress, run_ranks
from linecnn.parallel.memory import check_memory
from linecnn.parallel.rank import build_problem
from linecnn.parallel.results import RanksRow, Series, make_row, median_ms
from linecnn.stop import Stopped, StopReason
from linecnn.train.epoch import make_optimizer, mean_loss, train_epoch

MAX_THREADS = 1024  # RanksConfig's bound on threads per rank: an equal-budget baseline beyond it is not run


def reference_loss(config: RanksConfig, after_step: Callable[[], None] | None = None) -> float:
    """The final training loss of the same epochs on one device, in this process (what DDP must match).

    The same problem every rank builds, trained by the same ``train_epoch`` on whole batches.
    ``after_step`` runs once the problem is built (which takes seconds for millions of images) and
    after each optimizer step, so that a cancel or a time cap raising from it ends even an epoch of
    millions of images within a step.
    """
    device = torch.device("cuda" if config.device == "cuda" else "cpu")
    with torch.random.fork_rng(devices=[]):
        run = config.bench.run
        x, y, model = build_problem(run, device)
        if after_step is not None:
            after_step()  # before the optimizer too: its first construction can take seconds
        optimizer = make_optimizer(model, run.train.lr, device)
        order = torch.Generator().manual_seed(run.seed + 1)
        for _ in range(config.bench.epochs):
            train_epoch(model, x, y, optimizer, run.train.batch_size, order, after_step=after_step)
        return mean_loss(model, x, y)


def run_plan(config: RanksConfig, counts: Sequence[int], cores: int | None = None) -> list[tuple[int, int]]:
    """The runs of a series as (processes, threads each): 1-process baselines first, then the counts.

    On the CPU, with 1 among the counts, each count N of T threads each is compared with 1 process of
    N·T threads (the same budget) and of T threads (the classic efficiency), so those 1-process runs
    join the plan, once per thread count. A GPU series compares with its one 1-process run.
    """
    runs = [(count, threads_per_rank(count, cores, config.threads)) for count in sorted(set(counts))]
    if config.device != "cpu" or 1 not in counts:
        return runs
    singles = {threads for count, threads in runs if count == 1}
    for count, threads in runs:
        singles |= {threads} | ({count * threads} if count * threads <= MAX_THREADS else set())
    first = runs[0][1]  # the counts' own 1 process runs first, as it did before the other baselines
    ordered = [first, *sorted(singles - {first}, reverse=True)]
    return [(1, threads) for threads in ordered] + [run for run in runs if run[0] > 1]


def run_series(
    config: RanksConfig,
    ranks: Sequence[int],
    progress: RanksProgress | None = None,
    max_seconds: float | None = None,
    on_row: Callable[[Series], None] | None = None,
    check: Callable[[], None] | None = None,
) -> Series:
    """Run each rank count in turn (fewest first, after ``run_plan``'s 1-process baselines) and compare
    each with one device; a cap stops the rest.

    A series whose largest run would not fit in free memory is refused first (UserError). The single-device
    reference trains first, in this process; ``check`` runs after each of its optimizer steps (a cancel
    raises from it, as from ``progress`` during the runs), as does the time cap. The time cap ends the
    series with the rows so far; any other Stopped (a cancel, a killed or silent rank) is raised on.
    Each row keeps the highest load average seen around its run, so a busy machine's runs are flagged.
    """
    counts = check_ranks(ranks, config)
    check_memory(config, counts)
    deadline = None if max_seconds is None else time.monotonic() + max_seconds

    def after_step() -> None:
        if deadline is not None and max_seconds is not None and time.monotonic() > deadline:
            raise Stopped.time_cap(max_seconds)
        if check is not None:
            check()

    try:
        series = Series(config, reference_loss(config, after_step))
    except Stopped as stop:
        if stop.reason is not StopReason.TIME_CAP:
            raise
        stopped = f"The time cap of {max_seconds:g} s ended the series during the single-device reference."
        return Series(config, math.nan, stopped=stopped)
    singles: dict[int, float] = {}  # threads -> median ms of 1 process with that many threads
    for count, threads in run_plan(config, counts):
        loads = _LoadWatch(progress)
        try:
            result = run_ranks(replace(config, threads=threads), count, loads.report, deadline)
        except Stopped as stop:
            if stop.reason is not StopReason.TIME_CAP:
                raise
            series.stopped = f"The time cap of {max_seconds:g} s ended the series before {count} processes."
            break
        singles |= {threads: median_ms(result)} if count == 1 else {}
        base_ms, budget_ms = _baselines(config.device, singles, count, threads)
        series.add(loads.mark(make_row(result, series.reference_loss, base_ms, budget_ms)))
        if on_row is not None:
            on_row(series)
    return series


def _baselines(
    device: str, singles: dict[int, float], count: int, threads: int
) -> tuple[float | None, float | None]:
    """(base_ms, budget_ms) for ``count`` ranks of ``threads`` threads, from the 1-process medians so far."""
    if device == "cpu":
        return singles.get(threads), singles.get(count * threads)
    return next(iter(singles.values()), None), None  # a GPU is the unit, whatever its launching threads


class _LoadWatch:
    """The highest load average seen around one run: before it, at each of its events, and after it."""

    def __init__(self, progress: RanksProgress | None) -> None:
        self.progress = progress  # the caller's progress, passed every event on
        self.load = load_average()  # the highest so far

    def report(self, launch: Launch) -> None:
        """Note the load average now (every rank beats once a second), then report progress on."""
        self.load = highest(self.load, load_average())
        if self.progress is not None:
            self.progress(launch)

    def mark(self, row: RanksRow) -> RanksRow:
        """``row`` with the highest load average seen from its start to now and the machine's cores."""
        self.load = highest(self.load, load_average())
        return replace(row, load_average=self.load, cores=os.cpu_count())
