"""The CUDA paths no CPU test reaches: compile and CUDA graphs on two batch shapes, AMP with graphs,
profiles of compiled and graph cells, a forced out-of-memory with the next cell still running, the
worker processes on CUDA, host-clock epoch times against CUDA events, and two Train runs at once.

Run on a GPU machine by scripts/gpu_check.sh. Core only (no streamlit, pandas or plotly). Figures
worth reading go to $GPU_CHECK_OUT/figures.jsonl when that is set, and into the check's summary.
"""

from __future__ import annotations

import json
import os
import statistics
import threading
from pathlib import Path

import pytest
import torch

from linecnn.bench.cell import bench
from linecnn.bench.config import BenchConfig
from linecnn.bench.factors import FACTORS
from linecnn.bench.in_worker import run_in_worker
from linecnn.bench.plan import Caps, SweepPlan
from linecnn.bench.profile import profile_step
from linecnn.bench.profile_worker import profile_in_worker
from linecnn.bench.results import CellStatus
from linecnn.classroom.sharing import sharing_machine
from linecnn.device import cuda_available
from linecnn.device_ops import bf16_supported
from linecnn.train.config import RunConfig
from linecnn.train.epoch import train_epoch
from linecnn.train.trainer import Trainer

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not cuda_available(), reason="needs an NVIDIA GPU with a CUDA build of PyTorch"),
]

# 300 images in steps of 128: two batch shapes (128 and 44), so compiled code and graphs meet both.
TWO_SHAPES = {"per_class": 100, "batch_size": 128, "warmup": 2, "repeats": 3}


def record(name: str, value: object) -> None:
    """Keep a figure for the GPU check's summary (nowhere when not run by it)."""
    folder = os.environ.get("GPU_CHECK_OUT")
    if folder:
        with open(Path(folder) / "figures.jsonl", "a") as file:
            file.write(json.dumps({name: value}) + "\n")


def test_compile_and_cuda_graphs_on_two_batch_shapes():
    """torch.compile and CUDA graphs each run a mini-batch epoch with two step shapes and time it."""
    for path in ("compile", "cuda_graphs"):
        result = bench(BenchConfig.from_flat(**TWO_SHAPES, **{path: True}), "cuda")
        assert result.ok, f"{path}: {result.status_text}: {result.reason}"
        assert result.compile_ms and result.compile_ms > 0
        record(f"{path}_two_shapes", {"median_ms": result.median_ms, "compile_ms": result.compile_ms})


def test_amp_with_cuda_graphs():
    """Autocast (bf16 where the GPU has it, else fp16 with its scaler) runs under CUDA graphs."""
    amp = "bf16" if bf16_supported("cuda") else "fp16"
    result = bench(BenchConfig.from_flat(**TWO_SHAPES, amp=amp, cuda_graphs=True), "cuda")
    assert result.ok, f"{result.status_text}: {result.reason}"
    assert result.config.variant.startswith(amp)
    record(f"{amp}_cuda_graphs", {"median_ms": result.median_ms})


def test_a_graph_cell_leaves_no_memory_to_the_next_cells_peak():
    """After a CUDA-graphs cell its pools are gone: an eager cell's peak memory is what it was before."""
    eager = BenchConfig.from_flat(per_class=1_000, warmup=1, repeats=2)
    before = bench(eager, "cuda")
    graphs = bench(BenchConfig.from_flat(per_class=1_000, warmup=1, repeats=2, cuda_graphs=True), "cuda")
    after = bench(eager, "cuda")
    assert before.ok and graphs.ok and after.ok, (graphs.status_text, graphs.reason)
    record(
        "peak_bytes",
        {
            "eager_before": before.peak_memory_bytes,
            "graphs": graphs.peak_memory_bytes,
            "eager_after": after.peak_memory_bytes,
        },
    )
    assert after.peak_memory_bytes <= 1.05 * before.peak_memory_bytes + 2**20


@pytest.mark.parametrize("path", ["compile", "cuda_graphs"])
def test_profiles_of_compiled_and_graph_cells_count_their_kernels(path):
    """Inside one step of a compiled or graph cell: the steps are told apart and its kernels counted."""
    profile = profile_step(BenchConfig.from_flat(**{path: True}), "cuda", steps=3)
    eager = profile_step(BenchConfig(), "cuda", steps=3)
    record(
        f"profile_{path}",
        {
            "kernels": profile.kernels,
            "work_ms": profile.work_ms,
            "eager_kernels": eager.kernels,
            "profiled_ms": profile.profiled_ms,
        },
    )
    assert profile.steps == 3 and profile.kernels and profile.kernels > 0
    assert 0 < profile.work_ms <= profile.profiled_ms * 1.05


def test_a_forced_out_of_memory_cell_is_recorded_and_the_next_cell_runs():
    """Capped to a few MiB of GPU memory a cell runs out and says so; uncapped again, the next cell runs."""
    torch.cuda.empty_cache()
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction((torch.cuda.memory_allocated() + 2**21) / total)
    try:
        big = bench(BenchConfig.from_flat(per_class=50_000, warmup=1, repeats=1), "cuda")
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0)
    assert big.status is CellStatus.OUT_OF_MEMORY
    after = bench(BenchConfig.from_flat(per_class=400, warmup=1, repeats=2), "cuda")
    assert after.ok, after.reason


def test_a_train_run_out_of_memory_mid_epoch_files_its_last_whole_epoch():
    """A Train run out of GPU memory mid-epoch is filed with its finished epochs and their weights."""
    trainer = Trainer(RunConfig.from_flat(epochs=5, per_class=4_000, batch_size=256), "cuda")
    list(trainer.run(max_epochs=2))  # the optimizer's state exists: the kept copy is whole
    weights = {key: value.to("cpu") for key, value in trainer.model.state_dict().items()}
    torch.cuda.empty_cache()
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction((torch.cuda.memory_allocated() + 2**16) / total)
    try:
        with pytest.raises(torch.OutOfMemoryError):
            list(trainer.run())
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0)
    snapshot = trainer.stop()
    assert snapshot is not None and len(snapshot.history) == 2
    assert all(torch.equal(snapshot.model.state_dict()[key], value) for key, value in weights.items())


def test_the_benchmark_and_profile_workers_run_cuda_cells(tmp_path):
    """The page's worker processes time and profile CUDA cells (their own CUDA context)."""
    configs = (BenchConfig.from_flat(per_class=120, warmup=1, repeats=2),)
    plan = SweepPlan(FACTORS["data"], configs, ("cpu", "cuda:0"), False)
    results = list(run_in_worker(plan, caps=Caps(max_seconds=120)))
    assert [r.device for r in results] == ["cpu", "cuda:0"] and all(r.ok for r in results), results
    [profile] = profile_in_worker([(BenchConfig(), "cuda:0")], tmp_path, 120, lambda: None)
    assert profile.device == "cuda:0" and profile.kernels and profile.kernels > 0
    record("worker_cuda_ms", results[1].median_ms)


def test_host_clock_epochs_agree_with_cuda_events():
    """An epoch timed on the host clock (synchronised) matches the same epoch timed by CUDA events."""
    trainer = Trainer(RunConfig.from_flat(epochs=8, per_class=5_000), "cuda")
    records = list(trainer.run())[2:]  # past the first epochs' allocation and autotune
    data = trainer.data
    events = []
    with trainer.stream.using():
        for _ in range(len(records)):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            train_epoch(trainer.model, data.train_x, data.train_y, trainer.optimizer, None, trainer.order)
            end.record()
            end.synchronize()
            events.append(start.elapsed_time(end))
    host_ms = statistics.median(1000 * r.epoch_seconds for r in records)
    event_ms = statistics.median(events)
    record("epoch_host_vs_events_ms", {"host": host_ms, "events_train_only": event_ms})
    # The host epoch also validates and reads the metrics back, so it is a little longer, never shorter.
    assert 0.9 * event_ms <= host_ms <= 2.0 * event_ms + 2.0


def test_two_train_runs_share_the_gpu():
    """Two Train runs in two threads train to the end on one GPU, each epoch in the shared GPU state."""
    config = RunConfig.from_flat(epochs=30, per_class=400, batch_size=64)
    alone = Trainer(config, "cuda")
    alone_ms = statistics.median(1000 * r.epoch_seconds for r in list(alone.run())[3:])
    trainers = [Trainer(config, "cuda") for _ in range(2)]
    errors = []

    def train(trainer: Trainer) -> None:
        try:
            for _ in sharing_machine(trainer.run(), trainer.device):
                pass
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=train, args=(t,)) for t in trainers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors and all(t.done for t in trainers), errors
    assert all(t.history[-1].val_acc >= 0.9 for t in trainers)
    shared_ms = [statistics.median(1000 * r.epoch_seconds for r in t.history[3:]) for t in trainers]
    record("epoch_ms_alone_vs_two_runs", {"alone": alone_ms, "two_runs": shared_ms})
