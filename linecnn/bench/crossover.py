"""Where an accelerator's line crosses under the CPU's on a sweep chart, in words a sentence can hold."""

from __future__ import annotations

import math
from dataclasses import dataclass

FACTOR_UNITS = {  # what one point of a sweep is, in a sentence
    "none": "size",
    "data": "data size",
    "batch": "batch size",
    "width": "width",
    "conv": "conv depth",
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
