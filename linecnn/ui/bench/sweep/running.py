"""The Benchmark page's running sweep: a ``Job`` of a ``SweepRun``, its progress, Cancel and end.

The job (``linecnn.jobs.job``) runs in a background thread that never calls Streamlit; a fragment
polls it here.
"""

from __future__ import annotations

import contextlib
from functools import partial

import streamlit as st

from linecnn.bench.document import BenchDocument
from linecnn.bench.plan import Caps, SweepPlan
from linecnn.jobs.job import POLL_SECONDS, Job
from linecnn.jobs.sweep import SweepRun
from linecnn.ui import notice
from linecnn.ui.bench import job_view
from linecnn.ui.bench.fair import session_caps
from linecnn.ui.bench.state import MESSAGE, keep_unsaved, show_run
from linecnn.ui.bench.sweep.outcome import cell_line, outcome
from linecnn.ui.bench.words import progress_label
from linecnn.ui.focus import key_selector, submit_selector
from linecnn.ui.follow import follow_runs
from linecnn.ui.i18n import t

RUNNING = "bench.running"  # this session's Job, from Run benchmark until the page has shown its end
CANCEL = "bench.cancel"  # key of the Cancel button
FORM = "bench.settings"  # key of the settings form, whose Run benchmark starts the job
RUN_KEY = "bench-run"  # the container of the run's message, progress and results (the page's)
# Run benchmark brings the run's container to the top for this long, unless the reader takes over:
# a default sweep's cells on a loaded class server, and the page's rerun at its end.
FOLLOW_SECONDS = 300


def start_benchmark(
    plan: SweepPlan, caps: Caps, base: BenchDocument | None = None, owner: tuple[str, str] = ("", "")
) -> None:
    """Start ``plan`` in a background thread (it queues for the server-wide lock); the page polls it.

    With ``base``, the plan re-times some of that run's cells, and the run is saved with them replaced.
    ``owner``: who started it (e-mail and name) when signed in, kept with the run in the history.
    """
    if running():
        raise ValueError(t("bench.job.still_running"))
    st.session_state.pop(MESSAGE, None)
    run = SweepRun(plan, session_caps(caps), base=base, owner=owner)
    job_view.start_job(RUNNING, run.work, "linecnn-bench", result=run)


def running() -> bool:
    """True while this session's benchmark is in flight."""
    return job_view.running(RUNNING)


def render_job() -> None:
    """This session's running benchmark: progress, queue and Cancel (polled until it ends)."""
    job_view.keep_job_focus("bench", CANCEL, submit_selector(FORM))
    follow_runs("bench", submit_selector(FORM), key_selector(RUN_KEY), FOLLOW_SECONDS)
    if st.session_state.get(RUNNING) is not None:
        _job_fragment()


@st.fragment(run_every=POLL_SECONDS)
def _job_fragment() -> None:
    """Redrawn every POLL_SECONDS on its own (the rest of the page does not rerun) until the job ends."""
    job: Job | None = st.session_state.get(RUNNING)
    if job is None:
        return
    # On its end the whole page reruns, where finish_job shows the run: the history's multiselect
    # takes its new value only in a run that sets it before drawing it, which a fragment run cannot.
    label = t("bench.job.starting") if job.in_turn and job.step is None else progress_label(job.step)
    job_view.job_controls(job, "bench.job", CANCEL, label, cancel_help=t("bench.job.cancel_help"))
    run = job.result
    assert run is not None  # the job holds its SweepRun from the start (start_benchmark)
    if run.results:
        st.caption(cell_line(run.plan.factor, run.results[-1], len(run.results), len(run.plan.cells())))
    st.caption(t("bench.job.background"))


def finish_job() -> None:
    """At the top of the page: once this session's benchmark has ended, show its run and its message."""
    job = job_view.take_ended(RUNNING)
    if job is not None:
        _finish(job)


def _finish(job: Job[SweepRun, object]) -> None:
    """Show the ended job's run (from memory if the history could not store it) and leave its message."""
    run = job.result
    assert run is not None  # the job holds its SweepRun from the start (start_benchmark)
    if run.run_id is not None:
        # Saved, but the history may not list now (locked, corrupt): render_history says why.
        with contextlib.suppress(ValueError):
            show_run(run.run_id)
    elif run.document is not None:
        keep_unsaved(run.document)
    notice.keep(MESSAGE, partial(outcome, job))
