"""Inside one step: torch.profiler's counts, split and FLOPs of a training step, the CLI and the page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from linecnn.bench import in_worker, profile_worker
from linecnn.bench.config import BenchConfig
from linecnn.bench.document import BenchDocument
from linecnn.bench.peaks import peak_gflops
from linecnn.bench.profile import profile_step
from linecnn.bench.step_profile import Operator, StepProfile
from linecnn.cli.profile import profile_text
from linecnn.jobs.inside import Looked
from linecnn.stop import Stopped, StopReason
from linecnn.ui import i18n
from linecnn.ui.bench.inside_step.view import figures_frame, honesty, operators_frame, split_figure, verdict
from tests.helpers import app_test

LESSON = BenchConfig()  # the lesson's cell: 360 images in one full batch


def lesson_flops(batch: int) -> int:
    """Conv and linear FLOPs of one training step of the lesson's CNN, counted by hand.

    A multiply-add is two FLOPs. Forward: conv1 8 filters of 1x3x3 over 8x8, conv2 16 of 8x3x3 over
    4x4, fc1 64->16, fc2 16->3. Backward computes each layer's weight gradient (as much work as its
    forward) and, except for conv1 (the images need no gradient), its input gradient (as much again).
    """
    conv1 = 2 * 8 * 1 * 9 * 8 * 8
    conv2 = 2 * 16 * 8 * 9 * 4 * 4
    fc1, fc2 = 2 * 64 * 16, 2 * 16 * 3
    return batch * (2 * conv1 + 3 * (conv2 + fc1 + fc2))


@pytest.fixture(scope="module")
def lesson_profile():
    """The lesson's cell on the CPU, profiled once for the tests that read it."""
    return profile_step(LESSON, "cpu", steps=3)


def test_the_flops_of_a_step_match_a_hand_count(lesson_profile):
    """FLOPs per step equal the hand count for the lesson's CNN at its batch of 360."""
    assert lesson_profile.images == 360
    assert lesson_profile.flops == lesson_flops(360)


def test_the_split_adds_up_to_the_profiled_step(lesson_profile):
    """Operators' work plus everything around it is the median profiled step; the CPU has no kernels."""
    p = lesson_profile
    assert p.kernels is None
    assert 0 < p.work_ms <= p.profiled_ms
    assert p.work_ms + p.around_ms == pytest.approx(p.profiled_ms)
    assert 0 < p.work_share <= 1
    assert p.gflops_per_s == pytest.approx(p.flops / (p.plain_ms / 1000) / 1e9)
    assert p.load_average is not None and p.cores  # kept, to say whether other work competed (Linux)


def test_the_counts_and_top_operators_are_the_lessons_step(lesson_profile):
    """Each phase shows the operators a conv net's step runs, and the calls are those of one step."""
    ops = {(op.phase, op.name): op for op in lesson_profile.operators}
    assert ("forward", "aten::addmm") in ops and ops["forward", "aten::addmm"].calls == 2  # fc1, fc2
    assert ops["backward", "aten::convolution_backward"].calls == 2  # conv1, conv2
    assert ops["optimizer", "aten::_fused_adam_"].calls == 1
    # One step of this net dispatches some hundreds of aten operators, not thousands (three steps).
    assert 50 < lesson_profile.operator_calls < 1000


def test_known_gpus_have_a_datasheet_peak_and_others_none():
    """A100 and H100 variants are told apart; a CPU or an unknown board gets no peak at all."""
    assert peak_gflops("CUDA:0 · NVIDIA A100-SXM4-80GB") == 19_500
    assert peak_gflops("NVIDIA H100 PCIe") == 51_200
    assert peak_gflops("NVIDIA H100 80GB HBM3") == 67_000
    assert peak_gflops("CPU · AMD EPYC") is None


def test_the_cli_prints_the_breakdown_writes_the_trace_and_the_json(tmp_path):
    """--profile prints each cell's figures and sentence; --trace is a Chrome trace; --json carries them."""
    trace = tmp_path / "step.json"
    common = [sys.executable, "-m", "linecnn", "bench", "--devices", "cpu", "--warmup", "1", "--repeats", "1"]
    shown = subprocess.run(
        [*common, "--no-save", "--trace", str(trace)], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert "Inside one step" in shown and "operator calls of about" in shown
    assert f"{lesson_flops(360) / 1e6:,.1f} MFLOP per step" in shown
    assert "traceEvents" in json.loads(trace.read_text())
    printed = subprocess.run(
        [*common, "--no-save", "--json", "--profile"], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    document = json.loads(printed)
    assert document["profile"][0]["flops"] == lesson_flops(360)
    assert BenchDocument.from_json(printed).results  # the page's import still reads it


def test_a_sweeps_traces_are_written_one_per_profile_and_said(tmp_path):
    """With a sweep there are two profiles (the lesson's cell and the largest): both traces are written,
    beside the name given, and the output names them; the run is still saved afterwards."""
    trace = tmp_path / "step.json"
    command = [sys.executable, "-m", "linecnn", "bench", "--devices", "cpu", "--warmup", "1"]
    command += ["--repeats", "1", "--sweep", "data", "--up-to", "1200", "--trace", str(trace)]
    environment = {**os.environ, "LINECNN_DATA_DIR": str(tmp_path / "data")}
    shown = subprocess.run(command, capture_output=True, text=True, timeout=180, check=True, env=environment)
    written = sorted(tmp_path.glob("step-*.json"))
    assert len(written) == 2, shown.stderr
    assert all(str(path) in shown.stdout for path in written)
    assert "Saved" in shown.stdout or "saved" in shown.stdout.lower(), shown.stdout[-400:]


def test_the_page_looks_inside_and_offers_the_trace(tmp_path, monkeypatch):
    """Look inside one step profiles each cell, shows the figures and a sentence, and keeps the trace."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))
    at = app_test("pages/2_Benchmark.py")
    at.session_state["bench.up_to.data"] = 1_200  # as if the form had been run up to 1,200 images
    at.run()
    assert "steps of 1,200 images" in " ".join(m.value for m in at.markdown)
    at.button(key="inside.run").click().run()
    job = at.session_state["inside.running"]
    assert job.done.wait(120), "the profile did not end in time"
    at.run()
    assert not at.exception
    looked = at.session_state["inside.result"]
    assert [item.profile.images for item in looked] == [360, 1_200]
    assert all("traceEvents" in json.loads(item.trace) for item in looked)
    text = " ".join(m.value for m in at.markdown)
    assert "operator calls of about" in text
    assert len(at.dataframe) >= 2


def test_gpu_figures_appear_only_when_a_cell_ran_on_a_gpu():
    """Cells compare side by side, one column each; a CPU-only machine's tables carry no rows or
    columns of dashes for kernels, GPU time or a GPU's peak."""
    conv = Operator("aten::mkldnn_convolution", "forward", calls=2, self_ms=1.0, device_ms=0.0)
    cpu = StepProfile("cpu", 360, 5, 3.0, 4.0, 229, None, 2.5, 48.8e6, (conv,))
    big = StepProfile("cpu", 4096, 5, 30.0, 33.0, 229, None, 29.0, 554.8e6, (conv,))
    gpu = StepProfile("cuda:0", 360, 5, 1.0, 1.2, 229, 40, 0.2, 48.8e6, (conv,))
    alone = figures_frame([cpu, big]).set_index("Figure")
    assert list(alone.columns) == ["CPU · steps of 360 images", "CPU · steps of 4,096 images"]
    assert list(alone.loc["MFLOP per step"]) == ["48.8", "554.8"]
    assert not {"GPU kernels", "Peak GFLOP/s"} & set(alone.index)
    assert "GPU time, ms" not in operators_frame(cpu).data.columns
    assert operators_frame(cpu).data["Own time, ms"].dtype.kind == "f"  # sorts by size, not as text
    both = figures_frame([cpu, gpu]).set_index("Figure")
    assert {"GPU kernels", "Peak GFLOP/s", "GFLOP/s"} <= set(both.index)
    assert list(both.loc["GPU kernels"]) == ["–", "40"]
    assert "GPU time, ms" in operators_frame(gpu).data.columns


def test_the_profilers_cost_is_quoted_unless_noise_hid_it():
    """A profiled step slower than the plain one is quoted as the profiler's cost; a faster one is not."""

    def cell(plain_ms: float, profiled_ms: float) -> StepProfile:
        return StepProfile("cpu", 360, 5, plain_ms, profiled_ms, 229, None, 2.0, 48.8e6, ())

    assert "up to 25% slower" in honesty([cell(4.0, 5.0), cell(40.0, 41.0)])
    noisy = honesty([cell(5.0, 4.0)])
    assert "no slower than the plain ones" in noisy and "%" not in noisy


def test_a_profile_taken_on_a_busy_machine_says_its_times_include_waiting():
    """Over the core count, the load average marks the profile busy: the verdict and the CLI stop
    calling the time arithmetic; profiles written before the load was kept still load, as not busy."""
    quiet = StepProfile("cpu", 360, 5, 3.0, 4.0, 229, None, 3.9, 48.8e6, (), load_average=1.5, cores=2)
    busy = StepProfile("cpu", 360, 5, 27.0, 100.0, 229, None, 98.0, 48.8e6, (), load_average=6.8, cores=2)
    assert not quiet.busy and busy.busy
    assert "doing the arithmetic" in verdict(quiet)
    assert "waiting for a core" in verdict(busy) and "doing the arithmetic" not in verdict(busy)
    printed = profile_text([busy])
    assert "load average up to 6.8 on 2 cores" in printed and "doing the arithmetic" not in printed
    old = {key: value for key, value in busy.to_dict().items() if key not in ("load_average", "cores")}
    assert not StepProfile.from_dict(old).busy
    assert StepProfile.from_dict(busy.to_dict()) == busy


@pytest.mark.parametrize(
    ("language", "words"), [("en", "The machine was busy"), ("es", "La máquina estaba ocupada")]
)
def test_the_page_warns_that_a_busy_machines_profile_includes_waits(tmp_path, monkeypatch, language, words):
    """A look taken while the load average was over the core count is shown under a warning saying so."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))
    busy = StepProfile("cpu", 360, 5, 27.0, 100.0, 229, None, 98.0, 48.8e6, (), load_average=6.8, cores=2)
    at = app_test("pages/2_Benchmark.py")
    at.session_state[i18n.LANGUAGE] = language
    at.session_state["inside.result"] = [Looked(busy, b"{}")]
    at.run()
    assert not at.exception
    warnings = [w.value for w in at.warning if words in w.value]
    assert warnings and ("6.8" if language == "en" else "6,8") in warnings[0]


def test_the_page_says_so_in_spanish(tmp_path, monkeypatch):
    """The section's title and button follow the reader's language."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))
    at = app_test("pages/2_Benchmark.py")
    at.session_state[i18n.LANGUAGE] = "es"
    at.run()
    assert at.button(key="inside.run").label == "Mirar dentro de un paso"
    assert "Dentro de un paso" in [h.value for h in at.subheader]


def test_a_trace_path_the_cli_cannot_write_is_refused_before_timing(tmp_path):
    """A trace in a folder that does not exist is refused at once, with a sentence."""
    result = subprocess.run(
        [sys.executable, "-m", "linecnn", "bench", "--no-save", "--trace", str(tmp_path / "no" / "t.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "does not exist" in result.stderr
    assert not Path(tmp_path / "no").exists()


def test_a_cancel_ends_the_profiling_process_at_once(tmp_path, monkeypatch):
    """Cancel while the worker profiles: Stopped within seconds, and the worker's process is gone."""
    started_processes = []
    real_popen = in_worker.subprocess.Popen

    def popen(*args, **kwargs):
        started_processes.append(real_popen(*args, **kwargs))
        return started_processes[-1]

    monkeypatch.setattr(in_worker.subprocess, "Popen", popen)
    checks = []

    def check():
        checks.append(time.monotonic())
        if len(checks) > 5:  # half a second in: the user pressed Cancel
            raise Stopped(StopReason.CANCELLED)

    begun = time.monotonic()
    with pytest.raises(Stopped):
        list(profile_worker.profile_in_worker([(LESSON, "cpu")], tmp_path, None, check))
    assert time.monotonic() - begun < 15
    assert started_processes and started_processes[0].poll() is not None


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_split_bars_hover_names_the_cell_the_part_and_the_milliseconds(language, monkeypatch):
    """Plotly's own hover on a bar was a bare '(2,5, CPU · 360 imágenes)' on a Spanish page: the decimal
    comma read as the pair's comma. Each bar now says its cell, its part and its milliseconds."""
    monkeypatch.setattr(i18n, "current", lambda: language)
    cell = StepProfile("cpu", 360, 5, 3.0, 4.0, 229, None, 2.5, 48.8e6, ())
    bars = split_figure([cell]).data
    assert [bar.name for bar in bars] == [i18n.t("inside.work"), i18n.t("inside.around")]
    assert {bar.hovertemplate for bar in bars} == {"%{y}<br>%{fullData.name}: %{x:.3g} ms<extra></extra>"}
