"""Whether a Train-page epoch and a benchmark cell's epoch of the same settings agree, and if not, why.

Both train with the same ``train_epoch``, but a Train-page epoch also validates (one forward pass over
the validation set) and reads its numbers back once, and its figure is the mean over every epoch,
the first ones included; a cell's is the median of its timed epochs, after warm-up, of the training
steps only. On the CPU the two may run on different thread counts: the Train page takes one thread
for small steps beside a browser, the benchmark takes its worker's. Within ``AGREEMENT`` they agree;
beyond it the pages say which of these made the difference, in one sentence (``Verdict.reason``).
"""

from __future__ import annotations

from dataclasses import dataclass

from linecnn.bench.config import BenchConfig
from linecnn.train.config import RunConfig

AGREEMENT = 0.2  # the same settings read within ±20 % on the Train page and the Benchmark page


@dataclass(frozen=True)
class Verdict:
    """A Train-page figure against a cell's, and the one reason the pages give when they are apart."""

    train_ms: float  # the Train page's ms per epoch (validation included)
    cell_ms: float  # the cell's median ms per epoch (training steps only)
    reason: str | None  # None: within AGREEMENT; else "threads", "validation" or "load"

    @property
    def ratio(self) -> float:
        """Train ms over cell ms: 1.3 means the Train page's epoch took 30 % longer."""
        return self.train_ms / self.cell_ms

    @property
    def validation_share(self) -> float:
        """The part of the Train figure the cell does not time, when the Train epoch is the longer one."""
        return max(0.0, 1 - self.cell_ms / self.train_ms)


def same_settings(run: RunConfig, cell: BenchConfig) -> bool:
    """Whether ``cell`` trains what a Train run of ``run`` trains: the same images, model and steps, fp32.

    Seed and learning rate change no epoch's work; a full batch the benchmark cuts into steps does.
    """
    return (
        cell.variant == "eager"
        and cell.run.data.per_class == run.data.per_class
        and cell.run.data.mode == run.data.mode
        and cell.run.model == run.model
        and cell.step_size == run.step_size
    )


def compare(train_ms: float, cell_ms: float, train_threads: int | None, cell_threads: int | None) -> Verdict:
    """The verdict on a Train epoch of ``train_ms`` against a cell of ``cell_ms`` with the same settings.

    ``*_threads``: CPU threads each ran on (None on a GPU, or not known). Beyond AGREEMENT, different
    thread counts are the reason given first: on a shared machine they change a tiny step's time many
    times over. Otherwise a longer Train epoch is its validation (and its first epochs), and a shorter
    one means the machine was busier while one of them ran.
    """
    if not (train_ms > 0 and cell_ms > 0):
        raise ValueError(f"Epoch times must be positive to compare; got {train_ms!r} and {cell_ms!r} ms.")
    verdict = Verdict(train_ms, cell_ms, None)
    if abs(verdict.ratio - 1) <= AGREEMENT:
        return verdict
    if None not in (train_threads, cell_threads) and train_threads != cell_threads:
        return Verdict(train_ms, cell_ms, "threads")
    return Verdict(train_ms, cell_ms, "validation" if verdict.ratio > 1 else "load")
