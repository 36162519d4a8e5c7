"""The line images' geometry, one way of drawing them per data mode.

``DATA_MODES`` is the one list of modes: the config, the Train page, the CLI and the benchmark read
it. A mode turns labels and the lesson's background noise into images; a new mode is one function
and one entry below (plus its name in the Train page's catalogs, ``train.mode.<name>``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

SIZE = 8  # images are SIZE x SIZE
NOISY = 6.0  # the noisy mode's background: six times the lesson's noise, up to 0.6


def _grid(device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Row and column index grids shaped to broadcast against (N, 8, 8)."""
    idx = torch.arange(SIZE, device=device)
    return idx.view(1, SIZE, 1), idx.view(1, 1, SIZE)


def _lesson_pixels(labels: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Flat indices (N, 8) of the lit pixels of the lesson's exact lines.

    A full column or row at 1..6, or the main or anti diagonal. Each such line is an
    arithmetic progression of flat indices, start + stride * k for k = 0..7:
    column c is c, c+8, ...; row r is 8r, 8r+1, ...; the diagonals are 0, 9, ... and 7, 14, ...
    """
    n, device = labels.numel(), labels.device
    position = torch.randint(1, SIZE - 1, (n, 1), generator=generator, device=device)
    anti = torch.randint(0, 2, (n, 1), generator=generator, device=device).bool()
    label = labels.view(n, 1)
    diagonal_stride = torch.where(anti, SIZE - 1, SIZE + 1)
    diagonal_start = torch.where(anti, SIZE - 1, 0)
    stride = torch.where(label == 0, SIZE, torch.where(label == 1, 1, diagonal_stride))  # (N, 1)
    start = torch.where(label == 0, position, torch.where(label == 1, SIZE * position, diagonal_start))
    return start + stride * torch.arange(SIZE, device=device)  # (N, 8)


def _uniform(
    low: float | torch.Tensor, high: float | torch.Tensor, n: int, generator: torch.Generator
) -> torch.Tensor:
    """n draws from U(low, high), shaped (N, 1, 1) for broadcasting against images."""
    u = torch.rand(n, 1, 1, generator=generator, device=generator.device)
    return low + (high - low) * u


# The varied mode's stroke distribution, in cells (one cell = 1/8 of the canvas side).
AXIS_TILT = math.radians(14.0)  # verticals and horizontals lean up to this much
DIAGONAL_SPREAD = math.radians(15.0)  # diagonals run at 45 degrees give or take this much
MIN_LENGTH = 1.8  # shortest stroke in cells (caps excluded): below a quarter of the canvas, a short line
# Half the stroke thickness: 0.5 to 1.2 cells, what the canvas's 8 to 36 px brushes give once preprocessing
# widens thin pens to 0.6 cells. Wider strokes, which no brush draws, made the short ones blobs.
HALF_WIDTH = (0.25, 0.6)
PEAK = (0.7, 1.0)  # brightest pixel: faint to full strokes
LOW, HIGH = -0.45, SIZE - 0.55  # where a stroke's centre line may run: the edge columns included


def _varied_lines(labels: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Strokes like a downsampled hand drawing: any position, partial, thick, tilted, soft.

    Each image is one straight segment of random angle, length, thickness and position,
    rendered as the fraction of each cell the brush covers: what area-averaging a real
    canvas stroke gives. Like ``linecnn.draw.preprocess``, the image is then scaled by its
    brightest cell, so training images and preprocessed drawings share one value range.
    The angle ranges of the classes do not overlap (14 degrees of tilt at most, diagonals
    within 30..60 degrees), so the labels stay unambiguous.
    """
    n, device = labels.numel(), labels.device
    label = labels.view(n, 1, 1)
    # Angle from the x axis; image rows grow downwards, so +45 degrees runs top-left to bottom-right.
    lean = _uniform(-1.0, 1.0, n, generator)
    diagonal_sign = torch.where(_uniform(0, 1, n, generator) < 0.5, -1.0, 1.0)
    axis = torch.where(label == 0, math.pi / 2, 0.0) + AXIS_TILT * lean
    angle = torch.where(label == 2, diagonal_sign * (math.pi / 4 + DIAGONAL_SPREAD * lean), axis)
    dx, dy = torch.cos(angle), torch.sin(angle)

    # Full or partial length, cut to what fits inside the square at this angle.
    span = HIGH - LOW
    longest = span / torch.maximum(dx.abs(), dy.abs())
    length = torch.minimum(_uniform(MIN_LENGTH, 1.15 * longest, n, generator), longest)
    # The centre anywhere that keeps the whole segment inside: edges and shifted diagonals included.
    reach_x, reach_y = length * dx.abs() / 2, length * dy.abs() / 2
    centre_x = _uniform(LOW + reach_x, HIGH - reach_x, n, generator)
    centre_y = _uniform(LOW + reach_y, HIGH - reach_y, n, generator)
    half_width = _uniform(*HALF_WIDTH, n, generator)
    peak = _uniform(*PEAK, n, generator)

    # Distance from each cell centre to the segment (round caps at its ends).
    rows, cols = _grid(device)
    px, py = cols.float() - centre_x, rows.float() - centre_y  # (N, 8, 8)
    along = (px * dx + py * dy).clamp(-length / 2, length / 2)
    distance = torch.hypot(px - along * dx, py - along * dy)

    # Coverage: overlap of the brush [d - w, d + w] with the cell seen across the stroke, [-e, e].
    # A cell is 1 wide seen along an axis and sqrt(2) wide seen along a diagonal.
    reach = (dx.abs() + dy.abs()) / 2
    covered = (
        torch.minimum(distance + half_width, reach) - torch.maximum(distance - half_width, -reach)
    ).clamp(min=0.0) / (2 * reach)
    brightest = covered.amax(dim=(1, 2), keepdim=True).clamp(min=1e-6)
    return peak * covered / brightest


def lesson(labels: torch.Tensor, noise: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """The lesson's exact lines: a full column, row or diagonal lit to 1 over the noise."""
    # Lit pixels are 1 + noise clamped to 1, i.e. exactly 1; noise never leaves [0, 0.1).
    return noise.scatter_(1, _lesson_pixels(labels, generator), 1.0)


def varied(labels: torch.Tensor, noise: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Strokes like a downsampled hand drawing (any position, tilt, length, thickness), over the noise."""
    return (_varied_lines(labels, generator).view(labels.numel(), -1) + noise).clamp_(0.0, 1.0)


def noisy(labels: torch.Tensor, noise: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """The lesson's lines under six times its noise: a lit line still reads 1, the background up to 0.6."""
    return lesson(labels, noise.mul_(NOISY), generator)


# name -> (labels (N,), noise (N, 64) of 0.10 * U(0, 1), generator) -> images (N, 64) in [0, 1]
DATA_MODES: dict[str, Callable[[torch.Tensor, torch.Tensor, torch.Generator], torch.Tensor]] = {
    "lesson": lesson,
    "varied": varied,
    "noisy": noisy,
}
# The modes that draw only the lesson's 14 exact lines, whatever lies under them: a run trained on
# one has never seen a short, thick, tilted or edge stroke.
EXACT_LINE_MODES = frozenset({"lesson", "noisy"})
