"""The data-parallel factor's results: a card per run, the table, and why the figures are what they are.

Each card's headline compares equal thread budgets (N processes of T threads against 1 process of N·T
threads); the classic scaling efficiency, against 1 process of T threads, is the note beneath.
"""

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
    """One metric card per run, the table, the equal-budget verdict and why the efficiency is what it is."""
    columns = st.columns(min(4, len(series.rows)))
    for index, row in enumerate(series.rows):
        with columns[index % len(columns)].container(border=True):
            _card(row)
    show_table(_frame(series), NONE, hide_index=True, key="ddp.table")
    st.caption(_table_note(series))
    _explain(series)


def _card(row: RanksRow) -> None:
    """One run's median epoch and headline comparison, the classic efficiency beneath, the rest in a line."""
    st.markdown(t("ddp.card_title", ranks=row.ranks, backend=row.backend, threads=count(row.threads)))
    left, right = st.columns(2)
    left.metric(t("ddp.median"), f"{number(row.median_ms, 2)} ms")
    if row.budget_speedup is None:  # a GPU series, an older row, no 1 process: only the classic reading
        right.metric(t("ddp.efficiency"), _or_none(row.efficiency, percent), help=t("ddp.efficiency_help"))
    else:
        threads = count(row.budget_threads)
        help_text = t("ddp.budget_help", threads=threads)
        right.metric(t("ddp.budget", threads=threads), times(row.budget_speedup), help=help_text)
        if row.ranks > 1 and row.efficiency is not None:
            note = t("ddp.efficiency_note", efficiency=percent(row.efficiency), threads=count(row.threads))
            st.caption(note)
    if row.disturbed:  # the words and look of a disturbed sweep cell
        load, cores = number(row.load_average or 0.0, 1), number(row.cores or 0)
        reason = t("bench.disturbed.load", load=load, cores=cores)
        st.warning(t("bench.cards.disturbed", reasons=reason), icon=":material/ssid_chart:")
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
    """Processes against threads at the same budget, then why the lowest efficiency is what it is;
    or that a 1-process run is needed to have either."""
    base, worst = series.base, series.worst
    if base is None:
        st.info(t("ddp.no_baseline"), icon=":material/info:")
        return
    if series.headline is not None:
        verdict = budget_verdict(series, series.headline)
        if series.budget_outcome(series.headline) == "disturbed":  # as a disturbed sweep cell is shown
            st.warning(verdict, icon=":material/ssid_chart:")
        else:
            st.info(verdict, icon=":material/balance:")
    if worst is None or worst.efficiency is None:  # the worst row is one with an efficiency
        return
    base = series.single(worst.threads) or base  # 1 process of as many threads as each of the worst's
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


def budget_verdict(series: Series, row: RanksRow) -> str:
    """One sentence: ``row``'s processes against 1 process of the same threads, who won and by how much;
    or, when a busy machine timed either of them, that there is no winner to state."""
    outcome = series.budget_outcome(row)  # raises ValueError for a row without an equal-budget speed-up
    speedup = row.budget_speedup or 1.0
    load = series.budget_load(row)
    return t(
        f"ddp.budget_{outcome}",
        ranks=count(row.ranks),
        each=count(row.threads),
        threads=count(row.budget_threads),
        speedup=times(speedup),
        slower=times(1 / speedup),
        load="-" if load is None else number(load, 1),
        cores="?" if row.cores is None else number(row.cores),
    )


def times(factor: float) -> str:
    """A ratio written the language's way with a times sign: '1.07×', '1,07×'."""
    return f"{number(factor, 2)}×"


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
            "budget": [row.budget_speedup for row in rows],
            "speedup": [row.speedup for row in rows],
            "efficiency": [row.efficiency for row in rows],
            "start": [row.start_s for row in rows],
            "loss": [row.loss_error for row in rows],
        }
    )
    formats: dict[str, Callable[[float], str]] = {
        "ms": partial(number, digits=2),
        "comm": partial(number, digits=2),
        "compute": partial(number, digits=2),
        "images": number,
        "budget": partial(number, digits=2),
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
