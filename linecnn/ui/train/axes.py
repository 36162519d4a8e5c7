"""The Train charts' axes: a loss axis that moves only in steps, accuracy in percent, whole epochs."""

from __future__ import annotations

import math
from collections.abc import Sequence

from linecnn.ui.i18n import percent

WHOLE_TICKS_UP_TO = 10  # epochs: up to here an axis may get ticks between epochs, so they are set one apart
ACCURACY_RANGE = [0.0, 1.02]
ACCURACY_TICKS = (0.0, 0.5, 1.0)  # as Plotly chose them on a 250 px chart
HEADROOM = 1.25  # the loss axis starts this far above the first epochs' highest loss
LOG_DECADES = 2  # a log loss axis spans at least this many decades below its top at first
FIRST_LOSS = math.log(3)  # cross-entropy of an even guess between three classes: where runs start


def loss_range(values: Sequence[float], log: bool) -> list[float]:
    """A loss axis range that holds ``values`` and changes only in whole steps as they grow or shrink.

    Its top sits above the highest loss, rounded up (half decades on a log axis, 1-2-5 steps on a
    linear one); a log axis reaches down at least LOG_DECADES below that, then whole decades. A
    linear axis starts at 0. Log ranges are in decades (Plotly's convention).
    """
    finite = [value for value in values if math.isfinite(value) and (value > 0 or not log)]
    if not finite:
        finite = [FIRST_LOSS]  # before the first epoch: the axis that epoch will most likely get
    top = max(finite) * HEADROOM
    if not log:
        return [0.0, _nice_ceiling(top) if top > 0 else 1.0]
    high = math.ceil(2 * math.log10(top)) / 2
    low = min(math.floor(math.log10(min(finite))), math.floor(high) - LOG_DECADES)
    return [float(low), high]


def _nice_ceiling(value: float) -> float:
    """The smallest 1, 2 or 5 times a power of ten that is at least ``value``."""
    power = 10.0 ** math.floor(math.log10(value))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= value * (1 - 1e-12))


def accuracy_axis() -> dict:
    """An accuracy y axis (Plotly's layout dict) from 0 to 100 %, its ticks written as the language writes
    a percentage ('100%', '100 %'), which Plotly's own '%' format cannot do."""
    return {
        "range": ACCURACY_RANGE,
        "tickvals": ACCURACY_TICKS,
        "ticktext": [percent(v) for v in ACCURACY_TICKS],
    }


def whole_epoch_ticks(last: float) -> dict:
    """An epoch axis's ticks (Plotly's layout dict), one apart when the axis ends (``last``) by
    WHOLE_TICKS_UP_TO.

    On so short an axis Plotly's own ticks fall between epochs (a 1-epoch run read 0.5 and 1.5);
    on a longer one they are whole numbers already and adapt to zoom, so they are left alone.
    """
    return {"tick0": 0, "dtick": 1} if last <= WHOLE_TICKS_UP_TO else {}
