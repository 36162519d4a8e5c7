"""The human output of ``python -m linecnn bench``: the results table, crossovers, disturbed cells, notes."""

from __future__ import annotations

from linecnn.bench.crossover import crossover
from linecnn.bench.document import BenchDocument
from linecnn.bench.plan import SweepPlan
from linecnn.bench.results import WIDE_SPREAD, CellResult


def print_results(document: BenchDocument, plan: SweepPlan) -> None:
    """The human output: the table, each accelerator's crossover with the CPU, and the plan's notes."""
    print(bench_table(document))
    for line in disturbed_lines(document):
        print(line)
    timed = [result for result in document.results if result.ok]
    cpu = {document.x(r): r.median_ms for r in timed if r.device == "cpu" and r.median_ms is not None}
    for device in dict.fromkeys(r.device for r in document.results if r.device != "cpu"):
        other = {document.x(r): r.median_ms for r in timed if r.device == device and r.median_ms is not None}
        found = crossover(cpu, other, plan.factor, name=device)
        if found is not None:
            print(found.verdict)
    for note in plan.notes:
        print(note)


def bench_table(document: BenchDocument) -> str:
    """Results as a fixed-width table, one line per cell."""
    lines = [
        f"{'device':<8} {'images':>9} {'batch':>6} {'width':>5} {'convs':>5} {'variant':<14} "
        f"{'median ms':>10} {'p25-p75 ms':>17} {'samples/s':>11} {'threads/cores':>13}  status"
    ]
    lines += [_row(result, document.env.cpu_count) for result in document.results]
    return "\n".join(lines)


def _row(r: CellResult, cores: int | None) -> str:
    """One cell's line of the table; a disturbed cell's status says what disturbed it."""
    c = r.config
    median = f"{r.median_ms:.2f}" if r.ok else "-"
    spread = f"{r.p25_ms:.2f}-{r.p75_ms:.2f}" if r.ok else "-"
    rate = f"{r.samples_per_s:,.0f}" if r.ok else "-"
    status = r.status_text
    if r.waited_runs:
        runs = f"{r.waited_runs} training run" + ("s" if r.waited_runs > 1 else "")
        status += f", {runs} waited {r.waited_seconds:.1f} s"
    if r.disturbed:
        status += ", disturbed: " + "; ".join(_reason(code, r, cores) for code in r.disturbed)
    return (
        f"{r.device:<8} {c.images:>9,} {c.step_size:>6,} {c.run.model.width:>5} {c.conv_layers:>5} "
        f"{c.variant:<14} {median:>10} {spread:>17} {rate:>11} {_had(r):>13}  {status}"
    )


def _had(r: CellResult) -> str:
    """'2/2 of 2': the CPU threads a cell ran on, the cores it owned, of the machine's ('?' unknown)."""
    if r.cores is None:
        return "?"
    threads = "-" if r.threads is None else str(r.threads)
    return f"{threads}/{r.cores} of {r.machine_cores or '?'}"


def _reason(code: str, r: CellResult, cores: int | None) -> str:
    """One reason a cell is disturbed, in a few words for the table."""
    if code == "load":
        load = "?" if r.load_average is None else f"{r.load_average:.1f}"
        return f"load average {load} on {cores or '?'} cores"
    if code == "spread":
        return f"p75 over {WIDE_SPREAD}x p25"
    if code == "cores":
        share = "?" if r.run_queue is None else f"{100 * r.run_queue:.0f}"
        return f"its threads waited {share} % of the time for a core"
    return "a Train run shared its cores"


DISTURBED = (
    "A disturbed cell was timed while something else used the machine (a load average above the core "
    "count, a wide spread of its epochs, its threads kept waiting for a core, or a Train run of this "
    "server): its median is less trustworthy "
    "than it looks, so repeat it when the machine is quiet."
)


def disturbed_lines(document: BenchDocument) -> list[str]:
    """What 'disturbed' means, once, when a cell of the table is; nothing when every cell was quiet."""
    return [DISTURBED] if any(r.disturbed for r in document.results) else []
