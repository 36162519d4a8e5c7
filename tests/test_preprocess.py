"""Canvas preprocessing: synthetic RGBA canvases whose right 8x8 answer is known."""

import numpy as np
import pytest
import torch

from linecnn.draw.preprocess import (
    Drawing,
    area_average,
    from_cells,
    ink_map,
    preprocess,
)
from tests.draw_helpers import synthetic_canvas

WHITE = np.full((280, 280, 4), 255, dtype=np.uint8)


def image(drawing: Drawing) -> np.ndarray:
    """The (8, 8) model input as numpy."""
    return drawing.image[0, 0].numpy()


def test_output_is_one_float_image_in_the_training_range():
    """A (1, 1, 8, 8) float32 tensor in [0, 1] whose brightest cell is 1, like the varied data."""
    drawing = preprocess(synthetic_canvas(((30, 40), (200, 220))))
    assert drawing.image.shape == (1, 1, 8, 8) and drawing.image.dtype == torch.float32
    assert drawing.image.min() >= 0 and drawing.image.max() == pytest.approx(1.0)


def test_empty_canvas_is_blank_not_an_error():
    """A white canvas gives an all-zero image flagged empty, with no problem sentence."""
    drawing = preprocess(WHITE)
    assert drawing.empty and drawing.problem is None
    assert torch.equal(drawing.image, torch.zeros(1, 1, 8, 8))


def test_transparent_canvas_counts_as_white_page():
    """Pixels with alpha 0 are page, whatever their colour: a canvas without a background is empty."""
    transparent = np.zeros((280, 280, 4), dtype=np.uint8)
    assert preprocess(transparent).empty


def test_faint_dot_is_empty():
    """A light-grey speck covers under 1 % of any cell: nothing to classify."""
    speck = synthetic_canvas(((140, 140),), width=6, ink=(220, 220, 220))
    assert preprocess(speck).empty


def test_dark_dot_gets_a_friendly_problem_not_an_exception():
    """A single dab of the brush is not a line: the drawing says so."""
    drawing = preprocess(synthetic_canvas(((140, 140),), width=24))
    assert not drawing.empty
    assert drawing.problem is not None and "dot" in drawing.problem


def test_full_black_canvas_is_flagged():
    """Ink everywhere: the model input is all ones and the user is told to draw one line."""
    black = np.zeros((280, 280, 4), dtype=np.uint8)
    black[..., 3] = 255
    drawing = preprocess(black)
    assert np.allclose(image(drawing), 1.0)
    assert drawing.problem is not None and "most of the canvas" in drawing.problem


def test_scribble_is_flagged():
    """A cross of two lines is not one straight line."""
    cross = synthetic_canvas(((140, 20), (140, 260)), ((20, 140), (260, 140)))
    problem = preprocess(cross).problem
    assert problem is not None and "straight line" in problem


def test_straight_strokes_have_no_problem():
    """Lines of any direction, short or long, thin or thick, pass the shape check."""
    strokes = [
        (((140, 10), (140, 270)), 8),
        (((20, 100), (120, 100)), 36),
        (((60, 60), (160, 160)), 16),
        (((270, 10), (10, 270)), 24),
    ]
    for points, width in strokes:
        assert preprocess(synthetic_canvas(points, width=width)).problem is None, points


def test_area_averaging_not_nearest_neighbour():
    """A pixel checkerboard averages to 0.5 in every cell; point sampling would give 0 or 1."""
    checker = (np.indices((280, 280)).sum(axis=0) % 2).astype(np.float32)
    assert np.allclose(area_average(checker), 0.5, atol=1e-3)  # 35 x 35 blocks: 612 or 613 of 1225


def test_area_averaging_of_known_blocks():
    """Ink filling exactly the 35x35 block of cell (2, 5) lands in that cell only."""
    ink = np.zeros((280, 280), dtype=np.float32)
    ink[70:105, 175:210] = 1.0
    cells = area_average(ink)
    assert cells[2, 5] == pytest.approx(1.0) and cells.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("points", "lit"),
    [
        (((8, 5), (8, 275)), lambda img: img[:, 0]),  # vertical on the left edge: column 0
        (((272, 5), (272, 275)), lambda img: img[:, 7]),  # vertical on the right edge: column 7
        (((5, 8), (275, 8)), lambda img: img[0, :]),  # horizontal along the top edge: row 0
        (((5, 272), (275, 272)), lambda img: img[7, :]),  # horizontal along the bottom edge: row 7
        (((5, 5), (275, 275)), np.diag),  # main diagonal
        (((275, 5), (5, 275)), lambda img: np.diag(np.fliplr(img))),  # anti-diagonal
    ],
    ids=["v-col0", "v-col7", "h-row0", "h-row7", "d-main", "d-anti"],
)
def test_each_class_at_an_edge_lands_on_the_right_cells(points, lit):
    """Lines at the canvas edges fill the edge row, column or diagonal and leave the far side blank."""
    img = image(preprocess(synthetic_canvas(points, width=24)))
    assert lit(img).min() > 0.5
    assert img.sum() - lit(img).sum() < 0.35 * lit(img).sum()  # little ink off the line


def test_far_corner_stays_blank_for_an_edge_line():
    """A vertical at column 0 leaves the right half of the image at zero."""
    img = image(preprocess(synthetic_canvas(((8, 5), (8, 275)), width=24)))
    assert np.allclose(img[:, 4:], 0.0)


def test_contrast_normalisation_makes_faint_and_dark_strokes_alike():
    """A mid-grey line and a near-black line give the same model input."""
    points = ((60, 30), (90, 250))
    dark = image(preprocess(synthetic_canvas(points, ink=(20, 20, 20))))
    grey = image(preprocess(synthetic_canvas(points, ink=(150, 150, 150))))
    assert np.abs(dark - grey).max() < 0.02


def test_thin_pens_are_widened_like_thicker_ones():
    """An 8 px and a 20 px line at the same place give nearly the same input."""
    points = ((40, 20), (250, 240))
    thin = image(preprocess(synthetic_canvas(points, width=8)))
    medium = image(preprocess(synthetic_canvas(points, width=20)))
    assert np.abs(thin - medium).max() < 0.3
    assert np.count_nonzero(thin > 0.5) >= 8  # no broken staircase: the whole diagonal is lit


def test_other_sizes_and_rgb_arrays_work():
    """Any canvas of at least 8x8 pixels, RGBA or RGB, uint8 or float in [0, 1]."""
    big = synthetic_canvas(((200, 20), (200, 380)), size=400)
    img = image(preprocess(big[..., :3]))
    assert img[:, 3:5].max() == pytest.approx(1.0)
    floats = preprocess(synthetic_canvas(((20, 140), (260, 140))).astype(np.float32) / 255)
    assert image(floats)[3:5].max() == pytest.approx(1.0)


def test_ink_map_composites_alpha_over_white():
    """Half-transparent black is half ink; opaque white is none."""
    pixels = np.array([[[0, 0, 0, 128], [255, 255, 255, 255]]], dtype=np.uint8).repeat(8, 0).repeat(4, 1)
    ink = ink_map(pixels)
    assert ink[0, 0] == pytest.approx(128 / 255) and ink[0, -1] == 0.0


@pytest.mark.parametrize("shape", [(280, 280), (280, 280, 2), (4, 4, 4), (2, 280, 280, 4)])
def test_bad_shapes_raise_a_readable_error(shape):
    """Anything but an H x W x 3/4 array of at least 8x8 pixels is refused with a sentence."""
    with pytest.raises(ValueError, match="canvas image must be"):
        preprocess(np.zeros(shape, dtype=np.uint8))


def test_cell_grid_is_used_as_is():
    """The clickable grid is already 8x8: a painted column is the model input, unchanged."""
    grid = torch.zeros(8, 8)
    grid[:, 2] = 1
    drawing = from_cells(grid)
    assert torch.equal(drawing.image[0, 0], grid) and drawing.problem is None
    assert from_cells(torch.zeros(64)).empty
    single = torch.zeros(8, 8)
    single[4, 4] = 1
    assert "dot" in from_cells(single).problem
