"""Draw and Lesson work on a GPU counts as disturbing a benchmark's GPU cell; CPU work does not."""

from __future__ import annotations

import pytest
import torch

from linecnn.bench import in_worker
from linecnn.classroom.gpu_use import GPU_USE, GpuUse
from linecnn.device import cuda_available
from linecnn.draw.predict import predict
from linecnn.lesson.run import run
from linecnn.train.model import build_model


def test_gpu_work_is_seen_while_it_runs_and_once_after():
    """A reader sees GPU work that runs now or started since it last looked; CPU work never."""
    use = GpuUse()
    assert not use.since_last_look()
    with use.using("cpu"):
        assert not use.since_last_look()
    with use.using("cuda:0"):
        assert use.since_last_look() and use.since_last_look()
    assert use.since_last_look() is False  # seen during the block already
    with use.using("cuda"):
        pass
    assert use.since_last_look() and not use.since_last_look()


@pytest.mark.skipif(cuda_available(), reason="reaches the mark through calls that fail without CUDA")
def test_draw_and_lesson_gpu_work_mark_a_gpu_cell_disturbed(monkeypatch):
    """A drawing classified or a lesson snippet run on CUDA marks a benchmark's GPU cell disturbed."""
    monkeypatch.setattr(in_worker, "training_queue", lambda key: type("Q", (), {"busy": False})())
    GPU_USE.since_last_look()
    assert not in_worker.training_busy("cuda:0")
    with pytest.raises((RuntimeError, AssertionError)):
        predict(build_model(), torch.zeros(1, 1, 8, 8), "cuda:0")  # no CUDA here: fails once marked
    assert in_worker.training_busy("cuda:0") and not in_worker.training_busy("cuda:0")
    assert run("x = 1", "cuda:0").error  # the snippet's device sync fails here, after the mark
    assert not in_worker.training_busy("cpu")  # a CPU cell is not disturbed by GPU work
    assert in_worker.training_busy("cuda:0")
