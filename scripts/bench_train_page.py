"""Train page in a real browser vs the bare core, same config, measured side by side in one run.

    python scripts/bench_train_page.py [--repeats 5] [--epochs 120] [--device cpu] [--settle 1]
                                       [--page-threads N]

Page time: from the pointer going down on Start until the final metrics (the summary) are in
the page, measured with the page's own clock, in
Debian's Chromium driven by Playwright against a fresh `streamlit run app.py`.
Core time: building the Trainer (data and model) plus its whole run, in this process, twice:
with torch's default CPU threads (what `python -m linecnn train` uses) and with the thread
count the page trains on (`limits.cpu_threads_for`: one thread for small steps, because the
browser and the server share the machine; `--page-threads` sets the page's count instead, through
$LINECNN_TRAIN_THREADS). The second ratio isolates what the page itself adds.
Runs alternate page, core, core, page, ... after an idle pause each, so that machine noise and
the browser's leftover drawing hit all three alike.
It also counts the page's runs whose summary the training run itself showed (Start still disabled
when it appeared); a summary shown only by the rerun after the run came behind the whole page.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from linecnn.device import cpu_threads, environment, resolve  # noqa: E402
from linecnn.device_ops import synchronize  # noqa: E402
from linecnn.train.config import RunConfig  # noqa: E402
from linecnn.train.limits import cpu_threads_for  # noqa: E402
from linecnn.train.trainer import Trainer  # noqa: E402
from linecnn.ui.train.sharing import TRAIN_THREADS_ENV  # noqa: E402
from tests.helpers import CHROMIUM_ARGS, StreamlitServer, find_chromium, wait_for_app  # noqa: E402


def core_seconds(config: RunConfig, device, threads: int | None = None) -> tuple[float, float]:
    """Wall time of building the run and training it to the end (on ``threads`` CPU threads),
    and the training loop's own time as the run's records report it."""
    with cpu_threads(device, threads):
        synchronize(device)
        start = time.perf_counter()
        trainer = Trainer(config, device)
        for _ in trainer.run():
            pass
        synchronize(device)
        return time.perf_counter() - start, trainer.history[-1].elapsed_seconds


# Both marks use the page's own clock: from the pointer going down on Start to the run's
# summary heading entering the DOM. Playwright's own click and polling latency stay out.
# The end mark reads only what each change of the page added (a new subtree's textContent, or the
# heading around a changed text), never the whole page's innerText: that forces a style and layout
# pass on every change, which a reader's browser does not do and which would count in the page's time.
MARK_SCRIPT = """(heading) => { window.__summaryShown = new Promise((resolve) => {
    let clicked = null;
    const mark = () => { clicked = performance.now(); };
    document.addEventListener('pointerdown', mark, {once: true, capture: true});
    const shows = (node) => {
        const around = node.nodeType === Node.TEXT_NODE ? node.parentElement
            : node.nodeType === Node.ELEMENT_NODE ? node : null;
        const text = around && (around.closest('h1, h2, h3, h4, h5, h6') ?? around).textContent;
        return Boolean(text && text.includes(heading));
    };
    const observer = new MutationObserver((changes) => {
        if (clicked === null) return;
        const found = changes.some((change) => change.type === 'characterData'
            ? shows(change.target) : Array.from(change.addedNodes).some(shows));
        if (found) {
            observer.disconnect();
            // Start is disabled while the run that trained is live, enabled again by the rerun after it
            const start = document.querySelector('.st-key-train-buttons button');
            const seconds = (performance.now() - clicked) / 1000;
            resolve({seconds, fromRun: Boolean(start && start.disabled)});
        }
    });
    observer.observe(document.body, {subtree: true, childList: true, characterData: true});
}); }"""


AWAIT_SCRIPT = """(timeout) => Promise.race([window.__summaryShown, new Promise((_, reject) =>
    setTimeout(() => reject(new Error(`no run summary within ${timeout} ms`)), timeout))])"""
SUMMARY_TIMEOUT_MS = 120_000


def page_seconds(tab, run_number: int) -> tuple[float, float, bool]:
    """Click Start; seconds from the click until this run's summary is in the page, the training
    loop's own time, read back from the summary's "ms per epoch over N epochs" line, and whether the
    summary came from the run that trained (False: only from the rerun after it, behind the whole page)."""
    heading = f"Summary · Run {run_number} "
    tab.evaluate(MARK_SCRIPT, heading)  # arms the marks; the promise settles on the summary
    tab.get_by_role("button", name="Start").click()
    # Awaits the mark's promise: polling for the heading (a locator's wait_for) would search the
    # whole page every 20-500 ms on the browser's main thread, work a reader's browser does not do.
    shown = tab.evaluate(AWAIT_SCRIPT, SUMMARY_TIMEOUT_MS)
    line = tab.get_by_text("ms per epoch over").inner_text()
    ms_per_epoch, epochs = re.search(r"([\d.]+) ms per epoch over (\d+) epochs", line).groups()
    wait_for_app(tab)  # let the rerun after the last epoch settle before the next click
    return shown["seconds"], float(ms_per_epoch) * int(epochs) / 1000, shown["fromRun"]


def main() -> int:
    """Alternate page and core runs and print the medians and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=120)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--settle", type=float, default=1.0, help="idle seconds before each measurement")
    parser.add_argument("--page-threads", type=int, help="CPU threads the page trains on (default: policy)")
    args = parser.parse_args()
    device = resolve(args.device)
    config = RunConfig.from_flat(epochs=args.epochs)
    chromium = find_chromium()
    if chromium is None:
        print("Chromium not found: apt-get install -y chromium", file=sys.stderr)
        return 1

    server_env = {TRAIN_THREADS_ENV: str(args.page_threads)} if args.page_threads else {}
    os.environ.pop(TRAIN_THREADS_ENV, None)  # this process's value would leak into the server's
    page_threads = (args.page_threads or cpu_threads_for(config)) if device.type == "cpu" else None
    server = StreamlitServer(env=server_env).start()
    page_times, core_times, same_thread_times = [], [], []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            tab.goto(f"{server.url}/Train")
            wait_for_app(tab)
            if args.epochs != 120:
                tab.get_by_label("Epochs").fill(str(args.epochs))
                tab.get_by_label("Epochs").press("Enter")
                wait_for_app(tab)
            page_seconds(tab, 1)  # warm-up: the server's first run imports and initialises torch
            core_seconds(config, device)
            core_seconds(config, device, page_threads)
            for repeat in range(args.repeats):
                time.sleep(args.settle)
                page_times.append(page_seconds(tab, repeat + 2))
                time.sleep(args.settle)
                core_times.append(core_seconds(config, device))
                time.sleep(args.settle)
                same_thread_times.append(core_seconds(config, device, page_threads))
            browser.close()
    finally:
        server.stop()

    env = environment()
    print(f"{env.cpu_model}, {env.cpu_count} CPUs, torch {env.torch_version} ({env.torch_threads} threads)")
    print(f"config: {config.as_dict()} on {device}")
    page_label = f"{page_threads} thread(s)" if page_threads else "default threads"
    totals = {
        name: [t[0] for t in times]
        for name, times in (
            ("page click->summary", page_times),
            (f"core, {env.torch_threads} threads (CLI)", core_times),
            (f"core, {page_label} (as the page)", same_thread_times),
        )
    }
    page_total = totals["page click->summary"]
    for name, times in totals.items():
        print(f"{name:34}: median {statistics.median(times):.3f} s  {[round(t, 3) for t in times]}")
    for name, times in list(totals.items())[1:]:
        ratios = [p / c for p, c in zip(page_total, times, strict=True)]
        print(
            f"page / {name}: median of pairs {statistics.median(ratios):.2f} "
            f"({min(ratios):.2f}-{max(ratios):.2f}), ratio of medians "
            f"{statistics.median(page_total) / statistics.median(times):.2f}"
        )
    # Where the page's time goes: its training loop (as its summary reports it) against the
    # same loop in the core on the same threads, and everything outside the loop.
    page_loop = statistics.median(t[1] for t in page_times)
    core_loop = statistics.median(t[1] for t in same_thread_times)
    outside = statistics.median(total - loop for total, loop, _ in page_times)
    print(
        f"training loop, page vs core on the page's threads: median {page_loop:.3f} s "
        f"vs {core_loop:.3f} s ({page_loop / core_loop:.2f}x)"
    )
    print(f"page outside its loop (click, reruns, drawing): median {1000 * outside:.0f} ms")
    from_run = sum(t[2] for t in page_times)
    print(f"summary shown by the run that trained, not the rerun after it: {from_run} of {len(page_times)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
