"""The Benchmark page's Streamlit side: session keys, server caps, the runs on screen, the queued run.

The timing itself is ``linecnn.sweep``; this module only drives it. The views live beside it:
``bench_results`` (cards, where the time goes, charts, table), ``bench_history`` (stored runs,
import, delete). A benchmark runs in a background thread that never calls Streamlit, so touching
a widget (which reruns the page) or leaving the page does not stop it; a fragment polls it for the
progress bar. Every text taken from a stored or imported run goes through ``escape_markdown``
(Plotly labels through ``bench_charts.plotly_text``): a file must not put links, images or HTML on
anyone's screen.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from dataclasses import dataclass, field

import streamlit as st

from linecnn.bench import BENCH_LOCK, OK
from linecnn.hostenv import env_number, env_uncapped
from linecnn.store import History
from linecnn.sweep import (
    MAX_IMAGES,
    MAX_STEP_BYTES,
    Caps,
    CellProgress,
    SweepPlan,
    make_document,
    run_sweep,
)
from linecnn.ui.bench.cards import WIDE_SPREAD
from linecnn.ui.bench.data import ShownRun, run_problem
from linecnn.ui.bench.words import ms_text, progress_label, status_text, x_text
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import duration, number, t

_LOG = logging.getLogger(__name__)

SHOWN = "bench.shown"  # ids of the history runs on screen, newest first
RUNNING = "bench.running"  # this session's Job, from Run benchmark until the page has shown its end
UNSAVED = "bench.unsaved"  # documents of runs the history could not store, newest first, shown from memory
MESSAGE = "bench.message"  # (kind, text) about the last run, shown until the next one starts
IMPORTED = "bench.imported"  # ids of uploaded files already imported, so a rerun does not import again
SESSION = "bench.session"  # a short name for this session in the queue
CANCEL = "bench.cancel"  # key of the Cancel button
DELETE = "bench.delete"  # keys of the delete control: the run picked, the confirmation, the button

MAX_SECONDS_ENV = "LINECNN_BENCH_MAX_SECONDS"  # server cap on one benchmark's wall time (default 300 s)
MAX_IMAGES_ENV = "LINECNN_BENCH_MAX_IMAGES"  # server cap on one cell's training images (default 1 M)
MAX_STEP_BYTES_ENV = "LINECNN_BENCH_MAX_STEP_BYTES"  # server cap on one step's activations (default 1 GiB)
MIN_CAP_IMAGES = 360  # a host's image cap below the seed's 3 x 120 images would leave nothing to time
MIN_CAP_STEP_BYTES = 1 << 20  # nor would a step cap below 1 MiB (the seed's full batch needs ~5 MiB)
POLL_SECONDS = 0.5  # how often the page redraws a running benchmark's progress
MAX_UNSAVED = 3  # runs kept in memory per session while the history cannot save them


def history() -> History:
    """The benchmark history (the SQLite file under the data directory)."""
    return History()


def server_caps() -> Caps:
    """This server's limits, from the environment where the host set them.

    A value that is not a number, or is below what the page needs, falls back to the default
    with a warning in the server's log; a time cap of "inf" or "none" means no time cap.
    """

    return Caps(
        max_images=int(env_number(MAX_IMAGES_ENV, MAX_IMAGES, minimum=MIN_CAP_IMAGES)),
        max_seconds=None if env_uncapped(MAX_SECONDS_ENV) else env_number(MAX_SECONDS_ENV, 300.0, minimum=0),
        max_step_bytes=int(env_number(MAX_STEP_BYTES_ENV, MAX_STEP_BYTES, minimum=MIN_CAP_STEP_BYTES)),
    )


def init_shown() -> None:
    """On a session's first visit (a return, a reload), show the newest stored run instead of nothing."""
    if SHOWN in st.session_state:
        return
    with contextlib.suppress(ValueError):  # the history cannot be opened: render_history says why
        runs = history().runs()
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
            run = ShownRun(run_id, sources.get(run_id, "page"), store.load(run_id))
        except ValueError:
            continue
        problem = run_problem(run)
        if problem is None:
            runs.append(run)
        else:
            st.warning(
                t("bench.run.left_out", run=run_id, why=escape_markdown(problem)), icon=":material/warning:"
            )
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


class _Cancel(BaseException):
    """Raised in the benchmark thread when the user cancels.

    A BaseException, because ``bench`` records any Exception as a failed cell and goes on to the
    next: a cancel must end the whole sweep.
    """


@dataclass
class Job:
    """A benchmark running in a background thread; the thread writes it, the page only reads it.

    The thread never calls Streamlit, so reruns and page switches cannot stop it; what it
    measured is saved by the thread itself, even if the session that started it is gone.
    """

    plan: SweepPlan  # the cells to time
    caps: Caps  # this server's limits
    who: str  # the session's short name, for the queue
    results: list[dict] = field(default_factory=list)  # one per finished cell, in order
    fraction: float = 0.0  # share of the sweep done, for the progress bar
    cell: CellProgress | None = (
        None  # where the sweep is, for the progress bar's label; None before the first
    )
    waited: float | None = None  # seconds queued behind another session's benchmark, while queued
    cancel: threading.Event = field(default_factory=threading.Event)  # set by the Cancel button
    done: threading.Event = field(default_factory=threading.Event)  # set when the thread has finished
    cancelled: bool = False  # the user cancelled it
    error: str | None = None  # what ended the sweep unexpectedly, if anything did
    run_id: int | None = None  # its id in the history once saved
    save_error: str | None = None  # why the history could not store it
    document: dict | None = None  # the JSON document of what was measured
    started: float = field(default_factory=time.monotonic)  # time.monotonic() at Run benchmark
    seconds: float = 0.0  # how long it ran, once done

    def queued(self, holder: str | None, waited: float) -> None:
        """BENCH_LOCK's wait callback: note the wait; a cancel lands here too."""
        self.waited = waited
        if self.cancel.is_set():
            raise _Cancel

    def progress(self, cell: CellProgress) -> None:
        """run_sweep's callback, after every step: note where it is; a cancel lands here."""
        self.fraction, self.cell = cell.fraction, cell
        if self.cancel.is_set():
            raise _Cancel

    def run(self) -> None:
        """The thread's body: the sweep under the server-wide lock, then save what it measured."""
        try:
            with BENCH_LOCK.hold(self.who, on_wait=self.queued, poll=POLL_SECONDS):
                self.waited = None
                for result in run_sweep(self.plan, caps=self.caps, progress=self.progress):
                    self.results.append(result)
        except _Cancel:
            self.cancelled = True
        except Exception as error:  # noqa: BLE001 - whatever ended the sweep, what it measured is kept
            _LOG.exception("The benchmark thread ended with an error")
            self.error = f"{type(error).__name__}: {error}"
        finally:
            self.seconds = time.monotonic() - self.started
            self._save()
            self.done.set()

    def _save(self) -> None:
        """Store the cells measured; if the history cannot, keep the document for the page to show."""
        if not self.results:
            return
        self.document = make_document(self.results, self.plan)
        try:
            self.run_id = history().save(self.document, "page")
        except ValueError as error:
            self.save_error = str(error)


def start_benchmark(plan: SweepPlan, caps: Caps) -> None:
    """Start ``plan`` in a background thread (it queues for the server-wide lock); the page polls it."""
    if running():
        raise ValueError(t("bench.job.still_running"))
    who = st.session_state.setdefault(SESSION, uuid.uuid4().hex[:6])
    st.session_state.pop(MESSAGE, None)
    job = Job(plan, caps, who)
    st.session_state[RUNNING] = job
    threading.Thread(target=job.run, name=f"linecnn-bench-{who}", daemon=True).start()


def running() -> bool:
    """True while this session's benchmark is in flight."""
    job = st.session_state.get(RUNNING)
    return job is not None and not job.done.is_set()


def render_job() -> None:
    """This session's running benchmark: progress, queue and Cancel (polled until it ends)."""
    if st.session_state.get(RUNNING) is not None:
        _job_fragment()


@st.fragment(run_every=POLL_SECONDS)
def _job_fragment() -> None:
    """Redrawn every POLL_SECONDS on its own (the rest of the page does not rerun) until the job ends."""
    job: Job | None = st.session_state.get(RUNNING)
    if job is None:
        return
    if job.done.is_set():
        # The whole page, where finish_job shows the run: the history's multiselect takes its new
        # value only in a run that sets it before drawing it, which a fragment run cannot.
        st.rerun()
    if job.waited is not None:
        st.info(t("bench.job.queued", seconds=number(job.waited)), icon=":material/hourglass_top:")
    if job.cancel.is_set():
        st.caption(t("bench.job.cancelling"))
    else:
        st.button(
            t("bench.job.cancel"),
            key=CANCEL,
            icon=":material/stop_circle:",
            help=t("bench.job.cancel_help"),
            on_click=job.cancel.set,
        )
    st.progress(job.fraction, text=progress_label(job.cell))
    if job.results:
        st.caption(cell_line(job.results[-1], len(job.results), len(job.plan.cells())))
    st.caption(t("bench.job.background"))


def finish_job() -> None:
    """At the top of the page: once this session's benchmark has ended, show its run and its message."""
    job: Job | None = st.session_state.get(RUNNING)
    if job is not None and job.done.is_set():
        st.session_state.pop(RUNNING)
        _finish(job)


def _finish(job: Job) -> None:
    """Show the ended job's run (from memory if the history could not store it) and leave its message."""
    if job.run_id is not None:
        # Saved, but the history may not list now (locked, corrupt): render_history says why.
        with contextlib.suppress(ValueError):
            show_run(job.run_id)
    elif job.document is not None:
        st.session_state[UNSAVED] = [job.document, *st.session_state.get(UNSAVED, [])][:MAX_UNSAVED]
    st.session_state[MESSAGE] = outcome(job)


def outcome(job: Job) -> tuple[str, str]:
    """(kind, markdown) saying how a finished benchmark ended: done, cancelled, capped, failed, not saved."""
    results, cells = job.results, len(job.plan.cells())
    where = (
        t("bench.done.where_run", run=job.run_id) if job.run_id is not None else t("bench.done.where_memory")
    )
    if job.cancelled:
        if not results:
            return "info", t("bench.done.cancelled_early")
        kind, text = "info", t("bench.done.cancelled", done=len(results), cells=cells, where=where)
    elif job.error is not None:
        kind = "error"
        text = t("bench.done.error", done=len(results), cells=cells, error=escape_markdown(job.error))
        if results:
            text += " " + t("bench.done.error_kept", where=where)
    else:
        kind, text = _summary(job)
    if job.save_error is not None:
        kind = "error" if kind == "error" else "warning"
        text += " " + t("bench.done.not_saved", error=escape_markdown(job.save_error))
    return kind, text


def _summary(job: Job) -> tuple[str, str]:
    """(kind, text) for a benchmark that ran to its end (or to the server's time cap)."""
    results, plan, caps = job.results, job.plan, job.caps
    skipped = sum(r["status"].startswith(("skipped", "stopped")) for r in results)
    oom = sum(r["status"] == "out of memory" for r in results)
    failed = [r["status"] for r in results if r["status"].startswith("failed")]
    name = t("bench.done.where_run", run=job.run_id) if job.run_id is not None else t("bench.done.unsaved")
    text = t("bench.done.ok", seconds=duration(job.seconds), name=name, cells=len(results))
    kind = "success"
    if skipped:
        kind = "warning"
        text += " " + t("bench.done.capped", cap=duration(caps.max_seconds or 0), skipped=skipped)
    if oom:
        kind = "warning"
        text += " " + t("bench.done.oom", oom=oom)
    noisy = sum(r["status"] == OK and r["p75_ms"] > WIDE_SPREAD * r["p25_ms"] for r in results)
    if noisy:
        kind = "warning"
        text += " " + t("bench.done.noisy", noisy=noisy, factor=number(WIDE_SPREAD, 1))
    if failed:
        kind = "warning"
        first = failed[0].removeprefix("failed: ").rstrip(".")
        text += " " + t("bench.done.failed", failed=len(failed), first=escape_markdown(first))
    if plan.notes:
        kind = "warning"
        text += " " + " ".join(plan.notes)
    if not any(r["status"] == OK for r in results):
        kind = "error" if failed else "warning"
        text += " " + t("bench.done.none_timed")
    return kind, text


def show_message() -> None:
    """The message about the last run; kept until the next run starts, so a rerun cannot lose it."""
    message = st.session_state.get(MESSAGE)
    if message is not None:
        kind, text = message
        {"success": st.success, "warning": st.warning, "error": st.error}.get(kind, st.info)(text)


def cell_line(result: dict, done: int, total: int) -> str:
    """'Cell 3 of 14 · cpu · 1,200 images: 7.7 ms/epoch' (or the cell's status)."""
    what = f"{result['device']} · {x_text(result['factor'], result['x'], exact=True)}"
    ended = f"{ms_text(result['median_ms'])}" if result["status"] == OK else status_text(result["status"])
    return t("bench.job.cell_done", done=done, total=total, what=what, outcome=ended)
