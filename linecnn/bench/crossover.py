"""Where an accelerator's line crosses under the CPU's on a sweep chart, in words a sentence can hold."""

from __future__ import annotations

import math
from dataclasses import dataclass

from linecnn.bench.factors import Factor


@dataclass(frozen=True)
class Crossover:
    """Where an accelerator's line crosses under the CPU's on a sweep chart."""

    kind: str  # "crosses", "always" (accelerator faster at every point), "never", or "unclear"
    x: float | None  # the interpolated crossing point for "crosses", else None
    verdict: str  # a sentence for the page, e.g. "GPU faster above ≈ 12,000 images"
    measured_up_to: float  # the largest point both series were timed at: the verdict says nothing beyond


def crossover(
    cpu: dict[float, float], other: dict[float, float], factor: Factor, name: str = "GPU"
) -> Crossover | None:
    """Compare two {x: median ms} series on their common points; None with no common point.

    The crossing is interpolated on the log-log chart between the last point where the CPU
    is at least as fast and the next one, where ``name`` is faster from there on.
    """
    xs = sorted(set(cpu) & set(other))
    if not xs:
        return None
    unit = factor.unit
    ratio = [other[x] / cpu[x] for x in xs]  # below 1: the accelerator is faster
    faster = [r < 1 for r in ratio]
    if all(faster):
        return Crossover(
            "always",
            None,
            f"{name} faster at every {unit} tried (from {factor.text(xs[0], exact=True)})",
            xs[-1],
        )
    if not any(faster):
        return Crossover(
            "never",
            None,
            f"CPU faster at every {unit} tried (up to {factor.text(xs[-1], exact=True)})",
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
    return Crossover("crosses", x, f"{name} faster above ≈ {factor.text(x)}", xs[-1])
