"""The Draw page's "one straight line?" verdict on generated canvases: hands' lines pass, shapes do not."""

import time

import numpy as np
import torch

from linecnn.draw.geometry import straightness
from linecnn.draw.preprocess import from_cells, ink_map, preprocess
from tests.draw_shapes import LINE_KINDS, SHAPE_KINDS, generated_lines, generated_non_lines

LINES = generated_lines(64, seed=2024)  # eight of each kind: tilted, bowed, dashed, hooked, ...
NON_LINES = generated_non_lines(2 * len(SHAPE_KINDS), seed=2025)  # two of each shape


def test_generated_lines_read_as_one_line():
    """At least 98 % of tilted, bowed, dashed, hooked, diagonal, short, flicked and wobbly lines pass."""
    assert {figure.name.split("-")[1] for figure in LINES} == set(LINE_KINDS)
    flagged = [figure.name for figure in LINES if preprocess(figure.canvas()).problem is not None]
    assert len(flagged) <= 0.02 * len(LINES), flagged


def test_generated_non_lines_are_never_one_line():
    """Every check mark, letter, digit, arrow, cross, polygon, spiral, scribble, dot and fill is flagged."""
    assert {figure.name.split("-")[1] for figure in NON_LINES} == set(SHAPE_KINDS)
    passed = [figure.name for figure in NON_LINES if preprocess(figure.canvas()).problem is None]
    assert passed == []


def test_shapes_that_pass_the_old_moments_test_get_the_new_sentence():
    """A check mark and an L are long and thin, so only the straightness test catches them."""
    for kind in ("check", "L"):
        figure = next(f for f in NON_LINES if f.name.split("-")[1] == kind)
        assert "not one straight line" in preprocess(figure.canvas()).problem, figure.name


def test_each_measure_is_small_for_a_clean_line():
    """A clean diagonal has no bend, about one segment of ink and no branch."""
    canvas = generated_lines(1, seed=3)[0].canvas()
    ink = ink_map(canvas)
    measured = straightness(ink / ink.max())
    assert measured.straight and measured.bend < 0.5 and measured.branch < 1.5
    assert 0.6 < measured.extra_ink < 1.1


def test_straightness_is_fast():
    """The test adds about a millisecond to a drawing, not tens: the page answers as the pen lifts."""
    canvas = NON_LINES[0].canvas()
    ink = ink_map(canvas)
    straightness(ink)
    # The thread's own CPU time: on a busy machine the wall clock also counts the time others had the core.
    start = time.thread_time()
    for _ in range(20):
        straightness(ink)
    assert (time.thread_time() - start) / 20 < 0.01  # ~1 ms of a core; headroom for a slow one


def test_cell_grid_lines_pass_and_an_l_does_not():
    """On the clickable grid a row and a diagonal are lines; a painted L is not."""
    row, diagonal, corner = np.zeros((8, 8)), np.eye(8), np.zeros((8, 8))
    row[3] = 1
    corner[:, 1] = 1
    corner[7, 1:7] = 1
    assert from_cells(torch.tensor(row)).problem is None
    assert from_cells(torch.tensor(diagonal)).problem is None
    assert "not one straight line" in from_cells(torch.tensor(corner)).problem
