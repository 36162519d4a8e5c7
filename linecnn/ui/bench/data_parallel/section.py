"""The Benchmark page's "Processes / GPUs" factor: data-parallel runs through torchrun, progress, cancel.

The runs are a ``job.Job`` of ``linecnn.jobs.ranks``' work, in a background thread that never calls Streamlit,
in the server-wide benchmark turn, polled by a fragment as the sweep is. The settings form is in
``data_parallel.form`` and the results in ``data_parallel.results``.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from linecnn.bench.plan import Caps
from linecnn.jobs.job import POLL_SECONDS
from linecnn.jobs.ranks import RanksJob, ranks_work
from linecnn.parallel.config import RanksConfig, check_ranks
from linecnn.parallel.memory import check_memory
from linecnn.parallel.results import LOSS_TOLERANCE, Series
from linecnn.ui import notice
from linecnn.ui.bench import job_view
from linecnn.ui.bench.data_parallel.form import FORM, form
from linecnn.ui.bench.data_parallel.results import render_series
from linecnn.ui.focus import submit_selector
from linecnn.ui.i18n import count, duration, say, t
from linecnn.ui.roles import reserved_refusal, reserved_stop_text

RUNNING = "ddp.running"  # this session's RanksJob, from Run until the page has shown its end
CANCEL = "ddp.cancel"  # key of the Cancel button
RESULT = "ddp.result"  # the last Series measured, shown until the next run ends
MESSAGE = "ddp.message"  # a Notice (ui.notice) about the last run


def running() -> bool:
    """True while this session's data-parallel job is in flight."""
    return job_view.running(RUNNING)


def render(caps: Caps) -> None:
    """The factor's section: settings, Run, progress with Cancel, the last result and its explanation."""
    _finish()
    job_view.keep_job_focus("ddp", CANCEL, submit_selector(FORM))
    st.subheader(t("ddp.title"))
    st.markdown(t("ddp.intro"))
    submitted, config, counts = form(caps, busy=running())
    if submitted:  # the last series' message must not sit above this press's refusal
        st.session_state.pop(MESSAGE, None)
    notice.show(MESSAGE)
    refusal = reserved_refusal() if submitted else None  # a teacher holds the benchmark: teachers only
    if refusal is not None:
        st.error(refusal, icon=":material/lock_clock:")
    elif submitted:
        try:
            _start(config(), counts, caps)
        except ValueError as error:
            st.error(say(error), icon=":material/error:")
    if st.session_state.get(RUNNING) is not None:
        _job_fragment()
    series = st.session_state.get(RESULT)
    if series is not None and series.rows:
        render_series(series)
    st.caption(t("ddp.multi_node"))


def _start(config: RanksConfig, counts: list[int], caps: Caps) -> None:
    """Check the counts, then start the series in a background thread."""
    if running():
        raise ValueError(t("ddp.still_running"))
    if not counts:
        raise ValueError(t("ddp.no_ranks"))
    counts = check_ranks(counts, config)
    check_memory(config, counts)
    st.session_state.pop(MESSAGE, None)
    job_view.start_job(RUNNING, ranks_work(config, counts, caps), "linecnn-ddp")


@st.fragment(run_every=POLL_SECONDS)
def _job_fragment() -> None:
    """Progress, queue and Cancel, redrawn on their own until the job ends; then the whole page reruns."""
    job: RanksJob | None = st.session_state.get(RUNNING)
    if job is not None:
        job_view.job_controls(job, "ddp", CANCEL, _progress_text(job))


def _progress_text(job: RanksJob) -> str:
    """Where the job is: queued for its turn, training the reference, starting a run, or its epoch."""
    if not job.in_turn:
        return t("ddp.waiting")
    launch = job.step
    if launch is None:
        return t("ddp.reference")
    if launch.done == 0:
        return t("ddp.progress_start", ranks=count(launch.ranks))
    return t("ddp.progress_epoch", ranks=count(launch.ranks), done=launch.done, total=launch.total)


def _finish() -> None:
    """Once this session's job has ended, keep its rows and say how it ended."""
    job: RanksJob | None = job_view.take_ended(RUNNING)
    if job is None:
        return
    if job.result is not None and job.result.rows:
        st.session_state[RESULT] = job.result
    notice.keep(MESSAGE, partial(_ending, job, job.result))


def _ending(job: RanksJob, series: Series | None) -> tuple[str, str]:
    """(st function name, text) saying how the job ended: cancelled, failed, mismatched, capped or done."""
    runs = len(series.rows) if series is not None else 0
    tolerance = f"{LOSS_TOLERANCE:.0e}"
    if job.reserved is not None:  # a teacher reserved the benchmark while it waited
        return "info", reserved_stop_text(job.reserved)
    if job.cancelled:
        return "info", job_view.cancelled_text(job, t("ddp.cancelled", runs=runs))
    if job.error is not None:
        return "error", t("ddp.failed", error=say(job.error))
    if series is not None and series.mismatch:
        counts = ", ".join(str(n) for n in series.mismatch)
        return "error", t("ddp.mismatch", counts=counts, tolerance=tolerance)
    if series is not None and series.stopped:
        return "warning", t("ddp.stopped", runs=count(runs))
    return "success", t("ddp.done", seconds=duration(job.seconds), runs=count(runs), tolerance=tolerance)
