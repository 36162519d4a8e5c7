"""Planning a sweep: which cells to time, in which order, and which are left out by the caps and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from linecnn.bench.config import BenchConfig
from linecnn.bench.factors import BATCH_SIZES, DATA_PER_CLASS, SINGLE, Factor
from linecnn.errors import Message, UserError
from linecnn.train.limits import format_size, step_memory_bytes

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

    @property
    def own_image_cap(self) -> bool:
        """True when the image cap is not the default, the sweep's largest cell (a host set its own).

        The default lets every size the sweep offers through, so a page need not name it: written out,
        its 1,000,002 images (3 × 333,334) read like a typing error.
        """
        return self.max_images != MAX_IMAGES


class StepMemoryError(UserError):
    """No cell of a sweep fits under the per-step memory cap (the message says how to fit)."""


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep will run: the cells in order, and what was left out and why."""

    factor: Factor  # the factor swept
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
        raise UserError("no_devices")
    configs = factor.cells(base)
    notes = []
    if up_to is not None and factor.values:
        smallest = configs[0]
        configs = [c for c in configs if factor.x(c) <= up_to] or [smallest]
        if factor.x(smallest) > up_to:  # only an --up-to typed on the CLI can be; the page offers values
            value = int(up_to) if float(up_to).is_integer() else up_to
            notes.append(Message("below_sweep", up_to=value, cell=_cell_name(factor, smallest)))
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


def step_bytes(config: BenchConfig) -> int:
    """Estimated activation bytes one training step of ``config`` keeps (fp32; good to a factor of ~2)."""
    return step_memory_bytes(config.run.model, config.step_size)


def _within_step_memory(
    configs: list[BenchConfig], factor: Factor, cap: int, name: str
) -> tuple[list[BenchConfig], Message | None]:
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


def _cell_name(factor: Factor, config: BenchConfig) -> Message:
    """The swept value of a cell, exactly, e.g. '36,000 images' or 'a batch of 256'."""
    if factor.column == "batch":
        return Message("cell.batch", count=config.step_size)
    if factor.column == "width":
        return Message("cell.width", width=config.run.model.width)
    if factor.column == "conv_layers":
        return Message("cell.convs", count=config.conv_layers)
    return Message("cell.images", count=config.images)
