"""Plotly figure builders shared by the pages. Pure: data in, figure out, no Streamlit."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from linecnn.data import CLASS_NAMES
from linecnn.train import EpochRecord

TRAIN_COLOR = "#2f6690"
VAL_COLOR = "#d9822b"
RUN_COLORS = ("#2f6690", "#3a9d6e", "#d9822b", "#8e5ea2", "#c0504d", "#6c7a89", "#b5a642", "#1f9eb3")

METRICS = {
    "val_loss": "Validation loss",
    "train_loss": "Training loss",
    "val_acc": "Validation accuracy",
    "train_acc": "Training accuracy",
}
X_AXES = {"epoch": "Epoch", "seconds": "Training time (s)"}


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
    )
    return fig


def loss_figure(history: Sequence[EpochRecord], epochs: int) -> go.Figure:
    """Train and validation loss against epoch, log scale (losses fall by orders of magnitude)."""
    x = [r.epoch for r in history]
    fig = go.Figure()
    fig.add_scatter(x=x, y=[r.train_loss for r in history], name="train", line_color=TRAIN_COLOR)
    fig.add_scatter(x=x, y=[r.val_loss for r in history], name="validation", line_color=VAL_COLOR)
    fig.update_xaxes(range=[0, epochs + 1])
    fig.update_yaxes(type="log", exponentformat="power")
    return _layout(fig, "Loss", "cross-entropy (log)", "Epoch")


def accuracy_figure(history: Sequence[EpochRecord], epochs: int) -> go.Figure:
    """Train and validation accuracy against epoch."""
    x = [r.epoch for r in history]
    fig = go.Figure()
    fig.add_scatter(x=x, y=[r.train_acc for r in history], name="train", line_color=TRAIN_COLOR)
    fig.add_scatter(x=x, y=[r.val_acc for r in history], name="validation", line_color=VAL_COLOR)
    fig.update_xaxes(range=[0, epochs + 1])
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%")
    return _layout(fig, "Accuracy", "accuracy", "Epoch")


def overlay_figure(
    runs: Sequence[tuple[str, Sequence[EpochRecord]]], metric: str = "val_loss", x_axis: str = "epoch"
) -> go.Figure:
    """One line per (label, history) run: ``metric`` against epoch or training seconds."""
    if metric not in METRICS:
        raise ValueError(f"Unknown metric {metric!r}; choose one of {', '.join(METRICS)}.")
    if x_axis not in X_AXES:
        raise ValueError(f"Unknown x axis {x_axis!r}; choose epoch or seconds.")
    fig = go.Figure()
    for index, (label, history) in enumerate(runs):
        x = [r.epoch if x_axis == "epoch" else r.elapsed_seconds for r in history]
        y = [getattr(r, metric) for r in history]
        fig.add_scatter(x=x, y=y, name=label, line_color=RUN_COLORS[index % len(RUN_COLORS)])
    if metric.endswith("loss"):
        fig.update_yaxes(type="log", exponentformat="power")
    else:
        fig.update_yaxes(range=[0, 1.02], tickformat=".0%")
    fig = _layout(fig, f"{METRICS[metric]} by run", METRICS[metric].lower(), X_AXES[x_axis], height=380)
    fig.update_layout(hovermode="closest")
    return fig


def confusion_figure(matrix: Sequence[Sequence[int]]) -> go.Figure:
    """Validation confusion matrix as an annotated heatmap (rows: true, columns: predicted)."""
    fig = go.Figure(
        go.Heatmap(
            z=matrix,
            x=list(CLASS_NAMES),
            y=list(CLASS_NAMES),
            colorscale="Blues",
            showscale=False,
            text=matrix,
            texttemplate="%{text}",
            hovertemplate="true %{y}, predicted %{x}: %{z}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")
    fig = _layout(fig, "Confusion matrix (validation)", "true class", "predicted class", height=320)
    fig.update_layout(hovermode="closest")
    return fig
