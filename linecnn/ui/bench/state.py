"""The Benchmark page's session state: its keys, this server's caps, the history and the runs on screen.

Every text taken from a stored or imported run goes through ``escape_markdown`` (Plotly labels
through ``charts.plotly_text``): a file must not put links, images or HTML on anyone's screen.
"""

from __future__ import annotations

import contextlib

import streamlit as st

from linecnn.bench.document import BenchDocument
from linecnn.bench.plan import MAX_IMAGES, MAX_STEP_BYTES, Caps
from linecnn.bench.store import History, HistoryError, RunSummary
from linecnn.classroom.roles import Rights
from linecnn.classroom.settings import env_number, env_uncapped
from linecnn.train.config import RunConfig
from linecnn.ui import notice
from linecnn.ui.bench.results.data import ShownRun
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import say, t
from linecnn.ui.roles import session_rights

SHOWN = "bench.shown"  # ids of the history runs on screen, newest first
UNSAVED = "bench.unsaved"  # documents of runs the history could not store, newest first, shown from memory
MESSAGE = "bench.message"  # a Notice (ui.notice) about the last run, shown until the next one starts
DELETE = "bench.delete"  # keys of the delete control: the run picked, the confirmation, the button
REQUEST = "bench.request"  # the SweepRequest the form holds now (its last submitted values), each run

MAX_SECONDS_ENV = "LINECNN_BENCH_MAX_SECONDS"  # server cap on one benchmark's wall time (default 300 s)
MAX_IMAGES_ENV = "LINECNN_BENCH_MAX_IMAGES"  # server cap on one cell's training images (default 1 M)
MAX_STEP_BYTES_ENV = "LINECNN_BENCH_MAX_STEP_BYTES"  # server cap on one step's activations (default 1 GiB)
MIN_CAP_IMAGES = RunConfig().data.train_size  # a host cap below the lesson's set leaves nothing to time
MIN_CAP_SECONDS = 0.001  # a host's time cap must be above 0 s, as the Train page's is; 'inf' lifts it
MIN_CAP_STEP_BYTES = 1 << 20  # nor would a step cap below 1 MiB (the lesson's full batch needs about 5 MiB)
MAX_UNSAVED = 3  # runs kept in memory per session while the history cannot save them


def history() -> History:
    """The benchmark history (the SQLite file under the data directory)."""
    return History()


def visible_runs(runs: list[RunSummary], session: Rights) -> list[RunSummary]:
    """Of the stored ``runs``, those this session's History lists: every run, or a student's own."""
    return runs if session.sees_all else [run for run in runs if run.user_owns(session.user)]


def history_problem(error: ValueError) -> str:
    """Why the history failed, for the page: "this server's history", never the file's path on disk."""
    if isinstance(error, HistoryError):
        return t("bench.history.broken", detail=escape_markdown(error.detail))
    return say(error)  # a core sentence in the reader's language; any other text escaped as it is


def server_caps() -> Caps:
    """This server's limits, from the environment where the host set them.

    A value that is not a number, or is below what the page needs, falls back to the default
    with a warning in the server's log; a time cap of "inf" or "none" means no time cap.
    """

    return Caps(
        max_images=int(env_number(MAX_IMAGES_ENV, MAX_IMAGES, minimum=MIN_CAP_IMAGES)),
        max_seconds=None if env_uncapped(MAX_SECONDS_ENV) else _time_cap(),
        max_step_bytes=int(env_number(MAX_STEP_BYTES_ENV, MAX_STEP_BYTES, minimum=MIN_CAP_STEP_BYTES)),
    )


def _time_cap() -> float:
    """The host's time cap in seconds: 0 would end every benchmark at once, so it falls back like a typo."""
    return env_number(MAX_SECONDS_ENV, 300.0, minimum=MIN_CAP_SECONDS, uncappable=True)


def init_shown() -> None:
    """On a session's first visit (a return, a reload), show the newest stored run instead of nothing."""
    if SHOWN in st.session_state:
        return
    with contextlib.suppress(ValueError):  # the history cannot be opened: render_history says why
        runs = visible_runs(history().runs(), session_rights())
        st.session_state[SHOWN] = [runs[0].id] if runs else []


def shown_runs() -> list[ShownRun]:
    """Runs kept in memory, then the stored runs selected for display; unreadable ones with a warning."""
    unsaved = [ShownRun(-n, "page", document) for n, document in enumerate(st.session_state.get(UNSAVED, []))]
    store, runs, ids = history(), [], st.session_state.get(SHOWN, [])
    if not ids:
        return unsaved
    try:
        sources = {r.id: r.source for r in store.runs()}
    except ValueError:
        return unsaved  # the history cannot be opened: render_history says why
    for run_id in ids:
        try:
            runs.append(ShownRun(run_id, sources.get(run_id, "page"), store.load(run_id)))
        except ValueError as error:  # a row an older linecnn stored before imports were checked
            why = history_problem(error)
            st.warning(t("bench.run.left_out", run=run_id, why=why), icon=":material/warning:")
    return unsaved + runs


def show_run(run_id: int, keep_imported: bool = True) -> None:
    """Put a run on screen first; imported runs stay beside it, earlier local runs make room."""
    summaries = {r.id: r for r in history().runs()}
    kept = [
        i
        for i in st.session_state.get(SHOWN, [])
        if i != run_id and keep_imported and i in summaries and summaries[i].source == "import"
    ]
    st.session_state[SHOWN] = [run_id, *kept]


def show_message() -> None:
    """The message about the last run; kept until the next run starts, so a rerun cannot lose it."""
    notice.show(MESSAGE)


def keep_unsaved(document: BenchDocument) -> None:
    """Hold a run the history could not store in memory, newest first, so the page can still show it."""
    st.session_state[UNSAVED] = [document, *st.session_state.get(UNSAVED, [])][:MAX_UNSAVED]
