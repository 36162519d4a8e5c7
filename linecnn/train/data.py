"""Vectorised generator of 8x8 line images in three classes.

Whole batches are built with tensor ops on the generator's device: no per-image
Python loop. Labels follow the lesson: 0 vertical, 1 horizontal, 2 diagonal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from linecnn.train.config import DataConfig
from linecnn.train.lines import DATA_MODES, SIZE

CLASS_NAMES = ("vertical", "horizontal", "diagonal")
NOISE = 0.10  # the lesson adds 0.10 * U(0, 1) to every pixel


@dataclass(frozen=True)
class Dataset:
    """Train and validation tensors, all on one device."""

    train_x: torch.Tensor  # (N, 1, 8, 8) float32 in [0, 1]
    train_y: torch.Tensor  # (N,) int64 labels
    val_x: torch.Tensor  # (M, 1, 8, 8)
    val_y: torch.Tensor  # (M,)

    @property
    def device(self) -> torch.device:
        """Where the tensors live."""
        return self.train_x.device


def make_lines(n_per_class: int, mode: str, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Return (images (3n, 1, 8, 8), labels (3n,)) made on the generator's device.

    Classes are interleaved (vertical, horizontal, diagonal, vertical, ...) as in the lesson.
    """
    if n_per_class < 1:
        raise ValueError(f"Images per class must be at least 1; got {n_per_class}.")
    n = 3 * n_per_class
    device = generator.device
    labels = torch.arange(n, device=device) % 3
    if mode not in DATA_MODES:
        raise ValueError(f"Data mode must be one of {', '.join(DATA_MODES)}; got {mode!r}.")
    noise = _noise(n, generator)  # (N, 64) of 0.10 * U(0, 1)
    images = DATA_MODES[mode](labels, noise, generator)  # (N, 64)
    return images.view(n, 1, SIZE, SIZE), labels


def make_dataset(config: DataConfig, seed: int, device: torch.device | str = "cpu") -> Dataset:
    """Generate the train and validation sets for ``config`` and place them on ``device``.

    The draws use a CPU generator so that one seed gives the very same images on every
    device (CPU and CUDA random streams differ); the tensors then move to the device once
    and stay there. For millions of images straight on a GPU, call ``make_lines`` with a
    generator on that device.
    """
    generator = torch.Generator().manual_seed(seed)
    train_x, train_y = make_lines(config.per_class, config.mode, generator)
    val_x, val_y = make_lines(config.val_per_class, config.mode, generator)
    return Dataset(
        train_x=train_x.to(device),
        train_y=train_y.to(device),
        val_x=val_x.to(device),
        val_y=val_y.to(device),
    )


def _noise(n: int, generator: torch.Generator) -> torch.Tensor:
    """0.10 * U(0, 1) for every pixel of n images, shape (n, 64), on the generator's device.

    These draws are most of the generator's work. On the CPU they come from numpy's PCG64,
    seeded from ``generator``, which fills float32 arrays faster than torch's mt19937
    (docs/measurements.md).
    """
    if generator.device.type != "cpu":
        return torch.empty(n, SIZE * SIZE, device=generator.device).uniform_(0.0, NOISE, generator=generator)
    seed = int(torch.randint(0, 2**62, (1,), generator=generator))
    noise = np.random.default_rng(seed).random((n, SIZE * SIZE), dtype=np.float32)
    noise *= np.float32(NOISE)
    return torch.from_numpy(noise)
