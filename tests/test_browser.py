"""Real browser: deep links on a fresh server, settings across pages, training from click to summary."""

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.helpers import StreamlitServer, headings_and_ends, stop_processes, wait_for_app, websocket_frames

pytestmark = pytest.mark.browser

# A deep link for each kind of sidebar: the pages with the device choice (Train) and Benchmark's, which
# times every device. Each page load elsewhere in the suite checks the rest on a server already warm.
PAGES = {"Train": "Train", "Benchmark": "Benchmark"}


def assert_no_exception(tab) -> None:
    """No Streamlit exception box anywhere on the page."""
    assert tab.locator('[data-testid="stException"]').count() == 0


def sidebar_links(tab):
    return tab.locator(
        '[data-testid="stSidebar"] [data-testid="stPageLink"] [data-testid="stMarkdownContainer"]'
    )


@pytest.fixture
def fresh_servers(server_env: dict[str, str]) -> Iterator[dict[str, StreamlitServer]]:
    """A newly started server for each deep link, all started side by side; no page has asked them yet."""
    servers = {path: StreamlitServer(server_env).launch() for path in PAGES}
    try:
        yield {path: server.wait_until_healthy() for path, server in servers.items()}
    finally:
        stop_processes([server.process for server in servers.values()])


def test_a_deep_link_on_a_fresh_server_renders_the_page_and_sidebar(fresh_servers, tabs):
    """The first request each new server sees is a deep link to one page, and the page still gets its
    sidebar. The links are opened side by side, one tab each, so the servers' first runs overlap."""
    lent = {path: tabs.lend() for path in PAGES}
    for path, tab in lent.items():
        tab.goto(f"{fresh_servers[path].url}/{path}")
    for path, tab in lent.items():
        wait_for_app(tab, 60_000)
        tab.get_by_role("heading", name=PAGES[path], exact=True).first.wait_for()
        expect(sidebar_links(tab)).to_have_text(["Home", "Train", "Benchmark", "Draw", "Lesson"])
        if path == "Benchmark":  # it times every device, so its sidebar offers no choice
            expect(tab.locator('[data-testid="stSidebar"]')).to_contain_text("times every device listed")
            expect(tab.locator('[data-testid="stSidebar"] input[type="radio"]')).to_have_count(0)
        else:
            radio = tab.locator('[data-testid="stSidebar"] [data-testid="stRadio"]')
            expect(radio).to_contain_text("Device")
            expect(tab.locator('[data-testid="stSidebar"] input[type="radio"]:checked')).to_have_count(1)
        assert_no_exception(tab)


def test_choices_persist_across_pages(server, page):
    """The device radio and the Train settings keep their values when the user moves around; a tab that
    last reached another server process (as after a restart) is told so on the next page, until Got it."""
    page.goto(f"{server.url}/Train")
    wait_for_app(page)
    checked = page.locator(
        '[data-testid="stSidebar"] [role="radiogroup"] label:has(input:checked)'
    ).inner_text()
    epochs = page.get_by_label("Epochs")
    epochs.fill("37")
    epochs.press("Enter")
    # The server has the value once the charts' epoch axis ends at 38 (37 + 1): leaving sooner
    # could outrun the rerun that Enter sent.
    page.wait_for_function(
        """() => [...document.querySelectorAll('.js-plotly-plot')]
                 .some(plot => plot.layout && plot.layout.xaxis.range[1] === 38)"""
    )
    wait_for_app(page)
    notice = page.locator(".st-key-restart-notice")
    expect(notice).to_have_count(0)  # a new tab, its page switched on this server: no restart to tell
    page.evaluate("sessionStorage.setItem('linecnn.server', 'an-earlier-server-process')")
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name="Draw").click()
    page.get_by_role("heading", name="Draw", exact=True).first.wait_for()
    expect(notice).to_contain_text("The server restarted since this tab last reached it")
    notice.get_by_role("button", name="Got it").click()
    expect(notice).to_have_count(0)
    wait_for_app(page)
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name="Train").click()
    page.get_by_role("heading", name="Train", exact=True).first.wait_for()
    wait_for_app(page)
    expect(notice).to_have_count(0)  # put away once, it stays away on every page
    assert page.get_by_label("Epochs").input_value() == "37"
    again = page.locator(
        '[data-testid="stSidebar"] [role="radiogroup"] label:has(input:checked)'
    ).inner_text()
    assert again == checked
    assert_no_exception(page)


def test_training_from_click_to_summary(server, page):
    """Start with the default config streams to the end: charts, progress and the final metrics. Pressed
    from the keyboard, Start hands the focus to Pause while the run trains and takes it back at the end,
    where it was lost to the page when the rerun disabled it. The summary reaches the page from the run
    that trained, before the rerun that follows it (which discards what the server has not sent)."""
    with websocket_frames(page) as received:
        page.goto(f"{server.url}/Train")
        wait_for_app(page)
        page.wait_for_function("window.linecnnFocusKeeper")  # the page's focus keeper (ui/focus.py) is loaded
        page.evaluate(
            """() => { window.focused = [];
                document.addEventListener('focusin', (e) => window.focused.push(e.target.innerText)); }"""
        )
        page.get_by_role("button", name="Start").focus()
        received.clear()  # the page's own load
        page.keyboard.press("Enter")
        page.get_by_text(re.compile(r"Summary · Run \d+")).wait_for(timeout=90_000)
        wait_for_app(page)
    expect(page.get_by_role("button", name="Start")).to_be_focused()
    # the training run's summary, then that run's end: not the rerun's summary alone
    assert headings_and_ends(received, "Summary · Run")[:2] == ["heading", "ended"]
    assert [text.split()[-1] for text in page.evaluate("window.focused")] == ["Start", "Pause", "Start"]
    expect(page.get_by_text(re.compile(r"Finished 120 epochs in"))).to_have_count(1)
    # loss, accuracy, confusion matrix and the run overlay (drawn by the rerun after the last epoch); the
    # live run's last charts stay under the ended run's, hidden
    expect(page.locator('[data-testid="stPlotlyChart"]:visible')).to_have_count(4)
    accuracy = page.locator('[data-testid="stMetric"]', has_text="Validation accuracy")
    value = float(accuracy.locator('[data-testid="stMetricValue"]').inner_text().strip("%"))
    assert value >= 99.0
    assert (
        page.get_by_text("Loss", exact=True).count() >= 1
        and page.get_by_text("Accuracy", exact=True).count() >= 1
    )
    assert_no_exception(page)


def test_1e9_epochs_are_refused_then_pause_and_stop_file_the_epoch_the_page_showed(server, page):
    """'1e9' epochs is above the page's maximum: the page says so in its own words, keeps the value (never
    1) and disables Start; '5e3' is 5,000. A run of them paused shows epoch P; Stop files exactly P epochs,
    however long it waits, keeps that partial history, says where it stopped and frees Start."""
    page.goto(f"{server.url}/Train")
    wait_for_app(page)
    epochs = page.get_by_label("Epochs")
    epochs.fill("1e9")
    epochs.press("Enter")
    expect(page.get_by_text("Epochs: 1,000,000,000 is outside the allowed range.")).to_be_visible()
    expect(epochs).to_have_value("1,000,000,000")
    expect(page.get_by_role("button", name="Start")).to_be_disabled()
    epochs.fill("5e3")
    epochs.press("Enter")
    wait_for_app(page)
    expect(epochs).to_have_value("5,000")
    page.get_by_role("button", name="Start").click()
    page.get_by_text(re.compile(r"^Epoch [\d,]+ / 5,?000")).first.wait_for(timeout=60_000)
    page.get_by_role("button", name="Pause").click()
    paused = page.get_by_text(re.compile(r"^Epoch [\d,]+ / 5,?000.*paused$"))
    paused.wait_for(timeout=60_000)
    wait_for_app(page)
    shown = int(re.match(r"Epoch ([\d,]+)", paused.inner_text()).group(1).replace(",", ""))
    page.get_by_role("button", name="Stop").click()
    summary = page.get_by_text(re.compile(r"Summary · Run \d+ · \w+ · stopped at \d+"))
    summary.wait_for(timeout=60_000)
    assert int(re.search(r"stopped at (\d+)", summary.inner_text()).group(1)) == shown
    assert 1 <= shown < 5000
    wait_for_app(page)
    expect(page.get_by_role("button", name="Start")).to_be_enabled()
    expect(page.get_by_text(re.compile(rf"^Stopped at epoch {shown} of 5,000, after "))).to_have_count(1)
    assert_no_exception(page)
