"""Planning a sweep: which cells to time, in which order, and which are left out by the caps and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from linecnn.bench.config import BenchConfig
from linecnn.bench.factors import BATCH_SIZES, DATA_PER_CLASS, SINGLE, Factor
from linecnn.train.limits import step_memory_bytes

MAX_IMAGES = 3 * DATA_PER_CLASS[-1]  # the largest cell the sweep offers: 1 M images
MAX_STEP_BYTES = 1 << 30  # as the Train page: a CPU step far above this meets the OOM killer


@dataclass(frozen=True)
class Caps:
    """Limits enforced where the benchmark runs (the server), whatever a client asks for."""

    max_images: int = MAX_IMAGES  # largest training set of one cell
    max_seconds: float | None = None  # wall time of the whole sweep; None = no limit (the CLI's default)
    max_step_bytes: int | None = (
        None  # activations one step may keep (train.step_memory_bytes); None = no limit
    )
    name: str = "this server's cap"  # how sentences about a cell left out name these limits


class StepMemoryError(ValueError):
    """No cell of a sweep fits under the per-step memory cap (the message says how to fit)."""


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep will run: the cells in order, and what was left out and why."""

    factor: Factor  # the factor swept
    configs: tuple[BenchConfig, ...]  # one per value of the factor, smallest first
    devices: tuple[str, ...]  # e.g. ("cpu", "cuda:0")
    compare_eager: bool  # also time plain eager beside a cell that takes faster paths
    notes: tuple[str, ...] = ()  # sentences about cells left out (caps)

    def cells(self) -> list[tuple[BenchConfig, str]]:
        """(config, device) in run order: all devices of one size together, so partial results compare."""
        cells = []
        for config in self.configs:
            for device in self.devices:
                effective, _ = config.for_device(device)
                if self.compare_eager and effective.variant != "eager":
                    cells.append((config.eager(), device))
                cells.append((config, device))
        return cells


@dataclass(frozen=True)
class SweepRequest:
    """What a sweep is asked to time, before the caps: what the CLI's options and the page's form hold."""

    base: BenchConfig  # the cell every other factor is held at
    factor: Factor = SINGLE  # the factor swept
    devices: tuple[str, ...] = ("cpu",)  # the devices to time, by key
    up_to: float | None = None  # the largest value of the factor to time; None = every value
    compare_eager: bool = True  # also time plain eager beside a cell that takes faster paths

    def plan(self, caps: Caps = Caps()) -> SweepPlan:
        """The plan of this request within ``caps``; ValueError with a sentence when nothing fits."""
        return plan_sweep(
            self.base,
            self.factor,
            self.devices,
            up_to=self.up_to,
            caps=caps,
            compare_eager=self.compare_eager,
        )


def plan_sweep(
    base: BenchConfig,
    factor: Factor,
    devices: Sequence[str],
    *,
    up_to: float | None = None,
    caps: Caps = Caps(),
    compare_eager: bool = True,
) -> SweepPlan:
    """The cells of a sweep over ``factor`` (values up to ``up_to``), the other factors held at ``base``."""
    if not devices:
        raise ValueError("Choose at least one device to benchmark.")
    configs = factor.cells(base)
    if up_to is not None and factor.values:
        configs = [c for c in configs if factor.x(c) <= up_to] or configs[:1]
    notes = []
    too_big = [c for c in configs if c.images > caps.max_images]
    if too_big:
        configs = [c for c in configs if c.images <= caps.max_images]
        notes.append(
            f"Cells above {caps.name} of {caps.max_images:,} images were left out "
            f"({', '.join(f'{c.images:,}' for c in too_big)} images)."
        )
    if not configs:
        raise ValueError(f"Every cell is above {caps.name} of {caps.max_images:,} images per cell.")
    if caps.max_step_bytes is not None:
        configs, note = _within_step_memory(configs, factor, caps.max_step_bytes, caps.name)
        notes += [note] if note else []
    return SweepPlan(factor, tuple(configs), tuple(devices), compare_eager, tuple(notes))


def step_bytes(config: BenchConfig) -> int:
    """Estimated activation bytes one training step of ``config`` keeps (fp32; good to a factor of ~2)."""
    return step_memory_bytes(config.run.model, config.step_size)


def _within_step_memory(
    configs: list[BenchConfig], factor: Factor, cap: int, name: str
) -> tuple[list[BenchConfig], str | None]:
    """The cells whose steps fit under ``cap`` bytes, and a sentence on those left out (None if none).

    Raises StepMemoryError, saying how to fit, when no cell does: such a step would exhaust a CPU
    server's memory (the OOM killer takes the whole server) long before it said "out of memory".
    """
    fits = [c for c in configs if step_bytes(c) <= cap]
    left = [c for c in configs if step_bytes(c) > cap]
    if not left:
        return configs, None
    cells = ", ".join(f"{factor.text(factor.x(c), exact=True)} (≈ {_gib(step_bytes(c))})" for c in left)
    if fits:
        return fits, (
            f"Cells whose training step would keep more than {name} of {_gib(cap)} of "
            f"activations were left out: {cells}."
        )
    smallest = min(left, key=step_bytes)
    per_image = step_memory_bytes(smallest.run.model, 1)
    largest = max(1, cap // per_image)
    listed = [size for size in BATCH_SIZES if size <= largest]  # the page's choices
    example = f" (of the usual sizes, {listed[-1]:,})" if listed else ""
    raise StepMemoryError(
        f"One training step would keep ≈ {_gib(step_bytes(smallest))} of activations, above "
        f"{name} of {_gib(cap)} per step. Choose a batch size of at most {largest:,}{example}, "
        "a smaller width or fewer extra conv layers."
    )


def _gib(count: int) -> str:
    """Bytes as GiB for a sentence, e.g. '35.2 GiB' (MiB below 1 GiB)."""
    return f"{count / 2**30:.1f} GiB" if count >= 2**30 else f"{count / 2**20:.0f} MiB"
