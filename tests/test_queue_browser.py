"""Two students on one server with one training slot: the second waits, sees its place, and can leave."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from linecnn.serve.sharing import SLOTS_ENV
from tests.helpers import StreamlitServer, wait_for_app

pytestmark = pytest.mark.browser
WAIT_MS = 90_000  # a 2-core machine loaded many times over took over 30 s to redraw a page
QUEUED = re.compile(r"^Place 1 of 1 in the queue ")  # the progress bar's line while the run waits


@pytest.fixture(scope="module")
def one_slot_server(server_env: dict[str, str]) -> Iterator[StreamlitServer]:
    """A server that trains one CPU run at a time, whatever this machine's core count."""
    instance = StreamlitServer({**server_env, SLOTS_ENV: "1"}).start()
    yield instance
    instance.stop()


def train_tab(browser, server: StreamlitServer, epochs: int):
    """A new session on the Train page with ``epochs`` set."""
    tab = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    tab.set_default_timeout(60_000)
    tab.goto(f"{server.url}/Train")
    wait_for_app(tab)
    field = tab.get_by_label("Epochs")
    field.fill(str(epochs))
    field.press("Enter")
    wait_for_app(tab)
    return tab


def queue_behind(first, second) -> None:
    """Start a long run in ``first``, then Start in ``second``, which must wait in line."""
    first.get_by_role("button", name="Start").click()
    first.get_by_text(re.compile(r"Epoch [\d,]+ / 4,?000")).wait_for()
    second.get_by_role("button", name="Start").click()
    expect(second.get_by_text(QUEUED)).to_be_visible(timeout=WAIT_MS)


def test_a_waiting_run_shows_its_place_can_leave_the_line_and_trains_when_the_slot_frees(
    browser, one_slot_server
):
    """While one run trains, another session's Start shows its place in the queue and says it waits for
    its turn, not that it trains; Stop takes it out of the line with nothing filed; its next Start
    queues again, and it trains once the first run stops."""
    first = train_tab(browser, one_slot_server, 4_000)
    second = train_tab(browser, one_slot_server, 5)
    try:
        queue_behind(first, second)
        expect(second.get_by_text("1 of 1 training slot in use")).to_be_visible(timeout=WAIT_MS)
        expect(second.get_by_text(re.compile(r"^Waiting for its turn on .*\. Settings"))).to_be_visible()
        expect(second.get_by_text(re.compile(r"^Training on"))).to_have_count(0)
        second.get_by_role("button", name="Stop").click()
        expect(second.get_by_text("You left the line before your turn")).to_be_visible(timeout=WAIT_MS)
        expect(second.get_by_role("button", name="Start")).to_be_enabled(timeout=WAIT_MS)

        second.get_by_role("button", name="Start").click()
        expect(second.get_by_text(QUEUED)).to_be_visible(timeout=WAIT_MS)
        first.get_by_role("button", name="Stop").click()
        first.get_by_text("Summary · Run 1").wait_for()
        second.get_by_text("Summary · Run 1").wait_for(timeout=120_000)
        wait_for_app(first)
        wait_for_app(second)
        assert second.locator('[data-testid="stException"]').count() == 0
        assert first.locator('[data-testid="stException"]').count() == 0
    finally:
        first.context.close()
        second.context.close()
