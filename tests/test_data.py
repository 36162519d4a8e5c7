"""The vectorised generator: labels, shapes, the lesson's exact distribution, determinism, speed."""

import torch

from linecnn.train.config import DataConfig
from linecnn.train.data import NOISE, make_dataset, make_lines


def lines(n_per_class=50, mode="lesson", seed=0):
    return make_lines(n_per_class, mode, torch.Generator().manual_seed(seed))


def test_shapes_dtypes_and_interleaved_labels():
    """3n images of (1, 8, 8) float32 in [0, 1]; labels cycle vertical, horizontal, diagonal."""
    images, labels = lines(10)
    assert images.shape == (30, 1, 8, 8) and images.dtype == torch.float32
    assert labels.tolist() == [0, 1, 2] * 10
    assert images.min() >= 0 and images.max() <= 1


def test_seed_mode_draws_the_lessons_lines():
    """Lit pixels are exactly the lesson's: a full column or row 1..6, or the main or anti diagonal."""
    images, labels = lines(200)
    lit = images[:, 0] == 1.0  # (N, 8, 8); noise alone never reaches 1
    eye = torch.eye(8, dtype=torch.bool)
    seen_positions = set()
    for image, label in zip(lit, labels.tolist(), strict=True):
        if label == 0:
            (columns,) = torch.nonzero(image.all(dim=0), as_tuple=True)
            assert columns.numel() == 1 and 1 <= columns.item() <= 6 and image.sum() == 8
            seen_positions.add(columns.item())
        elif label == 1:
            (rows,) = torch.nonzero(image.all(dim=1), as_tuple=True)
            assert rows.numel() == 1 and 1 <= rows.item() <= 6 and image.sum() == 8
        else:
            assert torch.equal(image, eye) or torch.equal(image, eye.flip(1))
    assert seen_positions == {1, 2, 3, 4, 5, 6}


def test_seed_mode_noise_is_uniform_up_to_a_tenth():
    """Background pixels are 0.10 * U(0, 1): within [0, 0.1) with mean about 0.05."""
    images, _ = lines(300)
    background = images[images < 1.0]
    assert background.max() < NOISE and background.min() >= 0
    assert abs(background.mean().item() - NOISE / 2) < 0.002


def test_same_seed_same_images_different_seed_different_images():
    """Generation is a pure function of the seed."""
    a, _ = lines(20, seed=3)
    b, _ = lines(20, seed=3)
    c, _ = lines(20, seed=4)
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_dataset_train_and_val_differ_and_land_on_the_device():
    """make_dataset gives distinct train and validation sets of the configured sizes."""
    data = make_dataset(DataConfig(per_class=12, val_per_class=5), seed=24, device="cpu")
    assert data.train_x.shape == (36, 1, 8, 8) and data.val_x.shape == (15, 1, 8, 8)
    assert data.device.type == "cpu"
    assert not torch.equal(data.train_x[:15], data.val_x)


def test_varied_mode_has_the_right_shapes_and_range():
    """Varied strokes share the contract: (3n, 1, 8, 8) in [0, 1], interleaved labels."""
    images, labels = lines(40, mode="varied")
    assert images.shape == (120, 1, 8, 8) and labels.tolist() == [0, 1, 2] * 40
    assert images.min() >= 0 and images.max() <= 1


def test_noisy_mode_is_the_lessons_lines_under_six_times_its_noise():
    """The same lit lines as the lesson's mode for the same seed; the background reaches up to 0.6."""
    noisy, labels = lines(200, "noisy", seed=3)
    plain, plain_labels = lines(200, "lesson", seed=3)
    assert torch.equal(labels, plain_labels)
    assert torch.equal(noisy == 1.0, plain == 1.0)  # the lines themselves
    background = noisy[noisy < 1.0]
    assert background.min() >= 0.0 and background.max() < 0.6 and background.max() > 0.5
    assert torch.allclose(background, plain[plain < 1.0] * 6.0)


def test_every_data_mode_is_offered_by_the_config_the_cli_and_the_train_page():
    """One registry: a mode added to lines.DATA_MODES is accepted by the config and the CLI, and the
    Train page and the Draw page (describing a run) name it in both languages."""
    from linecnn.cli.main import build_parser
    from linecnn.train.lines import DATA_MODES
    from linecnn.ui import i18n

    for mode in DATA_MODES:
        assert DataConfig(mode=mode).mode == mode
        assert build_parser().parse_args(["train", "--data-mode", mode]).data_mode == mode
        for language in ("en", "es"):
            assert f"train.mode.{mode}" in i18n.catalog(language), (mode, language)
            assert f"draw.data.{mode}" in i18n.catalog(language), (mode, language)
        images, _ = lines(5, mode)
        assert images.shape == (15, 1, 8, 8) and images.min() >= 0 and images.max() <= 1
