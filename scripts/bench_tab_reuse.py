"""Chromium's CPU for one page load in a new tab against one in a tab already open (the test suite's pool).

Starts the app's server and Debian's Chromium, then loads the Train page in rounds, in alternating
order: once in a new tab of a new context (closed after), once in a kept tab that went to
about:blank in between, as ``tests/conftest.py``'s ``TabPool`` wipes a lent tab. Counts the CPU of
every Chromium process, dead renderers included (their parents' reaped-children time), and prints
the median of each with the machine's load average.

    python scripts/bench_tab_reuse.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for tests.helpers

from tests.helpers import CHROMIUM_ARGS, StreamlitServer, find_chromium, wait_for_app  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
DESKTOP = {"width": 1400, "height": 1000}


def chromium_cpu() -> float:
    """CPU seconds of every Chromium process, with what each has reaped of its ended children."""
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if "chromium" not in Path(f"/proc/{pid}/cmdline").read_text(errors="replace"):
                continue
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        total += sum(int(field) for field in fields[11:15]) / TICKS  # utime stime cutime cstime
    return total


def main() -> None:
    """Time both ways of loading the page, alternately, and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    chromium = find_chromium()
    if chromium is None:
        sys.exit("Debian's chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as data:
        server = StreamlitServer({"LINECNN_DATA_DIR": data}).start()
        try:
            with sync_playwright() as playwright:
                launch = playwright.chromium.launch
                browser = launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
                kept = browser.new_context(viewport=DESKTOP).new_page()

                def load(tab) -> None:  # noqa: ANN001 - Playwright's Page
                    tab.goto(f"{server.url}/Train")
                    wait_for_app(tab)
                    time.sleep(1)  # the page's last paints

                load(kept)  # warmed, as a lent tab is after its first test
                new, reused = [], []
                for index in range(2 * rounds):
                    before = chromium_cpu()
                    if index % 2 == 0:
                        context = browser.new_context(viewport=DESKTOP)
                        load(context.new_page())
                        context.close()
                        time.sleep(1)  # its renderer ends and is reaped
                        new.append(chromium_cpu() - before)
                    else:
                        kept.goto("about:blank")
                        load(kept)
                        reused.append(chromium_cpu() - before)
                browser.close()
        finally:
            server.stop()
    load_average = os.getloadavg()[0]
    print(f"Train page load, Chromium CPU, median of {rounds} (load average {load_average:.1f}):")
    for name, seconds in (("new tab in a new context", new), ("kept tab via about:blank", reused)):
        spread = f"{min(seconds):.2f}-{max(seconds):.2f}"
        print(f"  {name}: {statistics.median(seconds):.2f} s ({spread})")


if __name__ == "__main__":
    main()
