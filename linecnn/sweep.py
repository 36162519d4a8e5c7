"""The lesson's crossover sweep: one factor at a time, on every device, within caps on size and time.

The lesson says a GPU gains little on tiny problems (launch and transfer overheads) and a lot
as the data, the batch, the model width and the convolution work grow. A sweep varies one of
those factors, holds the others at the base cell's values, and times each cell on each device.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

import torch

from linecnn.bench import BenchConfig, BenchResult, Stop, bench, bench_environment
from linecnn.config import ModelConfig
from linecnn.device import describe
from linecnn.train import step_memory_bytes

FORMAT = "linecnn.bench/1"  # the "format" of a benchmark JSON document (CLI output, page download)
FACTORS = ("none", "data", "batch", "width", "conv")
FACTOR_TITLES = {
    "none": "Single cell",
    "data": "Data size",
    "batch": "Batch size",
    "width": "Model width",
    "conv": "Conv layers",
}
FACTOR_UNITS = {  # what one point of a sweep is, in a sentence
    "none": "size",
    "data": "data size",
    "batch": "batch size",
    "width": "width",
    "conv": "conv depth",
}
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
    name: str = "this server's cap"  # how sentences about a cell left out name these limits


class StepMemoryError(ValueError):
    """No cell of a sweep fits under the per-step memory cap (the message says how to fit)."""


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep will run: the cells in order, and what was left out and why."""

    factor: str  # one of FACTORS
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


def x_value(factor: str, config: dict) -> float:
    """The swept quantity of a cell (a result's flat config): images, batch size, width or conv layers."""
    key = {"none": "images", "data": "images", "batch": "step_size", "width": "width", "conv": "conv_layers"}
    return float(config[key[factor]])


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
        raise ValueError("Choose at least one device to benchmark.")
    if factor == "none":
        configs = [base]
    elif factor == "data":
        configs = [replace(base, per_class=n) for n in DATA_PER_CLASS]
    elif factor == "batch":
        # Batches bigger than the data set are the full batch: keep one of them.
        sizes = sorted({min(size, base.images) for size in BATCH_SIZES})
        configs = [replace(base, batch_size=size) for size in sizes]
    elif factor == "width":
        configs = [replace(base, width=width) for width in WIDTHS]
    else:
        configs = [replace(base, extra_convs=extra) for extra in EXTRA_CONVS]
    if up_to is not None and factor != "none":
        configs = [c for c in configs if x_value(factor, c.as_dict()) <= up_to] or configs[:1]
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
    return step_memory_bytes(ModelConfig(config.width, config.extra_convs), config.step_size)


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
    cells = ", ".join(f"{_cell_name(factor, c)} (≈ {_gib(step_bytes(c))})" for c in left)
    if fits:
        return fits, (
            f"Cells whose training step would keep more than {name} of {_gib(cap)} of "
            f"activations were left out: {cells}."
        )
    smallest = min(left, key=step_bytes)
    per_image = step_memory_bytes(ModelConfig(smallest.width, smallest.extra_convs), 1)
    largest = max(1, cap // per_image)
    listed = [size for size in BATCH_SIZES if size <= largest]  # the page's choices
    example = f" (of the usual sizes, {listed[-1]:,})" if listed else ""
    raise StepMemoryError(
        f"One training step would keep ≈ {_gib(step_bytes(smallest))} of activations, above "
        f"{name} of {_gib(cap)} per step. Choose a batch size of at most {largest:,}{example}, "
        "a smaller width or fewer extra conv layers."
    )


def _cell_name(factor: str, config: BenchConfig) -> str:
    """The swept value of a cell, exactly, e.g. '36,000 images' or 'a batch of 256'."""
    if factor == "batch":
        return f"a batch of {config.step_size:,}"
    if factor in ("width", "conv"):
        return format_x(factor, x_value(factor, config.as_dict()))
    return f"{config.images:,} images"


def _gib(count: int) -> str:
    """Bytes as GiB for a sentence, e.g. '35.2 GiB' (MiB below 1 GiB)."""
    return f"{count / 2**30:.1f} GiB" if count >= 2**30 else f"{count / 2**20:.0f} MiB"


@dataclass(frozen=True)
class CellProgress:
    """Where a sweep is, for a progress bar."""

    cell: int  # 1-based number of the cell running now
    cells: int  # cells planned
    device: str
    config: BenchConfig
    phase: str  # "setup", "warm-up" or "timing"
    done: int  # epochs of this phase finished
    total: int  # epochs of this phase planned

    @property
    def fraction(self) -> float:
        """Share of the sweep done, from 0 to 1."""
        epochs = self.config.warmup + self.config.repeats
        finished = {"setup": 0, "warm-up": self.done, "timing": self.config.warmup + self.done}[self.phase]
        return min(1.0, (self.cell - 1 + finished / epochs) / self.cells)

    @property
    def label(self) -> str:
        """E.g. 'Cell 3 of 12 · cuda:0 · 36,000 images, batch 4,096, width 1, 2 conv layers · timing 2/5'."""
        c = self.config
        shape = (
            f"{c.images:,} images, batch {c.step_size:,}, width {c.width}, {2 + c.extra_convs} conv layers"
        )
        step = "setting up" if self.phase == "setup" else f"{self.phase} {self.done}/{self.total}"
        return f"Cell {self.cell} of {self.cells} · {self.device} · {shape} · {c.variant} · {step}"


def run_sweep(
    plan: SweepPlan,
    *,
    caps: Caps = Caps(),
    progress: Callable[[CellProgress], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[dict]:
    """Run the plan's cells in order, yielding one result dict per cell (see ``result_dict``).

    An out-of-memory cell is recorded and the sweep goes on. At the time cap the running cell
    is recorded as stopped and the cells left as skipped. Exceptions raised by ``progress``
    (a cancel) end the sweep where it is. ``progress`` is called at each phase and epoch and
    again after every optimizer step, so the time cap and a cancel land within one step.
    The size and step-memory caps apply when planning (``plan_sweep``).
    """
    env = bench_environment()
    cells = plan.cells()
    deadline = None if caps.max_seconds is None else clock() + caps.max_seconds
    for index, (config, device) in enumerate(cells, start=1):

        def report(
            phase: str,
            done: int,
            total: int,
            config: BenchConfig = config,
            device: str = device,
            index: int = index,
        ) -> None:
            if deadline is not None and clock() > deadline:
                raise Stop(f"stopped: time cap of {caps.max_seconds:g} s")
            if progress is not None:
                progress(CellProgress(index, len(cells), device, config, phase, done, total))

        try:
            result = bench(config, device, report)
        except Stop as stop:
            yield result_dict(_not_run(config, device, str(stop)), plan.factor, env)
            for config_left, device_left in cells[index:]:
                yield result_dict(_not_run(config_left, device_left, "skipped: time cap"), plan.factor, env)
            return
        yield result_dict(result, plan.factor, env)


def _not_run(config: BenchConfig, device: str, status: str) -> BenchResult:
    """A cell with no timings and the reason."""
    effective, notes = config.for_device(device)
    return BenchResult(str(torch.device(device)), describe(device), effective, status=status, notes=notes)


def result_dict(result: BenchResult, factor: str, env: dict) -> dict:
    """A result as it goes into JSON: the cell, its swept value, and the environment beside it."""
    values = result.as_dict()
    return {**values, "factor": factor, "x": x_value(factor, values["config"]), "env": env}


def make_document(results: Sequence[dict], plan: SweepPlan, env: dict | None = None) -> dict:
    """The JSON document of a sweep: what the CLI prints, the page downloads and the history stores."""
    env = env or (results[0]["env"] if results else bench_environment())
    return {
        "format": FORMAT,
        "created": env.get("date"),
        "sweep": plan.factor,
        "devices": list(plan.devices),
        "notes": list(plan.notes),
        "env": env,
        "results": list(results),
    }


@dataclass(frozen=True)
class Crossover:
    """Where an accelerator's line crosses under the CPU's on a sweep chart."""

    kind: str  # "crosses", "always" (accelerator faster at every point), "never", or "unclear"
    x: float | None  # the interpolated crossing point for "crosses", else None
    verdict: str  # a sentence for the page, e.g. "GPU faster above ≈ 12,000 images"
    measured_up_to: float  # the largest point both series were timed at: the verdict says nothing beyond


def crossover(
    cpu: dict[float, float], other: dict[float, float], factor: str, name: str = "GPU"
) -> Crossover | None:
    """Compare two {x: median ms} series on their common points; None with no common point.

    The crossing is interpolated on the log-log chart between the last point where the CPU
    is at least as fast and the next one, where ``name`` is faster from there on.
    """
    xs = sorted(set(cpu) & set(other))
    if not xs:
        return None
    unit = FACTOR_UNITS[factor]
    ratio = [other[x] / cpu[x] for x in xs]  # below 1: the accelerator is faster
    faster = [r < 1 for r in ratio]
    if all(faster):
        return Crossover(
            "always",
            None,
            f"{name} faster at every {unit} tried (from {format_x(factor, xs[0], exact=True)})",
            xs[-1],
        )
    if not any(faster):
        return Crossover(
            "never",
            None,
            f"CPU faster at every {unit} tried (up to {format_x(factor, xs[-1], exact=True)})",
            xs[-1],
        )
    last_slower = max(i for i, f in enumerate(faster) if not f)
    if last_slower == len(xs) - 1:
        return Crossover(
            "unclear", None, f"No clear crossover: the CPU is faster at the largest {unit} tried", xs[-1]
        )
    lo, hi = xs[last_slower], xs[last_slower + 1]
    t = math.log(ratio[last_slower]) / (math.log(ratio[last_slower]) - math.log(ratio[last_slower + 1]))
    x = math.exp(math.log(lo) + t * (math.log(hi) - math.log(lo)))
    return Crossover("crosses", x, f"{name} faster above ≈ {format_x(factor, x)}", xs[-1])


def format_x(factor: str, x: float, exact: bool = False) -> str:
    """A swept value for a sentence, rounded to what the sweep can tell apart (an interpolated
    crossover), or ``exact`` for a value that was set or measured."""
    if factor in ("width", "conv"):
        text = f"{x:.1f}".removesuffix(".0")
        return f"width {text}" if factor == "width" else f"{text} conv layers"
    rounded = round(x) if exact or x < 100 else float(f"{x:.2g}")
    text = f"{rounded:,.0f}"
    return f"a batch of {text}" if factor == "batch" else f"{text} images"
