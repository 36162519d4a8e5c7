"""The data-parallel factor's results: a card per rank count, the table, and why the efficiency is so."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pandas as pd
import streamlit as st
from babel.numbers import format_scientific
from pandas.io.formats.style import Styler

from linecnn.parallel.results import (
    LOSS_TOLERANCE,
    POOR_EFFICIENCY,
    SUPERLINEAR,
    RanksRow,
    Series,
    compute_shrank,
)
from linecnn.ui.i18n import count, current, number, percent, t
from linecnn.ui.tables import show_table, sortable

NONE = "—"  # a figure that needs a 1-process run the series did not have


def render_series(series: Series) -> None:
    """One metric card per rank count, the table, and why the efficiency is what it is."""
    columns = st.columns(min(4, len(series.rows)))
    for index, row in enumerate(series.rows):
        with columns[index % len(columns)].container(border=True):
            _card(row)
    show_table(_frame(series), NONE, hide_index=True, key="ddp.table")
    st.caption(_table_note(series))
    _explain(series)


def _card(row: RanksRow) -> None:
    """One rank count's median epoch and efficiency, with the rest of its figures in a line."""
    st.markdown(t("ddp.card_title", ranks=row.ranks, backend=row.backend))
    left, right = st.columns(2)
    left.metric(t("ddp.median"), f"{number(row.median_ms, 2)} ms")
    right.metric(t("ddp.efficiency"), _or_none(row.efficiency, percent), help=t("ddp.efficiency_help"))
    st.caption(
        t(
            "ddp.card_line",
            images=number(row.samples_per_s),
            comm=number(row.comm_ms, 2),
            compute=number(row.compute_ms, 2),
            threads=count(row.threads),
            start=number(row.start_s, 1),
        )
    )


def _table_note(series: Series) -> str:
    """What the table measured: the problem, the timing and the single-device loss it is checked against."""
    config = series.config.bench
    size = config.run.train.batch_size
    batch = t("ddp.full_batch") if size is None else number(size)
    return t(
        "ddp.table_note",
        images=number(config.images),
        batch=batch,
        width=config.run.model.width,
        repeats=config.repeats,
        warmup=config.warmup,
        loss=number(series.reference_loss, 6),
        tolerance=f"{LOSS_TOLERANCE:.0e}",
    )


def _explain(series: Series) -> None:
    """Why the lowest efficiency is what it is; or that a 1-process run is needed to have one."""
    base, worst = series.base, series.worst
    if base is None:
        st.info(t("ddp.no_baseline"), icon=":material/info:")
        return
    if worst is None:
        return
    key = "ddp.why_poor" if worst.efficiency < POOR_EFFICIENCY else "ddp.why_good"
    if worst.efficiency > SUPERLINEAR:
        key = "ddp.why_superlinear"
    elif not compute_shrank(base.compute_ms, worst):
        key = "ddp.why_cores"
    text = t(
        key,
        threads=count(base.threads),
        base=number(base.compute_ms, 2),
        ranks=worst.ranks,
        efficiency=percent(worst.efficiency),
        compute=number(worst.compute_ms, 2),
        comm=number(worst.comm_ms, 2),
    )
    st.info(text, icon=":material/lightbulb:")


def _frame(series: Series) -> Styler:
    """The rows with translated column names; the figures stay numbers (a header click sorts by them),
    written the language's way."""
    rows = series.rows
    frame = pd.DataFrame(
        {
            "ranks": [row.ranks for row in rows],
            "backend": [row.backend for row in rows],
            "threads": [row.threads for row in rows],
            "ms": [row.median_ms for row in rows],
            "comm": [row.comm_ms for row in rows],
            "compute": [row.compute_ms for row in rows],
            "images": [row.samples_per_s for row in rows],
            "speedup": [row.speedup for row in rows],
            "efficiency": [row.efficiency for row in rows],
            "start": [row.start_s for row in rows],
            "loss": [row.loss_error for row in rows],
        }
    )
    formats = {
        "ms": partial(number, digits=2),
        "comm": partial(number, digits=2),
        "compute": partial(number, digits=2),
        "images": number,
        "speedup": partial(number, digits=2),
        "efficiency": percent,
        "start": partial(number, digits=1),
        "loss": lambda error: format_scientific(error, "0.0E0", locale=current()),
    }
    names = {column: t(f"ddp.col_{column}") for column in frame.columns}
    shown = {names[column]: write for column, write in formats.items()}
    return sortable(frame.rename(columns=names), shown, missing=NONE)


def _or_none(value: float | None, show: Callable[[float], str]) -> str:
    """``value`` shown, or a dash when there was no 1-process run to compute it from."""
    return NONE if value is None else show(value)
