"""Training on CUDA: same results as the CPU up to float noise, and every tensor on the GPU.

Run on a GPU machine with `python -m pytest -m cuda` (or scripts/gpu_check.sh).
"""

import pytest
import torch

from linecnn.device import cuda_available
from linecnn.train.config import RunConfig
from linecnn.train.trainer import Trainer, fit
from tests.precision import full_fp32

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not cuda_available(), reason="needs an NVIDIA GPU with a CUDA build of PyTorch"),
]


def test_model_data_and_optimizer_state_live_on_the_gpu():
    """Model, data and Adam's moments all sit on cuda: the lesson's 'same device' rule."""
    trainer = Trainer(RunConfig.from_flat(epochs=2), "cuda")
    list(trainer.run())
    assert all(p.device.type == "cuda" for p in trainer.model.parameters())
    data = trainer.data
    assert {t.device.type for t in (data.train_x, data.train_y, data.val_x, data.val_y)} == {"cuda"}
    moments = [v for state in trainer.optimizer.state.values() for v in state.values() if torch.is_tensor(v)]
    assert moments and all(m.device.type == "cuda" for m in moments if m.dim() > 0)
    assert trainer.history[-1].device.startswith("cuda")


def test_cuda_matches_cpu_up_to_float_noise():
    """One seed gives the same images and weights on both devices, so the curves agree."""
    config = RunConfig.from_flat(epochs=30)
    cpu = fit(config, "cpu").history
    with full_fp32():  # TF32 (the default for convolutions on Ampere and newer) would differ by ~1e-3
        gpu = fit(config, "cuda").history
    assert [r.val_acc for r in gpu] == pytest.approx([r.val_acc for r in cpu], abs=0.02)
    for a, b in zip(cpu[:10], gpu[:10], strict=True):
        assert b.train_loss == pytest.approx(a.train_loss, rel=1e-3, abs=1e-5)


def test_default_run_reaches_the_seeds_accuracy_on_cuda():
    """The lesson's config reaches validation accuracy >= 0.99 on the GPU too."""
    assert fit(RunConfig(), "cuda").history[-1].val_acc >= 0.99
