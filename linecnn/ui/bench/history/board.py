"""The Benchmark page's class board: every device measured on this server or imported, side by side.

Read-only for everyone, students included: who measured what, on which machine and when, at the
lesson's size and at the largest size each device timed, and where a GPU overtakes its CPU.
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from pandas.io.formats.style import Styler

from linecnn.bench.board import LESSON_IMAGES, BoardRow, board_rows
from linecnn.bench.document import BenchDocument
from linecnn.bench.store import History, RunSummary
from linecnn.ui.bench.results.charts import plotly_text
from linecnn.ui.bench.state import history
from linecnn.ui.bench.words import significant, verdict
from linecnn.ui.chart import show_chart
from linecnn.ui.format import device_short
from linecnn.ui.i18n import number, plotly_separators, t
from linecnn.ui.tables import show_table, sortable

BOARD_RUNS = 60  # the newest stored runs the board reads (made here and imported alike)
LABEL_CHARS = 20  # a name in a bar's label is cut to this: long labels crowd a phone
CPU_COLOR, GPU_COLOR = "#6c7a89", "#2f6690"  # the theme's grey and ink blue


def render_board(summaries: list[RunSummary] | None) -> None:
    """The board's heading, what it compares, and one row per device of the stored runs ``summaries``
    (newest first; None when the history cannot be read, which the History section says)."""
    st.subheader(t("bench.board.title"))
    st.markdown(t("bench.board.intro"))
    if summaries is None:
        return
    store = history()
    newest = summaries[:BOARD_RUNS]
    rows = board_rows((summary, document) for summary in newest if (document := _load(store, summary)))
    if not rows:
        st.caption(t("bench.board.empty"))
        return
    figure = _figure(rows)
    if figure is not None:
        show_chart(figure, "bench.board_chart", t("chart.board"))
    # The device's column is capped (a long name is cut, whole on hover) so the figures fit in view.
    device = {t("bench.board.device"): st.column_config.TextColumn(width="medium")}
    show_table(board_table(rows), "-", hide_index=True, width="stretch", column_config=device)
    st.caption(t("bench.board.note", images=number(LESSON_IMAGES)))


def _figure(rows: list[BoardRow]) -> go.Figure | None:
    """Images per second at the lesson's size, a bar per device, fastest on top; None when none was timed."""
    scored = sorted(
        (
            (row.lesson.samples_per_s, row)
            for row in rows
            if row.lesson is not None and row.lesson.samples_per_s
        ),
        key=lambda pair: pair[0],
    )
    rates, timed = [rate for rate, _ in scored], [row for _, row in scored]
    if not timed:
        return None
    # Short labels (who, which device, which run): the table below has the full names, and on a
    # phone a long label would leave the bars no room.
    labels = [
        plotly_text(f"{_who(row)[:LABEL_CHARS]} · {device_short(row.device)} · #{row.run.id}")
        for row in timed
    ]
    bars = go.Bar(
        x=rates,
        y=labels,
        orientation="h",
        marker_color=[CPU_COLOR if row.kind == "cpu" else GPU_COLOR for row in timed],
        hovertemplate="%{x:,.0f}<extra></extra>",
    )
    figure = go.Figure(bars)
    # From a decade below the slowest: on a log axis the slowest bar keeps a visible length.
    low, high = min(rates) / 10, max(rates) * 10**0.05
    ticks = _ticks(low, high)
    figure.update_layout(
        height=min(110 + 30 * len(timed), 720),
        margin={"l": 10, "r": 10, "t": 10, "b": 70},
        separators=plotly_separators(),  # the hover's rate with the language's marks
        xaxis={
            # On two lines: centred under the bars, one line ran past a phone's edge in Spanish.
            "title": {"text": t("bench.board.rate_axis")},
            "type": "log",
            "range": [math.log10(low), math.log10(high)],
            # Whole rates the reader's way ('20.000'), not Plotly's log digits ('2 3 4 5' after '10k').
            "tickvals": ticks,
            "ticktext": [number(tick) for tick in ticks],
        },
        yaxis={"automargin": True, "type": "category"},
    )
    return figure


def _ticks(low: float, high: float) -> list[float]:
    """Round rates from ``low`` to ``high`` on a log axis: 1, 2 and 5 times a power of ten, or powers only."""
    steps = (1, 2, 5) if math.log10(high / low) <= 3 else (1,)  # past three decades, a phone has room for few
    decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    return [step * 10.0**decade for decade in decades for step in steps if low <= step * 10.0**decade <= high]


def _who(row: BoardRow) -> str:
    """Who measured a row: the owner's name when signed in, else this server or 'imported'."""
    run = row.run
    return run.owner_name or t(f"bench.board.by_{'import' if run.source == 'import' else 'server'}")


@st.cache_resource(max_entries=4 * BOARD_RUNS, show_spinner=False)
def _document(path: str, run_id: int, created: str) -> BenchDocument | None:
    """A stored run's document, read once per server (a run's id and date never change)."""
    try:
        return History(path).load(run_id)
    except ValueError:
        return None  # a row that cannot be read is left off the board; History warns when it is shown


def _load(store: History, summary: RunSummary) -> BenchDocument | None:
    """The run's document from the cache, keyed by the history file, the run and its date."""
    return _document(str(store.path), summary.id, summary.created)


def board_table(rows: list[BoardRow]) -> Styler:
    """The board as a table in the reader's language; its figures stay numbers, so a header sorts by them."""
    ms, rate, images = t("bench.board.lesson_ms"), t("bench.board.lesson_rate"), t("bench.board.largest")
    formats = {ms: significant, rate: number, images: number}
    formats |= {t("bench.board.largest_ms"): significant, t("bench.board.largest_rate"): number}
    return sortable(pd.DataFrame([_row(row) for row in rows]), formats, missing="-")


def _row(row: BoardRow) -> dict[str, object]:
    """One board row: who, what, when, the two sizes (None where a size was not timed), the crossover."""
    run, lesson, largest = row.run, row.lesson, row.largest
    # The numbers first: on a phone the columns after them are a scroll away.
    return {
        t("bench.board.who"): _who(row),
        # A CPU is named in full in the CPU column: here its short name keeps the figures in view.
        t("bench.board.device"): device_short(row.device) if row.kind == "cpu" else row.device_name,
        t("bench.board.lesson_ms"): lesson.median_ms if lesson else None,
        t("bench.board.lesson_rate"): lesson.samples_per_s if lesson else None,
        t("bench.board.largest"): largest.config.images if largest else None,
        t("bench.board.largest_ms"): largest.median_ms if largest else None,
        t("bench.board.largest_rate"): largest.samples_per_s if largest else None,
        t("bench.board.crossover"): verdict(row.crossover, "data", "GPU") if row.crossover else "-",
        t("bench.board.cpu"): row.cpu_model,
        t("bench.board.when"): run.created.replace("T", " ")[:16],
        t("bench.board.run"): f"#{run.id} · {t('bench.source.' + run.source)}",
    }
