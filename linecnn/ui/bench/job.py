"""The Benchmark page's running benchmark: a background thread, its progress and Cancel, its end.

The timing itself is ``linecnn.bench.sweep``; this module only drives it. A benchmark runs in a
background thread that never calls Streamlit, so touching a widget (which reruns the page) or
leaving the page does not stop it; a fragment polls it for the progress bar.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from dataclasses import dataclass, field

import streamlit as st

from linecnn.bench.document import BenchDocument, BenchEnv
from linecnn.bench.lock import BENCH_LOCK
from linecnn.bench.plan import Caps, SweepPlan
from linecnn.bench.results import CellResult
from linecnn.bench.sweep import CellProgress, make_document, run_sweep
from linecnn.stop import Stopped, StopReason
from linecnn.ui.bench.outcome import cell_line, outcome
from linecnn.ui.bench.state import MESSAGE, history, keep_unsaved, show_run
from linecnn.ui.bench.words import progress_label
from linecnn.ui.i18n import number, t

_LOG = logging.getLogger(__name__)

RUNNING = "bench.running"  # this session's Job, from Run benchmark until the page has shown its end
SESSION = "bench.session"  # a short name for this session in the queue
CANCEL = "bench.cancel"  # key of the Cancel button
POLL_SECONDS = 0.5  # how often the page redraws a running benchmark's progress


@dataclass
class Job:
    """A benchmark running in a background thread; the thread writes it, the page only reads it.

    The thread never calls Streamlit, so reruns and page switches cannot stop it; what it
    measured is saved by the thread itself, even if the session that started it is gone.
    """

    plan: SweepPlan  # the cells to time
    caps: Caps  # this server's limits
    who: str  # the session's short name, for the queue
    results: list[CellResult] = field(default_factory=list)  # one per finished cell, in order
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
    document: BenchDocument | None = None  # what was measured
    started: float = field(default_factory=time.monotonic)  # time.monotonic() at Run benchmark
    env: BenchEnv = field(default_factory=BenchEnv.here)  # the machine, and the date the run started
    seconds: float = 0.0  # how long it ran, once done

    def queued(self, holder: str | None, waited: float) -> None:
        """BENCH_LOCK's wait callback: note the wait; a cancel lands here too."""
        self.waited = waited
        if self.cancel.is_set():
            raise Stopped(StopReason.CANCELLED, "cancelled while queued")

    def progress(self, cell: CellProgress) -> None:
        """run_sweep's callback, at each phase and epoch (never inside one): note where the sweep is."""
        self.fraction, self.cell = cell.fraction, cell

    def run(self) -> None:
        """The thread's body: the sweep under the server-wide lock, then save what it measured."""
        try:
            with BENCH_LOCK.hold(self.who, on_wait=self.queued, poll=POLL_SECONDS):
                self.waited = None
                cells = run_sweep(self.plan, caps=self.caps, progress=self.progress, cancel=self.cancel)
                for result in cells:  # one at a time: the page shows each as it ends
                    self.results.append(result)
        except Stopped as stop:
            self.cancelled = stop.reason is StopReason.CANCELLED
            self.error = None if self.cancelled else str(stop)
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
        self.document = make_document(self.plan, self.results, self.env)
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
        st.caption(cell_line(job.plan.factor, job.results[-1], len(job.results), len(job.plan.cells())))
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
        keep_unsaved(job.document)
    st.session_state[MESSAGE] = outcome(job)
