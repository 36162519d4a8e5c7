"""Full float32 on CUDA for tests that compare a GPU's numbers with the CPU's.

Ampere and newer GPUs run convolutions in TF32 by default (about 1e-3 relative error), which would
fail a CPU-vs-GPU agreement check for the wrong reason. Only torch's older flags are used: mixing
them with its newer precision settings makes torch refuse to read either.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch


@contextlib.contextmanager
def full_fp32() -> Iterator[None]:
    """Float32 matmuls and convolutions in full float32 (no TF32) inside the block, restored after."""
    before = (
        torch.get_float32_matmul_precision(),
        torch.backends.cuda.matmul.allow_tf32,
        torch.backends.cudnn.allow_tf32,
    )
    torch.set_float32_matmul_precision("highest")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before[0])
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = before[1:]
