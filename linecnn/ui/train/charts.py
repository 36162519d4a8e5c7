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


def _add_curve(
    fig: go.Figure, x: list, y: list[float], name: str, line: dict, style: ChartStyle, points: int | None
) -> None:
    """One curve: raw, or smoothed with the raw one faintly behind it (as TensorBoard draws them).

    ``line`` is Plotly's (its colour, and its dash on the compare chart). The smoothing sees every
    point; ``points`` then caps how many are plotted.
    """
    kept = thinned(range(len(x)), points)
    x_kept = [x[i] for i in kept]
    if style.smoothing <= 0:
        fig.add_scatter(x=x_kept, y=[y[i] for i in kept], name=name, line=line, legendgroup=name)
        return
    smoothed = ema(y, style.smoothing)
    fig.add_scatter(
        x=x_kept,
        y=[y[i] for i in kept],
        name=name,
        line=line,
        opacity=RAW_OPACITY,
        legendgroup=name,
        showlegend=False,
        hoverinfo="skip",
    )
    fig.add_scatter(x=x_kept, y=[smoothed[i] for i in kept], name=name, line=line, legendgroup=name)


@lru_cache(maxsize=8192)
def hover_value(value: float, kind: str, language: str) -> str:
    """A curve's value as its hover box writes it in ``language``: a loss ('loss') to LOSS_DIGITS
    significant digits, an accuracy ('acc') as a percentage, e.g. '1,117' and '95,3 %' in Spanish.

    Cached, because live charts redraw every 0.5 s with mostly the same points."""
    return percent(value, 1) if kind == "acc" else significant(value, LOSS_DIGITS)


def _write_hover_values(fig: go.Figure, kind: str) -> None:
    """Give each hoverable curve of ``fig`` its values written out (``customdata``) for its hover template.

    Plotly's own number formats cannot write a Spanish percentage ('95,3 %') nor trim a loss's digits
    the way the page's text does, so the hover box shows the page's own words."""
    language = i18n.current()
    for trace in fig.data:
        if trace.hoverinfo != "skip":
            trace.customdata = [hover_value(value, kind, language) for value in trace.y]


def _layout(fig: go.Figure, title: str, y_title: str, x_title: str, height: int = 320) -> go.Figure:
    """Apply the dashboard's calm, compact chart style."""
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left"},
        height=height,
        margin={"l": 10, "r": 10, "t": 48, "b": 10},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
        xaxis_title=x_title,
        yaxis_title=y_title,
        hovermode="x unified",
        xaxis_unifiedhovertitle_text=f"{x_title} %{{x}}",  # the shared hover headed 'Epoch 17', not '17'
        separators=plotly_separators(),  # ticks and hover numbers with the language's marks
        xaxis_separatethousands=True,  # '1.000' as the page's text writes a count, not Plotly's '1000'
    )
    return fig


def _loss_axis(fig: go.Figure, values: Sequence[float], style: ChartStyle) -> str:
    """Set the y axis of a loss chart; return its title."""
    fig.update_yaxes(range=loss_range(values, style.log_loss))
    if style.log_loss:
        fig.update_yaxes(type="log", exponentformat="power")
        if any(value == 0 for value in values):  # a float32 loss can reach 0: the curve breaks there
            fig.add_annotation(ZERO_GAP_NOTE, text=t("train.chart.zero_gap"))
        return t("train.chart.cross_entropy_log")
    fig.update_yaxes(type="linear")
    return t("train.chart.cross_entropy")


def _epoch_figure(
    history: Sequence[EpochRecord], epochs: int, style: ChartStyle, points: int | None, kind: str
) -> go.Figure:
    """Train and validation curves of one run (``kind``: 'loss' or 'acc') against epoch."""
    fig = go.Figure()
    x = [r.epoch for r in history]
    for split, color in (("train", TRAIN_COLOR), ("val", VAL_COLOR)):
        y = [getattr(r, f"{split}_{kind}") for r in history]
        _add_curve(fig, x, y, t(f"train.chart.{split}"), {"color": color}, style, points)
    _write_hover_values(fig, kind)
    # Each line of the shared hover box: the series' name, then its value ('train: 1.117').
    fig.update_traces(hovertemplate="%{fullData.name}: %{customdata}<extra></extra>")
    fig.update_xaxes(range=[0, epochs + 1])
    return whole_epoch_ticks(fig, epochs + 1)


def loss_figure(
    history: Sequence[EpochRecord], epochs: int, style: ChartStyle = DEFAULT_STYLE, points: int | None = None
) -> go.Figure:
    """Train and validation loss against epoch; ``points`` caps the points plotted per curve."""
    fig = _epoch_figure(history, epochs, style, points, "loss")
    values = [value for r in history for value in (r.train_loss, r.val_loss)]
    y_title = _loss_axis(fig, values, style)
    return _layout(fig, t("train.chart.loss"), y_title, t("train.x_axis.epoch"), height=EPOCH_CHART_PX)


def accuracy_figure(
    history: Sequence[EpochRecord], epochs: int, style: ChartStyle = DEFAULT_STYLE, points: int | None = None
) -> go.Figure:
    """Train and validation accuracy against epoch; ``points`` caps the points plotted per curve."""
    fig = _epoch_figure(history, epochs, style, points, "acc")
    accuracy_axis(fig)
    axis = t("train.chart.accuracy_axis")
    return _layout(fig, t("train.chart.accuracy"), axis, t("train.x_axis.epoch"), height=EPOCH_CHART_PX)


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
    fig = go.Figure()
    values: list[float] = []
    for slot, (label, history) in zip(range(len(runs)) if slots is None else slots, runs, strict=True):
        x = [r.epoch if x_axis == "epoch" else r.elapsed_seconds for r in history]
        y = [getattr(r, metric) for r in history]
        values += y
        _add_curve(fig, x, y, label, run_line(slot), style, None)
    _write_hover_values(fig, "loss" if metric.endswith("loss") else "acc")
    fig.update_traces(hovertemplate=overlay_hover(metric, x_axis))  # raw curves behind keep hoverinfo="skip"
    if x_axis == "epoch":
        whole_epoch_ticks(fig, max((r.epoch for _, history in runs for r in history), default=0))
    if metric.endswith("loss"):
        y_title = _loss_axis(fig, values, style)
    else:
        accuracy_axis(fig)
        y_title = t("train.chart.accuracy_axis")
    title, x_title = t("train.chart.by_run", metric=t(f"train.metric.{metric}")), t(f"train.x_axis.{x_axis}")
    rows = sum(label.count("<br>") + 1 for label, _ in runs)  # a name on two lines takes two rows
    fig = _layout(fig, title, y_title, x_title, height=OVERLAY_PX + LEGEND_LINE_PX * max(rows - 2, 0))
    # Under the plot: one name per run wraps to several lines on a phone, which above it covered the title.
    fig.update_layout(hovermode="closest", legend=OVERLAY_LEGEND)
    return fig


def class_names() -> list[str]:
    """The three classes in the session's language."""
    return [t(f"train.class.{name}") for name in CLASS_NAMES]


def confusion_figure(matrix: Sequence[Sequence[int]]) -> go.Figure:
    """Validation confusion matrix as an annotated heatmap (rows: true, columns: predicted)."""
    names = class_names()
    fig = go.Figure(
        go.Heatmap(
            z=matrix,
            x=names,
            y=names,
            colorscale="Blues",
            showscale=False,
            text=matrix,
            texttemplate="%{text}",
            hovertemplate=t("train.chart.confusion_hover") + "<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")
    title, y_title, x_title = (t(f"train.chart.{key}") for key in ("confusion", "true_class", "predicted"))
    return _layout(fig, title, y_title, x_title, height=320).update_layout(hovermode="closest")
