"""Many browser sessions training at once, plus one benchmark, against one server.

    python scripts/load_test.py [--sessions 10] [--epochs 120] [--no-bench] [--hosted]

Starts `streamlit run app.py` (with --hosted: deploy/serve.py, the hosting profile and launcher a
class server runs) on a free loopback port (its own data directory), opens one
Chromium tab per session on the Train page, and presses Start in every tab as fast as it can,
while one more tab runs a single-cell benchmark. It then checks what a class would notice:

- errors: exception boxes on any page, and tracebacks in the server's log;
- results: each session's final validation accuracy and loss, as its summary shows them, against
  the same run trained alone first on the same server (and against the bare core);
- waiting: seconds from each click on Start to that run's summary (the page's own clock), with
  the median, the p95 and the worst;
- memory: the server process's resident memory at the end and its peak (VmHWM).

It prints a table and exits 1 when any session errs or differs from the run alone.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from linecnn.device import cpu_threads, environment  # noqa: E402
from linecnn.train.config import RunConfig  # noqa: E402
from linecnn.train.limits import cpu_threads_for  # noqa: E402
from linecnn.train.trainer import fit  # noqa: E402
from tests.helpers import CHROMIUM_ARGS, StreamlitServer, find_chromium, wait_for_app  # noqa: E402

RESULT_TIMEOUT_MS = 600_000
START_ANSWER_MS = 30_000  # a Start click with no Stop button or summary after this is clicked again
SHOWN = ("Validation accuracy", "Validation loss")  # the summary's metrics compared across sessions
# Tabs left in the background keep running their timers and rendering at full speed: Chromium
# otherwise throttles every tab but the front one, and the sessions would not be equal.
BROWSER_ARGS = [
    *CHROMIUM_ARGS,
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]
# Arms a promise in the tab that settles, on the tab's own clock, with the seconds from the next
# pointer press to the moment the page's text contains the given heading.
MARK_SCRIPT = """(heading) => { window.__result = new Promise((resolve) => {
    let pressed = null;
    document.addEventListener('pointerdown', () => { pressed = performance.now(); },
                              {once: true, capture: true});
    const observer = new MutationObserver(() => {
        if (pressed !== null && document.body.innerText.includes(heading)) {
            observer.disconnect();
            resolve((performance.now() - pressed) / 1000);
        }
    });
    observer.observe(document.body, {subtree: true, childList: true, characterData: true});
}); }"""


def shown_metrics(tab) -> dict[str, str]:
    """The summary's metric labels and values, as the page shows them."""
    tab.locator('[data-testid="stMetric"]', has_text=SHOWN[0]).first.wait_for()
    metrics = {}
    for box in tab.locator('[data-testid="stMetric"]').all():
        label = box.locator('[data-testid="stMetricLabel"]').inner_text().strip()
        metrics[label] = box.locator('[data-testid="stMetricValue"]').inner_text().strip()
    return metrics


def open_train(context, url: str, epochs: int, name: str):
    """A tab on the Train page with the epochs set."""
    print(f"opening {name}", flush=True)
    tab = context.new_page()
    tab.set_default_timeout(RESULT_TIMEOUT_MS)
    tab.goto(f"{url}/Train")
    wait_for_app(tab, timeout_ms=120_000)
    if epochs != RunConfig().train.epochs:
        field = tab.get_by_label("Epochs")
        field.fill(str(epochs))
        field.press("Enter")
        wait_for_app(tab, timeout_ms=120_000)
    return tab


def exceptions(tab) -> list[str]:
    """Texts of the exception boxes on a tab."""
    return [box.inner_text()[:200] for box in tab.locator('[data-testid="stException"]').all()]


def rss_kib(pid: int) -> tuple[int, int]:
    """Resident and peak resident memory of a process, in KiB (Linux /proc)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        fields[name] = value.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def save_screenshots(browser, folder: Path) -> None:
    """A screenshot of every open tab, so a stalled stage shows what each tab was showing."""
    tabs = [tab for context in browser.contexts for tab in context.pages]
    for number, tab in enumerate(tabs, start=1):
        path = folder / f"stalled-tab-{number}.png"
        tab.screenshot(path=str(path), full_page=True, timeout=30_000)
    print(f"a stage timed out; screenshots of the {len(tabs)} tabs are in {folder}", file=sys.stderr)


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile by the nearest-rank method (no interpolation between runs)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def press_start(tab, attempts: int = 3) -> int:
    """Click Start until the page answers (Stop enabled, or the summary); returns the clicks it took.

    Under heavy load a click can land while the page is still rerunning and be lost; a student
    would click again, so the script does too. The wait is counted from the first click.
    """
    stop = tab.get_by_role("button", name="Stop", disabled=False)
    answered = stop.or_(tab.get_by_text("Summary · Run 1")).first
    for attempt in range(1, attempts + 1):
        tab.get_by_role("button", name="Start").click()
        try:
            answered.wait_for(timeout=START_ANSWER_MS)
            return attempt
        except PlaywrightTimeout:
            print(f"a Start click got no answer in {START_ANSWER_MS // 1000} s; clicking again", flush=True)
    answered.wait_for()
    return attempts


def start_benchmark(context, url: str):
    """A tab that starts a single-cell benchmark of the lesson's size on the CPU; returns it."""
    tab = context.new_page()
    tab.set_default_timeout(RESULT_TIMEOUT_MS)
    tab.goto(f"{url}/Benchmark")
    wait_for_app(tab, timeout_ms=120_000)
    tab.get_by_role("radio", name="Single cell").click()
    wait_for_app(tab, timeout_ms=120_000)
    tab.get_by_role("button", name="Run benchmark").click()
    return tab


def drive(browser, url: str, args: argparse.Namespace) -> tuple:
    """The run alone, then every session at once (and the benchmark); what the tabs showed."""
    viewport = {"width": 1280, "height": 900}
    errors: list[str] = []
    alone = open_train(browser.new_context(viewport=viewport), url, args.epochs, "the tab alone")
    alone.evaluate(MARK_SCRIPT, "Summary · Run 1")
    press_start(alone)
    alone.get_by_text("Summary · Run 1").wait_for()
    alone_seconds = alone.evaluate("() => window.__result")
    print(f"the run alone is done: result after {alone_seconds:.2f} s", flush=True)
    wait_for_app(alone)
    reference = shown_metrics(alone)
    errors += exceptions(alone)
    alone.context.close()

    tabs = [
        open_train(browser.new_context(viewport=viewport), url, args.epochs, f"tab {n}")
        for n in range(1, args.sessions + 1)
    ]
    bench = None if args.no_bench else start_benchmark(browser.new_context(viewport=viewport), url)
    print(f"{len(tabs)} sessions open; pressing Start in each", flush=True)
    started = time.monotonic()
    clicks = []
    for tab in tabs:
        tab.evaluate(MARK_SCRIPT, "Summary · Run 1")
        clicks.append(press_start(tab))
    print(f"every session started; {sum(c > 1 for c in clicks)} needed a second click", flush=True)
    rows = []
    for number, tab in enumerate(tabs, start=1):
        tab.get_by_text("Summary · Run 1").wait_for()
        wait_for_app(tab)
        seconds = tab.evaluate("() => window.__result")
        shown = shown_metrics(tab)
        same = all(shown.get(name) == reference.get(name) is not None for name in SHOWN)
        rows.append((number, seconds, shown.get(SHOWN[0]), shown.get(SHOWN[1]), same))
        print(f"session {number}: result after {seconds:.2f} s", flush=True)
        errors += exceptions(tab)
    all_done = time.monotonic() - started
    bench_text = "not run"
    if bench is not None:
        bench.get_by_text("Benchmark done in").wait_for()
        bench_text = bench.get_by_text("Benchmark done in").inner_text().splitlines()[0]
        errors += exceptions(bench)
    return reference, alone_seconds, rows, errors, all_done, bench_text


def main() -> int:
    """Run the load, print the table and the summary; exit 1 on any error or mismatch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=120)
    parser.add_argument("--no-bench", action="store_true", help="leave out the concurrent benchmark")
    parser.add_argument("--hosted", action="store_true", help="serve via deploy/serve.py, as a class does")
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        print("Chromium not found: apt-get install -y chromium", file=sys.stderr)
        return 1
    config = RunConfig.from_flat(epochs=args.epochs)
    with cpu_threads("cpu", cpu_threads_for(config)):
        core = fit(config, "cpu").history[-1]
    core_shown = dict(zip(SHOWN, (f"{core.val_acc:.1%}", f"{core.val_loss:.4g}"), strict=True))

    data_dir = Path(tempfile.mkdtemp(prefix="linecnn-load-"))
    script = "deploy/serve.py" if args.hosted else "app.py"
    server = StreamlitServer(env={"LINECNN_DATA_DIR": str(data_dir)}, script=script).start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
            try:
                load = drive(browser, server.url, args)
            except PlaywrightTimeout:
                save_screenshots(browser, data_dir)
                raise
            browser.close()
        rss, peak = rss_kib(server.process.pid)
    finally:
        server.stop()
    reference, alone_seconds, rows, errors, all_done, bench_text = load
    log = server.log_path.read_text(errors="replace")
    errors += [f"server log: {line}" for line in log.splitlines() if "Traceback" in line]

    env = environment()
    print(f"{env.cpu_model}, {env.cpu_count} CPUs, torch {env.torch_version}; {config.as_dict()}")
    print(f"server: streamlit run {script}")
    for name, shown in (("run alone on the page", reference), ("bare core, same threads", core_shown)):
        print(f"{name}: val acc {shown.get('Validation accuracy')}, loss {shown.get('Validation loss')}")
    print(f"{'session':>7}  {'click->result':>13}  {'val acc':>8}  {'val loss':>9}  same as alone")
    for number, seconds, acc, loss, same in rows:
        print(f"{number:>7}  {seconds:>11.2f} s  {acc!s:>8}  {loss!s:>9}  {'yes' if same else 'NO'}")
    waits = [row[1] for row in rows]
    print(
        f"click->result over {len(waits)} sessions: median {statistics.median(waits):.2f} s, "
        f"p95 {percentile(waits, 95):.2f} s, worst {max(waits):.2f} s; all done in {all_done:.1f} s"
    )
    print(f"the same run alone on the page: {alone_seconds:.2f} s from click to result")
    print(f"benchmark beside them: {bench_text}")
    print(f"server memory: RSS {rss / 1024:.0f} MiB at the end, peak {peak / 1024:.0f} MiB")
    print(f"errors: {len(errors)}")
    for error in errors:
        print(f"  {error}")
    mismatches = sum(not row[4] for row in rows)
    print(f"results different from the run alone: {mismatches}")
    return 1 if errors or mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
