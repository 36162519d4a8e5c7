"""The benchmark core: statistics, sync placement, one-time costs, OOM, caps, crossover, the lock."""

from __future__ import annotations

import threading
import time

import pytest
import torch

from linecnn.bench import timing
from linecnn.bench.cell import bench, is_out_of_memory
from linecnn.bench.config import MAX_FULL_BATCH, BenchConfig
from linecnn.bench.crossover import crossover
from linecnn.bench.document import BenchEnv
from linecnn.bench.factors import FACTORS, factor
from linecnn.bench.jsonfields import Fields
from linecnn.bench.plan import Caps, SweepPlan, plan_sweep, step_bytes
from linecnn.bench.results import CellStatus
from linecnn.bench.sweep import run_sweep
from linecnn.bench.timing import Watch, summarize, time_epochs
from linecnn.classroom.bench_turns import bench_turns
from linecnn.stop import Stopped, StopReason
from tests.precision import full_fp32

TINY = BenchConfig.from_flat(per_class=40, warmup=1, repeats=3)  # 120 images: milliseconds per cell
JOIN = 60.0  # seconds a thread of a test may take before the test gives up on it


def test_summary_statistics():
    """Median, quartiles (numpy's linear method) and images per second from epoch seconds."""
    summary = summarize([0.005, 0.001, 0.003, 0.002, 0.004], images=300)
    assert summary.median_ms == pytest.approx(3.0)
    assert summary.p25_ms == pytest.approx(2.0) and summary.p75_ms == pytest.approx(4.0)
    assert summary.samples_per_s == pytest.approx(100_000)
    single = summarize([0.25], images=10)
    assert single.median_ms == single.p25_ms == single.p75_ms == pytest.approx(250)
    with pytest.raises(ValueError, match="no timed epochs"):
        summarize([], images=1)


def test_every_clock_read_follows_a_sync():
    """With a fake clock and device, each clock read comes right after a sync, epochs in between."""
    events, now = [], [0.0]

    def clock() -> float:
        events.append("clock")
        return now[0]

    def epoch() -> None:
        events.append("epoch")
        now[0] += 0.5  # the "GPU" reports this much work once synchronised

    seconds = time_epochs(epoch, "fake", 3, clock=clock, sync=lambda device: events.append(f"sync {device}"))
    assert seconds == [0.5, 0.5, 0.5]
    assert events == ["sync fake", "clock", "epoch", "sync fake", "clock"] * 3
    for index, event in enumerate(events):
        if event == "clock":
            assert events[index - 1] == "sync fake"


def test_bench_times_real_epochs_on_the_cpu():
    """A tiny cell has one time per repeat, a median inside them, and its one-time costs apart."""
    result = bench(TINY, "cpu")
    assert result.ok and len(result.times_ms) == 3
    assert min(result.times_ms) <= result.median_ms <= max(result.times_ms)
    assert result.p25_ms <= result.median_ms <= result.p75_ms
    assert result.samples_per_s == pytest.approx(120 / (result.median_ms / 1000))
    assert result.first_epoch_ms > 0 and result.setup_ms > 0 and result.autotune_ms > 0
    assert result.context_ms is None and result.compile_ms is None  # no CUDA context, no compiling
    data = result.to_dict(FACTORS["data"])
    assert data["config"]["images"] == 120 and data["config"]["variant"] == "eager" and data["x"] == 120


def test_options_that_do_not_apply_are_dropped_with_a_note():
    """AMP and CUDA graphs on the CPU are timed without, and the result says so."""
    config = BenchConfig.from_flat(per_class=10, warmup=1, repeats=1, amp="bf16", cuda_graphs=True)
    result = bench(config, "cpu")
    assert result.ok and result.config.amp == "off" and not result.config.cuda_graphs
    assert any("AMP runs on CUDA only" in note for note in result.notes)
    assert any("CUDA graphs need CUDA" in note for note in result.notes)


def test_compile_time_is_reported_apart(monkeypatch):
    """With compilation on, the first compiled steps are timed on their own (a plain backend here)."""
    calls = []
    monkeypatch.setattr(timing, "COMPILE_BACKEND", recording_backend(calls))
    result = bench(BenchConfig.from_flat(per_class=10, warmup=1, repeats=2, compile=True), "cpu")
    assert calls and result.ok and result.compile_ms is not None
    assert result.config.variant == "compile"


def recording_backend(calls: list):
    """A torch.compile backend that runs the captured graph as it is and notes each graph it was given."""

    def backend(graph, example_inputs):
        calls.append(graph)
        return graph.forward

    return backend


def test_a_compile_sweep_compiles_every_cell_past_the_recompile_limit(monkeypatch):
    """Each width of a compile sweep is compiled, even past Dynamo's recompile limit, and a cell that
    compiled nothing fails rather than being timed eagerly under a "compile" label."""
    calls = []
    monkeypatch.setattr(timing, "COMPILE_BACKEND", recording_backend(calls))
    base = BenchConfig.from_flat(per_class=4, warmup=1, repeats=1, compile=True)
    plan = SweepPlan(FACTORS["width"], tuple(base.with_run(width=w) for w in range(1, 6)), ("cpu",), False)
    graphs_after = []
    with torch._dynamo.config.patch(recompile_limit=2):
        for result in run_sweep(plan):
            assert result.ok, result.status_text
            graphs_after.append(len(calls))
    assert all(later > earlier for earlier, later in zip([0, *graphs_after], graphs_after, strict=False))
    monkeypatch.setattr(timing, "compiled", lambda model, config: model)  # compile silently does nothing
    failed = bench(base, "cpu")
    assert failed.status is CellStatus.FAILED and "compiled nothing" in failed.reason


def test_bad_settings_are_sentences():
    """Bench settings are validated with messages a user can act on."""
    with pytest.raises(ValueError, match="Warm-up epochs must be a whole number"):
        BenchConfig(warmup=0)
    with pytest.raises(ValueError, match="AMP must be one of"):
        BenchConfig(amp="fp8")
    with pytest.raises(ValueError, match="Model width"):
        BenchConfig.from_flat(width=0)


def test_full_batches_are_bounded():
    """A 'full batch' of a big set is cut into bounded steps; a small set is one step."""
    assert BenchConfig.from_flat(per_class=120).steps == 1
    big = BenchConfig.from_flat(per_class=333_334)
    assert big.step_size == MAX_FULL_BATCH and big.steps == -(-big.images // big.step_size)


def test_out_of_memory_is_recorded_and_the_sweep_goes_on(monkeypatch):
    """A cell that runs out of memory says so, and the next cells still run."""
    real = timing.train_epoch

    def flaky(model, x, y, *args, **kwargs):
        if len(x) == 1_200:  # the 1,200-image cell: its first step already fails
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real(model, x, y, *args, **kwargs)

    monkeypatch.setattr(timing, "train_epoch", flaky)
    plan = plan_sweep(BenchConfig(warmup=1, repeats=1), FACTORS["data"], ["cpu"], up_to=3_600)
    statuses = [(r.config.images, r.status) for r in run_sweep(plan)]
    assert statuses == [(360, CellStatus.OK), (1_200, CellStatus.OUT_OF_MEMORY), (3_600, CellStatus.OK)]
    assert is_out_of_memory(RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried 8 GB"))
    assert not is_out_of_memory(RuntimeError("shape mismatch"))


def test_time_cap_stops_the_cell_and_skips_the_rest():
    """At the server's time cap the running cell is stopped and the others are marked skipped."""
    ticks = iter(range(0, 10_000, 10))  # every clock read is 10 s later
    plan = plan_sweep(TINY, FACTORS["width"], ["cpu"], up_to=4)
    results = list(run_sweep(plan, caps=Caps(max_seconds=15), clock=lambda: next(ticks)))
    assert [(r.status, r.reason) for r in results] == [
        (CellStatus.STOPPED, "time cap of 15 s"),
        (CellStatus.SKIPPED, "time cap"),
        (CellStatus.SKIPPED, "time cap"),
    ]
    assert [r.status_text for r in results][:2] == ["stopped: time cap of 15 s", "skipped: time cap"]


def test_plan_respects_the_size_cap_and_says_so():
    """Cells above the image cap are left out with a sentence; batch sizes stop at the data size."""
    plan = plan_sweep(BenchConfig(), FACTORS["data"], ["cpu"], caps=Caps(max_images=5_000))
    assert [c.images for c in plan.configs] == [360, 1_200, 3_600]
    assert "cap of 5,000 images" in plan.notes[0]
    batches = plan_sweep(BenchConfig.from_flat(per_class=120), FACTORS["batch"], ["cpu"])
    assert [c.step_size for c in batches.configs] == [16, 64, 256, 360]
    with pytest.raises(ValueError, match="Sweep must be one of"):
        factor("epochs")


def test_faster_paths_are_timed_beside_eager():
    """A cell with faster paths also gets a plain eager cell on the same device, just before it."""
    plan = plan_sweep(BenchConfig(channels_last=True), FACTORS["none"], ["cpu"])
    assert [c.variant for c, _ in plan.cells()] == ["eager", "channels_last"]
    alone = plan_sweep(BenchConfig(channels_last=True), FACTORS["none"], ["cpu"], compare_eager=False)
    assert [c.variant for c, _ in alone.cells()] == ["channels_last"]


def test_crossover_is_interpolated_on_log_axes():
    """CPU time grows with size while the GPU's stays flat: they cross where they are equal."""
    xs = [100.0, 1_000.0, 10_000.0, 100_000.0]
    cpu = {x: x / 100 for x in xs}  # 1, 10, 100, 1000 ms
    gpu = {x: 30.0 for x in xs}  # flat: launch-bound
    found = crossover(cpu, gpu, FACTORS["data"])
    assert found.kind == "crosses" and found.x == pytest.approx(3_000)
    assert found.verdict == "GPU faster above ≈ 3,000 images"
    assert crossover(cpu, {x: 0.5 for x in xs}, FACTORS["data"]).kind == "always"
    assert crossover(cpu, {x: 1e6 for x in xs}, FACTORS["data"]).verdict.startswith(
        "CPU faster at every data size"
    )
    assert crossover(cpu, {x: (0.5 if x < 5_000 else 1e6) for x in xs}, FACTORS["data"]).kind == "unclear"
    assert crossover(cpu, {}, FACTORS["data"]) is None
    further = crossover(cpu, {**gpu, 1e6: 30.0}, FACTORS["data"])  # the GPU also timed where the CPU was not
    assert further.x == pytest.approx(3_000) and further.measured_up_to == 100_000


def test_the_lock_serialises_benchmarks_and_reports_the_queue():
    """Two benchmarks asked for at once run one after the other; the second one is told it waits.

    The first holds the turn until the second has reported that it waits: events order the
    threads, not sleeps. A line that let both in would never report a wait: the first gives up
    waiting for that after 10 s, with the two spans overlapping.
    """
    turns, spans, waits = bench_turns(), {}, []
    first_in, second_waits = threading.Event(), threading.Event()

    def on_wait(name: str):
        def report(wait) -> None:
            waits.append((name, *wait.holders))
            if name == "second":
                second_waits.set()

        return report

    def job(name: str) -> None:
        with turns.hold(name, on_wait=on_wait(name), poll=0.01):
            start = time.monotonic()
            if name == "first":
                first_in.set()
                second_waits.wait(10)  # a queued thread reports every 0.01 s
            bench(TINY, "cpu")
            spans[name] = (start, time.monotonic())

    first = threading.Thread(target=job, args=("first",))
    first.start()
    assert first_in.wait(JOIN)
    second = threading.Thread(target=job, args=("second",))
    second.start()
    first.join(JOIN)
    second.join(JOIN)
    assert spans["first"][1] <= spans["second"][0]  # no overlap
    assert ("second", "first") in waits  # the second one saw who it waited for
    assert not turns.busy


def test_cancel_ends_the_cell():
    """Setting the cancel event (the page's Cancel) ends a benchmark with Stopped, reason cancelled."""
    cancel = threading.Event()

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "timing" and done == 1:
            cancel.set()

    with pytest.raises(Stopped) as stop:
        bench(TINY, "cpu", progress, Watch(cancel))
    assert stop.value.reason is StopReason.CANCELLED


LONG = BenchConfig.from_flat(per_class=12_000, batch_size=256, warmup=2, repeats=3)  # 141 steps an epoch


def count_steps(monkeypatch, then=None) -> list[int]:  # noqa: ANN001 - then(steps) runs after each step
    """Count optimizer steps of every epoch and priming step the benchmark runs (one-item list)."""
    real, steps = timing.train_epoch, [0]

    def counted(*args, after_step=None, **kwargs):
        def step() -> None:
            steps[0] += 1
            if then is not None:
                then(steps[0])
            if after_step is not None:
                after_step()

        return real(*args, after_step=step, **kwargs)

    monkeypatch.setattr(timing, "train_epoch", counted)
    return steps


def test_the_time_cap_lands_within_one_step(monkeypatch):
    """At 10 ms a step on the clock, a 50 ms cap stops the cell 5 steps in, not at an epoch end."""
    steps = count_steps(monkeypatch)
    plan = plan_sweep(LONG, FACTORS["none"], ["cpu"])
    results = list(run_sweep(plan, caps=Caps(max_seconds=0.05), clock=lambda: steps[0] * 0.01))
    assert [(r.status, r.reason) for r in results] == [(CellStatus.STOPPED, "time cap of 0.05 s")]
    assert 5 <= steps[0] <= 6  # the step that crossed the cap is the last one


def test_cancel_lands_within_one_step(monkeypatch):
    """A cancel set mid-epoch (here at the 20th step) ends the cell right after the current step."""
    cancel, calls = threading.Event(), []
    steps = count_steps(monkeypatch, then=lambda done: done == 20 and cancel.set())
    with pytest.raises(Stopped) as stop:
        bench(LONG, "cpu", lambda *a: calls.append(a), Watch(cancel))
    assert stop.value.reason is StopReason.CANCELLED
    assert steps[0] == 20 and calls[-1] == ("warm-up", 0, 2)  # inside the first warm-up epoch


def test_priming_and_compilation_are_bracketed_by_checks(monkeypatch):
    """The check runs before the data is made, around each priming step (eager, then compiled), then
    after every step; progress only at the phases and after each epoch."""
    steps, checks, calls = count_steps(monkeypatch), [], []
    monkeypatch.setattr(timing, "COMPILE_BACKEND", "eager")

    class Recording(Watch):
        def check(self) -> None:
            checks.append(steps[0])
            super().check()

    config = BenchConfig.from_flat(per_class=10, warmup=1, repeats=1, compile=True)
    bench(config, "cpu", lambda *a: calls.append((*a, steps[0])), Recording())
    assert checks == [0, 0, 1, 1, 2, 3, 4]  # setup, eager priming, compiled priming, warm-up, timing
    assert calls == [("setup", 0, 1, 0), ("warm-up", 0, 1, 2), ("warm-up", 1, 1, 3)] + [
        ("timing", 0, 1, 3),
        ("timing", 1, 1, 4),
    ]


def test_progress_never_runs_inside_a_timed_epoch(monkeypatch):
    """The progress callback (page code) runs between epochs only: never while an epoch trains."""
    real, inside, seen = timing.train_epoch, [False], []

    def flagged(*args, **kwargs):
        inside[0] = True
        try:
            return real(*args, **kwargs)
        finally:
            inside[0] = False

    monkeypatch.setattr(timing, "train_epoch", flagged)
    config = BenchConfig.from_flat(per_class=100, batch_size=16, warmup=2, repeats=3)  # 19 steps an epoch
    bench(config, "cpu", lambda *a: seen.append((*a, inside[0])))
    assert [call for call in seen if call[3]] == []
    assert len(seen) == 1 + 3 + 4 and seen[-1] == ("timing", 3, 3, False)  # setup, then each epoch


def test_steps_above_the_memory_cap_are_left_out_or_refused():
    """Cells whose step would keep more activations than the cap are never run, and the plan says why."""
    cap = Caps(max_step_bytes=1 << 30)
    huge = BenchConfig.from_flat(width=64, extra_convs=16, per_class=333_334)  # ≈ 35 GiB per 4,096-image step
    assert step_bytes(huge) > 30 * 2**30
    with pytest.raises(
        ValueError,
        match=r"≈ 35.4 GiB .* 1.0 GiB per step\. Choose a batch size of at most 115 \(of the usual sizes, 64",
    ):
        plan_sweep(huge, FACTORS["none"], ["cpu"], caps=cap)
    batches = plan_sweep(BenchConfig.from_flat(width=64, extra_convs=16), FACTORS["batch"], ["cpu"], caps=cap)
    assert [c.step_size for c in batches.configs] == [16, 64]
    assert "a batch of 256 (≈ 2.2 GiB), a batch of 360 (≈ 3.1 GiB)" in batches.notes[0]
    assert all(step_bytes(c) <= 1 << 30 for c, _ in batches.cells())
    assert plan_sweep(huge, FACTORS["none"], ["cpu"]).configs == (
        huge,
    )  # no cap unless asked: the CLI's default


def test_the_environment_says_which_float32_precision_cuda_ran():
    """TF32 on or off is part of what a GPU timing measured, so the run's environment records it."""
    with full_fp32():
        assert "TF32 convolutions off" in BenchEnv.here().float32
    before = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = True
    try:
        env = BenchEnv.here()
    finally:
        torch.backends.cudnn.allow_tf32 = before
    assert "TF32 convolutions on" in env.float32
    assert BenchEnv.from_dict(Fields(env.to_dict())).float32 == env.float32


def test_a_compiled_cell_leaves_no_compiled_code_behind(monkeypatch):
    """After a compile cell Dynamo holds no code for the model, so no CUDA graph or memory pool of
    it outlives the cell into the next cell's peak memory."""
    from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list

    from linecnn.train.model import LineCNN

    monkeypatch.setattr(timing, "COMPILE_BACKEND", "eager")
    result = bench(BenchConfig.from_flat(per_class=4, warmup=1, repeats=1, compile=True), "cpu")
    assert result.ok, result.status_text
    assert _debug_get_cache_entry_list(LineCNN.forward.__code__) == []
