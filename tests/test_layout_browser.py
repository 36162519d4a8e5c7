"""A phone's sidebar out of the way after navigating. On a laptop screen
the live run and the Draw verdict are in view without scrolling; the Draw verdict comes into view after
a stroke (on a phone, and under a lesson-data run's hint) and a run's summary when the run ends. Each
page at a projector's and a phone's widths is checked in tests/test_pages_browser.py's one visit to it."""

import contextlib
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from tests.draw_helpers import CANVAS, PREDICTION, Stroke, draw, read_prediction, wait_until
from tests.helpers import ROOT
from tests.layout_helpers import SIDEBAR, VIEWPORTS, below_the_fold, settled_layout_problems, wait_for_page

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 768}  # the commonest laptop screen




def test_the_live_run_and_the_draw_verdict_are_in_view_on_a_laptop(server, tabs):
    """At 1366x768, without scrolling: the progress bar and both charts while a run trains, and the Draw
    verdict once a line is drawn; narrowed to 800x900, the verdict is still on the first screen; a sidebar
    page link reached with the keyboard shows a focus ring."""
    tab = tabs.lend(LAPTOP)
    tab.goto(f"{server.url}/Train")
    wait_for_page(tab)
    focus_ring = keyboard_focus_ring(tab)
    epochs = tab.get_by_label("Epochs")
    epochs.fill("5000")
    epochs.press("Enter")
    wait_for_page(tab)
    tab.get_by_role("button", name="Start").click()
    tab.get_by_text(re.compile(r"^Epoch [\d,]+ / 5,?000")).first.wait_for(timeout=120_000)
    # The row of the two charts: its place is the layout's doing, while a busy browser may still be
    # drawing the charts themselves; each needs its 250 px.
    charts = tab.locator("[data-testid='stHorizontalBlock']:has([data-testid='stPlotlyChart'])").first
    wait_until_shown(tab, "[data-testid='stPlotlyChart']", 2, timeout_ms=20_000)
    live = {"progress": tab.locator("[data-testid='stProgress']").first, "charts": charts}
    training = below_the_fold(tab, live, room={"charts": 250})
    tab.get_by_role("button", name="Stop").click()
    tab.get_by_text(re.compile(r"^Summary · Run \d+")).wait_for(timeout=120_000)
    tab.goto(f"{server.url}/Draw")
    wait_for_page(tab)
    draw(tab, Stroke("v", "vertical", ((140, 20), (140, 260))))
    read_prediction(tab, 60_000)
    laptop = below_the_fold(tab, {"verdict": tab.locator(PREDICTION)})
    tab.set_viewport_size({"width": 800, "height": 900})
    settled_layout_problems(tab)
    narrow = below_the_fold(tab, {"verdict": tab.locator(PREDICTION)})
    assert (training, laptop, narrow) == ([], [], [])
    assert focus_ring == "solid", "the focused page link looks like the others"


# True once the selector's first element lies wholly on the screen (false while under it or not drawn).
_IN_VIEW = """(selector) => {
    const element = document.querySelector(selector);
    if (!element) return false;
    const box = element.getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight + 1;
}"""


def wait_in_view(tab, selector: str, timeout_ms: int = 30_000) -> None:
    """Wait until ``selector``'s element is wholly on the screen; give up quietly, for the caller's check."""
    with contextlib.suppress(PlaywrightTimeoutError):
        tab.wait_for_function(_IN_VIEW, arg=selector, polling=100, timeout=timeout_ms)


def test_run_benchmark_brings_its_progress_and_then_its_results_into_view_on_a_laptop(server, tabs):
    """At 1366x768 the form fills the screen, and the run's progress and results start a screen below it:
    pressing Run benchmark brings the progress into view, and then the first result once the sweep ends."""
    tab = tabs.lend(LAPTOP)
    tab.goto(f"{server.url}/Benchmark")
    wait_for_page(tab)
    tab.get_by_label("Sweep data size up to").click()
    tab.get_by_role("option", name="3,600 images", exact=True).click()
    # .first: the sweep's form; the Processes / GPUs section below has fields of the same names.
    for label, value in (("Warm-up epochs", "1"), ("Timed epochs", "3")):
        field = tab.get_by_label(label, exact=True).first
        field.fill(value)
        field.press("Tab")  # commit the value without submitting the form
    tab.get_by_role("button", name="Run benchmark").click()
    progress = "[data-testid='stMain'] [data-testid='stProgress']"  # the sweep's: the only one on the page
    tab.locator(progress).wait_for(timeout=120_000)
    wait_in_view(tab, progress, timeout_ms=10_000)  # while the sweep runs, a few seconds here
    running = below_the_fold(tab, {"progress": tab.locator(progress)})
    tab.get_by_text("Benchmark done in").wait_for(timeout=300_000)
    wait_for_page(tab)
    first_result = "[data-testid='stMain'] [data-testid='stMetric']"  # the results come first after the form
    tab.locator(first_result).first.wait_for(timeout=60_000)
    wait_in_view(tab, first_result)
    message = tab.get_by_text("Benchmark done in")
    done = below_the_fold(tab, {"end message": message, "first result": tab.locator(first_result).first})
    assert (running, done) == ([], [])


_FOCUSED_LINK_OUTLINE = """() => {
    const link = document.activeElement && document.activeElement.closest('[data-testid="stPageLink"] a');
    return link === document.activeElement ? getComputedStyle(link).outlineStyle : null;
}"""


def keyboard_focus_ring(tab) -> str | None:
    """The outline a sidebar page link shows when reached with the keyboard (Shift+Tab from the next one).

    A rerun that redraws the sidebar takes the focus away, or redraws the page's styles just then; the
    keys are pressed again, a few times, until the ring shows: a link that never shows it still fails."""
    style = None
    for _ in range(5):
        tab.locator('[data-testid="stSidebar"]').get_by_role("link", name="Benchmark").focus()
        tab.keyboard.press("Shift+Tab")
        style = tab.evaluate(_FOCUSED_LINK_OUTLINE)
        if style == "solid":
            return style
        wait_for_page(tab)
    return style


def wait_until_shown(tab, selector: str, count: int, timeout_ms: int = 60_000) -> None:
    """Wait until ``count`` elements matching ``selector`` take up room on the page (a chart redrawn
    while a run streams may be remounting); give up quietly, for the caller's check to report it."""
    with contextlib.suppress(PlaywrightTimeoutError):
        tab.wait_for_function(
            "([selector, count]) => [...document.querySelectorAll(selector)]"
            ".filter((el) => el.getBoundingClientRect().height > 0).length >= count",
            arg=[selector, count],
            timeout=timeout_ms,
        )


# The Train page's title a screen taller, once the tap's scroll has begun.
_GROW_ABOVE_THE_BUTTONS = """() => new Promise((done) => setTimeout(() => {
    document.querySelector("h1").style.paddingTop = "900px";
    done();
}, 100))"""


def test_phone_sidebar_closes_after_navigating(server, tabs):
    """On a phone the sidebar starts closed, and following one of its links closes it again. On Train
    there, Start brings the run into view: its progress and charts were under the fold, the tap seemed to
    do nothing. The run stays in view when the page above it grows after the tap."""
    tab = tabs.lend({"width": 390, "height": VIEWPORTS[390]})
    tab.goto(server.url)
    wait_for_page(tab)
    sidebar = tab.locator(SIDEBAR)
    assert sidebar.get_attribute("data-collapsed") == "true"
    tab.locator("[data-testid='stExpandSidebarButton']").click()
    assert wait_until(tab, lambda: sidebar.get_attribute("data-collapsed"), "false") == "false"
    sidebar.get_by_role("link", name="Benchmark").click()
    tab.get_by_role("heading", name="Benchmark", level=1).wait_for()
    wait_for_page(tab)
    collapsed = wait_until(tab, lambda: sidebar.get_attribute("data-collapsed"), "true")
    box = sidebar.bounding_box()
    tab.goto(f"{server.url}/Train")
    wait_for_page(tab)
    tab.get_by_role("button", name="Start").click()
    tab.evaluate(_GROW_ABOVE_THE_BUTTONS)  # as a busy server's late redraw of the settings would
    progress = tab.locator("[data-testid='stProgress']").first
    progress.wait_for()
    expect(tab.get_by_role("button", name="Start")).to_be_enabled(timeout=60_000)  # the run is over
    wait_for_page(tab)
    shown, buttons = progress.bounding_box(), tab.get_by_role("button", name="Stop").bounding_box()
    loss = tab.locator(".stPlotlyChart").first.bounding_box()
    assert collapsed == "true" and box["x"] + box["width"] <= 0, "the sidebar still covers the page"
    assert shown["y"] + shown["height"] <= VIEWPORTS[390], "Start left the run's progress under the fold"
    assert loss["y"] + 200 <= VIEWPORTS[390], "Start left the loss chart under the fold"
    assert buttons["y"] >= 0, "the run buttons went off the top of the screen"


PHONE = {"width": 390, "height": 844}
BARS = ".st-key-draw-prediction [data-testid='stPlotlyChart']"  # the verdict's probability bars


def train_a_short_run(tab, base_url: str, lang: str = "en") -> None:
    """A 3-epoch run on the Train page's default settings (the lesson's data), waited out to its summary."""
    spanish = lang == "es"
    tab.goto(f"{base_url}/Train" + ("?lang=es" if spanish else ""))
    wait_for_page(tab)
    epochs = tab.get_by_label("Épocas" if spanish else "Epochs", exact=True)
    epochs.fill("3")
    epochs.press("Enter")
    wait_for_page(tab)
    start = tab.get_by_role("button", name="Iniciar" if spanish else "Start", exact=True)
    start.click()
    tab.get_by_text(re.compile(r"^(Resumen|Summary) · ")).first.wait_for(timeout=120_000)
    expect(start).to_be_enabled(timeout=60_000)  # the run is over
    wait_for_page(tab)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_draw_verdict_comes_into_view_after_a_stroke_on_a_phone(server, tabs, lang):
    """On a 390x844 phone the verdict lies under the canvas's brush and Clear: after a stroke the verdict
    and its probability bars are on the screen, and some of the canvas still is."""
    tab = tabs.lend(PHONE)
    tab.goto(f"{server.url}/Draw" + ("?lang=es" if lang == "es" else ""))
    tab.locator(CANVAS).wait_for(timeout=120_000)
    wait_for_page(tab)
    tab.locator(CANVAS).scroll_into_view_if_needed()
    draw(tab, Stroke("v", "vertical", ((140, 20), (140, 260))))
    read_prediction(tab, 60_000)
    wait_in_view(tab, BARS)
    found = below_the_fold(tab, {"verdict": tab.locator(PREDICTION), "bars": tab.locator(BARS)})
    canvas = tab.locator(CANVAS).bounding_box()
    tab.screenshot(path=str(ROOT / "artifacts" / f"draw-phone-{lang}.png"))
    assert found == []
    assert canvas["y"] + canvas["height"] > 0, "the canvas went off the screen"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_runs_summary_then_the_draw_verdict_under_its_hint_are_in_view_on_a_laptop(server, tabs, lang):
    """At 1366x768 a run's summary starts about a screen below its charts: when the run ends, the summary's
    title and its first row of final metrics are on the screen. With that run (on the lesson's data) as
    Draw's model, the hint about such a run pushes the prediction panel down (Spanish's longer hint the
    most): after a stroke the verdict and its bars are on the screen. One run serves both checks."""
    tab = tabs.lend(LAPTOP)
    train_a_short_run(tab, server.url, lang)
    first_metrics = "[data-testid='stMain'] [data-testid='stMetric']"  # the summary's first row
    wait_in_view(tab, first_metrics)
    title = tab.get_by_text(re.compile(r"^(Resumen|Summary) · ")).first
    summary = below_the_fold(tab, {"title": title, "final metrics": tab.locator(first_metrics).first})
    tab.screenshot(path=str(ROOT / "artifacts" / f"train-summary-1366-{lang}.png"))

    tab.locator(SIDEBAR).get_by_role("link", name="Dibujar" if lang == "es" else "Draw").click()
    tab.locator(CANVAS).wait_for(timeout=120_000)
    wait_for_page(tab)
    hint = "líneas exactas de la lección" if lang == "es" else "learned from the lesson's exact lines"
    expect(tab.get_by_text(hint).first).to_be_visible()
    tab.locator(CANVAS).scroll_into_view_if_needed()
    draw(tab, Stroke("v", "vertical", ((140, 20), (140, 260))))
    read_prediction(tab, 60_000)
    wait_in_view(tab, BARS)
    verdict = below_the_fold(tab, {"verdict": tab.locator(PREDICTION), "bars": tab.locator(BARS)})
    tab.screenshot(path=str(ROOT / "artifacts" / f"draw-lesson-hint-1366-{lang}.png"))
    assert summary == []
    assert verdict == []
