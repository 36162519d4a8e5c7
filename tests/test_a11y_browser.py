"""Real browser: axe-core finds no serious or critical WCAG 2.0/2.1 A or AA violation on Train paused
mid-run or once a run has finished. Every page as first loaded, in either language, is audited by
tests/test_pages_browser.py, in its one visit to each page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.axe_check import blocking_violations, load_axe, settled
from tests.helpers import wait_for_app

pytestmark = pytest.mark.browser

TRAIN_EPOCHS = 5  # enough for the finished run's charts and summary, quick on a busy machine
LONG_RUN_EPOCHS = 5000  # a run still going when Pause is clicked, however fast the machine


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe.min.js's text (see ``load_axe``)."""
    return load_axe()


def set_epochs(tab, count: int) -> None:
    """Type the Train page's epoch count and let the page take it."""
    epochs = tab.get_by_role("textbox", name="Epochs", exact=True)
    epochs.fill(str(count))
    epochs.press("Enter")
    wait_for_app(tab)


def test_no_serious_accessibility_violation_on_train_paused_or_after_a_run(server, page, axe_source):
    """Train paused mid-run, then after a short run: axe reports nothing serious or critical."""
    found: list[str] = []
    # Train paused mid-run: every setting is locked, so each widget shows its disabled look.
    page.goto(f"{server.url}/Train")
    settled(page)
    set_epochs(page, LONG_RUN_EPOCHS)
    page.get_by_role("button", name="Start").click()
    page.get_by_role("button", name="Pause").click()
    page.get_by_role("button", name="Resume").wait_for()
    settled(page)
    found += blocking_violations(page, axe_source, "/Train paused")
    page.get_by_role("button", name="Stop").click()  # frees the server's training slot for other tests
    page.get_by_text(re.compile(r"^Stopped at epoch")).wait_for()

    # Train after a finished run: summary, confusion matrix and the run overlay.
    settled(page)
    set_epochs(page, TRAIN_EPOCHS)
    page.get_by_role("button", name="Start").click()
    finished = page.get_by_text(re.compile(rf"Finished {TRAIN_EPOCHS} epochs in"))
    expect(finished).to_have_count(1, timeout=90_000)
    expect(page.locator('[data-testid="stPlotlyChart"]:visible')).to_have_count(4)
    settled(page)
    found += blocking_violations(page, axe_source, "/Train after a run")

    assert not found, "axe-core found serious accessibility violations:\n" + "\n".join(found)
