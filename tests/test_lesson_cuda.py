"""The lesson's snippets on CUDA: the device mismatch raises PyTorch's own error, and the fix runs.

Run on a GPU machine by scripts/gpu_check.sh. Core only (no streamlit, pandas or plotly).
"""

import pytest
import torch

from linecnn.device import cuda_available
from linecnn.lesson import snippets as lesson
from linecnn.lesson.run import run


@pytest.mark.cuda
@pytest.mark.skipif(not cuda_available(), reason="needs an NVIDIA GPU with a CUDA build of PyTorch")
def test_on_a_gpu_the_mistake_raises_the_real_mismatch_error_and_the_fix_runs():
    """Model on CUDA, data on the CPU: PyTorch's own RuntimeError; moving the data fixes it."""
    outcome = run(lesson.snippet("mismatch.mistake").text("es"), torch.device("cuda:0"))
    assert outcome.error is not None and outcome.error.startswith("RuntimeError: ")
    assert "cuda" in outcome.error.lower()
    fixed = run(lesson.snippet("mismatch.fix").text("es"), torch.device("cuda:0"))
    assert fixed.error is None and "logits en cuda:0" in fixed.output
