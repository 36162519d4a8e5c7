"""A lesson-data run's confidence is qualified for inputs unlike the lesson's lines."""

import torch

from linecnn.draw.familiar import like_lesson_data
from linecnn.draw.preprocess import preprocess
from linecnn.train.config import DataConfig
from linecnn.train.data import make_dataset
from tests.draw_helpers import synthetic_canvas


def test_every_lesson_image_is_familiar():
    """All training and validation images of the lesson's data are like the lesson's data."""
    data = make_dataset(DataConfig(per_class=200, val_per_class=100, mode="lesson"), seed=3)
    assert all(like_lesson_data(image) for image in torch.cat([data.train_x, data.val_x]))


def test_varied_strokes_are_mostly_unfamiliar():
    """Varied data (short, thick, tilted, edge strokes) is mostly far from the lesson's lines."""
    data = make_dataset(DataConfig(per_class=100, val_per_class=10, mode="varied"), seed=3)
    familiar = sum(like_lesson_data(image) for image in data.train_x)
    assert familiar < 0.1 * len(data.train_x)


def test_thick_short_and_edge_drawings_are_unfamiliar_and_a_lesson_line_is_not():
    """A thick, a short and an edge stroke are unfamiliar; a full column drawn inside its cells is not."""
    strokes = ((((140, 20), (140, 260)), 36), (((100, 100), (100, 180)), 16), (((8, 5), (8, 275)), 16))
    for points, width in strokes:
        assert not like_lesson_data(preprocess(synthetic_canvas(points, width=width)).image), points
    assert like_lesson_data(preprocess(synthetic_canvas(((122.5, 2), (122.5, 278)), width=34)).image)
