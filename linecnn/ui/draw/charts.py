"""Plotly figures of the Draw page. Pure: tensors in, figures out, no Streamlit."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from linecnn.train.data import CLASS_NAMES

INK = "#1f2933"  # the canvas's stroke colour: the input heatmap draws ink as ink
ACCENT = "#2f6690"  # the predicted class
MUTED = "#b8c2cc"  # the other classes
INPUT_SCALE = [[0.0, "#ffffff"], [1.0, INK]]  # 0 = blank page, 1 = full ink, as on the canvas
MAP_SCALE = "Viridis"  # activations: dark = silent filter, yellow = strong response
PROBABILITY_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)  # the probability axis: quarters


def _square_axes(fig: go.Figure) -> None:
    """Hide ticks and keep cells square, image-style (row 0 on top)."""
    fig.update_xaxes(visible=False, constrain="domain")
    fig.update_yaxes(visible=False, autorange="reversed", constrain="domain")


def input_figure(
    image: torch.Tensor, size: int = 280, hover: str = "row %{y}, column %{x}: %{z:.2f}", decimal: str = "."
) -> go.Figure:
    """The 8x8 model input as a heatmap, each cell labelled with its value (``decimal``: the decimal mark)."""
    cells = image.reshape(8, 8).tolist()
    text = [[f"{v:.1f}".replace(".", decimal) if v >= 0.05 else "" for v in row] for row in cells]
    fig = go.Figure(
        go.Heatmap(
            z=cells,
            zmin=0.0,
            zmax=1.0,
            colorscale=INPUT_SCALE,
            showscale=False,
            text=text,
            texttemplate="%{text}",
            textfont={"size": 10},
            xgap=1,
            ygap=1,
            hovertemplate=hover + "<extra></extra>",
        )
    )
    _square_axes(fig)
    fig.update_layout(
        separators=decimal + ",",
        height=size,
        width=size,  # a square plot with no margins: square cells
        margin={"l": 1, "r": 1, "t": 1, "b": 1},
        plot_bgcolor="#d9dee3",  # shows through the gaps between cells: the lesson's grid
    )
    return fig


def probability_figure(
    probabilities: Sequence[float],
    height: int = 230,
    names: Sequence[str] = CLASS_NAMES,
    texts: Sequence[str] | None = None,
    axis_title: str = "probability",
    separators: str = ".,",
    percent: Callable[[float], str] = "{:.0%}".format,
) -> go.Figure:
    """The three class probabilities as bars, the winner in the accent colour.

    ``names`` label the bars, ``texts`` (default: ``percent`` of each) sit on them, ``percent`` writes
    the axis's percentages and ``separators`` are Plotly's decimal mark and thousands separator: the
    page passes them in the reader's language ('100 %' in Spanish, which Plotly's own '%' format lacks).
    """
    best = max(range(len(probabilities)), key=probabilities.__getitem__)
    colors = [ACCENT if i == best else MUTED for i in range(len(probabilities))]
    fig = go.Figure(
        go.Bar(
            x=list(names),
            y=list(probabilities),
            marker_color=colors,
            text=list(texts) if texts is not None else [percent(p) for p in probabilities],
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{x}: %{y:.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(
        range=[0, 1.12],
        title=axis_title,
        tickvals=PROBABILITY_TICKS,
        ticktext=[percent(v) for v in PROBABILITY_TICKS],
    )
    fig.update_layout(
        separators=separators, height=height, margin={"l": 10, "r": 10, "t": 16, "b": 10}, showlegend=False
    )
    return fig


def strongest_channels(maps: torch.Tensor, limit: int) -> list[int]:
    """Indices of the ``limit`` channels of ``maps`` (C, H, W) with the highest peak, in channel order."""
    if len(maps) <= limit:
        return list(range(len(maps)))
    return sorted(maps.amax(dim=(1, 2)).argsort(descending=True)[:limit].tolist())


def feature_maps_figure(
    maps: torch.Tensor,
    columns: int,
    map_px: int = 60,
    limit: int | None = None,
    hover: str = "filter {number}, row %{{y}}, column %{{x}}: %{{z:.2f}}",
) -> go.Figure:
    """One small heatmap per channel of ``maps`` (C, H, W), on one colour scale for the layer.

    ``hover`` is the tooltip, with ``{number}`` for the filter's number and Plotly's %{...} fields doubled.

    With ``limit``, only that many of the most active channels are drawn: a wide model has
    hundreds, and a heatmap each would take seconds to build and send.
    """
    shown = strongest_channels(maps, limit) if limit else list(range(len(maps)))
    columns = min(columns, len(shown))
    rows = math.ceil(len(shown) / columns)
    gap, title = 8, 16  # pixels between maps and above each map for its number
    width = columns * map_px + (columns - 1) * gap
    height = rows * (map_px + title) + (rows - 1) * gap
    top = float(maps.max()) or 1.0  # a shared scale: a bright map really responds more
    fig = make_subplots(
        rows=rows,
        cols=columns,
        horizontal_spacing=gap / width,
        vertical_spacing=(gap + title) / height,
        subplot_titles=[f"{channel + 1}" for channel in shown],
    )
    for position, channel in enumerate(shown):
        fig.add_trace(
            go.Heatmap(
                z=maps[channel].tolist(),
                zmin=0.0,
                zmax=top,
                colorscale=MAP_SCALE,
                showscale=False,
                hovertemplate=hover.format(number=channel + 1) + "<extra></extra>",
            ),
            row=position // columns + 1,
            col=position % columns + 1,
        )
    _square_axes(fig)
    fig.update_annotations(font_size=10, yshift=-2)
    fig.update_layout(width=width, height=height + title, margin={"l": 0, "r": 0, "t": title, "b": 0})
    return fig
