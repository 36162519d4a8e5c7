"""The Benchmark page's background job: one run at a time per server, its progress, Cancel and end.

A sweep (``jobs.sweep``) and a data-parallel series (``jobs.ranks``) are both a ``Job``: a thread that
waits for the server-wide benchmark turn, runs its work function and keeps what it returns. The
thread never calls Streamlit (this module does not import it), so touching a widget or leaving the
page does not stop it; a fragment polls the job for the progress bar.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from linecnn.classroom import reservation
from linecnn.classroom.allowance import LEDGER
from linecnn.classroom.bench_turns import BENCH_TURNS
from linecnn.classroom.line import Lease, Wait
from linecnn.classroom.reservation import Reservation
from linecnn.jobs.absence import Absence
from linecnn.stop import Stopped, StopReason

_LOG = logging.getLogger(__name__)

POLL_SECONDS = 0.5  # how often a queued job checks for a cancel, and the page redraws its progress

Result = TypeVar("Result")  # what the work keeps: a sweep's cells, a series' rows
Step = TypeVar("Step")  # where the work is, for the progress bar's label: a cell, a torchrun launch


@dataclass
class Job(Generic[Result, Step]):
    """A run in a background thread; the thread writes it, the page only reads it (and sets ``cancel``).

    ``work(job)`` runs in the benchmark's turn. It reports through ``report`` and ``check`` (where a
    cancel lands as Stopped), keeps what it has so far with ``keep`` and returns its result.
    """

    who: str  # the session's short name, shown in the benchmark line
    work: Callable[[Job[Result, Step]], Result]  # the run type's work
    result: Result | None = None  # what the work has kept or returned
    waited: float | None = None  # seconds queued behind another session's benchmark, while queued
    in_turn: bool = False  # holds the benchmark turn: the work is under way
    fraction: float = 0.0  # share of the work done, for the progress bar
    step: Step | None = None  # where the work is; None before its first report
    cancel: threading.Event = field(default_factory=threading.Event)  # set by the Cancel button
    done: threading.Event = field(default_factory=threading.Event)  # set when the thread has ended
    cancelled: bool = False  # the user cancelled it
    error: str | None = None  # what ended it unexpectedly (a killed rank, a bug), if anything did
    started: float = field(default_factory=time.monotonic)  # time.monotonic() at Run
    seconds: float = 0.0  # how long it ran, once done
    lease: Lease | None = None  # its hold on the benchmark turn, beaten at every check
    student: bool = False  # started by a student: a teacher's reservation made while it waits ends it
    reserved: Reservation | None = None  # the reservation that ended it before its turn, if one did
    absence: Absence | None = None  # watches the browser of the session that started it; None: no browser
    abandoned: bool = False  # cancelled because that browser had gone (``absence``), not by a click

    def start(self, name: str) -> None:
        """Run the job in a daemon thread called ``name``."""
        threading.Thread(target=self.run, name=name, daemon=True).start()

    def check(self) -> None:
        """Raise Stopped (cancelled) once the Cancel button was pressed, or (no progress) once the turn was
        taken back; the work calls it between steps, which also tells the line that the job advances.

        A job whose browser has gone (``absence``) is cancelled here, as its Cancel would have been."""
        self.watch()
        if self.cancel.is_set():
            raise Stopped(StopReason.CANCELLED)
        if self.lease is not None:
            self.lease.check()
            self.lease.beat()

    def watch(self) -> None:
        """Cancel the job, as its Cancel would, once its browser has gone (``absence``), so the benchmark
        turn (or its place in the line) goes to the next in line; log it. Work that waits on something
        long between checks calls it as it polls for a cancel."""
        if self.cancel.is_set() or self.absence is None or not self.absence.gone():
            return
        seconds = self.absence.away_for()
        self.abandoned = True
        self.cancel.set()
        _LOG.warning(
            "A benchmark's browser (session %s) stopped answering for %.0f s %s: the run was cancelled as "
            "its Cancel would have been, what it had finished kept, and %s went to the next in line.",
            self.who,
            seconds,
            "while it ran" if self.in_turn else "while it waited for its turn",
            "the benchmark turn" if self.in_turn else "its place in the line",
        )

    def report(self, fraction: float, step: Step) -> None:
        """Note where the work is; a cancel lands here too."""
        self.fraction, self.step = fraction, step
        self.check()

    def keep(self, result: Result) -> None:
        """Keep what the work has measured so far, whatever ends it later."""
        self.result = result

    def queued(self, wait: Wait) -> None:
        """The wait callback in BENCH_TURNS: note the wait; a cancel or a teacher's reservation lands here."""
        self.waited = wait.seconds
        self.check()
        self._check_reserved()

    def _check_reserved(self) -> None:
        """A student's job that has not started yet leaves the line once a teacher holds the benchmark:
        it would otherwise start in the middle of the teacher's demonstration."""
        held = reservation.current() if self.student else None
        if held is not None:
            self.reserved = held
            raise Stopped(StopReason.CANCELLED)

    def run(self) -> None:
        """The thread's body: the work in the server-wide benchmark turn, then how it ended."""
        try:
            ticket = f"job-{id(self):x}"  # one place per job, even for two jobs of one session
            with BENCH_TURNS.hold(ticket, self.queued, POLL_SECONDS, who=self.who) as self.lease:
                self._check_reserved()  # reserved between its last wait and its turn
                self.waited, self.in_turn = None, True
                taken = time.monotonic()
                try:
                    self.keep(self.work(self))
                finally:
                    LEDGER.record(self.who, time.monotonic() - taken)  # the session's share of the benchmark
        except Stopped as stop:
            self.cancelled = stop.reason is StopReason.CANCELLED
            self.error = None if self.cancelled else stop.args[0]  # a Message stays one: said in any language
        except Exception as error:  # noqa: BLE001 - whatever ended it, what it kept is shown
            _LOG.exception("The benchmark thread ended with an error")
            # A ValueError's sentence (a Message for a UserError) is shown as it is; anything else is a bug.
            said = isinstance(error, ValueError) and len(error.args) == 1 and isinstance(error.args[0], str)
            self.error = error.args[0] if said else f"{type(error).__name__}: {error}"
        finally:
            self.seconds = time.monotonic() - self.started
            self.done.set()
