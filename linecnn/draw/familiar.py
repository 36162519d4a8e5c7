"""Is a drawing like what a lesson-data run saw? Its confidence means something only then.

The lesson's data holds 14 exact lines: a full column or row at 1..6, or one of the two
diagonals, lit at 1 over noise in [0, 0.1). A run trained only on those has never seen a
thick, short, tilted or edge stroke, and its softmax says "99 %" about such inputs all the
same. So the page measures how far the drawing's 8x8 input is from the nearest of the 14.
"""

from __future__ import annotations

import torch

from linecnn.train.data import NOISE, SIZE

# How far (root mean square over the 64 cells) an input may be from the nearest lesson line and
# still be like the lesson's data. Its images sit within NOISE / 2 = 0.05 of a clean line; a
# whole cell lit or missing on top of that is 1/8 = 0.125 away. The threshold allows less.
MAX_DISTANCE = 0.1


def lesson_lines() -> torch.Tensor:
    """The lesson's 14 exact lines (14, 8, 8), lit at 1 over the noise's mean NOISE / 2."""
    lines = []
    for position in range(1, SIZE - 1):
        column, row = torch.zeros(SIZE, SIZE), torch.zeros(SIZE, SIZE)
        column[:, position], row[position, :] = 1.0, 1.0
        lines += [column, row]
    lines += [torch.eye(SIZE), torch.eye(SIZE).fliplr()]
    return torch.stack(lines).clamp(min=NOISE / 2)


_LINES = lesson_lines()


def lesson_distance(image: torch.Tensor) -> float:
    """Root-mean-square distance from ``image`` (any shape of 64 values) to the nearest lesson line."""
    cells = image.reshape(1, SIZE, SIZE).float().cpu()
    return float(((_LINES - cells) ** 2).mean(dim=(1, 2)).sqrt().min())


def like_lesson_data(image: torch.Tensor) -> bool:
    """True when ``image`` is close to one of the lesson's lines, as its training images are."""
    return lesson_distance(image) <= MAX_DISTANCE
