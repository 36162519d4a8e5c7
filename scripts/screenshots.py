"""Take full-page screenshots of every page in Debian's Chromium, as a user would see them.

    python scripts/screenshots.py [--out artifacts/screens]

Starts its own streamlit server on a free loopback port and stops it by PID.
The Train page is shot after one default training run, the Draw page with one stroke.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.draw_helpers import Stroke, classify_on_page, open_draw_page  # noqa: E402
from tests.helpers import CHROMIUM_ARGS, ROOT, StreamlitServer, find_chromium, wait_for_app  # noqa: E402


def main() -> int:
    """Shoot Home, Train (after a run), Benchmark and Draw."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "artifacts" / "screens"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chromium = find_chromium()
    if chromium is None:
        print("Chromium not found: apt-get install -y chromium", file=sys.stderr)
        return 1
    server = StreamlitServer().start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            # Streamlit scrolls inside its own container, so a tall viewport stands in for full_page.
            tab = browser.new_page(viewport={"width": 1400, "height": 2000})
            for name in ("Home", "Train", "Benchmark", "Draw"):
                tab.goto(server.url if name == "Home" else f"{server.url}/{name}")
                wait_for_app(tab)
                if name == "Train":
                    tab.get_by_role("button", name="Start").click()
                    tab.get_by_text("Summary ·").wait_for(timeout=60_000)
                    wait_for_app(tab)
                if name == "Draw":
                    open_draw_page(tab, server.url)
                    classify_on_page(tab, Stroke("anti-diagonal", "diagonal", ((40, 240), (235, 45)), 24))
                    wait_for_app(tab)
                tab.wait_for_timeout(1500)  # let charts and code highlighting finish
                path = out / f"{name.lower()}.png"
                tab.screenshot(path=str(path), full_page=True)
                print(path)
            browser.close()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
