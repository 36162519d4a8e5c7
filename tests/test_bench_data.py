"""Benchmark documents into tables and the sweep figure: series, speed-ups, crossover marks."""

from __future__ import annotations

import pytest

from linecnn.bench.document import BenchDocument
from linecnn.ui.bench.results import data
from linecnn.ui.bench.results.charts import sweep_figure
from linecnn.ui.bench.results.compare import baseline_series, crossings, incomparable
from linecnn.ui.bench.results.data import results_frame
from linecnn.ui.bench.words import ms_text
from tests.bench_fixture import fake_gpu_document


def ShownRun(run_id: int, source: str, document: dict) -> data.ShownRun:  # noqa: N802 - reads as the class
    """A run on screen made from a document's JSON form, as the history loads it."""
    return data.ShownRun(run_id, source, BenchDocument.from_dict(document))


def test_frame_has_series_speedups_and_a_crossover():
    """Each device is a series; the GPU's speed-up is the CPU median over its own; they cross once."""
    frame = results_frame([ShownRun(3, "import", fake_gpu_document(gpu_only=False))])
    assert set(frame["kind"]) == {"cpu", "cuda"}
    assert baseline_series(frame).startswith("CPU ·")
    gpu = frame[frame["kind"] == "cuda"].set_index("x")
    cpu = frame[frame["kind"] == "cpu"].set_index("x")
    assert gpu["speedup"].tolist() == pytest.approx((cpu["median_ms"] / gpu["median_ms"]).tolist())
    found = crossings(frame, "data")
    [(series, crossing)] = found.items()
    assert crossing.kind == "crosses" and 1_200 < crossing.x < 3_600
    assert crossing.verdict.startswith("GPU faster above ≈")


def test_series_of_several_runs_say_which_run():
    """With two runs on screen, labels carry the run number and whether it was imported."""
    document = fake_gpu_document(largest=400)
    frame = results_frame([ShownRun(1, "page", document), ShownRun(2, "import", document)])
    assert {s.split(" · #")[1] for s in frame["series"]} == {"1", "2 (imported)"}


def test_figure_is_log_log_with_the_crossover_marked():
    """One trace per series, log axes, and a dashed line with the verdict where the GPU starts to win."""
    frame = results_frame([ShownRun(1, "import", fake_gpu_document(gpu_only=False))])
    found = crossings(frame, "data")
    figure = sweep_figure(frame[frame["ok"]], "data", found)
    assert len(figure.data) == 2
    assert figure.layout.xaxis.type == "log" and figure.layout.yaxis.type == "log"
    assert any(shape.line.dash == "dash" for shape in figure.layout.shapes)
    assert any("GPU faster above" in note.text for note in figure.layout.annotations)


def test_the_win_shading_stops_where_the_cpu_stops():
    """Past the CPU's largest point the chart shows the GPU alone, so the 'GPU wins' band ends there."""
    frame = results_frame([ShownRun(1, "import", fake_gpu_document(gpu_only=False))])
    frame = frame[frame["ok"]]
    cpu_max = frame[frame["kind"] == "cpu"]["x"].max()
    frame = frame[(frame["kind"] != "cpu") | (frame["x"] < cpu_max)]  # the CPU stopped a size earlier
    figure = sweep_figure(frame, "data", crossings(frame, "data"))
    [band] = [shape for shape in figure.layout.shapes if shape.type == "rect"]
    assert band.x1 == frame[frame["kind"] == "cpu"]["x"].max() < frame["x"].max()


def test_runs_of_other_settings_get_no_speed_up_or_crossover():
    """A GPU run at width 16, batch 64 is not compared with a CPU run at width 1, full batch."""
    cpu_document = fake_gpu_document(gpu_only=False)
    cpu_document["results"] = [r for r in cpu_document["results"] if r["device"] == "cpu"]
    gpu_document = fake_gpu_document(gpu_only=True)
    for result in gpu_document["results"]:
        result["config"].update(width=16, batch_size=64, step_size=64)
    frame = results_frame([ShownRun(1, "page", cpu_document), ShownRun(2, "import", gpu_document)])
    gpu = frame[frame["kind"] == "cuda"]
    assert gpu["speedup"].isna().all() and crossings(frame, "data") == {}
    [(series, how)] = incomparable(frame, "data").items()
    assert series == gpu["series"].iat[0] and how == "batch size 64 vs 4,096, width 16 vs 1"
    same = results_frame([ShownRun(1, "import", fake_gpu_document(gpu_only=False))])
    assert incomparable(same, "data") == {} and same["speedup"].notna().all()


def test_milliseconds_read_well():
    """Short, three-significant-figure labels."""
    assert [ms_text(v) for v in (0.4123, 8.42, 123.4, 12_345.0, None)] == [
        "0.412 ms",
        "8.42 ms",
        "123 ms",
        "12.3 s",
        "-",
    ]


def test_cpu_peak_is_labelled_as_the_process_rss_not_the_cells():
    """A GPU cell's peak is its own; a CPU cell's number is the process's peak RSS, in its own column."""
    frame = results_frame([ShownRun(1, "import", fake_gpu_document(gpu_only=False, largest=400))])
    cpu, gpu = frame[frame["kind"] == "cpu"], frame[frame["kind"] == "cuda"]
    assert cpu["peak_memory_mb"].isna().all() and cpu["process_rss_mb"].notna().all()
    assert gpu["peak_memory_mb"].notna().all() and gpu["process_rss_mb"].isna().all()
