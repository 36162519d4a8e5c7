"""The Benchmark page's "Inside one step": torch.profiler's view of a training step on each device.

It profiles the lesson's cell and the largest cell of the sweep chosen above, as a ``job.Job`` in
the server-wide benchmark turn (``linecnn.jobs.inside``), polled by a fragment like the sweep; the figures,
chart, operator tables and trace downloads are drawn by ``inside_step.view``.
"""

from __future__ import annotations

import streamlit as st

from linecnn.bench.config import BenchConfig
from linecnn.bench.factors import FACTORS
from linecnn.bench.plan import Caps, SweepRequest
from linecnn.bench.profile import profile_targets
from linecnn.device import list_devices
from linecnn.jobs.inside import InsideJob, inside_work
from linecnn.jobs.job import POLL_SECONDS
from linecnn.ui import notice
from linecnn.ui.bench import job_view
from linecnn.ui.bench.inside_step.view import render_looked
from linecnn.ui.focus import key_selector
from linecnn.ui.i18n import number, say, t
from linecnn.ui.roles import reserved_stop_text

RUNNING = "inside.running"  # this session's InsideJob, from Look inside until the page has shown its end
CANCEL = "inside.cancel"  # key of the Cancel button
RUN = "inside.run"  # key of Look inside one step
RESULT = "inside.result"  # what the last look measured, shown until the next one ends
MESSAGE = "inside.message"  # a Notice (ui.notice) about the last look


def targets(caps: Caps) -> list[tuple[BenchConfig, str]]:
    """The lesson's cell and the largest cell of the sweep chosen above, on every device here."""
    factor = FACTORS[st.session_state.get("bench.factor") or "data"]
    up_to = st.session_state.get(f"bench.up_to.{factor.name}")
    devices = tuple(info.key for info in list_devices())
    plan = SweepRequest(BenchConfig(), factor, devices, up_to, compare_eager=False).plan(caps)
    return profile_targets(BenchConfig(), plan)


def render(caps: Caps, busy: bool) -> None:
    """The section: what it does, Look inside (off while another benchmark runs), progress, results."""
    _finish()
    job_view.keep_job_focus("inside", CANCEL, key_selector(RUN) + " button")
    st.subheader(t("inside.title"))
    try:
        chosen = targets(caps)
    except ValueError as error:
        st.error(say(error), icon=":material/error:")
        return
    sizes = sorted({config.step_size for config, _ in chosen})
    st.markdown(t("inside.intro", lesson=number(sizes[0]), largest=number(sizes[-1])))
    running = job_view.running(RUNNING)
    if st.button(t("inside.run"), icon=":material/biotech:", disabled=busy or running, key=RUN):
        st.session_state.pop(MESSAGE, None)  # the last look's message must not sit above this press's answer
        try:
            job_view.start_job(RUNNING, inside_work(chosen, caps.max_seconds), "linecnn-inside", result=[])
        except ValueError as error:  # a teacher's reservation, or this session's share used up
            st.error(str(error), icon=":material/lock_clock:")
    notice.show(MESSAGE)
    if st.session_state.get(RUNNING) is not None:
        _job_fragment()
    looked = st.session_state.get(RESULT)
    if looked:
        render_looked(looked)


@st.fragment(run_every=POLL_SECONDS)
def _job_fragment() -> None:
    """Progress and Cancel, redrawn on its own until the job ends (then the page reruns)."""
    job: InsideJob | None = st.session_state.get(RUNNING)
    if job is None:
        return
    label = t("inside.job.starting")
    if job.step is not None:
        config, device = job.step
        label = t("inside.job.step", device=device.upper(), images=number(config.step_size))
    job_view.job_controls(job, "inside.job", CANCEL, label)


def _finish() -> None:
    """Once the job has ended: keep what it measured and say how it ended."""
    job: InsideJob | None = job_view.take_ended(RUNNING)
    if job is None:
        return
    if job.result:
        st.session_state[RESULT] = job.result
    if job.reserved is not None:  # a teacher reserved the benchmark while it waited
        held = job.reserved
        notice.keep(MESSAGE, lambda: ("info", reserved_stop_text(held)))
    elif job.cancelled:
        said = lambda: t("inside.cancelled", done=number(len(job.result or [])))  # noqa: E731
        notice.keep(MESSAGE, lambda: ("info", job_view.cancelled_text(job, said())))
    elif job.error is not None:
        notice.keep(MESSAGE, lambda: ("error", t("inside.failed", reason=say(job.error))))
    else:
        st.session_state.pop(MESSAGE, None)
