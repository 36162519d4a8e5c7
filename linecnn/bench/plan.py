"""Planning a sweep: which cells to time, in which order, and which are left out by the caps and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from linecnn.bench.config import BenchConfig
from linecnn.bench.document import FACTORS
from linecnn.errors import Message, UserError
from linecnn.train.limits import format_size, step_memory_bytes

DATA_PER_CLASS = (120, 400, 1_200, 4_000, 12_000, 40_000, 120_000, 333_334)  # 360 images (the lesson) to 1 M
BATCH_SIZES = (16, 64, 256, 1_024, 4_096, 16_384)
WIDTHS = (1, 2, 4, 8, 16)
EXTRA_CONVS = (0, 1, 2, 4, 8)
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
    name: str = Message("cap.server")  # how sentences about a cell left out name these limits


class StepMemoryError(UserError):
    """No cell of a sweep fits under the per-step memory cap (the message says how to fit)."""


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep will run: the cells in order, and what was left out and why."""

    factor: str  # one of FACTORS
    configs: tuple[BenchConfig, ...]  # one per value of the factor, smallest first
    devices: tuple[str, ...]  # e.g. ("cpu", "cuda:0")
    compare_eager: bool  # also time plain eager beside a cell that takes faster paths
    notes: tuple[str, ...] = ()  # sentences (Messages) about cells left out (caps)

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


def plan_sweep(
    base: BenchConfig,
    factor: str,
    devices: Sequence[str],
    *,
    up_to: int | None = None,
    caps: Caps = Caps(),
    compare_eager: bool = True,
) -> SweepPlan:
    """The cells of a sweep over ``factor`` (values up to ``up_to``), the other factors held at ``base``."""
    if factor not in FACTORS:
        raise ValueError(f"Sweep must be one of {', '.join(FACTORS)}; got {factor!r}.")
    if not devices:
        raise UserError("no_devices")
    configs = _values(base, factor)
    if up_to is not None and factor != "none":
        configs = [c for c in configs if c.x(factor) <= up_to] or configs[:1]
    notes = []
    too_big = [c for c in configs if c.images > caps.max_images]
    if too_big:
        configs = [c for c in configs if c.images <= caps.max_images]
        images = tuple(c.images for c in too_big)
        notes.append(Message("over_images", cap=caps.name, limit=caps.max_images, images=images))
    if not configs:
        raise UserError("all_over_images", cap=caps.name, limit=caps.max_images)
    if caps.max_step_bytes is not None:
        configs, note = _within_step_memory(configs, factor, caps.max_step_bytes, caps.name)
        notes += [note] if note else []
    return SweepPlan(factor, tuple(configs), tuple(devices), compare_eager, tuple(notes))


def _values(base: BenchConfig, factor: str) -> list[BenchConfig]:
    """The base cell at every value of ``factor`` the sweep offers, smallest first."""
    if factor == "data":
        return [base.with_run(per_class=n) for n in DATA_PER_CLASS]
    if factor == "batch":
        # Batches bigger than the data set are the full batch: keep one of them.
        return [base.with_run(batch_size=size) for size in sorted({min(s, base.images) for s in BATCH_SIZES})]
    if factor == "width":
        return [base.with_run(width=width) for width in WIDTHS]
    if factor == "conv":
        return [base.with_run(extra_convs=extra) for extra in EXTRA_CONVS]
    return [base]


def step_bytes(config: BenchConfig) -> int:
    """Estimated activation bytes one training step of ``config`` keeps (fp32; good to a factor of ~2)."""
    return step_memory_bytes(config.run.model, config.step_size)


def _within_step_memory(
    configs: list[BenchConfig], factor: str, cap: int, name: str
) -> tuple[list[BenchConfig], str | None]:
    """The cells whose steps fit under ``cap`` bytes, and a sentence on those left out (None if none).

    Raises StepMemoryError, saying how to fit, when no cell does: such a step would exhaust a CPU
    server's memory (the OOM killer takes the whole server) long before it said "out of memory".
    """
    fits = [c for c in configs if step_bytes(c) <= cap]
    left = [c for c in configs if step_bytes(c) > cap]
    if not left:
        return configs, None
    cells = tuple(
        Message("cell_size", cell=_cell_name(factor, c), size=format_size(step_bytes(c))) for c in left
    )
    if fits:
        return fits, Message("over_step_memory", cap=name, limit=format_size(cap), cells=cells)
    smallest = min(left, key=step_bytes)
    per_image = step_memory_bytes(smallest.run.model, 1)
    largest = max(1, cap // per_image)
    listed = [size for size in BATCH_SIZES if size <= largest]  # the page's choices
    sizes = {"needed": format_size(step_bytes(smallest)), "cap": name, "limit": format_size(cap)}
    if listed:
        raise StepMemoryError("step_too_big_usual", **sizes, largest=largest, usual=listed[-1])
    raise StepMemoryError("step_too_big", **sizes, largest=largest)


def _cell_name(factor: str, config: BenchConfig) -> Message:
    """The swept value of a cell, exactly, e.g. '36,000 images' or 'a batch of 256'."""
    if factor == "batch":
        return Message("cell.batch", count=config.step_size)
    if factor == "width":
        return Message("cell.width", width=config.run.model.width)
    if factor == "conv":
        return Message("cell.convs", count=config.conv_layers)
    return Message("cell.images", count=config.images)
