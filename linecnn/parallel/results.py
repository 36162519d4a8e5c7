"""A data-parallel series' figures: one row per run, the speed-up and efficiency arithmetic.

Two readings compare N processes with one. The headline keeps the thread budget equal: N processes of
T threads each against 1 process of N·T threads (``budget_speedup``; 1.0 means processes did exactly
as well as threads). The classic scaling efficiency T1 / (N · TN) instead grants the N processes N times
the 1-process run's threads, so it is taken against 1 process of T threads, the same per process.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field

from linecnn.bench.noise import highest, overloaded
from linecnn.parallel.config import RanksConfig

LOSS_TOLERANCE = 1e-3  # relative: the ranks' final loss may differ from one device's by float rounding only
POOR_EFFICIENCY = 0.8  # below this, the CLI and the page explain where the time went
SUPERLINEAR = 1.1  # above this, the 1-process baseline was slow for a reason of its own: said so
BUDGET_EVEN = 0.1  # an equal-budget speed-up within this of 1 is a draw between processes and threads


@dataclass(frozen=True)
class RanksRow:
    """One run's figures (a rank count at a thread count), as the CLI and the page show them."""

    ranks: int  # processes (CPU) or GPUs
    backend: str  # "gloo" or "nccl"
    threads: int  # CPU threads per rank
    median_ms: float  # median time per epoch
    samples_per_s: float  # training images per second at the median
    comm_ms: float  # median all-reduce time per epoch (part of median_ms)
    compute_ms: float  # median_ms - comm_ms: forward, backward and optimizer
    first_epoch_ms: float  # the first warm-up epoch
    start_s: float  # launching torchrun until rank 0 began its first epoch: interpreters, rendezvous, data
    final_loss: float  # mean training loss after every epoch
    loss_error: float  # |final_loss - single-device loss| / single-device loss
    speedup: float | None  # T1 / TN, T1 being 1 process of as many threads as each rank; None without it
    efficiency: float | None  # T1 / (N * TN), T1 as for speedup; None without it
    # The equal thread budget: 1 process of ranks * threads threads against this run. None without that
    # run (a GPU series, or no 1 in the counts); the defaults let rows saved without it load.
    budget_threads: int | None = None  # threads of the 1-process run compared with: ranks * threads
    budget_speedup: float | None = None  # its median / this run's median: above 1, processes beat threads
    # What else used the machine, read as a sweep cell's ``load`` (``noise.overloaded``); None in rows
    # saved before they were kept, which are then simply not flagged.
    load_average: float | None = None  # highest 1-minute load average seen while it ran
    cores: int | None = None  # the machine's CPU cores, to read the load average against

    @property
    def disturbed(self) -> bool:
        """True when other work waited for a core while this run was timed: its median includes the waits."""
        return overloaded(self.load_average, self.cores)

    def as_dict(self) -> dict:
        """JSON-friendly view."""
        return asdict(self)


def median_ms(result: dict) -> float:
    """The median epoch of one run's result (rank 0's JSON), in milliseconds."""
    return 1000 * statistics.median(result["epoch_s"])


def make_row(
    result: dict, reference: float, base_ms: float | None, budget_ms: float | None = None
) -> RanksRow:
    """Summarise one run's result (rank 0's JSON) against the single-device loss and the 1-process times.

    ``base_ms``: 1 process with as many threads as each rank here (the classic efficiency);
    ``budget_ms``: 1 process with as many threads as all the ranks here together (the headline).
    """
    median = median_ms(result)
    comm = 1000 * statistics.median(result["comm_s"])
    speedup, efficiency = scaling(base_ms, median, result["ranks"])
    budget_speedup, _ = scaling(budget_ms, median, result["ranks"])
    return RanksRow(
        ranks=result["ranks"],
        backend=result["backend"],
        threads=result["threads"],
        median_ms=median,
        samples_per_s=result["images"] / (median / 1000),
        comm_ms=comm,
        compute_ms=max(0.0, median - comm),
        first_epoch_ms=1000 * result["first_epoch_s"],
        start_s=result["start_s"],
        final_loss=result["final_loss"],
        loss_error=abs(result["final_loss"] - reference) / abs(reference),
        speedup=speedup,
        efficiency=efficiency,
        budget_threads=None if budget_speedup is None else result["ranks"] * result["threads"],
        budget_speedup=budget_speedup,
    )


def scaling(base_ms: float | None, ms: float, ranks: int) -> tuple[float | None, float | None]:
    """(speed-up T1/TN, efficiency T1/(N*TN)) of ``ranks`` processes taking ``ms`` against ``base_ms``."""
    if base_ms is None or not (math.isfinite(ms) and ms > 0):
        return None, None
    speedup = base_ms / ms
    return speedup, speedup / ranks


def budget_winner(speedup: float) -> str:
    """Who won at the same thread budget: "processes", "threads", or "even" within ``BUDGET_EVEN``."""
    if speedup > 1 + BUDGET_EVEN:
        return "processes"
    if speedup < 1 - BUDGET_EVEN:
        return "threads"
    return "even"


def compute_shrank(base_compute_ms: float, row: RanksRow) -> bool:
    """Whether ``row``'s compute per epoch fell to at most twice the ideal share of the 1-process compute.

    When it did not, the ranks did not each get a core (or GPU) of their own, and the low efficiency
    comes from the hardware, not from the all-reduce or the per-step costs.
    """
    return row.compute_ms <= 2 * base_compute_ms / row.ranks


@dataclass
class Series:
    """What ``run_series`` measured so far: the rows, in rank order, and how it ended."""

    config: RanksConfig  # the problem every run trained
    reference_loss: float  # single-device final loss, in this process
    rows: list[RanksRow] = field(default_factory=list)  # one per finished run, 1-process baselines first
    stopped: str | None = None  # why the series ended early (the time cap), if it did
    mismatch: list[int] = field(default_factory=list)  # rank counts whose loss missed the reference

    def add(self, row: RanksRow) -> None:
        """Keep ``row``, noting its rank count when its loss missed the single-device one."""
        if row.loss_error > LOSS_TOLERANCE:
            self.mismatch.append(row.ranks)
        self.rows.append(row)

    @property
    def base(self) -> RanksRow | None:
        """The first 1-process row (the counts' own 1); None without one."""
        return next((row for row in self.rows if row.ranks == 1), None)

    def single(self, threads: int) -> RanksRow | None:
        """The 1-process row of ``threads`` threads; None when the series did not run one."""
        return next((row for row in self.rows if row.ranks == 1 and row.threads == threads), None)

    def budget_match(self, row: RanksRow) -> RanksRow | None:
        """The 1-process run ``row`` is compared with at the same thread budget; None without one."""
        return None if row.budget_threads is None else self.single(row.budget_threads)

    def budget_outcome(self, row: RanksRow) -> str:
        """``budget_winner`` of ``row``'s equal-budget speed-up, or "disturbed" when a busy machine timed
        either side of it: a wait for a core then decides the winner, not processes or threads."""
        if row.budget_speedup is None:
            raise ValueError(f"{row.ranks} processes without an equal-budget speed-up have no verdict.")
        match = self.budget_match(row)
        if row.disturbed or (match is not None and match.disturbed):
            return "disturbed"
        return budget_winner(row.budget_speedup)

    def budget_load(self, row: RanksRow) -> float | None:
        """The highest load average seen while ``row`` or its equal-budget 1-process run was timed."""
        match = self.budget_match(row)
        return highest(row.load_average, None if match is None else match.load_average)

    @property
    def headline(self) -> RanksRow | None:
        """The multi-process row with the lowest equal-budget speed-up; None when no row has one."""
        scored = [
            (row.budget_speedup, row) for row in self.rows if row.budget_speedup is not None and row.ranks > 1
        ]
        lowest = min(scored, key=lambda pair: pair[0], default=None)
        return None if lowest is None else lowest[1]

    @property
    def worst(self) -> RanksRow | None:
        """The multi-process row with the lowest efficiency; None without a 1-process run to compare."""
        scored = [(row.efficiency, row) for row in self.rows if row.efficiency is not None and row.ranks > 1]
        lowest = min(scored, key=lambda pair: pair[0], default=None)
        return None if lowest is None else lowest[1]

    def as_dict(self) -> dict:
        """JSON-friendly view (the CLI's ``--json`` output)."""
        return {
            "config": self.config.as_dict(),
            "reference_loss": self.reference_loss,
            "loss_tolerance": LOSS_TOLERANCE,
            "rows": [row.as_dict() for row in self.rows],
            "stopped": self.stopped,
            "mismatch": self.mismatch,
        }
