"""Inference on one drawing: probabilities, feature maps, read-only models, the default model."""

import copy

import numpy as np
import pytest
import torch

from linecnn.device import cpu_threads
from linecnn.draw.default_weights import load_default_model
from linecnn.draw.predict import DEFAULT_CONFIG, predict
from linecnn.draw.preprocess import preprocess
from linecnn.train.config import RunConfig
from linecnn.train.data import CLASS_NAMES
from linecnn.train.model import build_model
from linecnn.train.trainer import fit
from linecnn.ui.draw.verdict import LOW_CONFIDENCE
from tests.draw_helpers import synthetic_canvas
from tests.draw_shapes import LINE_KINDS, generated_lines

# Strokes a person might draw on the 280 px canvas: (points, brush px, class).
STROKES = [
    (((8, 10), (8, 270)), 16, "vertical"),
    (((140, 20), (150, 260)), 24, "vertical"),
    (((250, 150), (250, 270)), 36, "vertical"),
    (((60, 60), (60, 170)), 8, "vertical"),
    (((10, 272), (270, 272)), 16, "horizontal"),
    (((30, 120), (240, 130)), 24, "horizontal"),
    (((150, 40), (260, 40)), 36, "horizontal"),
    (((20, 200), (130, 200)), 8, "horizontal"),
    (((10, 10), (270, 270)), 24, "diagonal"),
    (((270, 10), (10, 270)), 24, "diagonal"),
    (((90, 10), (270, 190)), 16, "diagonal"),
    (((200, 80), (80, 200)), 36, "diagonal"),
    (((20, 120), (150, 250)), 8, "diagonal"),
]


@pytest.fixture(scope="module")
def default_model():
    """The Draw page's default model, as shipped in the package."""
    model = load_default_model()
    assert model is not None, "linecnn/draw/default_model.pt cannot be read"
    return model


def test_prediction_has_probabilities_maps_and_timing(default_model):
    """Three probabilities summing to 1, conv maps of the lesson's shapes, the device and a time."""
    drawing = preprocess(synthetic_canvas(((140, 20), (140, 260))))
    prediction = predict(default_model, drawing.image, "cpu")
    assert len(prediction.probabilities) == 3 and sum(prediction.probabilities) == pytest.approx(1.0)
    assert prediction.conv1.shape == (8, 8, 8) and prediction.conv2.shape == (16, 4, 4)
    assert (prediction.conv1 >= 0).all() and (prediction.conv2 >= 0).all()  # post-ReLU
    assert prediction.device == "cpu" and 0 < prediction.seconds < 1
    assert prediction.name == CLASS_NAMES[prediction.label] == "vertical"
    assert prediction.confidence == max(prediction.probabilities)


def test_predict_leaves_the_model_untouched():
    """A model in training mode, maybe shared, comes back with the same mode and weights."""
    model = build_model(seed=1).train()
    before = copy.deepcopy(model.state_dict())
    predict(model, torch.rand(1, 1, 8, 8), "cpu")
    assert model.training
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_predict_refuses_other_shapes():
    """Only one (1, 1, 8, 8) image at a time, with a readable message."""
    with pytest.raises(ValueError, match=r"\(1, 1, 8, 8\)"):
        predict(build_model(), torch.rand(2, 1, 8, 8))


def test_cpu_threads_restores_the_thread_count():
    """The single-thread block gives the thread count back, even after an error."""
    threads = torch.get_num_threads()
    with pytest.raises(RuntimeError), cpu_threads("cpu", 1):
        assert torch.get_num_threads() == 1
        raise RuntimeError("boom")
    assert torch.get_num_threads() == threads


def test_default_model_config_is_varied_and_quick():
    """The default model learns from varied strokes, with a budget of a few CPU seconds."""
    assert DEFAULT_CONFIG.data.mode == "varied"
    assert DEFAULT_CONFIG.data.per_class * DEFAULT_CONFIG.train.epochs <= 100_000


def test_default_model_reads_hand_drawn_like_strokes(default_model):
    """Edges, partial lengths, tilts, shifted diagonals and every brush: at least 95 % right."""
    right = 0
    for points, brush, expected in STROKES:
        drawing = preprocess(synthetic_canvas(points, width=brush))
        right += predict(default_model, drawing.image).name == expected
    assert right / len(STROKES) >= 0.95, f"{right} of {len(STROKES)}"


def test_default_model_reads_generated_lines_of_every_kind(default_model):
    """Tilted, bowed, dashed, hooked, diagonal, short, flicked and wobbly lines: at least 98 % get their
    class with a confidence the page calls sure (scripts/figure_suite.py draws such lines in Chromium)."""
    figures = generated_lines(20 * len(LINE_KINDS), seed=11)
    wrong = []
    for figure in figures:
        prediction = predict(default_model, preprocess(figure.canvas()).image)
        if prediction.name != figure.label or prediction.confidence < LOW_CONFIDENCE:
            wrong.append(f"{figure.name}: {prediction.name} {prediction.confidence:.0%}")
    assert len(wrong) <= 0.02 * len(figures), wrong


def test_lesson_only_model_misreads_many_of_them():
    """The lesson's data alone never shows edge, short or shifted strokes: it does clearly worse."""
    with cpu_threads("cpu", 1):
        model = fit(RunConfig()).model
    right = sum(
        predict(model, preprocess(synthetic_canvas(points, width=brush)).image).name == expected
        for points, brush, expected in STROKES
    )
    assert right / len(STROKES) < 0.9


@pytest.mark.parametrize(
    "canvas",
    [
        synthetic_canvas(((140, 140),), width=30),  # a dot
        synthetic_canvas(((20, 20), (260, 60), (30, 120), (250, 180), (40, 250), (140, 30))),  # a scribble
        np.concatenate([np.zeros((280, 280, 3)), np.full((280, 280, 1), 255)], axis=2).astype(np.uint8),
    ],
    ids=["dot", "scribble", "black"],
)
def test_bad_input_gives_a_message_and_a_valid_prediction(default_model, canvas):
    """A dot, a scribble or a black canvas: a problem sentence, never an exception."""
    drawing = preprocess(canvas)
    assert drawing.problem
    prediction = predict(default_model, drawing.image)
    assert sum(prediction.probabilities) == pytest.approx(1.0)
