"""Open every page once in Debian's Chromium and say whether it drew without an exception.

    python scripts/visit_pages.py [--shots DIR]

Starts its own streamlit server on a free loopback port and stops it by PID. scripts/newest.sh runs
it with the newest releases that pyproject.toml allows; ``--shots`` keeps a screenshot per page.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from linecnn.ui.sidebar import PAGES  # noqa: E402
from tests.helpers import CHROMIUM_ARGS, StreamlitServer, find_chromium, wait_for_app  # noqa: E402


def page_url(base: str, path: str) -> str:
    """The address of a page file: app.py is the root, pages/1_Train.py is /Train."""
    return base if path == "app.py" else f"{base}/{Path(path).stem.split('_', 1)[1]}"


def main() -> int:
    """Visit each page in PAGES; exit 1 when one shows an exception or never draws its sidebar."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", help="a folder for one full-page screenshot per page")
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        print("Debian's chromium is not installed (apt-get install -y chromium)", file=sys.stderr)
        return 1
    failed = []
    server = StreamlitServer().start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            for path, name, _ in PAGES:
                tab.goto(page_url(server.url, path))
                try:
                    wait_for_app(tab)
                    problems = tab.locator('[data-testid="stException"]').count()
                except Exception as error:  # any failure to draw is this page's verdict
                    problems = f"never drawn ({type(error).__name__})"
                if args.shots:
                    Path(args.shots).mkdir(parents=True, exist_ok=True)
                    tab.screenshot(path=str(Path(args.shots) / f"{name}.png"), full_page=True)
                print(f"{name:10} {'ok' if problems == 0 else f'FAILED: {problems} exception(s)'}")
                if problems != 0:
                    failed.append(name)
            browser.close()
    finally:
        server.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
