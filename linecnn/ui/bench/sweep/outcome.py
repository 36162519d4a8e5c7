"""What the Benchmark page says about a run: one finished cell while it runs, how the whole run ended."""

from __future__ import annotations

from linecnn.bench.factors import Factor
from linecnn.bench.results import CellResult, CellStatus
from linecnn.jobs.job import Job
from linecnn.jobs.sweep import SweepRun
from linecnn.ui.bench.job_view import cancelled_text
from linecnn.ui.bench.state import history_problem
from linecnn.ui.bench.words import ms_text, status_text, x_text
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import count, duration, number, say, t
from linecnn.ui.roles import reserved_stop_text


def outcome(job: Job[SweepRun, object]) -> tuple[str, str]:
    """(kind, markdown) saying how a finished benchmark ended: done, cancelled, capped, failed, not saved."""
    run = job.result
    assert run is not None  # a benchmark's job holds its SweepRun from the start (running.start_benchmark)
    results, cells = run.results, count(len(run.plan.cells()))
    done = number(len(results))
    where = (
        t("bench.done.where_run", run=run.run_id) if run.run_id is not None else t("bench.done.where_memory")
    )
    if job.reserved is not None:  # a teacher reserved the benchmark while it waited
        return "info", reserved_stop_text(job.reserved)
    if job.cancelled:
        if not job.in_turn:  # cancelled in the queue, behind another session's benchmark
            return "info", cancelled_text(job, t("bench.done.cancelled_queued"))
        if not results:
            return "info", cancelled_text(job, t("bench.done.cancelled_early"))
        text = t("bench.done.cancelled", done=done, cells=cells, where=where)
        kind, text = "info", cancelled_text(job, text)
    elif job.error is not None:
        kind = "error"
        text = t("bench.done.error", done=done, cells=cells, error=say(job.error))
        if results:
            text += " " + t("bench.done.error_kept", where=where)
    else:
        kind, text = _summary(run, job.seconds)
    if run.save_error is not None:
        kind = "error" if kind == "error" else "warning"
        text += " " + t("bench.done.not_saved", error=history_problem(run.save_error))
    return kind, text


def _summary(run: SweepRun, seconds: float) -> tuple[str, str]:
    """(kind, text) for a benchmark that ran to its end (or to the server's time cap), in ``seconds``."""
    results, plan, caps = run.results, run.plan, run.caps
    skipped = sum(r.status in (CellStatus.SKIPPED, CellStatus.STOPPED) for r in results)
    oom = sum(r.status is CellStatus.OUT_OF_MEMORY for r in results)
    failed = [r.reason for r in results if r.status is CellStatus.FAILED]
    name = t("bench.done.where_run", run=run.run_id) if run.run_id is not None else t("bench.done.unsaved")
    text = t("bench.done.ok", seconds=duration(seconds), name=name, cells=count(len(results)))
    kind = "success"
    if skipped:
        kind = "warning"
        text += " " + t("bench.done.capped", cap=duration(caps.max_seconds or 0), skipped=count(skipped))
    if oom:
        kind = "warning"
        text += " " + t("bench.done.oom", oom=count(oom))
    noisy = sum(bool(r.disturbed) for r in results)
    if noisy:
        kind = "warning"
        text += " " + t("bench.done.noisy", noisy=count(noisy))
    if failed:
        kind = "warning"
        first = failed[0].rstrip(".")
        text += " " + t("bench.done.failed", failed=count(len(failed)), first=escape_markdown(first))
    if plan.notes:
        kind = "warning"
        text += " " + " ".join(say(note) for note in plan.notes)
    if not any(r.ok for r in results):
        kind = "error" if failed else "warning"
        text += " " + t("bench.done.none_timed")
    return kind, text


def cell_line(factor: Factor, result: CellResult, done: int, total: int) -> str:
    """'Cell 3 of 14 · cpu · 1,200 images: 7.7 ms/epoch' (or the cell's status)."""
    what = f"{result.device} · {x_text(factor.name, factor.x(result.config), exact=True)}"
    ended = ms_text(result.median_ms) if result.ok else escape_markdown(status_text(result))
    return t("bench.job.cell_done", done=done, total=total, what=what, outcome=ended)
