"""The CNN matches the lesson's architecture and is seeded."""

import torch

from linecnn.train.config import ModelConfig
from linecnn.train.model import build_model, count_parameters


def test_seed_architecture_and_output_shape():
    """Width 1 is the lesson's Conv(1->8), Conv(8->16), Linear(64->16), Linear(16->3)."""
    model = build_model()
    assert (model.conv1.in_channels, model.conv1.out_channels) == (1, 8)
    assert (model.conv2.in_channels, model.conv2.out_channels) == (8, 16)
    assert (model.fc1.in_features, model.fc1.out_features, model.fc2.out_features) == (64, 16, 3)
    assert model(torch.rand(5, 1, 8, 8)).shape == (5, 3)
    assert count_parameters(model) == 8 * 9 + 8 + 16 * 8 * 9 + 16 + 64 * 16 + 16 + 16 * 3 + 3


def test_width_and_extra_convs_grow_the_model():
    """The width multiplier scales channels; extra convs add layers at 8x8."""
    wide = build_model(ModelConfig(width=4, extra_convs=2))
    assert wide.conv1.out_channels == 32 and wide.conv2.out_channels == 64 and len(wide.extra) == 2
    assert wide(torch.rand(2, 1, 8, 8)).shape == (2, 3)


def test_activations_shapes():
    """conv1 maps are (B, 8, 8, 8) and conv2 maps (B, 16, 4, 4), post-ReLU."""
    a1, a2 = build_model().activations(torch.rand(2, 1, 8, 8))
    assert a1.shape == (2, 8, 8, 8) and a2.shape == (2, 16, 4, 4)
    assert a1.min() >= 0 and a2.min() >= 0


def test_initial_weights_depend_only_on_the_seed():
    """Same seed, same weights; the global RNG is left alone."""
    torch.manual_seed(0)
    before = torch.rand(1)
    torch.manual_seed(0)
    a, b, c = build_model(seed=1), build_model(seed=1), build_model(seed=2)
    assert torch.equal(torch.rand(1), before)
    assert torch.equal(a.conv1.weight, b.conv1.weight)
    assert not torch.equal(a.conv1.weight, c.conv1.weight)


def test_forward_equals_the_lessons_conv_relu_pool_order():
    """Pooling before ReLU (for speed) gives exactly the lesson's Conv -> ReLU -> Pool logits."""
    import torch.nn.functional as F

    model = build_model(ModelConfig(extra_convs=1))
    x = torch.rand(16, 1, 8, 8)
    a1, a2 = model.activations(x)  # the lesson's order: ReLU, then pool
    lesson = model.fc2(F.relu(model.fc1(torch.flatten(F.max_pool2d(a2, 2), 1))))
    assert torch.allclose(model(x), lesson, atol=1e-6)
