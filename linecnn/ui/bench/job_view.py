"""What the Benchmark page shows of any background ``Job``: its start, the queue, Cancel, the progress bar.

The sweep (``sweep.running``) and the Processes / GPUs section (``data_parallel.section``) each keep
their job under a session key of their own and say things in their own words (a catalog prefix); the
rest is here.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from linecnn.jobs.absence import GRACE_SECONDS, Absence
from linecnn.jobs.job import Job
from linecnn.ui.bench.fair import may_benchmark, queue_text, session_name
from linecnn.ui.focus import keep_focus, key_selector
from linecnn.ui.i18n import number, t
from linecnn.ui.presence import connection
from linecnn.ui.roles import session_rights


def start_job(key: str, work: Callable[[Job], object], name: str, result: object = None) -> Job:
    """Start ``work`` as this session's job under ``key`` (a thread called ``name``-<session>).

    ``result``, if given, is what the job holds from the start (a sweep's plan, before any cell).
    Raises ValueError, saying why, when this session may not benchmark now (``fair.may_benchmark``).
    The job is cancelled once this session's browser has gone for good (``jobs.absence``): a closed or
    reloaded tab cannot see or cancel it, and it would hold the class's benchmark turn.
    """
    refusal = may_benchmark()
    if refusal is not None:
        raise ValueError(refusal)
    who = session_name()
    job = Job(who, work, result, student=not session_rights().teacher, absence=Absence(connection()))
    st.session_state[key] = job
    job.start(f"{name}-{who}")
    return job


def cancelled_text(job: Job, text: str) -> str:
    """``text`` (how a cancelled job ended), after why the server cancelled it if its browser had gone."""
    if not job.abandoned:
        return text
    return t("bench.job.browser_gone", seconds=number(GRACE_SECONDS)) + " " + text


def keep_job_focus(name: str, cancel_key: str, start: str) -> None:
    """Keyboard focus goes from ``start`` (a selector) to Cancel when a job starts, and back at its end."""
    keep_focus(name, [[key_selector(cancel_key) + " button", start]])


def running(key: str) -> bool:
    """True while this session's job under ``key`` is in flight."""
    job = st.session_state.get(key)
    return job is not None and not job.done.is_set()


def take_ended(key: str) -> Job | None:
    """This session's job under ``key`` once it has ended, taken out of the session; None otherwise."""
    job = st.session_state.get(key)
    if job is None or not job.done.is_set():
        return None
    return st.session_state.pop(key)


def job_controls(job: Job, words: str, cancel_key: str, label: str, cancel_help: str | None = None) -> None:
    """Inside a polling fragment: the queued message, Cancel (or 'cancelling'), then the progress bar.

    ``words`` is the catalog prefix of ``queued``, ``cancel`` and ``cancelling``. Once the job has
    ended the whole page reruns, where its view shows the end (a fragment run cannot change the rest).
    """
    if job.done.is_set():
        st.rerun()
    if job.waited is not None:
        st.info(t(f"{words}.queued", seconds=number(job.waited)), icon=":material/hourglass_top:")
        queue = queue_text()
        if queue is not None:
            st.caption(queue)
    if job.cancel.is_set():
        st.caption(t(f"{words}.cancelling"))
    else:
        st.button(
            t(f"{words}.cancel"),
            key=cancel_key,
            icon=":material/stop_circle:",
            help=cancel_help,
            on_click=job.cancel.set,
        )
    st.progress(job.fraction, text=label)
