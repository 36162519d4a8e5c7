"""Where the time of an epoch goes: a fixed cost per optimizer step plus a cost per image.

A sweep's measured epochs are fitted with ``ms = per_step * steps + per_image * images`` by least
squares on relative errors, so the smallest epochs (where the fixed cost shows) weigh as much as the
largest. The split tells the lesson's story from measurements alone: a tiny epoch is mostly fixed
per-step cost (launching work, Python, the optimizer), a large one mostly work that grows with size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class CostFit:
    """The fitted line of one device's epochs, and how well it matches what was measured."""

    per_step_ms: float  # fixed cost of one optimizer step, whatever its size
    per_image_ms: float  # cost that grows with each image trained on
    points: int  # measured epochs the fit used
    max_error: float  # largest relative gap between the line and a measured epoch (0.08 = 8 %)

    def predict_ms(self, steps: float, images: float) -> float:
        """The fitted time of an epoch of ``images`` images in ``steps`` steps."""
        return self.per_step_ms * steps + self.per_image_ms * images

    def fixed_share(self, steps: float, images: float) -> float:
        """The fraction (0 to 1) of such an epoch that the fit puts on fixed per-step costs."""
        total = self.predict_ms(steps, images)
        return self.per_step_ms * steps / total if total > 0 else 0.0

    @property
    def balance_images(self) -> float | None:
        """Images per step at which both parts weigh the same; None when no cost grows with images."""
        if self.per_image_ms <= 0:
            return None
        return self.per_step_ms / self.per_image_ms


def fit_costs(steps: Sequence[float], images: Sequence[float], median_ms: Sequence[float]) -> CostFit:
    """Fit measured epochs (steps, images, median ms) with a per-step and a per-image cost.

    Both costs are kept at zero or above: when the best unconstrained line needs a negative one,
    the better of the two one-cost lines is taken. Raises ValueError when the points cannot tell
    the two costs apart from a single epoch size.
    """
    if not len(steps) == len(images) == len(median_ms):
        raise ValueError("Steps, images and times must have one value per measured epoch.")
    rows = [
        (float(s), float(n), float(t))
        for s, n, t in zip(steps, images, median_ms, strict=True)
        if math.isfinite(t) and t > 0 and s > 0 and n > 0
    ]
    if len({(s, n) for s, n, _ in rows}) < 2:
        raise ValueError(
            "Where the time goes needs epochs of at least two sizes: sweep the data size or the batch size."
        )
    both = _two_costs(rows)
    if both is None or min(both) < 0:
        fits = [_one_cost(rows, per_step=True), _one_cost(rows, per_step=False)]
        both = min(fits, key=lambda costs: _max_error(rows, *costs))
    return CostFit(both[0], both[1], len(rows), _max_error(rows, *both))


def _two_costs(rows: list[tuple[float, float, float]]) -> tuple[float, float] | None:
    """Weighted least squares of t = a*s + b*n with weights 1/t; None when s and n are proportional."""
    sss = sum((s / t) ** 2 for s, _, t in rows)
    snn = sum((n / t) ** 2 for _, n, t in rows)
    ssn = sum(s * n / t**2 for s, n, t in rows)
    s1 = sum(s / t for s, _, t in rows)
    n1 = sum(n / t for _, n, t in rows)
    det = sss * snn - ssn**2
    if det <= 1e-9 * sss * snn:
        return None
    return (s1 * snn - n1 * ssn) / det, (n1 * sss - s1 * ssn) / det


def _one_cost(rows: list[tuple[float, float, float]], per_step: bool) -> tuple[float, float]:
    """The best line with only a per-step cost, or only a per-image cost."""
    u = [(s if per_step else n) / t for s, n, t in rows]
    cost = sum(u) / sum(v * v for v in u)
    return (cost, 0.0) if per_step else (0.0, cost)


def _max_error(rows: list[tuple[float, float, float]], per_step: float, per_image: float) -> float:
    """Largest relative gap between the line and a measured epoch."""
    return max(abs(per_step * s + per_image * n - t) / t for s, n, t in rows)
