"""Comparing runs: curve smoothing, legends that name what differs, and whether validation sets match.

No widgets here; text comes from the session's language (``i18n.t``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from babel.numbers import format_decimal

from linecnn.ui import i18n
from linecnn.ui.format import device_short
from linecnn.ui.i18n import t
from linecnn.ui.state import RunRecord

# Settings a legend may name, in the order it names them. "device" is where the run trained; the
# others are RunConfig.as_dict() keys.
LEGEND_SETTINGS = ("device", "lr", "batch_size", "width", "per_class", "data_mode", "seed", "epochs")
# The validation images come from the seed's generator after the training images, so any of
# these settings gives a run other validation images.
VAL_SET_SETTINGS = ("seed", "data_mode", "per_class", "val_per_class")
SCIENTIFIC_BELOW = 1e-3  # smaller numbers are written as 5.6E-8 rather than with a row of zeros
# A legend name longer than this breaks onto another line between settings: Plotly never wraps a
# legend, and on a 390 px phone a longer line ran past the chart's edge.
LEGEND_LINE_CHARS = 40


def ema(values: Sequence[float], weight: float) -> list[float]:
    """Exponential moving average of ``values`` with debiasing, as TensorBoard smooths its curves.

    ``weight`` is the share of the previous average kept at each step (0 leaves the values as
    they are). Debiasing divides by ``1 - weight**n``, so the first point equals the first value
    and early points are not dragged towards zero. A value that is not finite is passed through
    and left out of the average.
    """
    if not 0.0 <= weight < 1.0:
        raise ValueError(f"Smoothing must be from 0 to just under 1; got {weight!r}.")
    smoothed, average, count = [], 0.0, 0
    for value in values:
        if not math.isfinite(value):
            smoothed.append(value)
            continue
        count += 1
        average = weight * average + (1.0 - weight) * value
        smoothed.append(average / (1.0 - weight**count))
    return smoothed


def overlay_hover(metric: str, x_axis: str) -> str:
    """The compare chart's hover template: the run's name, then its x and its ``metric``, each named.

    Plotly's own is a bare '(30, 1,49×10⁻⁴)', whose decimal comma reads as the pair's comma on a Spanish
    page; seconds are given to the hundredth ('0,14', not '0,140501'). The metric's value is the one
    the chart wrote out for each point (``customdata``): a loss to 4 digits, an accuracy as a percentage."""
    x_field = "%{x}" if x_axis == "epoch" else "%{x:.2f}"
    words = t(f"train.x_axis.{x_axis}"), t(f"train.metric.{metric}")
    return f"%{{fullData.name}}<br>{words[0]}: {x_field}<br>{words[1]}: %{{customdata}}<extra></extra>"


def significant(value: float, digits: int) -> str:
    """``value`` to ``digits`` significant digits, the language's way, e.g. '0,05' or '1.234'."""
    if not math.isfinite(value) or value == 0:
        return i18n.number(value)
    if abs(value) < SCIENTIFIC_BELOW:
        return i18n.scientific(value, digits)
    decimals = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    rounded = round(value, decimals)
    return format_decimal(rounded, "#,##0." + "#" * decimals if decimals else "#,##0", locale=i18n.current())


def settings(run: RunRecord) -> dict[str, object]:
    """The settings that shaped a run, by name: its device and its RunConfig."""
    return {"device": run.device, **run.config.as_dict()}


def differing(runs: Sequence[RunRecord], names: Sequence[str]) -> list[str]:
    """Which of ``names`` do not have one value across ``runs`` (in the order of ``names``)."""
    return [name for name in names if len({repr(settings(run)[name]) for run in runs}) > 1]


def setting_text(run: RunRecord, name: str) -> str:
    """One setting of ``run`` as a legend shows it, e.g. 'lr 0.05', 'batch 32', 'seed 7'."""
    config = run.config
    if name == "device":
        return device_short(run.device)
    if name == "lr":
        return t("train.legend.lr", value=significant(config.train.lr, 4))
    if name == "batch_size":
        batch = config.train.batch_size
        return t("train.legend.batch", value=i18n.number(batch) if batch else t("train.batch_full"))
    if name == "data_mode":
        return t(f"train.mode.{config.data.mode}")
    if name == "seed":  # a name, not an amount: no thousands separator
        return t("train.legend.seed", value=config.seed)
    counts = {"width": config.model.width, "per_class": config.data.per_class, "epochs": config.train.epochs}
    return t(f"train.legend.{name}", value=i18n.number(counts[name]))


def legend_labels(runs: Sequence[RunRecord]) -> list[str]:
    """A legend name per run that says how it differs from the others, e.g. 'Run 2 · lr 0.05'.

    Runs that differ in nothing listed keep their full label (device and epochs).
    """
    names = differing(runs, LEGEND_SETTINGS)
    if not names:
        return [run.label for run in runs]
    labels = []
    for run in runs:
        parts = [t("train.run", number=run.number)]
        parts += [run_setting_text(run, name) for name in names]
        labels.append(wrapped(parts))
    return labels


def run_setting_text(run: RunRecord, name: str) -> str:
    """One setting of ``run`` for its legend; a stopped run's epochs read as trained of planned."""
    if name == "epochs" and run.stopped:
        done, planned = i18n.number(run.epochs_done), i18n.number(run.config.train.epochs)
        return t("train.legend.epochs_of", done=done, planned=planned)
    return setting_text(run, name)


def wrapped(parts: Sequence[str], width: int = LEGEND_LINE_CHARS) -> str:
    """``parts`` joined by ' · ', on lines (Plotly's ``<br>``) of at most ``width`` characters where
    a part allows it; a part is never split."""
    lines = [parts[0]]
    for part in parts[1:]:
        joined = f"{lines[-1]} · {part}"
        if len(joined) > width:
            lines.append(part)
        else:
            lines[-1] = joined
    return "<br>".join(lines)


def val_set_warning(runs: Sequence[RunRecord]) -> str | None:
    """A sentence when the runs were validated on different images (and which setting made them so)."""
    names = differing(runs, VAL_SET_SETTINGS)
    if not names:
        return None
    listed = ", ".join(t(f"train.val_set.{name}") for name in names)
    return t("train.val_set.warning", settings=listed)
