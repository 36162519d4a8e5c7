"""One profiled training step in figures: counts, the operators' work against the rest, top operators.

``linecnn.bench.profile`` runs the steps; this reads the profiler's events into a ``StepProfile``.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from torch.autograd.profiler_util import FunctionEvent

from linecnn.bench.noise import overloaded
from linecnn.bench.step_kernels import launched, on_host, step_kernels

PHASES = ("forward", "backward", "optimizer")
TOP = 8  # operators shown per phase
STEP_RANGE = "linecnn.step"  # the profiler range around each profiled step, to tell steps apart


@dataclass(frozen=True)
class Operator:
    """One operator's share of a step, summed over its calls."""

    name: str  # e.g. 'aten::convolution_backward'
    phase: str  # one of PHASES
    calls: int  # calls in one step
    self_ms: float  # host time in the operator itself, children excluded
    device_ms: float  # time of the kernels it launched (0 on the CPU)


@dataclass(frozen=True)
class StepProfile:
    """What one training step of a cell costs on one device, and what it is made of."""

    device: str  # 'cpu', 'cuda:0', ...
    images: int  # images in the step (the cell's mini-batch, or its whole set)
    steps: int  # steps profiled (and as many timed plainly); the figures below are the median step's
    plain_ms: float  # median wall time of a step without the profiler
    profiled_ms: float  # median wall time of a step under the profiler
    operator_calls: int  # aten operator calls in one step, nested calls included
    kernels: int | None  # GPU kernel launches in one step; None on the CPU
    work_ms: float  # per step: CPU, the time inside aten operators (their self times); GPU, the kernels' time
    flops: float  # floating-point operations per step of conv and linear layers, forward and backward
    operators: tuple[Operator, ...]  # the busiest operators of each phase, busiest first
    load_average: float | None = None  # highest 1-minute load average seen while it ran; None if unknown
    cores: int | None = None  # the machine's CPU cores, to read the load average against

    @property
    def busy(self) -> bool:
        """True when other work competed for the cores while the steps ran: every time here includes waits."""
        return overloaded(self.load_average, self.cores)

    @property
    def around_ms(self) -> float:
        """Per step, everything that is not the operators' work: Python, dispatch, launches, syncs."""
        return max(self.profiled_ms - self.work_ms, 0.0)

    @property
    def work_share(self) -> float:
        """The operators' work as a fraction of the profiled step (0 to 1)."""
        return min(self.work_ms / self.profiled_ms, 1.0) if self.profiled_ms > 0 else 0.0

    @property
    def gflops_per_s(self) -> float:
        """Floating-point rate achieved over a whole plain step, in GFLOP/s."""
        return self.flops / self.plain_ms / 1e6 if self.plain_ms > 0 else 0.0

    @property
    def overhead(self) -> float:
        """How much longer a profiled step takes than a plain one (1.0 = no cost)."""
        return self.profiled_ms / self.plain_ms if self.plain_ms > 0 else 1.0

    @property
    def kernel_us(self) -> float | None:
        """Mean time of one GPU kernel in microseconds; None on the CPU or without kernels."""
        return 1000 * self.work_ms / self.kernels if self.kernels else None

    @property
    def operator_us(self) -> float:
        """Mean time inside one operator call in microseconds (its own time, children excluded)."""
        return 1000 * self.work_ms / self.operator_calls if self.operator_calls else 0.0

    @property
    def mostly_around(self) -> bool:
        """True when less than half of the step is the operators' work: the step is mostly overhead."""
        return self.work_share < 0.5

    @classmethod
    def from_dict(cls, data: dict) -> StepProfile:
        """A profile back from ``to_dict``'s form (derived figures are computed again)."""
        optional = ("load_average", "cores")  # absent from profiles written before they were kept
        required = [name for name in cls.__dataclass_fields__ if name not in ("operators", *optional)]
        fields = {name: data[name] for name in required} | {name: data.get(name) for name in optional}
        return cls(**fields, operators=tuple(Operator(**op) for op in data["operators"]))

    def to_dict(self) -> dict:
        """JSON-ready figures, derived ones included."""
        return {
            "device": self.device,
            "images": self.images,
            "steps": self.steps,
            "plain_ms": self.plain_ms,
            "profiled_ms": self.profiled_ms,
            "profiler_overhead": self.overhead,
            "operator_calls": self.operator_calls,
            "kernels": self.kernels,
            "work_ms": self.work_ms,
            "around_ms": self.around_ms,
            "flops": self.flops,
            "gflops_per_s": self.gflops_per_s,
            "operators": [vars(op) for op in self.operators],
            "load_average": self.load_average,
            "cores": self.cores,
        }


def summarize_events(
    events: Iterable[FunctionEvent],
    *,
    device: str,
    images: int,
    plain_seconds: Sequence[float],
    profiled_seconds: Sequence[float],
    flops: float,
) -> StepProfile:
    """The median profiled step's counts, work and top operators, from events where each step is a STEP_RANGE.

    A step of unusual length (another program took the core) would bias a mean: every figure
    comes from the step whose wall time is the median, so the split adds up to that step's time.
    """
    events = list(events)
    host = [event for event in events if on_host(event)]
    # With CUDA activity each record_function also yields a device-side range of the same name
    # (gpu_user_annotation): a step is its host-side range only.
    ranges = sorted(
        (event.time_range.start, event.time_range.end) for event in host if event.name == STEP_RANGE
    )
    if len(ranges) != len(profiled_seconds):
        raise ValueError(f"The profiler recorded {len(ranges)} steps where {len(profiled_seconds)} ran.")
    median_step = sorted(range(len(ranges)), key=lambda index: profiled_seconds[index])[len(ranges) // 2]
    start, end = ranges[median_step]
    in_step = [event for event in host if not event.is_async and start <= event.time_range.start <= end]
    ops = [event for event in in_step if event.name.startswith("aten::")]
    on_gpu = device.startswith("cuda")
    ranges_named = {event.name for event in host}  # a "kernel" named like a host range is its annotation
    launchers = [event for event in in_step if launched(event, ranges_named)]
    later = [begin for begin, _ in ranges if begin > start]
    kernels = step_kernels(events, launchers, ranges_named, start, min(later, default=float("inf")))
    if on_gpu:
        work_us = sum(kernel.duration for kernel in kernels)
    else:
        work_us = sum(op.self_cpu_time_total for op in ops)
    shown = ops + [event for event in launchers if not event.name.startswith("aten::")]
    return StepProfile(
        device=device,
        images=images,
        steps=len(ranges),
        plain_ms=1000 * statistics.median(plain_seconds),
        profiled_ms=1000 * profiled_seconds[median_step],
        operator_calls=len(ops),
        kernels=sum(1 for kernel in kernels if not _is_copy(kernel.name)) if on_gpu else None,
        work_ms=work_us / 1000,
        flops=flops,
        operators=top_operators(shown, ranges_named),
    )


def top_operators(
    ops: list[FunctionEvent], ranges_named: frozenset[str] | set[str] = frozenset(), top: int = TOP
) -> tuple[Operator, ...]:
    """The ``top`` operators of each phase of one step by self time (host plus kernels).

    ``ranges_named``: names of host ranges, whose device-side annotations are not kernels.
    """
    totals: dict[tuple[str, str], list[float]] = {}
    for op in ops:
        entry = totals.setdefault((phase_of(op), op.name), [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += op.self_cpu_time_total
        entry[2] += sum(kernel.duration for kernel in launched(op, ranges_named))
    rows = [
        Operator(name, phase, int(calls), self_us / 1000, device_us / 1000)
        for (phase, name), (calls, self_us, device_us) in totals.items()
    ]
    chosen = []
    for phase in PHASES:
        mine = sorted(
            (row for row in rows if row.phase == phase), key=lambda row: -(row.self_ms + row.device_ms)
        )
        chosen += mine[:top]
    return tuple(chosen)


def phase_of(event: FunctionEvent) -> str:
    """'optimizer' under an optimizer's step or zero_grad, 'backward' under autograd, else 'forward'."""
    node: FunctionEvent | None = event
    while node is not None:
        if node.name.startswith("Optimizer."):
            return "optimizer"
        if node.name.startswith("autograd::engine::evaluate_function"):
            return "backward"
        node = node.cpu_parent
    return "forward"


def _is_copy(kernel_name: str) -> bool:
    """True for a memory copy or set, which the profiler lists beside kernels but nobody launched as one."""
    return kernel_name.startswith(("Memcpy", "Memset"))
