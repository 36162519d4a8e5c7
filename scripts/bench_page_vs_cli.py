"""Do the Benchmark page and the CLI measure the same thing? Time the same cells both ways, side by side.

    python scripts/bench_page_vs_cli.py [--up-to 36000] [--rounds 4] [--busy 0] [--thread]

The page's path is its background job exactly (``Job`` running ``SweepRun.work``: a worker process
fed the plan, read by a thread), here without Streamlit. The CLI's path is the command the page's
CUDA card suggests (``linecnn.bench.command.cli_line``, CPU only, ``--no-save``) run as a user runs
it. Both time the page's default data sweep (or ``--up-to`` a smaller one) with the same warm-up and
repeats. Rounds alternate the order (page first, then the CLI first, ...); a cell's figure is the
median over rounds of page median / CLI median; the page's figure is the median over its cells.
``--busy N`` keeps N pure-Python threads spinning in this process meanwhile, as N sessions' script
runs do in a web server; ``--thread`` adds the path the page avoids (``run_sweep`` in a thread of this
process) for comparison. Prints a table, the median over cells and the load average; exits 1 when
a cell's ratio is off by more than the tolerance (±20 %).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LINECNN_DATA_DIR", tempfile.mkdtemp(prefix="linecnn-page-vs-cli-"))

from linecnn.bench.command import cli_line  # noqa: E402
from linecnn.bench.config import BenchConfig  # noqa: E402
from linecnn.bench.costfit import fit_costs  # noqa: E402
from linecnn.bench.document import BenchDocument  # noqa: E402
from linecnn.bench.factors import FACTORS  # noqa: E402
from linecnn.bench.plan import Caps, SweepRequest  # noqa: E402
from linecnn.bench.sweep import run_sweep  # noqa: E402
from linecnn.jobs.job import Job  # noqa: E402
from linecnn.jobs.sweep import SweepRun  # noqa: E402

TOLERANCE = 0.20
ROOT = Path(__file__).resolve().parent.parent


def medians(results: list) -> dict[int, float]:
    """Median ms per epoch by cell size, for the timed cells."""
    return {r.config.images: r.median_ms for r in results if r.ok}


def page(request: SweepRequest) -> dict[int, float]:
    """The page's path: its Job running a SweepRun (a worker process), waited for."""
    run = SweepRun(request.plan(Caps()), Caps())
    job = Job("page-vs-cli", run.work, run)
    job.start("linecnn-bench-page-vs-cli")
    job.done.wait()
    if job.error:
        raise RuntimeError(job.error)
    return medians(run.results)


def in_thread(request: SweepRequest) -> dict[int, float]:
    """The path the page avoids: ``run_sweep`` in a thread of this process."""
    found: dict[int, float] = {}
    thread = threading.Thread(target=lambda: found.update(medians(list(run_sweep(request.plan(Caps()))))))
    thread.start()
    thread.join()
    return found


def cli(request: SweepRequest, folder: Path) -> dict[int, float]:
    """The CLI's path: the page's suggested command (CPU only), its JSON read back."""
    out = folder / "cli.json"
    words = [*shlex.split(cli_line(request, out=str(out)))[1:], "--devices", "cpu"]  # without "python"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # A session of its own, as a command typed in a terminal has: with the kernel's autogroup
    # scheduling, a child left in this process's session shares its CPU share with the --busy
    # threads, while the page's worker (a session of its own) does not, and the two diverge.
    subprocess.run(
        [sys.executable, *words], check=True, env=env, capture_output=True, text=True, start_new_session=True
    )
    return medians(list(BenchDocument.from_json(out.read_text()).results))


def fit_error(found: dict[int, float]) -> float:
    """How far the page's per-step + per-image line misses one run's medians (full-batch steps)."""
    images = sorted(found)
    steps = [BenchConfig().with_run(per_class=n // 3).steps for n in images]
    return fit_costs(steps, images, [found[n] for n in images]).max_error


def spin(stop: threading.Event) -> None:
    """A pure-Python loop holding the interpreter lock whenever it can, like a page's script run."""
    count = 0
    while not stop.is_set():
        count += 1


def main() -> int:
    """Alternate the paths for some rounds; print per-cell ratios and the load average."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--up-to", type=int, default=36_000, help="largest data size (36000, the page's)")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds (4)")
    parser.add_argument("--busy", type=int, default=0, help="Python threads spinning in this process (0)")
    parser.add_argument("--thread", action="store_true", help="also time the old in-thread path")
    args = parser.parse_args()
    request = SweepRequest(BenchConfig(), FACTORS["data"], ("cpu",), args.up_to)
    stop = threading.Event()
    for _ in range(args.busy):
        threading.Thread(target=spin, args=(stop,), daemon=True).start()
    paths = {"page": page, "cli": None, **({"thread": in_thread} if args.thread else {})}
    times: dict[str, list[dict[int, float]]] = {name: [] for name in paths}
    loads = []
    with tempfile.TemporaryDirectory() as folder:
        for index in range(args.rounds):
            order = list(paths) if index % 2 == 0 else list(reversed(paths))
            for name in order:
                run = paths[name] or (lambda r: cli(r, Path(folder)))
                times[name].append(run(request))
                loads.append(os.getloadavg()[0])
                found = ", ".join(f"{n:,}: {ms:.2f}" for n, ms in sorted(times[name][-1].items()))
                print(f"round {index + 1} {name} (ms by images) {found}; load {loads[-1]:.1f}", flush=True)
    stop.set()
    return report(times, loads, args)


def report(times: dict[str, list[dict[int, float]]], loads: list[float], args: argparse.Namespace) -> int:
    """The table: per cell, each path's median ms and the median over rounds of its ratio to the CLI."""
    others = [name for name in times if name != "cli"]
    print(f"{'images':>8} {'cli ms':>9} " + " ".join(f"{n + ' ms':>10} {n + '/cli':>11}" for n in others))
    worst = 0.0
    summary = {}
    for images in sorted(times["cli"][0]):
        cli_ms = [round_[images] for round_ in times["cli"]]
        row = f"{images:>8,} {statistics.median(cli_ms):>9.2f} "
        for name in others:
            ms = [round_.get(images, float("nan")) for round_ in times[name]]
            ratio = statistics.median(a / b for a, b in zip(ms, cli_ms, strict=True))
            row += f"{statistics.median(ms):>10.2f} {ratio:>11.2f} "
            summary.setdefault(name, {})[images] = round(ratio, 3)
            if name == "page":
                worst = max(worst, abs(ratio - 1))
        print(row)
    overall = {name: statistics.median(summary.get(name, {}).values() or [float("nan")]) for name in others}
    for name, median in overall.items():
        print(f"median {name}/CLI over {len(summary.get(name, {}))} cells: {median:.2f}")
    cores = os.cpu_count()
    print(f"load average during the runs: {min(loads):.2f} to {max(loads):.2f} on {cores} cores; ", end="")
    print(f"{args.busy} busy Python threads in this process; {args.rounds} rounds")
    figures = {
        "ratios": summary,
        "median": {name: round(median, 3) for name, median in overall.items()},
        "load": [min(loads), max(loads)],
        "cores": cores,
        "busy": args.busy,
    }
    print(json.dumps(figures))
    for name, rounds in times.items():
        errors = [fit_error(round_) for round_ in rounds]
        print(f"'Where the time goes' fit error, {name}: " + ", ".join(f"{e:.0%}" for e in errors))
    verdict = "PASS" if worst <= TOLERANCE else "FAIL"
    print(f"{verdict}: the page's medians are within {worst:.0%} of the CLI's (tolerance ±{TOLERANCE:.0%})")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
