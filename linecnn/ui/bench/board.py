"""The Benchmark page's class board: every device measured on this server or imported, side by side.

Read-only for everyone, students included: who measured what, on which machine and when, at the
lesson's size and at the largest size each device timed, and where a GPU overtakes its CPU.
"""

from __future__ import annotations

import streamlit as st

from linecnn.bench.board import LESSON_IMAGES, BoardRow, board_rows
from linecnn.bench.document import BenchDocument
from linecnn.bench.results import CellResult
from linecnn.bench.store import History, RunSummary
from linecnn.ui.bench.state import history
from linecnn.ui.bench.words import ms_text, verdict
from linecnn.ui.i18n import number, t

BOARD_RUNS = 60  # the newest stored runs the board reads (made here and imported alike)


def render_board() -> None:
    """The board's heading, what it compares, and one table row per device of each run."""
    st.subheader(t("bench.board.title"))
    st.markdown(t("bench.board.intro"))
    store = history()
    try:
        summaries = store.runs()[:BOARD_RUNS]
    except ValueError:
        return  # the History section above says why
    rows = board_rows((summary, document) for summary in summaries if (document := _load(store, summary)))
    if not rows:
        st.caption(t("bench.board.empty"))
        return
    st.dataframe([_row(row) for row in rows], hide_index=True, width="stretch")
    st.caption(t("bench.board.note", images=number(LESSON_IMAGES)))


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


def _row(row: BoardRow) -> dict[str, str]:
    """One board row in the reader's language: who, what, when, the two sizes, the crossover."""
    run = row.run
    who = run.owner_name or t(f"bench.board.by_{'import' if run.source == 'import' else 'server'}")
    largest = row.largest
    return {
        t("bench.board.who"): who,
        t("bench.board.device"): row.device_name,
        t("bench.board.cpu"): row.cpu_model,
        t("bench.board.when"): run.created.replace("T", " ")[:16],
        t("bench.board.run"): f"#{run.id} · {t('bench.source.' + run.source)}",
        t("bench.board.lesson_ms"): ms_text(row.lesson.median_ms if row.lesson else None),
        t("bench.board.lesson_rate"): _rate(row.lesson),
        t("bench.board.largest"): number(largest.config.images) if largest else "-",
        t("bench.board.largest_ms"): ms_text(largest.median_ms if largest else None),
        t("bench.board.largest_rate"): _rate(largest),
        t("bench.board.crossover"): verdict(row.crossover, "data", "GPU") if row.crossover else "-",
    }


def _rate(cell: CellResult | None) -> str:
    """Training images per second, e.g. '12,345'; '-' when the cell was not timed."""
    return "-" if cell is None or cell.samples_per_s is None else number(cell.samples_per_s)
