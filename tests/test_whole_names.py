"""A picked option's whole name is written under its picker when a phone's closed picker would cut it."""

from __future__ import annotations

import dataclasses
import json

import pytest
from streamlit.testing.v1 import AppTest

from linecnn.bench.store import History
from linecnn.device import cpu_threads
from linecnn.train.config import RunConfig
from linecnn.train.trainer import fit
from linecnn.ui import state
from linecnn.ui.bench.history.section import run_label
from linecnn.ui.format import escape_markdown
from linecnn.ui.whole_name import PHONE_CHARS, PHONE_CHARS_UNCLEARABLE
from tests.bench_fixture import fake_gpu_document
from tests.helpers import ROOT, app_test
from tests.test_draw_page import as_session_run


@pytest.fixture(autouse=True)
def private_history(tmp_path, monkeypatch):
    """Every test gets its own empty benchmark history."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))


def captions(at) -> list[str]:
    return [caption.value for caption in at.caption]


@pytest.fixture(scope="module")
def trained():
    """A small run of the lesson's data, trained once for the module."""
    with cpu_threads("cpu", 1):
        return fit(RunConfig.from_flat(per_class=30, epochs=5))


def test_drawing_with_a_run_whose_name_a_phone_cuts_names_it_whole_under_the_picker(trained):
    """'Run 12 · CUDA:0 · 5 ep · restored · val acc …' is cut on a phone: its whole name follows; a short
    one does not repeat itself."""
    short = as_session_run(trained)
    long = dataclasses.replace(short, number=12, device="cuda:0", restored_from="run12.pt")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["lang"] = "es"
    at.session_state[state.RUNS] = [short, long]
    at.run()
    at.switch_page("pages/3_Draw.py").run()
    picker = at.selectbox(key="draw.model")
    assert picker.value == 12
    name = picker.format_func(12)
    assert name.startswith("Ejecución 12 · CUDA:0") and len(name) > PHONE_CHARS_UNCLEARABLE
    assert escape_markdown(name) in captions(at)
    for shown in (1, "default"):  # names a phone shows whole are not said twice
        at.session_state["draw.model"] = shown
        at.run()
        assert at.selectbox(key="draw.model").value == shown
        assert escape_markdown(picker.format_func(shown)) not in captions(at)


def test_the_run_picked_for_deleting_is_named_whole_under_the_picker():
    """A teacher about to delete a run reads its whole name, machine and all, not its first 40 characters."""
    run_id = History().import_json(json.dumps(fake_gpu_document(gpu_only=False, largest=400)))
    at = app_test("pages/2_Benchmark.py")
    at.selectbox(key="bench.delete.run").set_value(run_id).run()
    name = run_label(History().runs()[0])
    assert name.endswith("Imaginary GPU") and len(name) > PHONE_CHARS
    assert escape_markdown(name, limit=len(name)) in captions(at)
