"""A benchmark whose browser has gone (its tab closed or reloaded) is cancelled, as its Cancel would have
been, once that browser has stayed away for the grace period: the benchmark turn goes to the next in line."""

from __future__ import annotations

import logging
import threading
from types import SimpleNamespace

import pytest

from linecnn.classroom.bench_turns import BENCH_TURNS
from linecnn.jobs.absence import GRACE_SECONDS, Absence
from linecnn.jobs.job import Job

JOIN = 10.0  # seconds a test waits for a thread it expects to end; a hang fails instead of blocking


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_browser_away_for_the_whole_grace_period_is_gone_and_one_back_in_time_starts_anew():
    """Away at every check for the grace period: gone. A check that finds it connected again (a phone
    woken, a cut mended) starts the count from zero; outside a server (None) nothing is ever gone."""
    clock, answers = Clock(), iter([False, False, True, False, False, False])
    absence = Absence(lambda: next(answers), grace=10.0, clock=clock)
    assert not absence.gone()  # first seen away at 100
    clock.now = 109.9
    assert not absence.gone()
    clock.now = 112.0
    assert not absence.gone()  # connected again: the count starts over
    clock.now = 113.0
    assert not absence.gone()  # away again from 113
    clock.now = 122.9
    assert not absence.gone() and absence.away_for() == pytest.approx(9.9)
    clock.now = 123.0
    assert absence.gone()
    clock.now = 1_000.0
    assert not Absence(lambda: None, clock=clock).gone()
    assert not Absence(lambda: True, clock=clock).gone()


def test_the_grace_period_outlasts_a_live_pages_reconnect_tries_and_is_seconds_not_minutes():
    """A live page retries its connection at most 4 s apart: two tries fit in the grace; a closed tab's
    run must not hold the class's benchmark turn for long."""
    assert 2 * 4.0 <= GRACE_SECONDS <= 30.0


def test_a_running_job_whose_browser_left_is_cancelled_keeps_its_steps_and_says_so_in_the_log(caplog):
    """Steps go on while the browser is away for less than the grace; the first check past it cancels the
    run as Cancel does (what it kept stays), marks why, and logs one line."""
    clock, connected = Clock(), iter([True, False, False, False, False])
    steps: list[int] = []

    def work(job: Job) -> list[int]:
        for step in range(5):
            job.report(step / 5, step)
            steps.append(step)
            job.keep(list(steps))
            clock.now += GRACE_SECONDS / 2
        return steps

    job = Job("s-away", work, absence=Absence(lambda: next(connected), clock=clock))
    with caplog.at_level(logging.WARNING, logger="linecnn.jobs.job"):
        job.run()
    # checks: connected at step 0, away from step 1; step 3 is the first a full grace period later
    assert job.cancelled and job.abandoned and job.cancel.is_set() and job.error is None
    assert job.result == [0, 1, 2] and steps == [0, 1, 2]
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 1 and "s-away" in lines[0] and "stopped answering for 10 s while it ran" in lines[0]
    assert "went to the next in line" in lines[0]
    assert not BENCH_TURNS.busy


def test_a_queued_job_whose_browser_left_leaves_the_line_and_its_work_never_starts():
    """Queued behind another benchmark when its tab closes, the job leaves the line once the grace has
    passed, as a Cancel in the queue does."""
    ran: list[bool] = []
    clock = Clock()
    job = Job("s-queued", lambda job: ran.append(True), absence=Absence(lambda: False, clock=clock))
    with BENCH_TURNS.hold("first"):
        thread = threading.Thread(target=job.run, daemon=True)
        thread.start()
        while job.waited is None:
            threading.Event().wait(0.05)
        assert not job.done.is_set()  # away, but not yet for the grace period
        clock.now += GRACE_SECONDS
        assert job.done.wait(JOIN)
    thread.join(JOIN)
    assert job.cancelled and job.abandoned and not job.in_turn and ran == [] and not BENCH_TURNS.busy


def test_a_cancel_clicked_in_time_is_not_called_an_absence():
    """A job cancelled by its own button says nothing of a browser gone, even if the browser left later."""
    job = Job("s-click", lambda job: job.report(0.5, None), absence=Absence(lambda: False, grace=0.0))
    job.cancel.set()
    job.run()
    assert job.cancelled and not job.abandoned


@pytest.mark.parametrize(
    ("language", "why"),
    [
        ("en", "Your browser stopped answering, so after 10 s without it the server cancelled this"),
        ("es", "Tu navegador dejó de responder, así que tras 10 s sin él el servidor canceló esta"),
    ],
)
def test_a_returning_session_reads_why_its_benchmark_was_cancelled(monkeypatch, language, why):
    """If the very session comes back after the cancel, the run's end says why it stopped, before what
    Cancel says; a run cancelled by a click reads as before."""
    from linecnn.ui import i18n
    from linecnn.ui.bench.sweep.outcome import outcome

    monkeypatch.setattr(i18n, "current", lambda: language)
    plan = SimpleNamespace(cells=lambda: [1, 2])
    run = SimpleNamespace(results=[], plan=plan, run_id=None, save_error=None)
    ended = {"result": run, "cancelled": True, "in_turn": True, "error": None, "reserved": None}
    kind, text = outcome(SimpleNamespace(**ended, abandoned=True))
    clicked = outcome(SimpleNamespace(**ended, abandoned=False))[1]
    assert kind == "info" and text.startswith(why) and text.endswith(" " + clicked)
    assert not clicked.startswith(why[:10])


def test_a_sweep_waiting_on_a_long_epoch_is_cancelled_at_the_workers_next_poll_not_its_next_step():
    """Between two progress lines a big cell's epoch may take a minute: the wait for the worker asks the
    job's watch at each poll, so an abandoned sweep ends as soon as a Cancel click would end it."""
    from linecnn.bench.heartbeat import worker_timeout
    from linecnn.bench.in_worker import _next
    from linecnn.procs.beat import Silence
    from linecnn.procs.child import Lines
    from linecnn.stop import Stopped, StopReason

    clock = Clock()
    job = Job("s-epoch", lambda job: None, absence=Absence(lambda: False, clock=clock))
    polls: list[float] = []

    def watch() -> None:
        polls.append(clock.now)
        clock.now += GRACE_SECONDS / 2
        job.watch()

    with pytest.raises(Stopped) as stopped:
        _next(Lines(), job.cancel, None, Silence(worker_timeout()), watch)  # the worker says nothing
    assert stopped.value.reason is StopReason.CANCELLED and job.abandoned and len(polls) == 3
