"""Is the ink one straight line? Measured on the canvas pixels, before any network sees them.

Pure numpy, a fraction of a millisecond. The network only knows three kinds of line and must
share 100 % among them whatever it is shown, so the page asks the ink itself. Three measures,
each in words a student can follow:

- **bend**: the ink is cut into slices across its main direction; each slice's middle should
  sit on one straight line. An L, a check mark, an S or a zigzag leave it far from that line.
  The two end slices on each side may stray: a pen often hooks as it lifts.
- **extra ink**: one stroke of width w and length L has about w x L of ink. Crossings, arrow
  heads, triangles, stars and spirals have far more than one segment could hold.
- **branch**: a slice much thicker than the stroke holds a crossing bar (a T, a +).

Widths and lengths are measured, not assumed: the pen width comes from the ink's own runs
along rows and columns, so a fine pen and a marker are judged alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

WORK_PX = 160  # larger maps are halved until no side exceeds this: 280 px canvases are judged at 140
INKED = 0.5  # a pixel at least this dark (ink scaled to 1 at its darkest) counts as ink
SLICES = 20  # slices across the main direction
END_SLICES = 2  # slices at each end left out of the bend test: the pen may hook as it lifts
MAX_BEND = 0.065  # an inner slice's middle may stray this fraction of the length from the fitted line...
MAX_END_BEND = 0.13  # the end slices' farthest ink may stray this fraction of the length...
BEND_SLACK = 0.3  # ...plus, for both, this many pen widths (a wobbly hand, a staircase of cells)
MAX_EXTRA_INK = 1.28  # ink over this many times what one segment of the measured pen holds
MAX_BRANCH = 2.1  # a slice thicker than this many pen widths holds a crossing bar


@dataclass(frozen=True)
class Straightness:
    """How far the ink is from one straight stroke; each measure is 0 or small for a line."""

    bend: float  # farthest slice middle from the fitted line, in units of the allowed stray
    extra_ink: float  # ink area / (pen width x length): about 1 for one segment
    branch: float  # thickest inner slice / pen width: about 1 for one segment

    @property
    def straight(self) -> bool:
        """True when one straight stroke explains the ink."""
        return self.bend <= 1.0 and self.extra_ink <= MAX_EXTRA_INK and self.branch <= MAX_BRANCH


def pen_width(mask: np.ndarray) -> float:
    """The pen's width in pixels: the shorter of the median ink runs along rows and along columns.

    A line at angle a crosses rows in runs of w / sin(a) and columns in w / cos(a); the
    shorter is between w and 1.4 w whatever the angle, and crossings barely move a median.
    """
    runs = [_median_run(mask), _median_run(mask.T)]
    found = [run for run in runs if run > 0]
    return min(found) if found else 1.0


def _median_run(mask: np.ndarray) -> float:
    """Median length of the horizontal runs of True in ``mask``."""
    padded = np.pad(mask.astype(np.int8), ((0, 0), (1, 1)))
    edges = np.diff(padded, axis=1)
    starts, ends = np.nonzero(edges == 1)[1], np.nonzero(edges == -1)[1]
    return float(np.median(ends - starts)) if starts.size else 0.0


def halved(ink: np.ndarray) -> np.ndarray:
    """Each 2x2 block of pixels averaged into one (an odd last row or column dropped)."""
    height, width = ink.shape[0] // 2 * 2, ink.shape[1] // 2 * 2
    even, odd = ink[0:height:2, :width], ink[1:height:2, :width]
    return (even[:, 0::2] + even[:, 1::2] + odd[:, 0::2] + odd[:, 1::2]) / 4


def straightness(ink: np.ndarray) -> Straightness:
    """Measure how well one straight stroke explains ``ink`` (H, W) in [0, 1], darkest = 1."""
    while min(ink.shape) > WORK_PX:
        ink = halved(ink)  # every measure is a ratio: a coarser map answers the same, sooner
    mask = ink >= INKED
    rows, cols = np.nonzero(mask)
    if rows.size < 3:
        return Straightness(bend=0.0, extra_ink=1.0, branch=1.0)
    points = np.stack([cols, rows], axis=1).astype(np.float64)
    centre = points.mean(axis=0)
    _, vectors = np.linalg.eigh(np.cov((points - centre).T))
    along, across = (points - centre) @ vectors[:, 1], (points - centre) @ vectors[:, 0]
    width = pen_width(mask)
    length = max(float(along.max() - along.min()), 1.0)
    extra = rows.size / (width * max(length - 0.5 * width, width))  # a round cap adds ~w/2 of length
    return Straightness(
        bend=_bend(along, across, length, width),
        extra_ink=extra,
        branch=_branch(along, length, width),
    )


def _slices(along: np.ndarray, length: float) -> np.ndarray:
    """Which slice across the main direction each ink pixel falls in, 0..SLICES-1."""
    position = (along - along.min()) / length
    return np.minimum((position * SLICES).astype(int), SLICES - 1)


def _bend(along: np.ndarray, across: np.ndarray, length: float, width: float) -> float:
    """Farthest stray from the straight line fitted to the inner slice middles, over what is allowed.

    Inner slices are judged by their middles; the end slices by their farthest pixel, with a
    looser allowance: a hook as the pen lifts is short, the short arm of a check mark is not.
    """
    index = _slices(along, length)
    counts = np.bincount(index, minlength=SLICES)
    middles_across = np.bincount(index, weights=across, minlength=SLICES) / np.maximum(counts, 1)
    middles_along = np.bincount(index, weights=along, minlength=SLICES) / np.maximum(counts, 1)
    inner = np.zeros(SLICES, dtype=bool)
    inner[END_SLICES : SLICES - END_SLICES] = True
    inner &= counts > 0
    if inner.sum() < 3:
        return 0.0
    slope, offset = np.polyfit(middles_along[inner], middles_across[inner], 1, w=np.sqrt(counts[inner]))
    scale = math.sqrt(1 + slope * slope)  # vertical distance from the fitted line -> perpendicular
    stray = np.abs(middles_across[inner] - (slope * middles_along[inner] + offset)).max() / scale
    at_ends = ~inner[index] & (counts[index] > 0)
    end_pixels = np.abs(across[at_ends] - (slope * along[at_ends] + offset)) / scale - width / 2
    end_stray = float(end_pixels.max()) if end_pixels.size else 0.0
    inner_bend = stray / (MAX_BEND * length + BEND_SLACK * width)
    return max(float(inner_bend), end_stray / (MAX_END_BEND * length + BEND_SLACK * width))


def _branch(along: np.ndarray, length: float, width: float) -> float:
    """The thickest inner slice's ink per unit length, in pen widths."""
    counts = np.bincount(_slices(along, length), minlength=SLICES)[END_SLICES : SLICES - END_SLICES]
    return float(counts.max() / (length / SLICES) / width)
