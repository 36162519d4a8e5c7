"""Two students on one server with one training slot: the second waits, sees its place, and can leave."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from linecnn.classroom.sharing import SLOTS_ENV
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


def train_tab(tabs, server: StreamlitServer, epochs: int):
    """A new session on the Train page with ``epochs`` set."""
    tab = tabs.lend()
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
    tabs, one_slot_server
):
    """While one run trains, another session's Start shows its place in the queue and says it waits for
    its turn, not that it trains; Stop takes it out of the line with nothing filed; its next Start
    queues again, and it trains once the first run stops."""
    first = train_tab(tabs, one_slot_server, 4_000)
    second = train_tab(tabs, one_slot_server, 5)
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


def pause_button(tab):
    """The Pause button of the Train page's button row."""
    return tab.locator(".st-key-train-buttons").get_by_role("button", name="Pause")


def test_pause_is_disabled_while_a_run_waits_even_across_a_rerun_and_enabled_once_it_trains(
    tabs, one_slot_server
):
    """A run waiting in line has nothing to pause: its Pause is disabled, and its tooltip says why. A
    rerun of the waiting page (a chart option) keeps its place in line and Pause disabled; once the slot
    frees, the run trains and Pause turns enabled, without a click; Stop works throughout."""
    first = train_tab(tabs, one_slot_server, 4_000)
    second = train_tab(tabs, one_slot_server, 4_000)
    queue_behind(first, second)
    expect(pause_button(second)).to_be_disabled(timeout=WAIT_MS)
    expect(second.get_by_role("button", name="Stop")).to_be_enabled()
    pause_button(second).hover()
    expect(second.get_by_text("Nothing to pause yet")).to_be_visible(timeout=WAIT_MS)
    second.get_by_text("Log scale (loss)").click()  # a rerun while it waits
    wait_for_app(second)
    expect(second.get_by_text(QUEUED)).to_be_visible(timeout=WAIT_MS)
    expect(pause_button(second)).to_be_disabled()
    expect(pause_button(first)).to_be_enabled()  # the run that trains can be paused

    first.get_by_role("button", name="Stop").click()
    first.get_by_text("Summary · Run 1").wait_for()
    second.get_by_text(re.compile(r"Epoch [\d,]+ / 4,?000")).wait_for(timeout=WAIT_MS)
    expect(pause_button(second)).to_be_enabled(timeout=WAIT_MS)
    expect(second.get_by_text(re.compile(r"^Training on"))).to_be_visible()
    pause_button(second).click()
    expect(second.get_by_role("button", name="Resume")).to_be_enabled(timeout=WAIT_MS)
    second.get_by_role("button", name="Stop").click()
    second.get_by_text("Summary · Run 1").wait_for(timeout=WAIT_MS)
    assert second.locator('[data-testid="stException"]').count() == 0
