"""Plotly figure builders of the Train page: data in, figure out, no widgets.

Text comes from the session's language (``i18n.t``). Curves can be smoothed (an EMA, the raw curve
kept faintly behind it) and loss axes drawn on a log or a linear scale. Axis ranges grow only in
whole steps, so a chart redrawn while a run streams keeps its axes until a curve would leave them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

import plotly.graph_objects as go

from linecnn.train.data import CLASS_NAMES
from linecnn.train.trainer import EpochRecord
from linecnn.ui import i18n
from linecnn.ui.i18n import percent, plotly_separators, t
from linecnn.ui.train.axes import accuracy_axis, loss_range, whole_epoch_ticks
from linecnn.ui.train.compare import ema, overlay_hover, significant

TRAIN_COLOR = "#2f6690"
VAL_COLOR = "#d9822b"
RUN_COLORS = ("#2f6690", "#3a9d6e", "#d9822b", "#8e5ea2", "#c0504d", "#6c7a89", "#b5a642", "#1f9eb3")
RUN_DASHES = ("solid", "dash", "dot")  # past the colours, dashed then dotted: twelve runs, twelve looks
# The compare chart's legend: at the figure's foot, left-aligned; Plotly makes room for its lines.
OVERLAY_LEGEND = dict(orientation="h", x=0, y=0, xanchor="left", yanchor="bottom", yref="container")
# The note a log loss chart shows when a loss was exactly 0: in its top-right corner, which a loss
# that fell that far has long left.
ZERO_GAP_NOTE = dict(x=0.99, y=0.98, xref="paper", yref="paper", xanchor="right", yanchor="top")
ZERO_GAP_NOTE |= dict(align="right", showarrow=False, font={"size": 11, "color": "#6c7a89"})
RAW_OPACITY = 0.25  # the raw curve behind a smoothed one: visible, but clearly in the background
# The compare chart's height with one or two runs, and what each further run adds: on a phone each name
# takes a 30 px legend line, and Plotly gives a legend at most half the figure before it scrolls it.
OVERLAY_PX, LEGEND_LINE_PX = 380, 40
# The loss and accuracy charts' height: with the settings, buttons and progress above them they fit
# a 1366x768 laptop screen whole, so a run is watched without scrolling.
EPOCH_CHART_PX = 250
LOSS_DIGITS = 4  # significant digits of a loss in a hover box: '1.117', not '1.117175'

METRICS = ("val_loss", "train_loss", "val_acc", "train_acc")  # names: train.metric.<key>
X_AXES = ("epoch", "seconds")  # names: train.x_axis.<key>

Item = TypeVar("Item")


@dataclass(frozen=True)
class ChartStyle:
    """How the Train page draws curves; the user picks both under the live charts."""

    smoothing: float = 0.0  # EMA weight from 0 (raw curves only) to 0.99
    log_loss: bool = True  # loss axes on a log scale (losses fall by orders of magnitude)


DEFAULT_STYLE = ChartStyle()


def thinned(items: Sequence[Item], points: int | None) -> Sequence[Item]:
    """Every k-th item, the last one always kept, so that at most about ``points`` remain."""
    if points is None:
        return items
    step = -(-len(items) // points)  # ceiling division
    if step <= 1:
        return items
    kept = list(items[::step])
    return kept if kept[-1] is items[-1] else [*kept, items[-1]]


def run_line(slot: int) -> dict[str, str]:
    """The colour and dash of the compare chart's line in ``slot`` (a run's number less one)."""
    colors = len(RUN_COLORS)
    return {"color": RUN_COLORS[slot % colors], "dash": RUN_DASHES[slot // colors % len(RUN_DASHES)]}


def _curve(
    x: list, y: list[float], name: str, line: dict, style: ChartStyle, points: int | None
) -> list[dict]:
    """One curve's traces: raw, or smoothed with the raw one faintly behind it (as TensorBoard draws them).

    ``line`` is Plotly's (its colour, and its dash on the compare chart). The smoothing sees every
    point; ``points`` then caps how many are plotted.
    """
    kept = thinned(range(len(x)), points)
    x_kept = [x[i] for i in kept]
    raw = dict(type="scatter", x=x_kept, y=[y[i] for i in kept], name=name, line=line, legendgroup=name)
    if style.smoothing <= 0:
        return [raw]
    smoothed = ema(y, style.smoothing)
    behind = raw | {"opacity": RAW_OPACITY, "showlegend": False, "hoverinfo": "skip"}
    return [behind, raw | {"y": [smoothed[i] for i in kept]}]


@lru_cache(maxsize=8192)
def hover_value(value: float, kind: str, language: str) -> str:
    """A curve's value as its hover box writes it in ``language``: a loss ('loss') to LOSS_DIGITS
    significant digits, an accuracy ('acc') as a percentage, e.g. '1,117' and '95,3 %' in Spanish.

    Cached, because live charts redraw every 0.5 s with mostly the same points."""
    return percent(value, 1) if kind == "acc" else significant(value, LOSS_DIGITS)


def _hover_values(traces: list[dict], kind: str, template: str) -> list[dict]:
    """``traces`` with ``template`` as their hover text and, for those that answer a hover, their values
    written out (``customdata``).

    Plotly's own number formats cannot write a Spanish percentage ('95,3 %') nor trim a loss's digits
    the way the page's text does, so the hover box shows the page's own words."""
    language = i18n.current()
    for trace in traces:
        trace["hovertemplate"] = template
        if trace.get("hoverinfo") != "skip":
            trace["customdata"] = [hover_value(value, kind, language) for value in trace["y"]]
    return traces


def _figure(
    traces: list[dict], layout: dict, title: str, y_title: str, x_title: str, height: int
) -> go.Figure:
    """The figure in the dashboard's calm, compact chart style, ``layout`` on top of it.

    Built from one Plotly dict and validated once: Plotly's update_* calls cost tens of milliseconds
    a figure, paid between two epochs on every live redraw."""
    x_axis, y_axis = layout.pop("xaxis", {}), layout.pop("yaxis", {})
    style = {
        "title": {"text": title, "x": 0.0, "xanchor": "left"},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 48, "b": 10},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
        # the shared hover headed 'Epoch 17', not '17'; '1.000' as the page's text writes a count
        "xaxis": {"title": {"text": x_title}, "unifiedhovertitle": {"text": f"{x_title} %{{x}}"}}
        | {"separatethousands": True}
        | x_axis,
        "yaxis": {"title": {"text": y_title}} | y_axis,
        "hovermode": "x unified",
        "separators": plotly_separators(),  # ticks and hover numbers with the language's marks
    }
    return go.Figure({"data": traces, "layout": style | layout})


def _loss_axis(layout: dict, values: Sequence[float], style: ChartStyle) -> str:
    """Set the y axis of a loss chart in ``layout``; return its title."""
    layout["yaxis"] = {
        "range": loss_range(values, style.log_loss),
        "type": "log" if style.log_loss else "linear",
    }
    if not style.log_loss:
        return t("train.chart.cross_entropy")
    layout["yaxis"]["exponentformat"] = "power"
    if any(value == 0 for value in values):  # a float32 loss can reach 0: the curve breaks there
        layout["annotations"] = [ZERO_GAP_NOTE | {"text": t("train.chart.zero_gap")}]
    return t("train.chart.cross_entropy_log")


def _epoch_traces(
    history: Sequence[EpochRecord], style: ChartStyle, points: int | None, kind: str
) -> list[dict]:
    """Train and validation curves of one run (``kind``: 'loss' or 'acc') against epoch."""
    x = [r.epoch for r in history]
    traces = []
    for split, color in (("train", TRAIN_COLOR), ("val", VAL_COLOR)):
        y = [getattr(r, f"{split}_{kind}") for r in history]
        traces += _curve(x, y, t(f"train.chart.{split}"), {"color": color}, style, points)
    # Each line of the shared hover box: the series' name, then its value ('train: 1.117').
    return _hover_values(traces, kind, "%{fullData.name}: %{customdata}<extra></extra>")


def loss_figure(
    history: Sequence[EpochRecord], epochs: int, style: ChartStyle = DEFAULT_STYLE, points: int | None = None
) -> go.Figure:
    """Train and validation loss against epoch; ``points`` caps the points plotted per curve."""
    layout: dict = {}
    y_title = _loss_axis(layout, [value for r in history for value in (r.train_loss, r.val_loss)], style)
    layout["xaxis"] = {"range": [0, epochs + 1]} | whole_epoch_ticks(epochs + 1)
    traces = _epoch_traces(history, style, points, "loss")
    return _figure(traces, layout, t("train.chart.loss"), y_title, t("train.x_axis.epoch"), EPOCH_CHART_PX)


def accuracy_figure(
    history: Sequence[EpochRecord], epochs: int, style: ChartStyle = DEFAULT_STYLE, points: int | None = None
) -> go.Figure:
    """Train and validation accuracy against epoch; ``points`` caps the points plotted per curve."""
    layout = {"xaxis": {"range": [0, epochs + 1]} | whole_epoch_ticks(epochs + 1), "yaxis": accuracy_axis()}
    traces, axis = _epoch_traces(history, style, points, "acc"), t("train.chart.accuracy_axis")
    return _figure(traces, layout, t("train.chart.accuracy"), axis, t("train.x_axis.epoch"), EPOCH_CHART_PX)


def overlay_figure(
    runs: Sequence[tuple[str, Sequence[EpochRecord]]],
    metric: str = "val_loss",
    x_axis: str = "epoch",
    style: ChartStyle = DEFAULT_STYLE,
    slots: Sequence[int] | None = None,
) -> go.Figure:
    """One line per (legend name, history) run: ``metric`` against epoch or training seconds.

    ``slots`` gives each run its look (``run_line``; by default the runs' order), e.g. by run number.
    """
    if metric not in METRICS:
        raise ValueError(f"Unknown metric {metric!r}; choose one of {', '.join(METRICS)}.")
    if x_axis not in X_AXES:
        raise ValueError(f"Unknown x axis {x_axis!r}; choose epoch or seconds.")
    values: list[float] = []
    traces: list[dict] = []
    for slot, (label, history) in zip(range(len(runs)) if slots is None else slots, runs, strict=True):
        x = [r.epoch if x_axis == "epoch" else r.elapsed_seconds for r in history]
        y = [getattr(r, metric) for r in history]
        values += y
        traces += _curve(x, y, label, run_line(slot), style, None)
    kind = "loss" if metric.endswith("loss") else "acc"
    traces = _hover_values(traces, kind, overlay_hover(metric, x_axis))  # curves behind keep hoverinfo="skip"
    # Under the plot: one name per run wraps to several lines on a phone, which above it covered the title.
    layout: dict = {"hovermode": "closest", "legend": OVERLAY_LEGEND}
    if x_axis == "epoch":
        layout["xaxis"] = whole_epoch_ticks(max((r.epoch for _, history in runs for r in history), default=0))
    if metric.endswith("loss"):
        y_title = _loss_axis(layout, values, style)
    else:
        layout["yaxis"] = accuracy_axis()
        y_title = t("train.chart.accuracy_axis")
    title, x_title = t("train.chart.by_run", metric=t(f"train.metric.{metric}")), t(f"train.x_axis.{x_axis}")
    rows = sum(label.count("<br>") + 1 for label, _ in runs)  # a name on two lines takes two rows
    return _figure(traces, layout, title, y_title, x_title, OVERLAY_PX + LEGEND_LINE_PX * max(rows - 2, 0))


def class_names() -> list[str]:
    """The three classes in the session's language."""
    return [t(f"train.class.{name}") for name in CLASS_NAMES]


def confusion_figure(matrix: Sequence[Sequence[int]]) -> go.Figure:
    """Validation confusion matrix as an annotated heatmap (rows: true, columns: predicted)."""
    names = class_names()
    heatmap = dict(
        type="heatmap", z=matrix, x=names, y=names, colorscale="Blues", showscale=False, text=matrix
    )
    heatmap |= dict(
        texttemplate="%{text}", hovertemplate=t("train.chart.confusion_hover") + "<extra></extra>"
    )
    layout = {"yaxis": {"autorange": "reversed"}, "hovermode": "closest"}
    title, y_title, x_title = (t(f"train.chart.{key}") for key in ("confusion", "true_class", "predicted"))
    return _figure([heatmap], layout, title, y_title, x_title, height=320)
