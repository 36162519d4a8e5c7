"""Every chart has a name a screen reader reads: what it shows, in the page's language."""

import re

import pytest
from streamlit.testing.v1 import AppTest

from linecnn.device import cpu_threads
from linecnn.train.config import RunConfig
from linecnn.train.trainer import fit
from linecnn.ui import state
from linecnn.ui.i18n import catalog
from tests.draw_helpers import synthetic_canvas
from tests.helpers import ROOT
from tests.test_draw_page import as_session_run, draw

NAME_KEYS = {key for key in catalog("en") if key.startswith("chart.")}


def page_in(path: str, language: str, settings: dict | None = None):
    """An AppTest on ``path`` opened from a link in ``language`` (?lang=), with ``settings`` in its state."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["lang"] = language
    for key, value in (settings or {}).items():
        at.session_state[key] = value
    at.run()
    return at.switch_page(path).run()


def chart_names(at) -> dict[str, str]:
    """Each chart's key and the name (alt) it carries to the browser."""
    return {chart.key: chart.proto.alt for chart in at.get("plotly_chart")}


def in_language(name: str, language: str) -> bool:
    """True when ``name`` starts as one of the chart descriptions of ``language`` does."""
    starts = {catalog(language)[key].split("{")[0].split(":")[0] for key in NAME_KEYS}
    return any(name.startswith(start) for start in starts)


@pytest.mark.parametrize("language", ["en", "es"])
def test_every_chart_of_a_training_run_is_named_in_the_pages_language(language):
    # A finished run in the session, as Start files it: AppTest cannot rerun a page whose choice
    # boxes are worded in Spanish, so the page is drawn once, as on the reader's return to it.
    with cpu_threads("cpu", 1):
        trainer = fit(RunConfig.from_flat(per_class=30, epochs=6))
    at = page_in("pages/1_Train.py", language, {state.RUNS: [as_session_run(trainer)]})
    assert not at.exception
    names = chart_names(at)
    assert len(names) >= 4  # loss, accuracy, confusion matrix and the runs' overlay
    assert all(name and in_language(name, language) for name in names.values()), names
    overlay = next(name for key, name in names.items() if key == "train.overlay")
    assert {"en": "1 run: validation loss by epoch", "es": "1 ejecución: pérdida de validación según época"}[
        language
    ] in overlay


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_draw_pages_charts_are_named_and_the_bars_say_their_values(language):
    at = page_in("pages/3_Draw.py", language)
    at = draw(at, synthetic_canvas(((10, 10), (10, 270))))
    assert not at.exception
    names = chart_names(at)
    assert set(names) == {"draw.input", "draw.probabilities", "draw.conv1", "draw.conv2"}
    assert all(name and in_language(name, language) for name in names.values()), names
    bars = names["draw.probabilities"]  # each class with its share, as the bars show them
    assert re.search(r"vertical \d+ ?%, horizontal \d+ ?%, diagonal \d+ ?%$", bars), bars
