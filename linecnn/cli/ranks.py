"""``python -m linecnn bench --ranks 1,2,4``: the data-parallel benchmark on the command line."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

from linecnn.bench.factors import FACTORS
from linecnn.device import environment, resolve
from linecnn.parallel.config import RanksConfig
from linecnn.parallel.launch import Launch
from linecnn.parallel.results import (
    LOSS_TOLERANCE,
    POOR_EFFICIENCY,
    SUPERLINEAR,
    Series,
    compute_shrank,
)
from linecnn.parallel.series import run_series
from linecnn.train.limits import format_size, step_memory_bytes

WHY_SUPERLINEAR = (
    "Efficiency above 100 %: the 1-process run was slower than N processes can explain. It ran on "
    "{threads} threads; a tiny model's ops split over several threads wait for whichever thread is "
    "descheduled, which on a busy machine costs more than the op. The same-threads figure is the "
    "like-with-like comparison."
)

# The headline: N processes of T threads each against 1 process of N*T threads, the same budget.
SAME_THREADS = {
    "processes": "Same {budget} threads: {ranks} processes of {each} each ran {speedup:.2f}x as fast as "
    "1 process of {budget}; processes beat threads here.",
    "threads": "Same {budget} threads: 1 process of {budget} ran {slower:.2f}x as fast as {ranks} processes "
    "of {each} each; threads beat processes here (no all-reduce per step).",
    "even": "Same {budget} threads: {ranks} processes of {each} each ran {speedup:.2f}x as fast as "
    "1 process of {budget}, about a draw.",
    "disturbed": "Same {budget} threads, but no winner: a busy machine disturbed the comparison. "
    "While {ranks} processes of {each} each and 1 process of {budget} were timed, the load average "
    "reached {load} on {cores} cores: their threads waited for a core, so the {speedup:.2f}x measures "
    "the machine's load, not processes against threads. Repeat the series when the machine is quieter.",
}

# A run timed while other work waited for a core (``RanksRow.disturbed``), as the page's cards say it.
DISTURBED = (
    "! The run of ranks {ranks}, threads {threads} was disturbed while timed: load average {load:.1f} on "
    "{cores} cores (other work waited for a core), so its ms/epoch is less trustworthy than it looks; "
    "repeat it when the machine is quiet."
)

WHY_CORES = (
    "Why the efficiency is poor: the compute did not shrink with {ranks} processes ({compute:.2f} ms per "
    "epoch each, against {base:.2f} ms for one), so the processes did not each get a core of their own: "
    "other work on the machine, or more processes than free cores. Data parallelism divides the work "
    "only across hardware that is free to take it."
)

WHY_POOR = (
    "Why the efficiency is poor: each rank's epoch is tiny ({compute:.2f} ms of compute at {ranks} "
    "processes), while the costs that do not shrink with N stay: one all-reduce per step ({comm:.2f} ms per "
    "epoch here), Python and kernel-launch overhead per step, and on the CPU {cores} cores shared by every "
    "process. It is the GPU's launch-overhead lesson again: parallel hardware pays off only when the work "
    "per step dwarfs the fixed cost per step. More images per class or a larger --width moves it closer to 1."
)


def ranks_config(args: argparse.Namespace) -> RanksConfig:
    """The data-parallel problem from ``bench``'s options; ValueError for options it cannot honour."""
    unsupported = [
        name
        for name, used in (
            ("--sweep", bool(FACTORS[args.sweep].values)),
            ("--amp", args.amp != "off"),
            ("--channels-last", args.channels_last),
            ("--compile", args.compile),
            ("--cuda-graphs", args.cuda_graphs),
            ("--up-to", args.up_to is not None),
        )
        if used
    ]
    if unsupported:
        raise ValueError(
            f"--ranks times plain fp32 training of one cell; leave out {', '.join(unsupported)}."
        )
    kind = "cpu" if args.devices.strip() == "all" else _one_kind(args.devices)
    problem = ("per_class", "batch_size", "width", "extra_convs", "seed", "warmup", "repeats")
    config = RanksConfig.from_flat(
        **{key: getattr(args, key) for key in problem}, device=kind, threads=args.rank_threads
    )
    needed = step_memory_bytes(config.bench.run.model, config.step_size)
    if args.max_step_bytes is not None and needed > args.max_step_bytes:
        raise ValueError(
            f"A step of {config.step_size:,} images needs about {format_size(needed)} of activations, more "
            f"than allowed ({format_size(args.max_step_bytes)}). Choose a smaller batch, or pass "
            "--max-step-bytes none."
        )
    return config


def _one_kind(devices: str) -> str:
    """'cpu' or 'cuda' from --devices; data-parallel runs take one kind of device at a time."""
    kinds = {resolve(name.strip(), "--devices").type for name in devices.split(",") if name.strip()}
    if len(kinds) != 1 or not kinds <= {"cpu", "cuda"}:
        raise ValueError(
            "With --ranks, give --devices cpu (gloo) or --devices cuda (NCCL, one rank per GPU)."
        )
    return kinds.pop()


def ranks_command(args: argparse.Namespace) -> int:
    """Run the series of rank counts; print a table (or JSON), and fail when a loss misses one device's."""
    if args.max_seconds is not None and not (math.isfinite(args.max_seconds) and args.max_seconds > 0):
        raise ValueError(f"--max-seconds must be a number of seconds above 0; got {args.max_seconds}.")
    config = ranks_config(args)
    progress = None if args.json else _progress_printer()
    series = run_series(config, args.ranks, progress=progress, max_seconds=args.max_seconds)
    document = {**series.as_dict(), "env": environment().as_dict()}
    text = json.dumps(document, indent=1)
    if args.json:
        print(text, flush=True)
    else:
        print(ranks_table(series))
        for line in explain(series):
            print(line)
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as out:
                out.write(text + "\n")
        except OSError as error:
            raise ValueError(f"Cannot write {args.out}: {error.strerror}.") from None
    if series.mismatch:
        counts = ", ".join(str(n) for n in series.mismatch)
        print(
            f"linecnn bench: error: the final loss of {counts} processes differs from one device's "
            f"({series.reference_loss:.6f}) by more than {LOSS_TOLERANCE:.0e}.",
            file=sys.stderr,
        )
        return 1
    return 0


def _progress_printer():  # noqa: ANN202 - a RanksProgress
    """A progress callback that writes one line to stderr per rank count and epoch."""
    shown: list[tuple[int, int]] = []

    def progress(launch: Launch) -> None:
        where = (launch.ranks, launch.done)
        if shown and shown[-1] == where:
            return
        shown.append(where)
        state = "starting" if launch.done == 0 else f"epoch {launch.done}/{launch.total}"
        print(f"linecnn bench: {launch.ranks} processes: {state}", file=sys.stderr, flush=True)

    return progress


def ranks_table(series: Series) -> str:
    """The rows as a fixed-width table."""

    def share(value: float | None, spec: str) -> str:
        return "-" if value is None else format(value, spec)

    lines = [
        f"{'ranks':>5} {'backend':<7} {'threads':>7} {'ms/epoch':>9} {'comm ms':>8} {'compute ms':>10} "
        f"{'images/s':>10} {'same-threads':>12} {'speed-up':>8} {'efficiency':>10} {'start s':>7} "
        f"{'loss vs 1 device':>16}"
    ]
    for row in series.rows:
        lines.append(
            f"{row.ranks:>5} {row.backend:<7} {row.threads:>7} {row.median_ms:>9.2f} {row.comm_ms:>8.2f} "
            f"{row.compute_ms:>10.2f} {row.samples_per_s:>10,.0f} {share(row.budget_speedup, '.2f'):>12} "
            f"{share(row.speedup, '.2f'):>8} {share(row.efficiency, '.0%'):>10} {row.start_s:>7.1f} "
            f"{row.loss_error:>16.1e}"
        )
    return "\n".join(lines)


def explain(series: Series) -> list[str]:
    """The sentences under the table: the equivalence check, the stop, and why efficiency is what it is."""
    config, lines = series.config.bench, []
    batch = "full batch" if config.run.train.batch_size is None else f"batch {config.run.train.batch_size}"
    lines.append(
        f"{config.images:,} images, {batch}, width {config.run.model.width}; ms/epoch is the median of "
        f"{config.repeats} epochs after {config.warmup} warm-up; comm is the all-reduce "
        "time inside it; start is torchrun to the first epoch, not in ms/epoch."
    )
    if not series.mismatch and series.rows:
        lines.append(
            f"Every run ended at the single-device loss {series.reference_loss:.6f} "
            f"(within {LOSS_TOLERANCE:.0e} relative)."
        )
    if series.stopped:
        lines.append(series.stopped)
    if series.base is None:
        lines.append("No 1-process run, so no speed-up or efficiency: include 1 in --ranks.")
    lines += [
        DISTURBED.format(ranks=row.ranks, threads=row.threads, load=row.load_average, cores=row.cores)
        for row in series.rows
        if row.disturbed
    ]
    lines += _same_threads(series)
    worst = series.worst
    base = None if worst is None else series.single(worst.threads) or series.base
    # The worst row has an efficiency, so the series has a 1-process row (base) to compare it with.
    if worst is None or worst.efficiency is None or base is None:
        return lines
    if worst.efficiency > SUPERLINEAR:
        lines.append(WHY_SUPERLINEAR.format(threads=base.threads))
    if not compute_shrank(base.compute_ms, worst):
        lines.append(WHY_CORES.format(ranks=worst.ranks, compute=worst.compute_ms, base=base.compute_ms))
    elif worst.efficiency < POOR_EFFICIENCY:
        lines.append(
            WHY_POOR.format(
                compute=worst.compute_ms, ranks=worst.ranks, comm=worst.comm_ms, cores=os.cpu_count()
            )
        )
    return lines


def _same_threads(series: Series) -> list[str]:
    """The headline's verdict at the same thread budget (none from a disturbed comparison), and its key."""
    headline = series.headline
    if headline is None or headline.budget_speedup is None:  # the headline row always has one
        return []
    speedup, load = headline.budget_speedup, series.budget_load(headline)
    verdict = SAME_THREADS[series.budget_outcome(headline)].format(
        budget=headline.budget_threads,
        ranks=headline.ranks,
        each=headline.threads,
        speedup=speedup,
        slower=1 / speedup,
        load="?" if load is None else f"{load:.1f}",
        cores=headline.cores or "?",
    )
    return [
        verdict,
        "same-threads: 1 process of N x T threads over N processes of T threads each (the headline); "
        "speed-up and efficiency: against 1 process of T threads, T1 / TN and T1 / (N TN).",
    ]
