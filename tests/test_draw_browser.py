"""The Draw page in Chromium: real mouse strokes on the real canvas, read back from the page."""

import re

import pytest
from playwright.sync_api import expect

from tests.draw_helpers import (
    CANVAS,
    DRAWN,
    EMPTY_WARNING,
    INKED_JS,
    PREDICTION,
    Stroke,
    cell_button,
    classify_on_page,
    clear,
    draw,
    model_input_sum,
    open_draw_page,
    painted_cells,
    read_prediction,
    set_brush,
    stroke_landed,
    use_cells,
    wait_until,
)
from tests.draw_shapes import Figure, draw_figure, generated_lines, generated_non_lines, judge
from tests.helpers import ROOT, wait_for_app

pytestmark = pytest.mark.browser

# One of each class; the diagonal starts in the top-right corner, under the canvas toolbar's
# resting place, and the vertical hugs the left edge, which the lesson's data never has.
STROKES = (
    Stroke("vertical-left-edge", "vertical", ((8, 15), (8, 265))),
    Stroke("horizontal-slight-tilt", "horizontal", ((15, 135), (265, 155))),
    Stroke("anti-diagonal-from-top-right", "diagonal", ((272, 8), (8, 272))),
)

# A sample of scripts/figure_suite.py's figures, at its seeds; the script draws all of them. Lines:
# the two it once reported wrong (a dashed 52-degree diagonal in four pen-downs, a short 38-degree
# stroke) and a dashed horizontal in two pen-downs. Non-lines: a plus (two strokes), a 7, an S.
SAMPLE = (
    *(generated_lines(56, seed=7)[i] for i in (2, 45, 42)),
    *(generated_non_lines(40, seed=8)[i] for i in (4, 7, 10)),
)


def no_exception(tab) -> bool:
    """True when the page shows no Streamlit exception box."""
    return tab.locator("[data-testid='stException']").count() == 0


def trip_to_train(tab) -> None:
    """Go to Train by the sidebar's link and back to Draw, as a student does; wait for the canvas."""
    sidebar = tab.locator('[data-testid="stSidebar"]')
    sidebar.get_by_role("link", name="Train").click()
    tab.wait_for_url(re.compile(r"/Train\b"))
    wait_for_app(tab)
    sidebar.get_by_role("link", name="Draw").click()
    tab.locator(CANVAS).wait_for()
    wait_for_app(tab)


class SlowServer:
    """The tab's link to Streamlit, able to hold back what the server sends, as a loaded server does:
    what the page does while it is held surely happens before the answer to it arrives."""

    def __init__(self, tab) -> None:
        self.held: list | None = None
        tab.route_web_socket("**/_stcore/stream", self._link)

    def _link(self, page_end) -> None:
        def forward(message) -> None:
            if self.held is None:
                page_end.send(message)
            else:
                self.held.append((page_end, message))

        page_end.connect_to_server().on_message(forward)

    def hold(self) -> None:
        """From now on, keep what the server sends."""
        self.held = []

    def release(self) -> None:
        """Send the page what was kept, in order, and pass everything on again."""
        held, self.held = self.held or [], None
        for page_end, message in held:
            page_end.send(message)


def test_strokes_are_classified_cleared_and_redrawn_on_the_page(server, fresh_page):
    """An empty canvas warns and predicts nothing; a vertical, a horizontal and a diagonal drawn with the
    mouse get their class; Clear empties it again; a stroke begun 150 ms after Clear stays on the canvas
    and is classified; a tilted line gets its class and a check mark none shown as sure; the check mark
    and its verdict are still there back from Train, a stroke drawn at once after Clear there stays and
    is classified, and a canvas cleared then stays empty."""
    page = fresh_page  # its WebSocket is routed (SlowServer), which no wipe of a lent tab undoes
    link = SlowServer(page)
    open_draw_page(page, server.url)
    expect(page.get_by_text(EMPTY_WARNING)).to_be_visible()
    expect(page.locator(PREDICTION)).to_have_count(0)
    for stroke in STROKES:
        name, confidence = classify_on_page(page, stroke)
        assert name == stroke.label, f"{stroke.name}: page says {name} ({confidence})"
    expect(page.get_by_text("conv2", exact=True)).to_be_visible()
    expect(page.get_by_text("Ran on")).to_be_visible()
    (ROOT / "artifacts").mkdir(exist_ok=True)
    page.screenshot(path=str(ROOT / "artifacts" / "draw-browser.png"), full_page=True)

    clear(page)
    expect(page.get_by_text(EMPTY_WARNING)).to_be_visible()
    expect(page.locator(PREDICTION)).to_have_count(0)
    draw(page, Stroke("h", "horizontal", ((20, 60), (260, 60))))
    assert read_prediction(page)[0] == "horizontal"

    page.get_by_role("button", name="Clear").click()
    page.wait_for_timeout(150)  # a quick hand, not a thread to wait for
    draw(page, Stroke("v", "vertical", ((140, 20), (140, 260))))
    wait_for_app(page)
    shown = wait_until(page, lambda: page.locator(PREDICTION).all_inner_texts(), ["vertical"])
    assert stroke_landed(page), "the stroke drawn after Clear was wiped from the canvas"
    assert shown == ["vertical"] and no_exception(page)

    # A tilted line gets its class; a check mark is not a line, and no class is shown as sure.
    line = Figure("tilted", "vertical", (((120, 20), (150, 260)),), 16)
    check = Figure("check", "none", (((70, 150), (120, 210), (230, 50)),), 24)
    answers = []
    for figure in (line, check):
        clear(page)
        draw_figure(page, figure)
        assert stroke_landed(page)
        answers.append(read_prediction(page))
    assert answers[0][0] == "vertical" and "sure" in answers[0][1]
    assert answers[1][0] == "Not one straight line" and "sure" not in answers[1][1].lower()
    expect(page.get_by_text("not one straight line: it bends")).to_be_visible()

    # Back from Train the drawing and its verdict are still there. A stroke drawn at once after Clear,
    # before the rerun that empties the restored canvas arrives (held back, as on a loaded server),
    # stays and is classified; Clear then empties the canvas for good.
    trip_to_train(page)
    assert stroke_landed(page), "the drawing was lost on the way to Train and back"
    assert read_prediction(page)[0] == "Not one straight line"
    link.hold()
    page.get_by_role("button", name="Clear").click()
    draw(page, Stroke("h", "horizontal", ((20, 140), (260, 140))))
    page.wait_for_timeout(500)  # the rerun Clear asks for is done by now, its answer held
    link.release()
    wait_for_app(page)
    shown = wait_until(page, lambda: page.locator(PREDICTION).all_inner_texts(), ["horizontal"])
    assert stroke_landed(page), "the stroke drawn at once after Clear was wiped from the canvas"
    assert shown == ["horizontal"] and no_exception(page)
    clear(page)
    trip_to_train(page)
    expect(page.get_by_text(EMPTY_WARNING)).to_be_visible()
    expect(page.locator(PREDICTION)).to_have_count(0)
    assert not page.locator(DRAWN).evaluate(INKED_JS) and no_exception(page)


def test_switching_the_model_keeps_the_drawing(server, page):
    """With a run trained on the lesson's lines, switching models shows or hides a hint above the
    canvas; the canvas must keep its stroke, and the new model classifies that same stroke."""
    page.goto(f"{server.url}/Train")
    wait_for_app(page)
    epochs = page.get_by_label("Epochs")
    epochs.fill("10")  # any run on the lesson's lines gets the hint; it need not learn them well
    epochs.press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Start").click()
    page.get_by_text("Summary · Run 1 ").wait_for(timeout=60_000)
    wait_for_app(page)
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name="Draw").click()
    page.locator(CANVAS).wait_for(timeout=120_000)
    wait_for_app(page, 120_000)
    expect(page.get_by_text("learned from the lesson's exact lines").first).to_be_visible()
    classify_on_page(page, Stroke("v", "vertical", ((140, 20), (140, 260)), 24))
    page.get_by_role("combobox", name="Model").click()  # the picker is a select box
    page.get_by_role("option", name="Default model", exact=True).click()
    # The hint above the canvas and, for a drawing unlike the lesson's lines, the note under the verdict.
    expect(page.get_by_text("learned from the lesson's exact lines")).to_have_count(0, timeout=120_000)
    wait_for_app(page, 120_000)
    assert stroke_landed(page), "the canvas was remounted blank"
    assert read_prediction(page)[0] == "vertical" and no_exception(page)


def test_fast_cell_clicks_all_count(server, page):
    """Cells clicked back to back, as fast as the browser can, are all painted and all classified;
    Clear empties the grid."""
    open_draw_page(page, server.url)
    use_cells(page)
    row = [3 * 8 + column for column in range(8)]
    for index in row:
        cell_button(page, index).click()
    wait_for_app(page)
    assert wait_until(page, lambda: model_input_sum(page), len(row)) == len(row), "the model lost clicks"
    assert painted_cells(page) == set(row)
    assert read_prediction(page)[0] == "horizontal" and no_exception(page)
    page.get_by_role("button", name="Clear").click()
    page.get_by_text("The grid is empty").wait_for()
    assert painted_cells(page) == set() and wait_until(page, lambda: model_input_sum(page), 0) == 0


def test_a_sample_of_generated_lines_and_non_lines_is_read_right(server, page):
    """Dashed and short lines drawn with the mouse get their class; a plus, a 7 and an S are each
    "Not one straight line", with no class shown as sure."""
    open_draw_page(page, server.url)
    wrong = []
    for figure in SAMPLE:
        set_brush(page, figure.brush)
        clear(page)
        draw_figure(page, figure)
        name, note = read_prediction(page)
        if (verdict := judge(figure, name, note)) != "ok":
            wrong.append(f"{figure.name}: {verdict}, page says {name} ({note})")
    assert not wrong and no_exception(page)
