"""A sweep as the Benchmark page's background work: its cells one by one, then saved to the history.

The timing itself is the CLI's ``linecnn.bench.sweep``, run in a worker process of its own
(``linecnn.bench.in_worker``): a thread of the web server would share the interpreter lock with every
session's script runs. ``job.Job`` runs ``SweepRun.work`` in its thread, which only reads the worker.
What was measured is saved by that thread, even if the session that started it is gone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from linecnn.bench.document import BenchDocument, BenchEnv
from linecnn.bench.in_worker import run_in_worker
from linecnn.bench.plan import Caps, SweepPlan
from linecnn.bench.results import CellResult
from linecnn.bench.store import History
from linecnn.bench.sweep import CellProgress, make_document, retimed
from linecnn.jobs.job import Job


@dataclass
class SweepRun:
    """A sweep's plan and what it measured; the job's thread writes it, the page only reads it."""

    plan: SweepPlan  # the cells to time
    caps: Caps  # this server's limits
    results: list[CellResult] = field(default_factory=list)  # one per finished cell, in order
    env: BenchEnv = field(default_factory=BenchEnv.here)  # the machine (then the worker's), the date
    document: BenchDocument | None = None  # what was measured, once the sweep has ended
    run_id: int | None = None  # its id in the history once saved
    save_error: ValueError | None = None  # why the history could not store it
    base: BenchDocument | None = None  # a run whose doubtful cells these re-time; None: a run of its own
    owner: tuple[str, str] = ("", "")  # who started it when signed in: e-mail and name, else empty

    def work(self, job: Job[SweepRun, CellProgress]) -> SweepRun:
        """The job's work: time the cells in a worker (a cancel ends it at once), then save what was measured.

        The job holds this run from its start (``job.result``), so the page sees each cell as it ends.
        """
        progress = lambda cell: job.report(cell.fraction, cell)  # noqa: E731
        try:
            cells = run_in_worker(
                self.plan,
                caps=self.caps,
                progress=progress,
                cancel=job.cancel,
                on_env=self.worker_env,
                watch=job.watch,
            )
            for result in cells:
                self.results.append(result)  # one at a time: the page shows each as it ends
        finally:
            self.save()
        return self

    def worker_env(self, env: BenchEnv) -> None:
        """Keep the worker's environment (the CPU threads the cells ran on), dated when the run started."""
        self.env = replace(env, date=self.env.date)

    def save(self) -> None:
        """Store the cells measured; if the history cannot, keep the document for the page to show."""
        if not self.results:
            return
        self.document = (
            make_document(self.plan, self.results, self.env)
            if self.base is None
            else retimed(self.base, self.results, self.env)
        )
        try:
            self.run_id = History().save(self.document, "page", *self.owner)
        except ValueError as error:
            self.save_error = error
