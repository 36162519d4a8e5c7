"""``python -m linecnn bench --profile``: what one training step is made of, on each device, printed.

The profile runs after the timed cells, so none of its steps is part of a median.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from linecnn.bench.config import BenchConfig
from linecnn.bench.peaks import SOURCE, peak_gflops
from linecnn.bench.plan import SweepPlan
from linecnn.bench.profile import PROFILED_STEPS, WARMUP_STEPS, profile_step, profile_targets
from linecnn.bench.step_profile import StepProfile
from linecnn.bench.timing import Watch
from linecnn.device import describe

TRACE_VIEWERS = "open it at https://ui.perfetto.dev (it stays in your browser) or chrome://tracing"


def run_profiles(
    base: BenchConfig, plan: SweepPlan, trace: str | None, max_seconds: float | None
) -> tuple[list[StepProfile], list[Path | None]]:
    """Profile the base cell and the sweep's largest cell on each device; write their traces and say where."""
    targets = profile_targets(base, plan)
    watch = Watch(max_seconds=max_seconds)
    paths = trace_paths(trace, targets)
    profiles = [
        profile_step(config, device, trace=path, check=watch.check)
        for (config, device), path in zip(targets, paths, strict=True)
    ]
    return profiles, paths


def trace_paths(trace: str | None, targets: list[tuple[BenchConfig, str]]) -> list[Path | None]:
    """Where each profile's Chrome trace goes: ``trace`` itself for one, else one file per cell beside it."""
    if trace is None:
        return [None] * len(targets)
    path = Path(trace)
    if len(targets) == 1:
        return [path]
    return [
        path.with_name(f"{path.stem}-{device.replace(':', '')}-{config.images}{path.suffix or '.json'}")
        for config, device in targets
    ]


def profile_text(profiles: list[StepProfile], traces: Sequence[Path | None] = ()) -> str:
    """The human breakdown of each profile, then where its traces were written (``run_profiles``)."""
    lines = [
        f"Inside one step (torch.profiler: {PROFILED_STEPS} steps after {WARMUP_STEPS} warm-up steps; "
        "figures of the median step; none of these steps is in the timed medians)"
    ]
    for profile in profiles:
        lines += [""] + _block(profile)
    written = ", ".join(str(path) for path in traces if path is not None)
    if written:
        lines += ["", f"Trace written to {written}; {TRACE_VIEWERS}."]
    return "\n".join(lines)


def _block(p: StepProfile) -> list[str]:
    """One device and cell: the step, the counts, the split, the work, the top operators, the verdict."""
    launches = f", {p.kernels:,} GPU kernel launches" if p.kernels is not None else ""
    rate = f"{p.gflops_per_s:,.1f} GFLOP/s"
    peak = peak_gflops(describe(p.device)) if p.device.startswith("cuda") else None
    if peak is not None:
        rate += f" (peak about {peak:,.0f} GFLOP/s: {SOURCE})"
    lines = [
        f"{describe(p.device)} · {p.images:,} images per step",
        f"  step: {p.plain_ms:.3f} ms plain, {p.profiled_ms:.3f} ms profiled (the profiler adds "
        f"{100 * (p.overhead - 1):+.0f} %)",
        f"  {p.operator_calls:,} operator calls{launches}",
        f"  {'kernels' if p.kernels is not None else 'inside operators'}: {p.work_ms:.3f} ms "
        f"({100 * p.work_share:.0f} %) · around them (Python, dispatch, launches, syncs): "
        f"{p.around_ms:.3f} ms",
        f"  work: {p.flops / 1e6:,.1f} MFLOP per step (conv and linear, forward and backward) at {rate}",
        "  busiest operators (own time per step):",
    ]
    for op in p.operators:
        device_ms = f" + {op.device_ms:.3f} ms on the GPU" if op.device_ms else ""
        lines.append(f"    {op.phase:<9} {op.name:<42} {op.calls:>4} calls {op.self_ms:8.3f} ms{device_ms}")
    if p.busy:
        lines.append(
            f"  ! the machine was busy (load average up to {p.load_average:.1f} on {p.cores} cores): part of "
            "every time here is waiting for a core; profile again when it is quiet"
        )
    lines.append(f"  → {verdict(p)}")
    return lines


def verdict(p: StepProfile) -> str:
    """One plain sentence about the step, from its measured figures."""
    if p.kernels:
        each = f"{p.kernels:,} kernels of about {p.kernel_us:,.1f} µs each"
        if p.mostly_around:
            return f"{each}: most of this step is launching work, not doing it."
        return f"{each}: most of this step is the GPU computing."
    each = f"{p.operator_calls:,} operator calls of about {p.operator_us:,.1f} µs each"
    if p.busy:
        return f"{each}, but the machine was busy: much of this step is waiting for a core, not arithmetic."
    if p.mostly_around:
        return f"{each}: most of this step is Python and dispatch around the arithmetic, not the arithmetic."
    return f"{each}: most of this step is spent inside the operators, doing the arithmetic."
