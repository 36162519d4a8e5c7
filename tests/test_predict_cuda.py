"""Draw-page inference on CUDA: the model's copy runs on the GPU and agrees with the CPU.

Run on a GPU machine with `python -m pytest -m cuda` (or scripts/gpu_check.sh). Core only (no
streamlit, pandas or plotly), so that it runs on a bare GPU box that has just torch and pytest.
"""

import pytest
import torch

from linecnn.device import cuda_available
from linecnn.draw.default_weights import load_default_model
from linecnn.draw.predict import predict
from linecnn.draw.preprocess import preprocess
from tests.draw_helpers import synthetic_canvas
from tests.precision import full_fp32

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not cuda_available(), reason="needs an NVIDIA GPU with a CUDA build of PyTorch"),
]


def test_prediction_runs_on_the_gpu_and_agrees_with_the_cpu():
    """On CUDA the copy of the model runs there, the maps come back to the CPU, the answer matches."""
    default_model = load_default_model()
    image = preprocess(synthetic_canvas(((270, 10), (10, 270)))).image
    with full_fp32():
        on_gpu = predict(default_model, image, "cuda:0")
    on_cpu = predict(default_model, image, "cpu")
    assert on_gpu.device == "cuda:0" and on_gpu.conv1.device.type == "cpu"
    assert next(default_model.parameters()).device.type == "cpu"  # the original never moved
    assert on_gpu.probabilities == pytest.approx(on_cpu.probabilities, abs=1e-4)
    assert isinstance(on_gpu.conv1, torch.Tensor)
