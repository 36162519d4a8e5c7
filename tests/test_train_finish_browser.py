"""In Chromium on a 390x844 phone: Train's charts stay on screen from a run's last live epoch into
its finished view; the chart area is never empty for longer than a flicker while they are drawn again."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.helpers import StreamlitServer, wait_for_app

pytestmark = pytest.mark.browser

WAIT_MS = 240_000  # a first page load or a run on a busy 2-core machine can take minutes
# A blank of a few frames (the old chart taken out, the new one mounted and drawn) reads as a flicker;
# a busy machine stretches each frame, so the bound counts frames, not ms. Without the chart keeper
# and the ended run's one key the charts were gone for 16 frames in a row (1.8 s).
FLICKER_FRAMES = 5
LABELS = {  # each chart's alt text (its aria-label), as it starts
    "loss": "Line chart: training and validation loss",
    "accuracy": "Line chart: training and validation accuracy",
}
# Every animation frame, whether each chart shows a drawn picture: a Plotly chart with its lines, or
# the picture the page keeps on screen while it draws the chart again (chart-keeper.js).
WATCH_JS = """(labels) => {
    window.chartFrames = [];
    const shown = (label) => [
        ...document.querySelectorAll('[data-testid="stPlotlyChart"]'),
        ...document.querySelectorAll('.linecnn-chart-ghost'),
    ].some((element) => {
        const name = element.getAttribute('aria-label') || element.dataset.ghostOf || '';
        const plot = element.querySelector('.main-svg')?.parentElement;
        if (!name.startsWith(label) || !plot || !element.querySelector('.scatterlayer .trace')) return false;
        const box = plot.getBoundingClientRect();
        return box.height > 50 && getComputedStyle(plot).visibility === 'visible';
    });
    const frame = () => {
        const bar = document.querySelector('[data-testid="stProgress"]');
        window.chartFrames.push({
            at: Math.round(performance.now()),
            bar: bar ? bar.innerText.slice(0, 40) : '',
            missing: Object.entries(labels).filter(([, label]) => !shown(label)).map(([name]) => name),
        });
        requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
}"""


def longest_blank(frames: list[dict]) -> list[dict]:
    """The longest run of consecutive frames missing a chart."""
    longest: list[dict] = []
    current: list[dict] = []
    for frame in frames:
        current = [*current, frame] if frame["missing"] else []
        longest = current if len(current) > len(longest) else longest
    return longest


@pytest.fixture(scope="module")
def own_server(server_env: dict[str, str]):
    """A server of this module's own: no other session's run shares its CPU or its training queue."""
    instance = StreamlitServer(server_env).start()
    yield instance
    instance.stop()


def test_the_charts_stay_on_screen_from_the_last_live_epoch_into_the_finished_view_on_a_phone(
    browser, own_server
):
    """From the last live epoch until the finished page is idle, both charts stay drawn: the run's last
    draw and the rerun after it never leave the chart area blank for longer than a flicker."""
    tab = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    tab.set_default_timeout(WAIT_MS)
    try:
        tab.goto(f"{own_server.url}/Train")
        wait_for_app(tab, WAIT_MS)
        field = tab.get_by_label("Epochs")
        field.fill("150")
        field.press("Enter")
        wait_for_app(tab, WAIT_MS)
        tab.get_by_role("button", name="Start").click()
        tab.get_by_text(re.compile(r"^Epoch \d+ / 150")).wait_for()
        tab.evaluate(WATCH_JS, LABELS)
        expect(tab.get_by_text(re.compile(r"^Finished 150 epochs"))).to_be_visible(timeout=WAIT_MS)
        tab.get_by_text(re.compile(r"^Summary · Run 1")).wait_for()
        wait_for_app(tab, WAIT_MS)
        count = tab.evaluate("window.chartFrames.length")
        tab.wait_for_function(f"() => window.chartFrames.length > {count + 30}")  # idle a while
        frames = tab.evaluate("window.chartFrames")
        live = [index for index, frame in enumerate(frames) if frame["bar"].startswith("Epoch")]
        assert live, "no frame saw the run live"
        after = frames[live[-1] :]
        assert any(frame["bar"].startswith("Finished") for frame in after)
        blank = [frame for frame in after if frame["missing"]]
        gone = ", ".join(sorted({name for frame in blank for name in frame["missing"]}))
        longest = longest_blank(after)
        assert len(longest) <= FLICKER_FRAMES, (
            f"the chart area stayed blank for {len(longest)} frames in a row "
            f"({longest[-1]['at'] - longest[0]['at']} ms; {len(blank)} of {len(after)} frames after the "
            f"last live epoch showed no {gone} chart): {longest[:3]}"
        )
    finally:
        tab.context.close()
