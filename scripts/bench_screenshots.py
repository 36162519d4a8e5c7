"""Screenshots of the Benchmark page after a small CPU sweep, beside an imported (made-up) GPU run.

    python scripts/bench_screenshots.py [--up-to 12000]

Starts its own streamlit server on a free loopback port with a throw-away data directory,
drives Debian's Chromium with Playwright, and writes PNGs under artifacts/. The imported GPU
run is the test fixture (tests/bench_fixture.py): its numbers are made up and its device name
says so on screen. Nothing here is a GPU measurement.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.bench_fixture import fake_gpu_document  # noqa: E402
from tests.helpers import CHROMIUM_ARGS, StreamlitServer, find_chromium, wait_for_app  # noqa: E402

TOP = {"x": 0, "y": 0, "width": 1400, "height": 1000}


def main() -> int:
    """Run the page like a user and save screenshots."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--up-to", default="12,000 images", help="label of the 'up to' option to pick")
    parser.add_argument("--out", default=str(ROOT / "artifacts"), help="folder for the PNGs")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(exist_ok=True)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as data:
        fake = Path(data) / "imaginary-gpu.json"
        fake.write_text(json.dumps(fake_gpu_document()))
        server = StreamlitServer({"LINECNN_DATA_DIR": data}).start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=find_chromium(), headless=True, args=CHROMIUM_ARGS
                )
                # Streamlit scrolls inside its own container, so a tall viewport is the "full page".
                page = browser.new_page(viewport={"width": 1400, "height": 3400})
                page.set_default_timeout(120_000)
                page.goto(f"{server.url}/Benchmark")
                wait_for_app(page)
                page.screenshot(path=out / "bench-1-empty.png", clip=TOP)

                page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(fake))
                page.get_by_text("Imaginary GPU").first.wait_for()
                wait_for_app(page)
                page.screenshot(path=out / "bench-2-imported.png")

                page.get_by_label("Sweep data size up to").click()
                page.get_by_role("option", name=args.up_to, exact=True).click()
                page.get_by_role("button", name="Run benchmark").click()
                page.get_by_text("Benchmark done in").wait_for()
                wait_for_app(page)
                page.screenshot(path=out / "bench-3-sweep.png")
                page.set_viewport_size({"width": 1400, "height": 1000})
                page.get_by_text("Time per epoch against").scroll_into_view_if_needed()
                page.screenshot(path=out / "bench-4-chart.png")
                browser.close()
        finally:
            server.stop()
    for png in sorted(out.glob("bench-*.png")):
        print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
