"""The Benchmark page's one background job: how a run ends, whatever its work (no Streamlit, no torch)."""

from __future__ import annotations

import threading

from linecnn.classroom.bench_turns import BENCH_TURNS
from linecnn.jobs.job import Job
from linecnn.stop import Stopped, StopReason


def test_a_job_keeps_its_result_and_reports_its_progress():
    """The work's reports reach the job; what it returns is kept; it ends neither cancelled nor failed."""

    def work(job: Job) -> str:
        job.report(0.5, "half way")
        assert job.in_turn and job.waited is None
        return "measured"

    job = Job("test", work)
    job.run()
    assert job.done.is_set() and job.result == "measured" and (job.fraction, job.step) == (0.5, "half way")
    assert not job.cancelled and job.error is None


def test_a_killed_process_is_an_error_and_a_cancel_is_not():
    """Stopped (process killed) ends the job with its sentence; Stopped (cancelled) marks it cancelled."""

    def killed(job: Job) -> None:
        job.keep("first row")
        raise Stopped(StopReason.PROCESS_KILLED, "Rank 1 of 2 was killed by SIGKILL.")

    job = Job("test", killed)
    job.run()
    assert job.error == "Rank 1 of 2 was killed by SIGKILL." and not job.cancelled
    assert job.result == "first row"  # what was kept before the stop stays
    cancelled = Job("test", lambda job: job.report(0.1, None))
    cancelled.cancel.set()
    cancelled.run()
    assert cancelled.cancelled and cancelled.error is None


def test_cancel_while_queued_leaves_the_queue_without_running_the_work():
    """Queued behind another benchmark, Cancel ends the job there: its work never starts."""
    ran: list[bool] = []
    job = Job("second", lambda job: ran.append(True))
    with BENCH_TURNS.hold("first"):
        thread = threading.Thread(target=job.run)
        thread.start()
        while job.waited is None:
            threading.Event().wait(0.05)
        job.cancel.set()
        assert job.done.wait(10)
    thread.join(10)
    assert job.cancelled and ran == [] and not BENCH_TURNS.busy
