"""The Draw page in AppTest: drawings injected through session_state, models, cells, Clear."""

import base64
import io
import json
import re

import numpy as np
import pytest
from PIL import Image

from linecnn.device import cpu_threads
from linecnn.train.config import RunConfig
from linecnn.train.trainer import Trainer, fit
from linecnn.ui import i18n, state
from tests.draw_helpers import synthetic_canvas
from tests.helpers import app_test

PAGE = "pages/3_Draw.py"
TIMEOUT = 120  # the first run in a process trains the default model


def canvas_value(rgba: np.ndarray) -> dict:
    """What the canvas component stores in session_state after a stroke: Fabric JSON and a PNG."""
    buffer = io.BytesIO()
    Image.fromarray(rgba).save(buffer, format="PNG")
    data = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    return {"drawing": {"raw": {"objects": [{"type": "path"}]}, "data": data}, "backgroundFit": None}


def draw(at, rgba: np.ndarray):
    """Put a drawing on the page's current canvas and rerun, as a pen lift does."""
    at.session_state["draw.canvas"] = canvas_value(rgba)
    return at.run()


def verdict(at) -> str | None:
    """The class the page shows in large type, or None."""
    for block in at.markdown:
        found = re.search(r"data-testid='draw-prediction'[^>]*>([^<]*)<", block.value)
        if found:
            return found.group(1)
    return None


def texts(elements) -> str:
    """All values of an element list, joined."""
    return " ".join(str(element.value) for element in elements)


def as_session_run(trainer) -> state.RunRecord:
    """A finished training run as the Train page files it in the session."""
    return state.RunRecord(
        number=1,
        config=trainer.config,
        device="cpu",
        history=tuple(trainer.history),
        confusion=trainer.confusion_matrix(),
        model=trainer.model.eval(),
    )


@pytest.fixture
def page():
    """A fresh session on the Draw page."""
    at = app_test(PAGE, timeout=TIMEOUT)
    assert not at.exception
    return at


def test_empty_canvas_shows_a_friendly_warning(page):
    """First visit: no error, a warning that the canvas is empty, the default model named."""
    assert "canvas is empty" in texts(page.warning)
    assert verdict(page) is None
    assert "default model" in texts(page.caption)


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        (((10, 10), (10, 270)), "vertical"),
        (((20, 200), (260, 200)), "horizontal"),
        (((270, 10), (10, 270)), "diagonal"),
    ],
)
def test_injected_drawing_is_classified(page, points, expected):
    """A stroke in session_state gives the class, its probabilities, the device and the maps."""
    at = draw(page, synthetic_canvas(points))
    assert not at.exception
    assert verdict(at) == expected
    assert "Ran on **CPU" in texts(at.caption)
    assert "conv1" in texts(at.markdown) and "conv2" in texts(at.markdown)
    assert not at.warning  # a clean line: no warning at all


def test_black_canvas_gets_a_clear_message(page):
    """A canvas filled with ink is refused in words, never with an exception."""
    black = np.zeros((280, 280, 4), dtype=np.uint8)
    black[..., 3] = 255
    at = draw(page, black)
    assert not at.exception
    assert "most of the canvas" in texts(at.warning)


def test_dot_is_called_a_dot_and_the_answer_a_forced_guess(page):
    """Bad input is explained: a warning, and the class shown as a guess the softmax must make."""
    at = draw(page, synthetic_canvas(((140, 140),), width=24))
    assert not at.exception
    assert "looks like a dot" in texts(at.warning)
    assert "forced guess" in texts(at.markdown) and "none of these" in texts(at.caption)


def test_cell_grid_input(page):
    """A grid with one row painted (as the grid sends it) is a horizontal line, as in the lesson's grid;
    the grid is remembered across a trip to the canvas. The verdict is a status: a screen reader says it
    when a pressed cell changes it, without the reader having to go looking for it."""
    page.segmented_control(key="draw.mode").set_value("cells").run()
    assert "The grid is empty. Click cells" in texts(page.warning)
    assert "A painted cell is 1" in texts(page.caption) and "35×35" not in texts(page.caption)
    row = [24 <= index < 32 for index in range(64)]
    page.session_state["draw.grid"] = {"cells": row}
    page.run()
    assert not page.exception
    assert verdict(page) == "horizontal"
    said = next(block.value for block in page.markdown if "draw-prediction" in block.value)
    assert re.fullmatch(r"<div role='status'><div data-testid='draw-prediction'.*</div></div>", said)
    page.segmented_control(key="draw.mode").set_value("canvas").run()
    page.segmented_control(key="draw.mode").set_value("cells").run()
    assert verdict(page) == "horizontal"


def test_last_training_run_is_used_and_can_be_switched(page):
    """With a run in the session the page offers it first, names it, and can switch to the default."""
    with cpu_threads("cpu", 1):
        trainer = fit(RunConfig.from_flat(per_class=30, epochs=5))  # the lesson's data
    page.session_state[state.RUNS] = [as_session_run(trainer)]
    at = draw(page, synthetic_canvas(((140, 10), (140, 270))))
    assert not at.exception
    picker = at.selectbox(key="draw.model")
    assert picker.value == 1  # the run's number
    assert "Run 1" in texts(at.caption)
    assert "exact lines only" in texts(at.info)  # warns that lesson-only runs misread real strokes
    picker.set_value("default").run()
    assert "Default model" in texts(at.caption) and not at.info


def test_a_first_run_still_under_way_is_named_instead_of_asking_to_train_one(page):
    """With a first run paused on Train and none finished, the page says it waits, not 'Train a model'."""
    trainer = Trainer(RunConfig.from_flat(per_class=30, epochs=3000), "cpu")
    trainer.pause()
    page.session_state[state.LIVE] = trainer
    at = page.run()
    assert not at.exception
    assert "waits there at epoch 0 of 3,000" in texts(at.caption)
    assert "Train a model on the Train page" not in texts(at.caption)


def component_data(at, key: str) -> dict:
    """The data the page sends a browser-side component (the canvas, its Clear button)."""
    component = next(e for e in at.get("bidi_component") if e.proto.id.endswith(f"-{key}"))
    return json.loads(component.proto.json)


def initial_drawing(at) -> dict:
    """The drawing the page's canvas is told to start from (Fabric JSON)."""
    return component_data(at, "draw.canvas")["initialDrawing"]


def trip(at, to: str = "pages/1_Train.py"):
    """Go to another page and back to Draw, as the sidebar's links do."""
    at.switch_page(to).run()
    return at.switch_page(PAGE).run()


def test_the_drawing_survives_a_trip_to_another_page_until_it_is_cleared(page):
    """Back from Train, from the Lesson in Spanish or from the cell grid, the canvas is redrawn from
    the stroke and its verdict is shown again; once the canvas is cleared, a trip brings back an empty one."""
    at = trip(draw(page, synthetic_canvas(((140, 10), (140, 270)))))
    assert not at.exception
    assert verdict(at) == "vertical" and not at.warning
    assert initial_drawing(at)["objects"] == [{"type": "path"}]  # the stroke's Fabric JSON, as sent
    at.session_state[i18n.LANGUAGE] = "es"
    at = trip(at.run(), "pages/4_Lesson.py")
    at.segmented_control(key="draw.mode").set_value("cells").run()
    at.segmented_control(key="draw.mode").set_value("canvas").run()
    assert verdict(at) == "vertical" and initial_drawing(at)["objects"] == [{"type": "path"}]

    blank = np.full((280, 280, 4), 255, dtype=np.uint8)  # what the canvas sends once cleared
    at = trip(draw(at, blank), "pages/4_Lesson.py")
    assert verdict(at) is None and "lienzo está vacío" in texts(at.warning)
    assert initial_drawing(at)["objects"] == []


def test_brush_survives_a_trip_to_the_cell_grid(page):
    """The brush width is kept while the canvas is hidden by the cell grid."""
    page.segmented_control(key="draw.brush").set_value(8).run()
    page.segmented_control(key="draw.mode").set_value("cells").run()
    page.segmented_control(key="draw.mode").set_value("canvas").run()
    assert not page.exception
    assert page.segmented_control(key="draw.brush").value == 8


def test_clear_holds_the_canvas_pen_for_strokes_drawn_while_the_canvas_empties(page):
    """Clear's blank sheet, over a canvas waiting for the rerun that empties it, draws the strokes it
    takes with the canvas's own ink and brush, the brush as just picked."""
    for brush in (8, 36):
        page.segmented_control(key="draw.brush").set_value(brush).run()
        canvas = component_data(page, "draw.canvas")
        assert canvas["strokeWidth"] == brush
        pen = component_data(page, "draw.canvas_clear")["pen"]
        assert pen == {"ink": canvas["strokeColor"], "brush": brush}


def test_a_wide_models_feature_maps_show_only_the_most_active(page):
    """A width-16 run has 128 and 256 maps: the page draws its 16 and 32 most active and says so."""
    with cpu_threads("cpu", 1):
        trainer = fit(RunConfig.from_flat(per_class=10, epochs=1, width=16))
    page.session_state[state.RUNS] = [as_session_run(trainer)]
    at = draw(page, synthetic_canvas(((140, 10), (140, 270))))
    assert not at.exception
    shown = texts(at.markdown)
    assert "the 16 most active of 128 feature maps" in shown and "the 32 most active of 256" in shown
    traces = sorted(len(json.loads(chart.proto.spec)["data"]) for chart in at.get("plotly_chart"))
    assert traces[-2:] == [16, 32]  # conv1's and conv2's grids of one heatmap per map


def test_a_check_mark_is_not_a_line_and_no_class_is_shown_as_sure(page):
    """A check mark gets the "not one straight line" verdict; its bars are labelled a forced guess."""
    at = draw(page, synthetic_canvas(((70, 150), (120, 210), (230, 50))))
    assert not at.exception
    assert verdict(at) == "Not one straight line"
    assert "not one straight line" in texts(at.warning)
    shown = texts(at.markdown)
    assert "sure" not in shown.replace("Not one straight line", "") and "forced guess" in shown


def test_a_lesson_run_says_when_a_drawing_is_unlike_its_data(page):
    """With a lesson-data run, a thick short stroke's confidence is qualified, not "99 % sure"."""
    with cpu_threads("cpu", 1):
        trainer = fit(RunConfig.from_flat(per_class=30, epochs=80))  # the lesson's data, learned
    page.session_state[state.RUNS] = [as_session_run(trainer)]
    at = draw(page, synthetic_canvas(((100, 100), (100, 190)), width=36))
    assert not at.exception
    shown = texts(at.markdown)
    assert "unlike its training data" in shown and " sure" not in shown
    assert "unlike all of them" in texts(at.warning)
    exact = draw(at, synthetic_canvas(((122.5, 2), (122.5, 278)), width=34))  # column 3, as in the lesson
    assert "unlike" not in texts(exact.markdown) and not exact.warning


def test_a_noisy_data_run_is_judged_as_a_lesson_run(page):
    """Noisy data holds only the lesson's exact lines too: the same hint, no "% sure" for a thick stroke."""
    with cpu_threads("cpu", 1):
        trainer = fit(RunConfig.from_flat(per_class=30, epochs=20, data_mode="noisy"))
    page.session_state[state.RUNS] = [as_session_run(trainer)]
    at = draw(page, synthetic_canvas(((100, 100), (100, 190)), width=36))
    assert not at.exception
    assert "exact lines only" in texts(at.info)
    assert "unlike all of them" in texts(at.warning) and "% sure" not in texts(at.markdown)


@pytest.mark.parametrize("language", ["en", "es"])
def test_every_percentage_on_the_page_is_written_one_way_per_language(page, language):
    """The softmax note wrote '100 %' where the verdict and bars wrote '100%': English now writes
    '100%' everywhere, Spanish '100 %' everywhere (the RAE's spacing), prose, verdict, bars and axis."""
    from linecnn.ui import i18n

    page.session_state[i18n.LANGUAGE] = language
    shown = []
    for stroke in (((70, 150), (120, 210), (230, 50)), ((140, 10), (140, 270))):  # a check mark, a line
        at = draw(page, synthetic_canvas(stroke))
        assert not at.exception
        shown += [texts(at.markdown), texts(at.caption)]
        bars = next(c for c in at.get("plotly_chart") if '"type":"bar"' in c.proto.spec.replace(" ", ""))
        spec = json.loads(bars.proto.spec)
        shown += [*spec["data"][0]["text"], *spec["layout"]["yaxis"]["ticktext"]]
    written = " ".join(shown)
    spaced, tight = re.findall(r"\d[ \u00a0]%", written), re.findall(r"\d%", written)
    assert (tight and not spaced) if language == "en" else (spaced and not tight), (spaced, tight)
