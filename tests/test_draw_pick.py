"""AppTest: Draw's model picker offers every run of the tab, keeps a pick, and says when its run is gone."""

import pytest
import torch

from linecnn.train.config import RunConfig
from linecnn.train.data import CLASS_NAMES
from linecnn.train.model import build_model
from linecnn.train.trainer import EpochRecord
from linecnn.ui import state
from linecnn.ui.format import device_text
from tests.draw_helpers import synthetic_canvas
from tests.test_draw_page import PAGE, draw, texts, verdict
from tests.test_i18n import page_in

VERTICAL = ((140, 10), (140, 270))  # a clean vertical stroke; the runs below answer one class whatever it is
PICKER = "draw.model"


def sure_run(number: int, answer: str, val_acc: float) -> state.RunRecord:
    """A filed run whose model answers ``answer`` for every drawing, with ``val_acc`` as its last accuracy."""
    model = build_model()
    with torch.no_grad():
        model.fc2.weight.zero_()
        model.fc2.bias.copy_(torch.tensor([20.0 if name == answer else 0.0 for name in CLASS_NAMES]))
    last = EpochRecord(1, 1, 1.0, val_acc, 1.0, val_acc, 0.1, 0.1, "cpu")
    config = RunConfig.from_flat(epochs=1, per_class=5, data_mode="varied")
    return state.RunRecord(number, config, "cpu", (last,), [[0] * 3 for _ in range(3)], model.eval())


@pytest.fixture
def two_runs():
    """A Draw page with two finished runs: Run 1 says horizontal, Run 2 diagonal; a vertical line drawn."""
    at = page_in("en", PAGE)
    at.session_state[state.RUNS] = [sure_run(1, "horizontal", 0.5), sure_run(2, "diagonal", 1.0)]
    at.session_state[state.RUN_COUNT] = 2
    return draw(at, synthetic_canvas(VERTICAL))


def test_an_older_run_can_be_picked_and_classifies_with_its_own_weights(two_runs):
    """Every run is offered newest first with its validation accuracy; picking Run 1 classifies with
    Run 1's model, and the pick outlives a newer run and a visit to another page."""
    at = two_runs
    picker = at.selectbox(key=PICKER)
    assert picker.options == [
        "Run 2 · CPU · 1 ep · val acc 100.0%",
        "Run 1 · CPU · 1 ep · val acc 50.0%",
        "Default model",
    ]
    assert picker.value == 2 and verdict(at) == "diagonal"  # the last run, as before any pick
    picker.set_value(1).run()
    assert not at.exception and verdict(at) == "horizontal"
    assert "**Run 1 · CPU · 1 ep.**" in texts(at.caption)
    # Named the way the sidebar names the device, not by its key "cpu".
    assert f"1 epoch on {device_text('cpu')}." in texts(at.caption)
    at.session_state[state.RUNS] = [*at.session_state[state.RUNS], sure_run(3, "vertical", 1.0)]
    at.switch_page("app.py").run()
    at.switch_page(PAGE).run()
    assert at.selectbox(key=PICKER).value == 1
    at = draw(at, synthetic_canvas(VERTICAL))
    assert verdict(at) == "horizontal"


def test_the_last_run_pick_follows_a_newer_run(two_runs):
    """Left on the last run, the picker moves on to a run that ends after it, as it did before any pick."""
    at = two_runs
    at.session_state[state.RUNS] = [*at.session_state[state.RUNS], sure_run(3, "vertical", 1.0)]
    at.run()
    assert at.selectbox(key=PICKER).value == 3 and verdict(at) == "vertical"


def test_a_picked_run_gone_after_clear_history_falls_back_in_words(two_runs):
    """Run 1 picked, then the tab's runs cleared: Draw says Run 1 is gone and uses the default model, with
    no traceback; a picked run dropped as the oldest falls back to the last run the same way."""
    at = two_runs
    at.selectbox(key=PICKER).set_value(1).run()
    at.session_state[state.RUNS].clear()  # what Clear history on the Train page does (state.clear_runs)
    at = draw(at, synthetic_canvas(VERTICAL))
    assert not at.exception and not at.get("selectbox")
    said = texts(at.info)
    assert "Run 1 is no longer among this tab's runs" in said and "Draw uses the default model" in said
    assert "Default model" in texts(at.caption) and verdict(at) is not None
    at.session_state[state.RUNS] = [sure_run(2, "diagonal", 1.0), sure_run(3, "vertical", 1.0)]
    at.session_state[PICKER] = 2
    at.run()
    at.session_state[state.RUNS] = [at.session_state[state.RUNS][1]]  # Run 2 dropped as the oldest
    at.run()
    assert "Run 2 is no longer among this tab's runs" in texts(at.info) and "your last run" in texts(at.info)
    assert at.selectbox(key=PICKER).value == 3 and verdict(at) == "vertical"


def test_the_picker_speaks_spanish_and_keeps_the_pick_across_a_language_switch(two_runs):
    """In Spanish the runs, their accuracy and the default model are said the Spanish way; a switch sends
    the pick again in the new words."""
    at = two_runs
    at.selectbox(key=PICKER).set_value(1).run()
    at.session_state["language"] = "es"  # i18n.LANGUAGE
    at.run()
    picker = at.selectbox(key=PICKER)
    assert picker.label == "Modelo" and picker.value == 1
    assert picker.options == [
        "Ejecución 2 · CPU · 1 ép · exactitud val 100,0 %",
        "Ejecución 1 · CPU · 1 ép · exactitud val 50,0 %",
        "Modelo por defecto",
    ]
    assert picker.proto.set_value and picker.proto.raw_value == picker.options[1]
    assert f"1 época en {device_text('cpu')}." in texts(at.caption)
    assert verdict(at) == "horizontal"
    at.session_state[state.RUNS] = []
    at.run()
    assert "La Ejecución 1 ya no está entre las ejecuciones de esta pestaña" in texts(at.info)
    assert "Dibujar usa el modelo por defecto" in texts(at.info)
