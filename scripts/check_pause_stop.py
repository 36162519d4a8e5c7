"""Pause, Step and Stop clicked mid-run in a real browser: does the filed run match the model Draw uses?

    python scripts/check_pause_stop.py [--trials 7] [--epochs 5000] [--settle 1.0] [--seed 1]

Debian's Chromium, driven by Playwright, clicks through a fresh `streamlit run app.py` on a free
loopback port (stopped by its PID at the end), with Streamlit's defaults (runner.fastReruns on).
Each trial is one of three kinds, in turn:

- pause: Start, Pause after a random wait, read the epoch the page shows, wait, then Stop;
- step: the same, then Step once before Stop (the run must grow by exactly one epoch);
- stop: Start, Stop after a random wait.

After Stop the script waits ``--settle`` seconds (an old script thread would go on training
meanwhile), opens the Draw page, reads the run it offers, goes back to Train and reads the
filed run's epochs and weights fingerprint from the summary. The same config is trained here
in the core on the page's thread count, and its fingerprint after that many epochs must equal
the page's. Prints one row per trial; exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from linecnn.device import cpu_threads  # noqa: E402
from linecnn.train.config import RunConfig  # noqa: E402
from linecnn.train.diagnosis import weights_fingerprint  # noqa: E402
from linecnn.train.limits import cpu_threads_for  # noqa: E402
from linecnn.train.trainer import Trainer  # noqa: E402
from tests.helpers import CHROMIUM_ARGS, StreamlitServer, find_chromium, wait_for_app  # noqa: E402

KINDS = ("pause", "step", "stop")


class Reference:
    """The page's config trained here, one epoch at a time, remembering each epoch's fingerprint."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.trainer = Trainer(config, "cpu")
        self.prints: dict[int, str] = {}

    def fingerprint(self, epochs: int) -> str:
        with cpu_threads("cpu", cpu_threads_for(self.config)):
            for record in self.trainer.run(max_epochs=epochs - self.trainer.epoch):
                self.prints[record.epoch] = weights_fingerprint(self.trainer.model)
        return self.prints[epochs]


def shown_epoch(tab) -> int:
    """The epoch in the progress text, e.g. 'Epoch 40 / 5000 · ... · paused'."""
    text = tab.get_by_text(re.compile(r"^Epoch \d+ / \d+")).first.inner_text()
    return int(re.match(r"Epoch (\d+)", text).group(1))


def go_to(tab, name: str) -> None:
    """Follow the sidebar link to a page and wait until it is drawn."""
    tab.locator('[data-testid="stSidebar"]').get_by_role("link", name=name).click()
    tab.get_by_role("heading", name=name, exact=True).first.wait_for()
    wait_for_app(tab)


def one_trial(tab, url: str, kind: str, epochs: int, wait: float, settle: float) -> dict:
    """Start a run, click as ``kind`` says, file it, and read back what the page and Draw hold."""
    tab.goto(f"{url}/Train")
    wait_for_app(tab)
    field = tab.get_by_label("Epochs")
    field.fill(str(epochs))
    field.press("Enter")
    wait_for_app(tab)
    tab.get_by_role("button", name="Start").click()
    tab.get_by_text(re.compile(rf"^Epoch \d+ / {epochs}")).first.wait_for(timeout=60_000)
    time.sleep(wait)  # a random moment mid-run: the click must land while an epoch may be training
    row = {"kind": kind, "shown": None}
    if kind in ("pause", "step"):
        tab.get_by_role("button", name="Pause").click()
        tab.get_by_text(re.compile(r"· paused$")).first.wait_for(timeout=60_000)
        wait_for_app(tab)
        row["shown"] = shown_epoch(tab)
        time.sleep(settle)
        if kind == "step":
            tab.get_by_role("button", name="Step").click()
            tab.get_by_text(re.compile(rf"^Epoch {row['shown'] + 1} / {epochs}.*paused$")).first.wait_for(
                timeout=60_000
            )
            wait_for_app(tab)
            row["shown"] += 1
    tab.get_by_role("button", name="Stop").click()
    summary = tab.get_by_text(re.compile(r"Summary · Run \d+ · \w+ · stopped at \d+"))
    summary.wait_for(timeout=60_000)
    row["filed"] = int(re.search(r"stopped at (\d+)", summary.inner_text()).group(1))
    wait_for_app(tab)
    time.sleep(settle)
    go_to(tab, "Draw")
    label = tab.get_by_text(
        re.compile(r"Your last run \(Run \d+ · \w+ · stopped at \d+\)")
    ).first.inner_text()
    row["draw"] = int(re.search(r"stopped at (\d+)", label).group(1))
    go_to(tab, "Train")
    caption = tab.get_by_text(re.compile(r"Weights fingerprint")).first.inner_text()
    row["print"] = re.search(r"fingerprint (\w+)", caption).group(1)
    row["of_epoch"] = int(re.search(r"weights of epoch (\d+)", caption).group(1))
    return row


def main() -> int:
    """Run the trials, print the table, and return 1 if any trial's records disagree."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=7, help="trials, cycling through pause, step, stop (7)")
    parser.add_argument("--epochs", type=int, default=5000, help="planned epochs of each run (5000)")
    parser.add_argument("--settle", type=float, default=1.0, help="seconds to wait after each click (1.0)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random click moments (1)")
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        print("Debian's chromium is not installed (apt-get install -y chromium).", file=sys.stderr)
        return 2
    reference = Reference(RunConfig.from_flat(epochs=args.epochs))
    moments = random.Random(args.seed)
    rows = []
    server = StreamlitServer().start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
            for trial in range(args.trials):
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                tab = context.new_page()
                tab.set_default_timeout(60_000)
                kind = KINDS[trial % len(KINDS)]
                rows.append(
                    one_trial(tab, server.url, kind, args.epochs, moments.uniform(0.5, 2.5), args.settle)
                )
                context.close()
            browser.close()
    finally:
        server.stop()
    failures = 0
    print(
        f"{'trial':>5} {'kind':<6} {'shown':>6} {'filed':>6} {'draw':>5} {'weights':>8} {'page print':<13} "
        f"{'core print':<13} ok"
    )
    for number, row in enumerate(rows, 1):
        expected = reference.fingerprint(row["filed"])
        ok = (
            row["shown"] in (None, row["filed"])
            and row["draw"] == row["filed"] == row["of_epoch"]
            and row["print"] == expected
        )
        failures += not ok
        shown = "-" if row["shown"] is None else row["shown"]
        print(
            f"{number:>5} {row['kind']:<6} {shown:>6} {row['filed']:>6} {row['draw']:>5} "
            f"{row['of_epoch']:>8} {row['print']:<13} {expected:<13} {'yes' if ok else 'NO'}"
        )
    print(f"{len(rows) - failures} of {len(rows)} trials consistent.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
