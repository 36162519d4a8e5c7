"""Plotly figure of a benchmark sweep: log-log time per epoch, one line per device, the crossover marked.

A results frame in, a figure out, no Streamlit calls; its words and number format come from ``t()``
and ``linecnn.ui.i18n``, which read the session's language.
"""

from __future__ import annotations

import html
import math

import pandas as pd
import plotly.graph_objects as go

from linecnn.bench.costfit import CostFit
from linecnn.bench.crossover import Crossover
from linecnn.ui.bench.words import factor_words
from linecnn.ui.format import decimal_text
from linecnn.ui.i18n import current, plotly_separators, t
from linecnn.untrusted import plain_text

CPU_COLORS = ("#2f6690", "#6c7a89", "#1f9eb3", "#8e5ea2")
GPU_COLORS = ("#3a9d6e", "#d9822b", "#c0504d", "#b5a642")
WIN_FILL = "rgba(58, 157, 110, 0.10)"  # the region where the accelerator is faster
NARROW = 4  # values within this factor of each other span part of one decade: a tick at every digit


def series_colors(frame: pd.DataFrame) -> dict[str, str]:
    """A stable colour per series: blues and greys for CPUs, greens and oranges for accelerators."""
    colors, cpus, gpus = {}, 0, 0
    for series, kind in frame.drop_duplicates("series")[["series", "kind"]].itertuples(index=False):
        if kind == "cpu":
            colors[series], cpus = CPU_COLORS[cpus % len(CPU_COLORS)], cpus + 1
        else:
            colors[series], gpus = GPU_COLORS[gpus % len(GPU_COLORS)], gpus + 1
    return colors


def sweep_figure(
    frame: pd.DataFrame, factor: str, crossings: dict[str, Crossover] | None = None
) -> go.Figure:
    """Median ms per epoch against the swept factor (log-log), p25-p75 as error bars, crossovers marked.

    ``frame`` holds the 'ok' cells of one factor with columns series, kind, x, median_ms, p25_ms,
    p75_ms, samples_per_s; ``crossings`` maps an accelerator series to its crossover with the CPU.
    """
    fig = go.Figure()
    colors = series_colors(frame)
    for series, points in frame.groupby("series", sort=False):
        fig.add_scatter(**_sweep_line(series, points.sort_values("x"), colors[series], factor))
    for index, (series, found) in enumerate((crossings or {}).items()):
        if found.x is not None:
            _mark_crossover(fig, found, found.x, colors.get(series, GPU_COLORS[0]), index)
    # One labelled tick per decade: log axes otherwise label 2 and 5 in between, which reads as noise.
    x_ticks = _decades(frame["x"], _count)
    y_ticks = _decades(pd.concat([frame["p25_ms"], frame["p75_ms"]]), _milliseconds)
    fig.update_xaxes(type="log", title=factor_words(factor, "axis"), showgrid=True, **x_ticks)
    fig.update_yaxes(type="log", title=t("bench.chart.y"), showgrid=True, **y_ticks)
    fig.update_layout(
        height=460,
        separators=plotly_separators(),  # ticks and hover numbers with the language's marks
        margin={"l": 10, "r": 10, "t": 40 + 22 * max(0, len(crossings or {}) - 1), "b": 10},
        legend={"orientation": "h", "yanchor": "top", "y": -0.14, "xanchor": "left", "x": 0.0},
        hovermode="closest",
    )
    return fig


def _sweep_line(series: str, points: pd.DataFrame, color: str, factor: str) -> dict:
    """One series' line on the sweep chart: medians with their p25-p75 bars and a hover label."""
    label = plotly_text(series)
    unit = factor_words(factor, "hover")
    median, spread, rate = t("bench.chart.median"), t("bench.chart.spread"), t("bench.chart.rate")
    return {
        "x": points["x"],
        "y": points["median_ms"],
        "name": label,
        "mode": "lines+markers",
        "line": {"color": color, "width": 3 if points["kind"].iat[0] != "cpu" else 2.5},
        "marker": {"size": 8},
        "error_y": {
            "type": "data",
            "symmetric": False,
            "array": points["p75_ms"] - points["median_ms"],
            "arrayminus": points["median_ms"] - points["p25_ms"],
            "thickness": 1.2,
            "width": 4,
        },
        "customdata": points[["p25_ms", "p75_ms", "samples_per_s"]],
        "hovertemplate": (
            f"{label}<br>{unit} %{{x:,.0f}}<br>{median} %{{y:.3g}} ms"
            f"<br>{spread} %{{customdata[0]:.3g}}-%{{customdata[1]:.3g}} ms"
            f"<br>%{{customdata[2]:,.0f}} {rate}<extra></extra>"
        ),
    }


def _mark_crossover(fig: go.Figure, found: Crossover, x: float, color: str, index: int) -> None:
    """A dashed line at crossover ``x`` (``found.x``) with its verdict above the chart; the first also
    shades where it wins."""
    if index == 0:
        # Shade where the accelerator wins: the answer to "when does the GPU start to win?" at a glance;
        # only as far as both were timed, since past that the chart shows one device alone.
        fig.add_vrect(x0=x, x1=found.measured_up_to, fillcolor=WIN_FILL, line_width=0, layer="below")
    fig.add_vline(x=x, line={"color": color, "dash": "dash", "width": 2})
    fig.add_annotation(
        x=math.log10(x),  # annotations on a log axis take the exponent
        y=1.0,
        yref="paper",
        yanchor="bottom",
        xanchor="left",
        text=f"<b>{plotly_text(found.verdict)}</b>",
        showarrow=False,
        font={"color": color, "size": 14},
        bgcolor="rgba(255,255,255,0.85)",
        yshift=4 + 22 * index,
    )


def fit_figure(points: pd.DataFrame, fits: dict[str, CostFit], factor: str) -> go.Figure:
    """Measured medians of each series with its fitted line, and the fitted fixed part alone (log-log).

    ``points`` holds the 'ok' cells with columns series, kind, x, steps, images, median_ms; ``fits``
    maps a series to its fit. Where the dotted fixed part meets the line, fixed costs are the epoch.
    """
    fig = go.Figure(layout={"separators": plotly_separators()})
    colors = series_colors(points)
    for series, fit in fits.items():
        rows = points[points["series"] == series].sort_values("x")
        label, color = plotly_text(series), colors[series]
        fig.add_scatter(
            x=rows["x"],
            y=rows["median_ms"],
            name=t("bench.chart.measured", series=label),
            mode="markers",
            marker={"size": 9, "color": color},
        )
        fig.add_scatter(
            x=rows["x"],
            y=[fit.predict_ms(s, n) for s, n in zip(rows["steps"], rows["images"], strict=True)],
            name=t("bench.chart.fitted", series=label),
            mode="lines",
            line={"color": color, "dash": "dash"},
        )
        fig.add_scatter(
            x=rows["x"],
            y=[fit.per_step_ms * s for s in rows["steps"]],
            name=t("bench.chart.fixed", series=label),
            mode="lines",
            line={"color": color, "dash": "dot", "width": 1.5},
        )
    x_ticks = _decades(points["x"], _count)
    fixed = pd.Series(
        [
            fit.per_step_ms * s
            for series, fit in fits.items()
            for s in points.loc[points["series"] == series, "steps"]
        ]
    )
    y_ticks = _decades(pd.concat([points["median_ms"], fixed]), _milliseconds)
    fig.update_xaxes(type="log", title=factor_words(factor, "axis"), showgrid=True, **x_ticks)
    fig.update_yaxes(type="log", title=t("bench.chart.y"), showgrid=True, **y_ticks)
    fig.update_layout(
        height=420,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "yanchor": "top", "y": -0.16, "xanchor": "left", "x": 0.0},
        hovermode="closest",
    )
    return fig.update_traces(hovertemplate=_fit_hover(factor))


def _fit_hover(factor: str) -> str:
    """The hover of every line of the fit chart: the line's name, then its x and its milliseconds, named.

    Plotly's own is a bare '(3.600, 25,6)', whose decimal comma reads as the pair's comma in Spanish."""
    return (
        f"%{{fullData.name}}<br>{factor_words(factor, 'hover')} %{{x:,.0f}}<br>%{{y:.3g}} ms<extra></extra>"
    )


def plotly_text(text: str) -> str:
    """``text`` shown literally in a Plotly label: legends, hovers and annotations read HTML and ``%{..}``.

    Series names come from imported files, so a name like ``<a href=...>`` must not become a link, and
    is cut and shown with its invisible characters as escapes (``linecnn.untrusted.plain_text``).
    """
    return html.escape(plain_text(text), quote=False).replace("%", "&#37;")  # Plotly shows &quot; as is


def _decades(values: pd.Series, label) -> dict:  # noqa: ANN001 - label: float -> str
    """tickvals and ticktext at each power of ten spanning ``values`` (and at 2 and 5 when few decades).

    Distinct values all within a factor of NARROW get a tick at every digit: the axis then shows only a
    part of one decade, where the powers, 2 and 5 would leave it one labelled tick or none.
    """
    values = values.dropna()
    values = values[values > 0]
    if values.empty:
        return {}
    low, high = math.floor(math.log10(values.min())), math.ceil(math.log10(values.max()))
    narrow = values.min() < values.max() < NARROW * values.min()  # one value: Plotly pads the axis widely
    steps = range(1, 10) if narrow else (1, 2, 5) if high - low <= 2 else (1,)
    ticks = [round(step * 10.0**k, 12) for k in range(low, high + 1) for step in steps]
    return {"tickvals": ticks, "ticktext": [label(t) for t in ticks]}


def _count(x: float) -> str:
    """1, 10, 100, 1k, 10k, 100k, 1M, with the reader's decimal mark ('1,5k' in Spanish)."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if x >= size:
            return decimal_text(round(x / size, 12), current()) + suffix
    return decimal_text(x, current())


def _milliseconds(ms: float) -> str:
    """0.1 ms, 1 ms, 10 ms, 100 ms, 1 s, 10 s, with the reader's decimal mark ('0,1 ms' in Spanish)."""
    if ms >= 1000:
        return decimal_text(round(ms / 1000, 12), current()) + " s"
    return decimal_text(ms, current()) + " ms"
