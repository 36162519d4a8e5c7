"""AppTest of the Benchmark page on the CPU: renders, runs a small sweep, shows imports and caps."""

from __future__ import annotations

import json

import pytest

from linecnn.device import cuda_available
from linecnn.store import History
from tests.bench_fixture import fake_gpu_document
from tests.helpers import app_test

PAGE = "pages/2_Benchmark.py"


@pytest.fixture(autouse=True)
def private_history(tmp_path, monkeypatch):
    """Every test gets its own empty history."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))


def run_button(at):
    """The form's submit button."""
    return next(b for b in at.button if b.label == "Run benchmark")


def small_sweep(at, up_to: int = 1_200):
    """Pick a data sweep up to ``up_to`` images with one warm-up and two timed epochs, and run it."""
    at.selectbox(key="bench.up_to.data").set_value(up_to)
    at.number_input(key="bench.warmup").set_value(1)
    at.number_input(key="bench.repeats").set_value(2)
    run_button(at).click().run()
    return at


def test_page_renders_and_says_plainly_when_cuda_is_absent():
    """The page renders without an exception; without CUDA its column says why."""
    at = app_test(PAGE)
    assert not at.exception
    assert at.title[0].value == "Benchmark"
    if not cuda_available():
        assert any("Not available here" in info.value for info in at.info)


def test_a_small_sweep_fills_the_table_and_the_history():
    """Running a two-size data sweep shows a success message, device metrics and a results table."""
    at = small_sweep(app_test(PAGE, timeout=120))
    assert not at.exception
    assert any("Benchmark done" in s.value for s in at.success)
    table = at.dataframe[0].value
    assert list(table["images"]) == [360, 1_200] and (table["status"] == "ok").all()
    assert any(m.label == "median per epoch" for m in at.metric)
    assert len(History().runs()) == 1 and at.multiselect(key="bench.shown").value == [1]


def test_an_imported_gpu_run_shows_beside_the_cpu_with_the_crossover():
    """An imported GPU document gets its own column, speed-ups and the 'GPU faster above' sentence."""
    run_id = History().import_json(json.dumps(fake_gpu_document(gpu_only=False)))
    at = app_test(PAGE)
    at.session_state["bench.shown"] = [run_id]
    at.run()
    assert not at.exception
    verdicts = [s.value for s in at.success]
    assert any("GPU faster above ≈" in v and "images" in v for v in verdicts), verdicts
    labels = [m.label for m in at.metric]
    assert labels.count("speed-up vs CPU") == 2
    assert at.dataframe[0].value["speedup"].notna().all()


def test_the_server_time_cap_stops_a_sweep_with_a_message(monkeypatch):
    """With a zero-second cap the cells are stopped or skipped and the page says the cap was hit."""
    monkeypatch.setenv("LINECNN_BENCH_MAX_SECONDS", "0")
    at = small_sweep(app_test(PAGE, timeout=60))
    assert any("time cap" in w.value for w in at.warning)
    statuses = list(at.dataframe[0].value["status"])
    assert statuses[0].startswith("stopped: time cap") and statuses[1] == "skipped: time cap"


def test_the_server_size_cap_limits_the_sweep(monkeypatch):
    """A host's image cap removes bigger sizes from the choices and is stated on the page."""
    monkeypatch.setenv("LINECNN_BENCH_MAX_IMAGES", "2000")
    at = app_test(PAGE)
    assert at.selectbox(key="bench.up_to.data").options == ["360 images", "1,200 images"]
    assert any("above 2,000 images" in c.value for c in at.caption)


def test_a_faster_path_is_shown_beside_eager():
    """With channels_last on, each cell is also timed in eager and the page shows the ratio."""
    at = app_test(PAGE, timeout=120)
    at.segmented_control(key="bench.factor").set_value("none").run()
    at.number_input(key="bench.repeats").set_value(2)
    at.number_input(key="bench.warmup").set_value(1)
    at.toggle(key="bench.channels_last").set_value(True)
    run_button(at).click().run()
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["variant"]) == ["eager", "channels_last"]
    assert table["vs_eager"].isna().tolist() == [True, False]
    assert any("the speed of plain eager" in m.value for m in at.markdown)
