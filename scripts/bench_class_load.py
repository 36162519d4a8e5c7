"""A class on one server: sessions train while another times the Benchmark page's CPU sweep; then the
CLI times the same cells quiet, at the same thread count, side by side.

    python scripts/bench_class_load.py [--sessions 3] [--epochs 5000] [--up-to 36000] [--browsers idle]

Starts one `streamlit run app.py` on a free loopback port (its own data directory) and one Chromium.
N sessions open the Train page, set the epochs and press Start (the server's training queue decides
how many train at once; the others wait their turn, as in a class). Once a run trains, one more
session runs the Benchmark page's default data sweep (CPU) through the page. Every run then trains
to its end (the server's time cap per run is lifted, so a busy machine cannot cut a run short).
With the trainers gone (and the server stopped) the CLI times the same cells on the thread count the
page's cells used (``--threads``, pinned to that many cores). A quiet in-process ``fit`` of the same
run gives the reference metrics.

The browsers stand in for the students' laptops, so they must not take the server's cores from a
timed cell: Chromium (and Playwright's driver) run under SCHED_IDLE by default (``--browsers idle``:
a core only when the server leaves one free; Chromium's session's autogroup at nice 19 too, as the
kernel shares the CPU between sessions before it looks at policies), and where the server splits the cores
(``linecnn.classroom.cores``: a core is left over) on the cores left to the class too. ``--browsers
nice`` runs them at nice 19, ``--browsers shared`` as ordinary processes (as a class never would:
for comparison). Everything the server does (Streamlit's threads, the sessions' reruns and chart
deltas, training, the benchmark worker) keeps its ordinary priority and counts. Run it on a machine
with no other work: there the browsers get the cores the class leaves free; on a machine kept busy
by others they get next to nothing and every stage crawls (the figures would say little anyway).

It prints per cell: page ms, CLI ms, page/CLI, the threads and cores the page's cell had, the
training runs that waited for it and for how long, and the share of time its threads waited for a
core; the median page/CLI with the criterion (±25 %); the waits imposed on training, per sweep and
per run; the load average during the page's sweep and the CLI's; the CPU the server, its worker and
the browsers used during the sweep and while the worker computed a cell; and whether each training
run ended with the same metrics as the quiet run. Exits 1 when a run's metrics differ or the median
is outside the criterion.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LINECNN_DATA_DIR", tempfile.mkdtemp(prefix="linecnn-class-load-"))

from playwright.sync_api import sync_playwright  # noqa: E402

from linecnn.bench.command import cli_line  # noqa: E402
from linecnn.bench.config import BenchConfig  # noqa: E402
from linecnn.bench.document import BenchDocument  # noqa: E402
from linecnn.bench.factors import FACTORS  # noqa: E402
from linecnn.bench.plan import SweepRequest  # noqa: E402
from linecnn.bench.runqueue import LIMIT  # noqa: E402
from linecnn.bench.store import History  # noqa: E402
from linecnn.classroom.cores import core_split  # noqa: E402
from linecnn.classroom.sharing import training_queue  # noqa: E402
from linecnn.device import cpu_threads, environment  # noqa: E402
from linecnn.train.config import RunConfig  # noqa: E402
from linecnn.train.limits import cpu_threads_for  # noqa: E402
from linecnn.train.trainer import fit  # noqa: E402
from scripts.class_cpu import PRIORITIES, CpuWatch, browser_launcher, descendants, describe, give_way_now  # noqa: E402
from scripts.load_test import BROWSER_ARGS, SHOWN, open_train, press_start, shown_metrics  # noqa: E402
from tests.helpers import StreamlitServer, find_chromium, wait_for_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CRITERION = 0.25  # the page's median over cells within ±25 % of the quiet CLI's, with a class training
BENCH_TIMEOUT_MS = 600_000


def browser_cores(split) -> tuple[int, ...]:  # noqa: ANN001 - a CoreSplit
    """The cores left to the class where the server splits them (the browsers run there), else none."""
    return split.rest if split.mode == "split" else ()


def run_page_sweep(context, url: str, up_to: int) -> None:
    """The Benchmark page's default sweep (data, CPU), up to ``up_to`` images, pressed through the page."""
    tab = context.new_page()
    tab.set_default_timeout(BENCH_TIMEOUT_MS)
    tab.goto(f"{url}/Benchmark")
    wait_for_app(tab, timeout_ms=120_000)
    if up_to != FACTORS["data"].up_to:
        tab.get_by_label("Sweep data size up to").click()
        tab.get_by_role("option", name=f"{up_to:,} images", exact=True).click()
        wait_for_app(tab, timeout_ms=120_000)
    tab.get_by_role("button", name="Run benchmark").click()
    tab.get_by_text("Benchmark done in").wait_for()
    wait_for_app(tab, timeout_ms=120_000)
    tab.screenshot(path=str(Path(os.environ["LINECNN_DATA_DIR"]) / "benchmark.png"), full_page=True)


def page_number(text: str) -> float:
    """A number as the English page writes it: '0.0123', '1,234' or '3.318 × 10⁻⁷' (a tiny loss)."""
    mantissa, _, power = text.replace(",", "").partition("× 10")
    exponent = power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")).strip()
    return float(mantissa) * 10.0 ** int(exponent) if exponent else float(mantissa)


def same_metrics(shown: dict[str, str], quiet) -> bool:  # noqa: ANN001 - an EpochRecord
    """Whether the summary's accuracy and loss (as the page rounds them) are the quiet run's."""
    try:
        accuracy = float(shown[SHOWN[0]].rstrip("%").strip()) / 100
        loss = page_number(shown[SHOWN[1]])
    except (KeyError, ValueError):
        return False
    return round(accuracy, 3) == round(quiet.val_acc, 3) and f"{loss:.4g}" == f"{quiet.val_loss:.4g}"


def waited_caption(tab) -> str:
    """The Train summary's sentence on the wait for a benchmark, or '-'."""
    found = tab.get_by_text("Waited ", exact=False)
    return found.first.inner_text().split(" between")[0] if found.count() else "-"


def cli_sweep(up_to: int, threads: int, folder: Path) -> BenchDocument:
    """The CLI's path: the page's suggested command, CPU only, on ``threads`` pinned threads, quiet."""
    out = folder / "cli.json"
    request = SweepRequest(BenchConfig(), FACTORS["data"], ("cpu",), up_to)
    words = [*shlex.split(cli_line(request, out=str(out)))[1:], "--devices", "cpu", "--threads", str(threads)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [sys.executable, *words], check=True, env=env, capture_output=True, text=True, start_new_session=True
    )
    return BenchDocument.from_json(out.read_text())


def main() -> int:
    """Train N sessions, time the page's sweep beside them, then the CLI's quiet; print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=3, help="sessions training (3)")
    parser.add_argument("--epochs", type=int, default=5000, help="epochs of each training run (5000)")
    parser.add_argument("--up-to", type=int, default=36_000, help="largest data size of the sweep (36000)")
    parser.add_argument(
        "--browsers",
        choices=PRIORITIES,
        default="idle",
        help="how the test's browsers share the machine (idle)",
    )
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        print("Chromium not found: apt-get install -y chromium", file=sys.stderr)
        return 1
    folder = Path(os.environ["LINECNN_DATA_DIR"])
    split = core_split()
    config = RunConfig.from_flat(epochs=args.epochs)
    started = time.monotonic()
    with cpu_threads("cpu", cpu_threads_for(config)):
        quiet = fit(config, "cpu").history[-1]
    alone_seconds = time.monotonic() - started
    reference = dict(zip(SHOWN, (f"{quiet.val_acc:.1%}", f"{quiet.val_loss:.4g}"), strict=True))
    print(f"quiet in-process run: {reference} in {alone_seconds:.1f} s", flush=True)

    # No time cap on the runs: each must train all its epochs, however busy the machine, to compare.
    server = StreamlitServer(
        env={"LINECNN_DATA_DIR": str(folder), "LINECNN_TRAIN_MAX_SECONDS": "inf"}
    ).start()
    rows, errors = [], []
    try:
        with sync_playwright() as playwright:
            # Playwright's driver runs already: it gives way as the browsers it starts will.
            server_side = {server.process.pid, *descendants(server.process.pid)}
            give_way_now([p for p in descendants(os.getpid()) if p not in server_side], args.browsers)
            browser = playwright.chromium.launch(
                executable_path=browser_launcher(chromium, browser_cores(split), args.browsers, folder),
                args=BROWSER_ARGS,
            )
            viewport = {"width": 1280, "height": 900}
            tabs = [
                open_train(browser.new_context(viewport=viewport), server.url, args.epochs, f"train tab {n}")
                for n in range(1, args.sessions + 1)
            ]
            for tab in tabs:
                press_start(tab)
            tabs[0].get_by_text(re.compile(r"^Epoch [\d,]+ / ")).first.wait_for()  # a run trains now
            print(f"{len(tabs)} sessions pressed Start; running the Benchmark page's sweep", flush=True)
            bench_started = time.monotonic()
            with CpuWatch(server.process.pid, os.getpid()) as watch:
                run_page_sweep(browser.new_context(viewport=viewport), server.url, args.up_to)
            bench_seconds = time.monotonic() - bench_started
            print(
                f"the page's sweep is done in {bench_seconds:.1f} s (CPU while the worker computed a cell: "
                f"{watch.computing.text()}); waiting for the runs to end",
                flush=True,
            )
            for number, tab in enumerate(tabs, start=1):
                title = tab.get_by_text(re.compile(r"^Summary · Run 1")).first
                title.wait_for(timeout=1_800_000)
                wait_for_app(tab)
                shown = shown_metrics(tab)
                same = same_metrics(shown, quiet)
                ended = "all epochs" if "stopped" not in title.inner_text() else title.inner_text()
                rows.append(
                    (number, shown.get(SHOWN[0]), shown.get(SHOWN[1]), same, waited_caption(tab), ended)
                )
                errors += [box.inner_text()[:200] for box in tab.locator('[data-testid="stException"]').all()]
            browser.close()
    finally:
        server.stop()
    history = History()  # the server's: the same data directory
    page_doc = next(history.load(run.id) for run in history.runs() if run.source == "page")
    page_cells = [r for r in page_doc.results if r.ok and r.device == "cpu"]
    threads = page_cells[0].threads or os.cpu_count()
    print(f"the server is stopped; the CLI times the same cells on {threads} threads", flush=True)
    with CpuWatch(0, 0) as cli_watch:
        cli_doc = cli_sweep(args.up_to, threads, folder)
    return report(args, split, page_cells, cli_doc, rows, errors, (watch, cli_watch), bench_seconds)


def report(args, split, page_cells, cli_doc, rows, errors, watches: tuple, bench_seconds: float) -> int:  # noqa: ANN001
    """The table and the verdicts."""
    env, (watch, cli_watch) = environment(), watches
    slots = training_queue("cpu").slots
    print(f"\n{env.cpu_model}, {len(split.cores)} cores, torch {env.torch_version}")
    mode = (
        f"split: a cell owns cores {list(split.bench)}, the class (server and browsers) {list(split.rest)}"
        if split.mode == "split"
        else f"alone: a cell owns all {len(split.cores)} cores, training waits between epochs meanwhile"
    )
    print(f"core reservation: {mode}")
    print(describe(args.browsers, browser_cores(split)))
    print(
        f"{args.sessions} sessions of {args.epochs} epochs, {slots} training slot(s) at once; page's sweep "
        f"{bench_seconds:.1f} s; load average during it {watch.load_text()}, during the CLI's "
        f"{cli_watch.load_text()}"
    )
    cli = {r.config.images: r for r in cli_doc.results if r.ok and r.device == "cpu"}
    ratios = cell_table(page_cells, cli)
    median = statistics.median(ratios) if ratios else float("nan")
    within = abs(median - 1) <= CRITERION
    print(
        f"median page/CLI over {len(ratios)} cells: {median:.2f} ({'within' if within else 'OUTSIDE'} "
        f"±{CRITERION:.0%})"
    )
    waited = sum(r.waited_seconds or 0.0 for r in page_cells)
    print(
        f"training waited for the sweep: {waited:.1f} s in all over {len(page_cells)} cells "
        f"(at most {max((r.waited_runs or 0 for r in page_cells), default=0)} run(s) at once)"
    )
    print(f"CPU during the page's sweep: {watch.total.text()}")
    print(f"CPU while the worker computed a cell: {watch.computing.text()}")
    print(f"{'session':>7} {'val acc':>8} {'val loss':>9}  same as quiet  waited for the benchmark  ended")
    for number, acc, loss, same, wait, ended in rows:
        print(f"{number:>7} {acc!s:>8} {loss!s:>9}  {'yes' if same else 'NO':>13}  {wait:>24}  {ended}")
    mismatches = sum(not row[3] for row in rows)
    print(f"runs with other metrics than the quiet run: {mismatches}; page errors: {len(errors)}")
    for error in errors:
        print(f"  {error}")
    summary = {
        "median_ratio": round(median, 3),
        "ratios": [round(x, 3) for x in ratios],
        "run_queue": [None if r.run_queue is None else round(r.run_queue, 3) for r in page_cells],
        "cli_run_queue": [None if r.run_queue is None else round(r.run_queue, 3) for r in cli.values()],
        "training_waited_s": round(waited, 2),
        "runs_waited": [row[4] for row in rows],
        "same_metrics": [row[3] for row in rows],
        "load": [watch.load_text(), cli_watch.load_text()],
        "browsers": args.browsers,
    }
    print(json.dumps(summary))
    return 0 if within and not mismatches and not errors else 1


def cell_table(page_cells, cli: dict) -> list[float]:  # noqa: ANN001
    """Print one line per cell (page against CLI, what the cell had); the page/CLI ratios."""
    print(
        f"{'images':>8} {'page ms':>9} {'cli ms':>9} {'page/cli':>9} {'threads/cores':>14} "
        f"{'runs waited':>12} {'run queue':>10}  disturbed"
    )
    ratios = []
    for r in page_cells:
        other = cli.get(r.config.images)
        ratio = r.median_ms / other.median_ms if other else float("nan")
        if other:
            ratios.append(ratio)
        had = f"{r.threads}/{r.cores} of {r.machine_cores}"
        waited = "?" if r.waited_runs is None else f"{r.waited_runs} · {r.waited_seconds:.1f} s"
        queue = "?" if r.run_queue is None else f"{r.run_queue:.0%}"
        cli_ms = f"{other.median_ms:.2f}" if other else "-"
        print(
            f"{r.config.images:>8,} {r.median_ms:>9.2f} {cli_ms:>9} {ratio:>9.2f} {had:>14} {waited:>12} "
            f"{queue:>10}  {', '.join(r.disturbed) or '-'}"
        )
    cli_queue = [f"{r.run_queue:.0%}" for r in cli.values() if r.run_queue is not None]
    print(f"CLI cells' threads waited for a core: {', '.join(cli_queue) or 'unknown'}")
    waits = [r.run_queue for r in (*page_cells, *cli.values()) if r.run_queue is not None]
    if any(wait > LIMIT for wait in waits):
        print(
            f"NOTE: some cells' threads waited over {LIMIT:.0%} of the time for a core (page or CLI): "
            "if the CPU lines below show little besides the worker, something outside this test used "
            "the machine, and the ratios say little; rerun it quiet"
        )
    return ratios


if __name__ == "__main__":
    sys.exit(main())
