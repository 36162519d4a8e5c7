"""The benchmark on CUDA: data made on the GPU, one-time costs apart, faster paths, a CPU-vs-CUDA sweep.

Run on a GPU machine with `python -m pytest -m cuda` (or scripts/gpu_check.sh). Core only (no
streamlit, pandas or plotly), so that it runs on a bare GPU box that has just torch and pytest.
"""

import pytest
import torch

from linecnn.bench.cell import bench
from linecnn.bench.config import BenchConfig
from linecnn.bench.crossover import crossover
from linecnn.bench.factors import FACTORS
from linecnn.bench.plan import plan_sweep
from linecnn.bench.sweep import run_sweep
from linecnn.bench.timing import prepare
from linecnn.device import cuda_available

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not cuda_available(), reason="needs an NVIDIA GPU with a CUDA build of PyTorch"),
]

SMALL = BenchConfig.from_flat(per_class=400, warmup=1, repeats=3)


def test_data_model_and_optimizer_live_on_the_gpu():
    """The images are generated on the GPU, and the model and Adam's state sit there too."""
    work = prepare(SMALL, "cuda")
    work.epoch()
    assert work.x.device.type == work.y.device.type == "cuda"
    assert all(p.device.type == "cuda" for p in work.eager.parameters())
    moments = [v for s in work.optimizer.state.values() for v in s.values() if torch.is_tensor(v) and v.dim()]
    assert moments and all(m.device.type == "cuda" for m in moments)


def test_cuda_cell_reports_one_time_costs_apart():
    """A CUDA cell times its epochs, reports autotune and peak memory, and restores cudnn.benchmark."""
    before = torch.backends.cudnn.benchmark
    result = bench(SMALL, "cuda:0")
    assert result.ok and len(result.times_ms) == 3 and result.median_ms > 0
    assert result.autotune_ms > 0 and result.first_epoch_ms > 0 and result.peak_memory_bytes > 0
    assert result.context_ms is None or result.context_ms > 0
    assert torch.backends.cudnn.benchmark == before


@pytest.mark.parametrize("amp", ["bf16", "fp16"])
def test_amp_cells_run_and_are_labelled(amp):
    """AMP runs on CUDA (fp16 with its GradScaler) and the variant says which."""
    config = BenchConfig.from_flat(per_class=400, warmup=1, repeats=2, amp=amp, channels_last=True)
    result = bench(config, "cuda")
    if amp == "bf16" and result.notes:
        pytest.skip(result.notes[0])  # a GPU without bf16
    assert result.ok, result.status_text
    assert result.config.variant == f"{amp} + channels_last"


def test_cuda_graphs_compile_and_report_compile_time():
    """torch.compile with CUDA graphs (reduce-overhead) runs, its compile time reported apart."""
    result = bench(BenchConfig.from_flat(per_class=120, warmup=3, repeats=3, cuda_graphs=True), "cuda")
    assert result.ok, result.status_text
    assert result.compile_ms is not None and result.compile_ms > 0


def test_cpu_and_cuda_sweep_side_by_side():
    """A small data sweep on both devices gives every cell a timing and a crossover verdict."""
    plan = plan_sweep(BenchConfig(warmup=1, repeats=3), FACTORS["data"], ["cpu", "cuda:0"], up_to=12_000)
    results = list(run_sweep(plan))
    assert [r.status_text for r in results] == ["ok"] * 8
    assert [r.device for r in results[:2]] == ["cpu", "cuda:0"]
    series = {
        device: {FACTORS["data"].x(r.config): r.median_ms for r in results if r.device == device}
        for device in ("cpu", "cuda:0")
    }
    found = crossover(series["cpu"], series["cuda:0"], FACTORS["data"], name="cuda:0")
    assert found is not None and found.verdict
