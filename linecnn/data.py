"""Vectorised generator of 8x8 line images in three classes.

Whole batches are built with tensor ops on the generator's device: no per-image
Python loop. Labels follow the lesson: 0 vertical, 1 horizontal, 2 diagonal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from linecnn.config import DataConfig

CLASS_NAMES = ("vertical", "horizontal", "diagonal")
SIZE = 8  # images are SIZE x SIZE
NOISE = 0.10  # the seed adds 0.10 * U(0, 1) to every pixel


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

    Classes are interleaved (vertical, horizontal, diagonal, vertical, ...) as in the seed.
    """
    if n_per_class < 1:
        raise ValueError(f"Images per class must be at least 1; got {n_per_class}.")
    n = 3 * n_per_class
    device = generator.device
    labels = torch.arange(n, device=device) % 3
    noise = NOISE * torch.rand(n, SIZE * SIZE, generator=generator, device=device)
    if mode == "seed":
        # Lit pixels are 1 + noise clamped to 1, i.e. exactly 1; noise never leaves [0, 0.1).
        images = noise.scatter_(1, _seed_pixels(labels, generator), 1.0)
    elif mode == "varied":
        images = (_varied_lines(labels, generator).view(n, -1) + noise).clamp_(0.0, 1.0)
    else:
        raise ValueError(f"Data mode must be 'seed' or 'varied'; got {mode!r}.")
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


def _grid(device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Row and column index grids shaped to broadcast against (N, 8, 8)."""
    idx = torch.arange(SIZE, device=device)
    return idx.view(1, SIZE, 1), idx.view(1, 1, SIZE)


def _seed_pixels(labels: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Flat indices (N, 8) of the lit pixels of the lesson's exact lines.

    A full column or row at 1..6, or the main or anti diagonal.
    """
    n, device = labels.numel(), labels.device
    step = torch.arange(SIZE, device=device).view(1, SIZE)  # walks along the line
    position = torch.randint(1, SIZE - 1, (n, 1), generator=generator, device=device)
    anti = torch.randint(0, 2, (n, 1), generator=generator, device=device)
    vertical = step * SIZE + position  # (row r, column position)
    horizontal = position * SIZE + step  # (row position, column c)
    diagonal = step * SIZE + torch.where(anti.bool(), SIZE - 1 - step, step)
    label = labels.view(n, 1)
    return torch.where(label == 0, vertical, torch.where(label == 1, horizontal, diagonal))


def _uniform(low: float, high: float, n: int, generator: torch.Generator) -> torch.Tensor:
    """n draws from U(low, high), shaped (N, 1, 1) for broadcasting against images."""
    u = torch.rand(n, 1, 1, generator=generator, device=generator.device)
    return low + (high - low) * u


def _varied_lines(labels: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Strokes like a downsampled hand drawing: any position, partial, thick, tilted, soft.

    Each image is one straight segment rendered with an anti-aliased profile: a pixel's
    intensity falls off with its distance to the segment.
    """
    n, device = labels.numel(), labels.device
    label = labels.view(n, 1, 1)
    # Direction angle from the x axis (image rows grow downwards).
    tilt = math.radians(12.0)
    base = torch.where(label == 0, math.pi / 2, 0.0).float()
    diagonal_sign = torch.where(_uniform(0, 1, n, generator) < 0.5, -1.0, 1.0)
    base = torch.where(label == 2, diagonal_sign * math.pi / 4, base)
    max_tilt = torch.where(label == 2, math.radians(10.0), tilt)
    angle = base + max_tilt * _uniform(-1, 1, n, generator)
    dx, dy = torch.cos(angle), torch.sin(angle)

    # Centre of the stroke: anywhere across it, near the middle along it; diagonals may shift.
    across = _uniform(-0.2, SIZE - 0.8, n, generator)
    along = _uniform(2.5, SIZE - 3.5, n, generator)
    shift = _uniform(-2.0, 2.0, n, generator)
    centre_x = torch.where(label == 0, across, torch.where(label == 1, along, 3.5 + shift))
    centre_y = torch.where(label == 0, along, torch.where(label == 1, across, 3.5 - diagonal_sign * shift))
    # Full or partial length (in cells); diagonals span the square corner to corner.
    length = torch.where(label == 2, _uniform(6.0, 11.3, n, generator), _uniform(4.0, 9.0, n, generator))
    half = length / 2
    x0, y0 = centre_x - half * dx, centre_y - half * dy
    x1, y1 = centre_x + half * dx, centre_y + half * dy

    rows, cols = _grid(device)
    px, py = cols.float(), rows.float()
    seg_x, seg_y = x1 - x0, y1 - y0
    t = ((px - x0) * seg_x + (py - y0) * seg_y) / (seg_x**2 + seg_y**2)
    t = t.clamp(0.0, 1.0)
    distance = torch.hypot(px - (x0 + t * seg_x), py - (y0 + t * seg_y))  # (N, 8, 8)

    half_width = _uniform(0.35, 1.0, n, generator)  # 1 to 2 cells thick
    softness = _uniform(0.3, 0.8, n, generator)  # anti-aliased edge
    peak = _uniform(0.6, 1.0, n, generator)  # faint to full strokes
    return peak * ((half_width + softness - distance) / softness).clamp(0.0, 1.0)
