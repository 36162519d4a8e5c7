"""What "Inside one step" shows: a stacked bar per device and cell, the figures, a sentence each,
the busiest operators by phase and the traces to download.

Every sentence is built from the measured figures; nothing here is canned per device.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from pandas.io.formats.style import Styler

from linecnn.bench.peaks import peak_gflops
from linecnn.bench.profile import PROFILED_STEPS, WARMUP_STEPS
from linecnn.bench.step_profile import StepProfile
from linecnn.device import describe
from linecnn.jobs.inside import Looked
from linecnn.ui.chart import show_chart
from linecnn.ui.format import device_short
from linecnn.ui.i18n import number, percent, plotly_separators, t
from linecnn.ui.tables import show_table, sortable

WORK_COLOR, AROUND_COLOR = "#2f6690", "#d9822b"


def label(profile: StepProfile) -> str:
    """A cell's short name on the chart and the tabs, e.g. 'CPU · 360 images'."""
    return t("inside.cell", device=device_short(profile.device), images=number(profile.images))


def render_looked(looked: list[Looked]) -> None:
    """The chart, the figures table, one sentence per cell, then a tab per cell with its operators."""
    profiles = [item.profile for item in looked]
    busy = [p for p in profiles if p.busy]
    if busy:
        load, cores = max(p.load_average or 0.0 for p in busy), busy[0].cores or 0
        st.warning(t("inside.busy", load=number(load, 1), cores=number(cores)), icon=":material/ssid_chart:")
    show_chart(split_figure(profiles), "inside.split", t("chart.split"))
    st.dataframe(figures_frame(profiles), hide_index=True, key="inside.figures")
    for profile in profiles:
        st.markdown(f"**{label(profile)}**: {verdict(profile)}")
    st.caption(honesty(profiles))
    for tab, item in zip(st.tabs([label(p) for p in profiles]), looked, strict=True):
        with tab:
            show_table(operators_frame(item.profile), hide_index=True)
            st.download_button(
                t("inside.download"),
                item.trace,
                file_name=f"linecnn-trace-{item.profile.device.replace(':', '')}-{item.profile.images}.json",
                mime="application/json",
                icon=":material/download:",
                key=f"inside.trace.{item.profile.device}.{item.profile.images}",
            )
            st.caption(t("inside.trace_help"))


def split_figure(profiles: list[StepProfile]) -> go.Figure:
    """Per cell, one bar of a step's milliseconds: the operators' work, then everything around it."""
    names = [label(p) for p in profiles]
    fig = go.Figure()
    parts = (("inside.work", WORK_COLOR, "work_ms"), ("inside.around", AROUND_COLOR, "around_ms"))
    for name, color, figure in parts:
        fig.add_bar(
            y=names,
            x=[getattr(p, figure) for p in profiles],
            name=t(name),
            orientation="h",
            marker_color=color,
            # Plotly's own hover is a bare '(2,5, CPU · 360 images)': a decimal comma reads as the pair's.
            hovertemplate="%{y}<br>%{fullData.name}: %{x:.3g} ms<extra></extra>",
        )
    fig.update_layout(
        barmode="stack",
        height=120 + 48 * len(profiles),
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0.0, "traceorder": "normal"},
        xaxis_title=t("inside.ms_axis"),
        yaxis={"autorange": "reversed"},
        separators=plotly_separators(),
    )
    return fig


GPU_ONLY = ("inside.col.kernels", "inside.col.peak")  # figures that say something only on a GPU


def on_a_gpu(profiles: list[StepProfile]) -> bool:
    """Whether any cell ran on a GPU: only then do the kernel, GPU-time and peak columns say anything."""
    return any(p.kernels is not None for p in profiles)


def figures_frame(profiles: list[StepProfile]) -> pd.DataFrame:
    """One row per figure, one column per cell, so cells compare side by side at any screen width."""
    figures = [
        ("inside.col.step", lambda p: number(p.plain_ms, 3)),
        ("inside.col.profiled", lambda p: number(p.profiled_ms, 3)),
        ("inside.col.calls", lambda p: number(p.operator_calls)),
        ("inside.col.kernels", lambda p: "–" if p.kernels is None else number(p.kernels)),
        ("inside.col.work", lambda p: f"{number(p.work_ms, 3)} ({percent(p.work_share)})"),
        ("inside.col.around", lambda p: number(p.around_ms, 3)),
        ("inside.col.mflop", lambda p: number(p.flops / 1e6, 1)),
        ("inside.col.rate", lambda p: number(p.gflops_per_s, 1)),
        ("inside.col.peak", peak_text),
    ]
    if not on_a_gpu(profiles):
        figures = [(key, value) for key, value in figures if key not in GPU_ONLY]
    return pd.DataFrame(
        [{t("inside.col.figure"): t(key), **{label(p): value(p) for p in profiles}} for key, value in figures]
    )


def peak_text(profile: StepProfile) -> str:
    """A GPU's rough FP32 peak and where the figure comes from; a dash where it is not known."""
    peak = peak_gflops(describe(profile.device)) if profile.device.startswith("cuda") else None
    return "–" if peak is None else t("inside.peak", gflops=number(peak))


def operators_frame(profile: StepProfile) -> Styler:
    """The busiest operators of one step, by phase: calls, own host time and, on a GPU, GPU time (numbers
    beneath their text, so a header click sorts by them)."""
    rows = []
    for op in profile.operators:
        row = {
            t("inside.col.phase"): t(f"inside.phase.{op.phase}"),
            t("inside.col.operator"): op.name,
            t("inside.col.op_calls"): op.calls,
            t("inside.col.own"): op.self_ms,
        }
        if profile.kernels is not None:
            row[t("inside.col.gpu")] = op.device_ms
        rows.append(row)
    in_ms = partial(number, digits=3)
    formats: dict[str, Callable[[float], str]] = {
        t("inside.col.op_calls"): number,
        t("inside.col.own"): in_ms,
        t("inside.col.gpu"): in_ms,
    }
    return sortable(pd.DataFrame(rows), formats)


def honesty(profiles: list[StepProfile]) -> str:
    """Which steps the figures come from, and what the profiler cost (or that noise hid its cost)."""
    overhead = max(profile.overhead for profile in profiles) - 1
    if overhead < 0.005:  # under half a percent, or profiled steps faster: noise, not a cost to quote
        return t("inside.honest_noise", steps=PROFILED_STEPS, warmup=WARMUP_STEPS)
    return t("inside.honest", steps=PROFILED_STEPS, warmup=WARMUP_STEPS, overhead=percent(overhead))


def verdict(p: StepProfile) -> str:
    """One plain sentence about the step, from its measured figures."""
    if p.kernels:
        key = "inside.verdict.gpu_launching" if p.mostly_around else "inside.verdict.gpu_computing"
        return t(
            key, kernels=number(p.kernels), us=number(p.kernel_us or 0.0, 1), share=percent(p.work_share)
        )
    key = "inside.verdict.cpu_around" if p.mostly_around else "inside.verdict.cpu_work"
    key = "inside.verdict.cpu_busy" if p.busy else key
    return t(key, calls=number(p.operator_calls), us=number(p.operator_us, 1), share=percent(p.work_share))
