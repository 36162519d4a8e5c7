"""Inside one step on CUDA: kernels counted and timed on the GPU, fewer per image as the batch grows.

Run on a GPU machine with `python -m pytest -m cuda` (or scripts/gpu_check.sh). Core only.
"""

import pytest

from linecnn.bench.config import BenchConfig
from linecnn.bench.profile import profile_step
from linecnn.device import cuda_available

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not cuda_available(), reason="needs an NVIDIA GPU with a CUDA build of PyTorch"),
]


def test_a_cuda_step_counts_its_kernels_and_their_time():
    """One step of the lesson's cell launches tens of kernels, whose summed time is the operators' work."""
    p = profile_step(BenchConfig(), "cuda", steps=3)
    assert p.kernels is not None and 10 <= p.kernels <= 500
    assert 0 < p.work_ms <= p.profiled_ms
    assert p.kernel_us and p.kernel_us > 0
    assert any(op.device_ms > 0 for op in p.operators)


def test_a_bigger_batch_launches_the_same_kernels_and_does_more_work_per_step():
    """From 360 to 3,600 images per step the launch count holds while the FLOPs grow tenfold."""
    small = profile_step(BenchConfig(), "cuda", steps=3)
    big = profile_step(BenchConfig.from_flat(per_class=1_200), "cuda", steps=3)
    assert big.flops == pytest.approx(10 * small.flops)
    assert abs(big.kernels - small.kernels) <= 0.2 * small.kernels
    assert big.work_share >= small.work_share
