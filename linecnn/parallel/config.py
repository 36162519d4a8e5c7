"""The data-parallel benchmark's problem, and which numbers of processes this machine can run."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypedDict, cast

from linecnn.bench.config import RUN_KEYS, BenchConfig
from linecnn.device import core_share, list_devices
from linecnn.errors import UserError
from linecnn.train.config import check_int

MAX_RANKS = 64  # more processes than this on one machine is a mistake, not a measurement
TIMING_KEYS = ("warmup", "repeats")  # BenchConfig's timing options a data-parallel run honours
OWN_KEYS = ("device", "threads")  # what only a data-parallel run has


class OwnOptions(TypedDict, total=False):
    """RanksConfig's own fields (``OWN_KEYS``) as keyword arguments, each one optional."""

    device: str
    threads: int | None


@dataclass(frozen=True)
class RanksConfig:
    """The data-parallel benchmark: a benchmark cell (plain fp32), run by 1, 2, 4 ... processes."""

    # The problem and its timing (warm-up, repeats), validated by BenchConfig; every rank count trains it.
    # A full batch is the whole set here: the ranks share each step (no BenchConfig step bound).
    bench: BenchConfig = field(default_factory=BenchConfig)
    device: str = "cpu"  # "cpu" (gloo, processes share the cores) or "cuda" (NCCL, one rank per GPU)
    threads: int | None = None  # CPU threads per rank; None = the cores split evenly, max(1, cores // N)

    def __post_init__(self) -> None:
        if not isinstance(self.bench, BenchConfig):
            raise ValueError(f"A data-parallel run needs a BenchConfig; got {type(self.bench).__name__}.")
        if self.bench.variant != "eager":
            raise ValueError(f"Data-parallel runs time plain fp32 training; leave out {self.bench.variant}.")
        if self.threads is not None:
            check_int("threads", self.threads, 1, 1024)
        if self.device not in ("cpu", "cuda"):
            raise ValueError(f"Data-parallel runs use 'cpu' (gloo) or 'cuda' (NCCL); got {self.device!r}.")

    @classmethod
    def from_flat(cls, **flat: object) -> RanksConfig:
        """A run from the flat keys of ``as_dict``; a key left out keeps its default."""
        unknown = sorted(set(flat) - {*RUN_KEYS, *TIMING_KEYS, *OWN_KEYS})
        if unknown:
            raise TypeError(f"from_flat() got unexpected keys: {', '.join(unknown)}")
        bench = BenchConfig.from_flat(**{key: value for key, value in flat.items() if key not in OWN_KEYS})
        # Unchecked values (the CLI, the page, a rank's JSON): __post_init__ checks their types and ranges.
        own = cast(OwnOptions, {key: flat[key] for key in OWN_KEYS if key in flat})
        return cls(bench, **own)

    def as_dict(self) -> dict:
        """The flat, JSON-friendly view: the problem's keys, warm-up and repeats, device and threads."""
        flat = self.bench.to_flat()
        return {
            **{key: flat[key] for key in (*RUN_KEYS, *TIMING_KEYS)},
            "device": self.device,
            "threads": self.threads,
        }

    @property
    def step_size(self) -> int:
        """Images per global optimizer step: the batch size, or the whole training set."""
        return self.bench.run.step_size


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
    return threads or core_share(ranks, cores)
