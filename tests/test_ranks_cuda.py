"""Data-parallel runs on GPUs over NCCL, one rank per GPU. Run on a GPU machine (scripts/gpu_check.sh)."""

from __future__ import annotations

import pytest
import torch

from linecnn.device import cuda_available
from linecnn.parallel.config import RanksConfig, check_ranks
from linecnn.parallel.results import LOSS_TOLERANCE
from linecnn.parallel.series import run_series

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not cuda_available(), reason="needs an NVIDIA GPU with a CUDA build of PyTorch"),
]

SMALL = RanksConfig.from_flat(per_class=40, batch_size=32, warmup=1, repeats=3, device="cuda")


def test_one_nccl_rank_per_gpu_matches_one_device():
    """As many NCCL ranks as GPUs (up to 2) end at the single-device loss; each run reports its all-reduce."""
    counts = list(range(1, min(2, torch.cuda.device_count()) + 1))
    series = run_series(SMALL, counts)
    assert [row.ranks for row in series.rows] == counts and series.mismatch == []
    for row in series.rows:
        assert row.backend == "nccl" and row.loss_error <= LOSS_TOLERANCE
        assert 0 < row.comm_ms < row.median_ms
    assert series.rows[0].efficiency == pytest.approx(1.0)


def test_more_ranks_than_gpus_are_refused_with_a_sentence():
    """N ranks need N GPUs: one more than this machine has is refused before anything starts."""
    count = torch.cuda.device_count()
    with pytest.raises(ValueError, match=f"{count + 1} ranks need {count + 1} GPUs"):
        check_ranks([count + 1], SMALL)
