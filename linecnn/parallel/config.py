"""The data-parallel benchmark's problem, and which numbers of processes this machine can run."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from linecnn.device import list_devices
from linecnn.errors import UserError
from linecnn.train.config import MAX_PER_CLASS, MAX_SEED, MAX_WIDTH, RunConfig, check_int

MAX_RANKS = 64  # more processes than this on one machine is a mistake, not a measurement
_LESSON = RunConfig()  # the lesson's defaults: the one place that holds them


@dataclass(frozen=True)
class RanksConfig:
    """The data-parallel benchmark's problem and timing; the same for every rank count."""

    per_class: int = _LESSON.data.per_class  # training images per class (3x this per epoch)
    batch_size: int | None = None  # images per global step (shared by the ranks); None = the whole set
    width: int = _LESSON.model.width  # channel multiplier of the model
    warmup: int = 2  # untimed epochs first
    repeats: int = 5  # timed epochs
    seed: int = _LESSON.seed  # seeds the images, the initial weights and the batch order
    lr: float = _LESSON.train.lr  # Adam learning rate
    device: str = "cpu"  # "cpu" (gloo, processes share the cores) or "cuda" (NCCL, one rank per GPU)
    threads: int | None = None  # CPU threads per rank; None = the cores split evenly, max(1, cores // N)

    def __post_init__(self) -> None:
        check_int("per_class", self.per_class, 1, MAX_PER_CLASS)
        check_int("width", self.width, 1, MAX_WIDTH)
        check_int("warmup", self.warmup, 0, 1000)
        check_int("timed_epochs", self.repeats, 1, 1000)
        check_int("seed", self.seed, 0, MAX_SEED)
        if self.batch_size is not None:
            check_int("batch_size", self.batch_size, 1, 3 * MAX_PER_CLASS)
        if self.threads is not None:
            check_int("threads", self.threads, 1, 1024)
        if self.device not in ("cpu", "cuda"):
            raise ValueError(f"Data-parallel runs use 'cpu' (gloo) or 'cuda' (NCCL); got {self.device!r}.")

    @property
    def images(self) -> int:
        """Training images per epoch."""
        return 3 * self.per_class

    @property
    def step_size(self) -> int:
        """Images per global optimizer step."""
        return min(self.batch_size or self.images, self.images)

    @property
    def epochs(self) -> int:
        """Epochs each run trains: the warm-up, then the timed ones."""
        return self.warmup + self.repeats


def max_ranks(device: str) -> int:
    """The most ranks a run may have here: one per CPU core, or one per GPU."""
    if device == "cuda":
        return sum(info.kind == "cuda" for info in list_devices())
    return min(MAX_RANKS, os.cpu_count() or 1)


def check_ranks(ranks: Sequence[int], config: RanksConfig) -> list[int]:
    """The rank counts to run, sorted and without repeats; ValueError with a sentence when one cannot run."""
    counts = sorted(set(ranks))
    if not counts:
        raise UserError("no_rank_counts")
    limit = max_ranks(config.device)
    for count in counts:
        _check_count(count, config, limit)
    return counts


def _check_count(count: int, config: RanksConfig, limit: int) -> None:
    """ValueError with a sentence when ``count`` processes cannot run ``config`` on this machine."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise UserError("bad_rank_count", value=repr(count))
    if count > config.step_size:
        raise UserError("step_not_shared", images=config.step_size, count=count)
    if count > limit and config.device == "cuda":
        raise UserError("too_few_gpus", count=count, limit=limit)
    if count > limit:
        raise UserError("too_few_cores", count=count, limit=limit)


def threads_per_rank(ranks: int, cores: int | None = None, threads: int | None = None) -> int:
    """CPU threads each rank gets: ``threads`` when given, else the cores split evenly, at least one."""
    return threads or max(1, (cores or os.cpu_count() or 1) // ranks)
