"""From canvas pixels to the CNN's 8x8 input, and a check that the drawing is one line.

Pure: a numpy RGBA array in, a tensor and numbers out; no Streamlit. The pixel work is
numpy, single-threaded on purpose: for arrays this small a thread pool's threads would spend
their time waiting for each other on a busy server. The steps mirror how
``linecnn.train.data``'s varied mode renders strokes, so drawings and training images match:

1. ink: how dark each pixel is over a white page (transparent pixels are page), scaled
   so the darkest pixel is 1: a grey pen measures like a black one;
2. thickness: a stroke thinner than ``MIN_WIDTH`` cells is widened to it, since a fine
   pen lands in a cell by luck of its position and leaves a broken staircase;
3. area averaging down to 8x8: each cell becomes the mean ink of its block of pixels;
4. contrast: the brightest cell is scaled to 1, so thin, thick, faint and dark strokes
   all span the training data's [0, 1] range.

Position is left alone (no centring): an edge stroke stays at the edge, as in training.
Before any of this shrinks the drawing, ``linecnn.draw.geometry`` judges at full resolution
whether one straight stroke explains the ink.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from linecnn.draw.geometry import straightness
from linecnn.errors import Message
from linecnn.train.lines import SIZE

# Luma weights of ITU-R BT.601: how bright a pixel looks.
LUMA = (0.299, 0.587, 0.114)

EMPTY_INK = 0.01  # no cell has even 1 % of its area inked: treat the canvas as empty
FULL_INK = 0.45  # ink over this fraction of the canvas is a fill, not a line
DOT_LENGTH = 1.5  # strokes shorter than this many cells are dots
BLOB_ROUNDNESS = 0.5  # spread across / spread along above this: a scribble, not a straight line
MIN_WIDTH = 0.6  # thinner strokes are widened to this many cells before averaging
CELL_PX = 8  # pixels per cell when the clickable grid's cells are measured as ink


@dataclass(frozen=True)
class Drawing:
    """A canvas drawing reduced to what the model sees, with a verdict on its shape."""

    image: torch.Tensor  # (1, 1, 8, 8) float32 in [0, 1]: the model's input
    coverage: float  # mean ink over the whole canvas, 0..1
    length: float  # extent of the ink along its main direction, in cells (1 cell = 1/8 side)
    roundness: float  # spread across the main direction / spread along it: ~0 for a line, 1 for a blob
    problem: str | None  # a sentence for the user when this is not one straight line, else None

    @classmethod
    def blank(cls) -> Drawing:
        """An empty canvas: nothing to classify."""
        return cls(image=torch.zeros(1, 1, SIZE, SIZE), coverage=0.0, length=0.0, roundness=0.0, problem=None)

    @property
    def empty(self) -> bool:
        """True when there is nothing to classify."""
        return self.coverage == 0.0


def ink_map(rgba: np.ndarray) -> np.ndarray:
    """Darkness (H, W) in [0, 1] of an (H, W, 4) RGBA or (H, W, 3) RGB canvas drawn on white.

    Transparent pixels count as white page, so a canvas without a background still works.
    """
    pixels = np.asarray(rgba)
    if pixels.ndim != 3 or pixels.shape[2] not in (3, 4) or min(pixels.shape[:2]) < SIZE:
        raise ValueError(
            f"The canvas image must be an H x W x 4 (RGBA) or H x W x 3 (RGB) array at least "
            f"{SIZE} pixels a side; got shape {pixels.shape}."
        )
    scale = 255.0 if pixels.dtype == np.uint8 else 1.0
    values = pixels.astype(np.float32) / scale
    luma = values[..., :3] @ np.asarray(LUMA, dtype=np.float32)
    alpha = values[..., 3] if values.shape[2] == 4 else 1.0
    return np.clip(alpha * (1.0 - luma), 0.0, 1.0)  # composited over white: ink = 1 - brightness


def area_average(ink: np.ndarray) -> np.ndarray:
    """Mean ink of each of the 8x8 blocks of an (H, W) map: a box filter, not point sampling.

    Block edges fall on whole pixels (35 x 35 pixels each for a 280 px canvas).
    """
    height, width = ink.shape
    row_edges = np.arange(SIZE) * height // SIZE
    col_edges = np.arange(SIZE) * width // SIZE
    sums = np.add.reduceat(np.add.reduceat(ink, row_edges, axis=0), col_edges, axis=1)
    areas = np.outer(np.diff(row_edges, append=height), np.diff(col_edges, append=width))
    return sums / areas


def normalise(cells: np.ndarray) -> np.ndarray:
    """Scale the brightest cell to 1, as the varied training images are; all-zero stays zero."""
    brightest = cells.max()
    return cells / brightest if brightest > 0 else cells.copy()


def shape_of(ink: np.ndarray) -> tuple[float, float]:
    """(length in cells, roundness) of the ink, from its second moments.

    A straight stroke's ink spreads along one direction only: its covariance has one large
    and one tiny eigenvalue. A uniform segment of length L has variance L^2 / 12 along it.
    """
    total = float(ink.sum())
    if total <= 0:
        return 0.0, 0.0
    height, width = ink.shape
    cell = (height + width) / (2 * SIZE)  # pixels per cell
    rows = np.arange(height).reshape(-1, 1) / cell
    cols = np.arange(width).reshape(1, -1) / cell
    mean_r, mean_c = float((ink * rows).sum()) / total, float((ink * cols).sum()) / total
    dr, dc = rows - mean_r, cols - mean_c
    var_r = float((ink * dr * dr).sum()) / total
    var_c = float((ink * dc * dc).sum()) / total
    cov = float((ink * dr * dc).sum()) / total
    minor, major = np.clip(np.linalg.eigvalsh([[var_r, cov], [cov, var_c]]), 0.0, None)
    return math.sqrt(12.0 * major), math.sqrt(minor / major) if major > 0 else 0.0


def max_filter(ink: np.ndarray, radius: int) -> np.ndarray:
    """Each pixel becomes the darkest within ``radius`` pixels (a square): a stroke gets fatter."""
    height, width = ink.shape
    rows = np.pad(ink, ((radius, radius), (0, 0)))
    ink = np.max([rows[shift : shift + height] for shift in range(2 * radius + 1)], axis=0)
    cols = np.pad(ink, ((0, 0), (radius, radius)))
    return np.max([cols[:, shift : shift + width] for shift in range(2 * radius + 1)], axis=0)


def thicken(ink: np.ndarray, length: float) -> np.ndarray:
    """Widen a stroke of ``length`` cells to at least ``MIN_WIDTH`` cells; wider ones are kept."""
    cell = sum(ink.shape) / (2 * SIZE)  # pixels per cell
    width = float(ink.sum()) / (max(length, 1.0) * cell)  # ink area / length, in pixels
    radius = round((MIN_WIDTH * cell - width) / 2)
    return max_filter(ink, radius) if radius >= 1 else ink


def problem_with(coverage: float, length: float, roundness: float, straight: bool = True) -> str | None:
    """A friendly sentence when the ink is not one straight line, else None.

    ``straight`` is ``linecnn.draw.geometry``'s verdict: one straight stroke explains the ink.
    """
    if coverage >= FULL_INK:
        return Message("drawing_full")
    if length < DOT_LENGTH:
        return Message("drawing_dot")
    if roundness > BLOB_ROUNDNESS:
        return Message("drawing_blob")
    if not straight:
        return Message("drawing_not_line")
    return None


def _judged(ink: np.ndarray, thicken_thin: bool, straight: bool) -> Drawing:
    """The Drawing of a non-empty ink map: its 8x8 input and the verdict on its shape."""
    coverage = float(ink.mean())
    length, roundness = shape_of(ink)
    cells = area_average(thicken(ink, length) if thicken_thin else ink)
    return Drawing(
        image=torch.from_numpy(normalise(cells).astype(np.float32)).view(1, 1, SIZE, SIZE),
        coverage=coverage,
        length=length,
        roundness=roundness,
        problem=problem_with(coverage, length, roundness, straight),
    )


def preprocess(rgba: np.ndarray) -> Drawing:
    """Reduce a canvas RGBA array to the model's (1, 1, 8, 8) input and judge its shape."""
    ink = ink_map(rgba)
    if area_average(ink).max() < EMPTY_INK:
        return Drawing.blank()
    ink = ink / ink.max()  # a grey pen measures like a black one
    return _judged(ink, thicken_thin=True, straight=straightness(ink).straight)


def from_cells(grid: torch.Tensor) -> Drawing:
    """The lesson's clickable 8x8 grid (1 = painted) as a Drawing: already the model's size."""
    if grid.numel() != SIZE * SIZE:
        raise ValueError(f"The cell grid must have {SIZE} x {SIZE} cells; got {grid.numel()}.")
    cells = grid.reshape(SIZE, SIZE).float().clamp(0.0, 1.0).numpy()
    if cells.max() <= 0:
        return Drawing.blank()
    # One cell is already the widest a pixel gets; the straightness test reads the cells as
    # squares of CELL_PX pixels, as if drawn on a small canvas.
    pixels = np.kron(cells, np.ones((CELL_PX, CELL_PX), dtype=cells.dtype))
    return _judged(cells, thicken_thin=False, straight=straightness(pixels).straight)
