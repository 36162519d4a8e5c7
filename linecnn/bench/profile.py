"""What one training step is made of, measured with torch.profiler.

A cell is warmed up, then the same steps run twice: with the clock only, and under the profiler.
The profiled run gives the counts (operator calls, kernel launches), the operators' own time and
the top operators by phase; the plain run gives the step time the rate is computed from, so the
profiler's own overhead never enters a figure and is reported beside them. Profiled steps are never
part of the benchmark's timed medians: this runs after, or instead of, them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, record_function
from torch.utils.flop_counter import FlopCounterMode

from linecnn.bench.config import BenchConfig
from linecnn.bench.noise import highest, load_average
from linecnn.bench.plan import SweepPlan
from linecnn.bench.step_profile import STEP_RANGE, StepProfile, summarize_events
from linecnn.bench.timing import prepare, time_epochs
from linecnn.train.epoch import train_epoch

PROFILED_STEPS = 5  # enough for a stable median per step, few enough for a trace one can open
WARMUP_STEPS = 3  # the first steps pay allocation, autotune and lazy initialisation


def profile_step(
    config: BenchConfig,
    device: torch.device | str,
    *,
    trace: Path | None = None,
    check: Callable[[], None] = lambda: None,
    steps: int = PROFILED_STEPS,
) -> StepProfile:
    """Profile ``steps`` training steps of ``config`` on ``device``; write a Chrome trace to ``trace``.

    ``check`` runs between steps (a cancel or a time cap raises from it).
    """
    if steps < 1:
        raise ValueError(f"Profile at least one step; got {steps}.")
    device = torch.device(device)
    load_before = load_average()
    work = prepare(config, device, check)
    images = config.step_size
    step = partial(
        train_epoch, work.timed, work.x[:images], work.y[:images], work.optimizer, scaler=work.scaler
    )

    def after(_: int) -> None:
        check()  # between steps, outside the clock

    def marked_step() -> None:
        with record_function(STEP_RANGE):
            step()

    time_epochs(step, device, WARMUP_STEPS, after_each=after)
    plain = time_epochs(step, device, steps, after_each=after)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with profile(activities=activities, record_shapes=True, with_flops=True) as prof:
        profiled = time_epochs(marked_step, device, steps, after_each=after)
    if trace is not None:
        prof.export_chrome_trace(str(trace))
    load = highest(load_before, load_average())
    with FlopCounterMode(display=False) as counter:
        step()
    summary = summarize_events(
        prof.events(),
        device=str(device),
        images=images,
        plain_seconds=plain,
        profiled_seconds=profiled,
        flops=float(counter.get_total_flops()),
    )
    return replace(summary, load_average=load, cores=os.cpu_count())


def profile_targets(base: BenchConfig, plan: SweepPlan) -> list[tuple[BenchConfig, str]]:
    """The cells to look inside, on each device of ``plan``: ``base``, then the sweep's largest cell.

    Each cell is as that device times it (a CUDA-only faster path is off on the CPU).
    """
    configs = [base]
    if plan.configs and plan.configs[-1] != base:
        configs.append(plan.configs[-1])
    return [(config.for_device(device)[0], device) for device in plan.devices for config in configs]
