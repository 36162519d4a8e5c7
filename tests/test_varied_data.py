"""The varied data mode: strokes like downsampled hand drawings, classes still unambiguous."""

import pytest
import torch

from linecnn.train.data import NOISE, make_lines

N = 400  # images per class


@pytest.fixture(scope="module")
def varied() -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of varied images and labels, made once for the module."""
    return make_lines(N, "varied", torch.Generator().manual_seed(0))


def strokes(images: torch.Tensor) -> torch.Tensor:
    """The images without their background noise: (N, 8, 8) ink."""
    return (images[:, 0] - NOISE).clamp(min=0.0)


def moments(ink: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per image spread of the ink over rows, over columns, and their covariance."""
    idx = torch.arange(8, dtype=ink.dtype)
    total = ink.sum(dim=(1, 2))
    rows = (ink * idx.view(1, 8, 1)).sum(dim=(1, 2)) / total
    cols = (ink * idx.view(1, 1, 8)).sum(dim=(1, 2)) / total
    dr = idx.view(1, 8, 1) - rows.view(-1, 1, 1)
    dc = idx.view(1, 1, 8) - cols.view(-1, 1, 1)
    var_r = (ink * dr * dr).sum(dim=(1, 2)) / total
    var_c = (ink * dc * dc).sum(dim=(1, 2)) / total
    cov = (ink * dr * dc).sum(dim=(1, 2)) / total
    return var_r, var_c, cov


def test_shapes_labels_and_value_range(varied):
    """(3n, 1, 8, 8) float32 in [0, 1], labels interleaved vertical, horizontal, diagonal."""
    images, labels = varied
    assert images.shape == (3 * N, 1, 8, 8) and images.dtype == torch.float32
    assert labels.tolist() == [0, 1, 2] * N
    assert images.min() >= 0 and images.max() <= 1
    assert not torch.isnan(images).any()


def test_same_seed_same_strokes():
    """Generation is a pure function of the generator's seed."""
    a, _ = make_lines(30, "varied", torch.Generator().manual_seed(5))
    b, _ = make_lines(30, "varied", torch.Generator().manual_seed(5))
    c, _ = make_lines(30, "varied", torch.Generator().manual_seed(6))
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_brightest_cell_is_faint_to_full(varied):
    """Every stroke peaks between 0.7 and 1 (plus noise), like a normalised canvas drawing."""
    peaks = varied[0].amax(dim=(1, 2, 3))
    assert peaks.min() >= 0.7 and peaks.max() > 0.97


def test_verticals_are_taller_than_wide_and_horizontals_wider_than_tall(varied):
    """The ink of every vertical spreads more over rows than columns, and the reverse."""
    images, labels = varied
    var_r, var_c, _ = moments(strokes(images))
    assert (var_r[labels == 0] > 1.5 * var_c[labels == 0]).all()
    assert (var_c[labels == 1] > 1.5 * var_r[labels == 1]).all()


def test_diagonals_lean_both_ways_and_are_clearly_slanted(varied):
    """Diagonals have a strong row-column correlation, of both signs (main and anti)."""
    images, labels = varied
    var_r, var_c, cov = moments(strokes(images[labels == 2]))
    correlation = cov / torch.sqrt(var_r * var_c)
    assert (correlation.abs() > 0.4).all()
    assert (correlation > 0).sum() > 0.35 * len(cov) and (correlation < 0).sum() > 0.35 * len(cov)


def test_verticals_sit_in_every_column_edges_included(varied):
    """The column holding the most ink of a vertical covers 0..7, unlike the lesson's 1..6."""
    images, labels = varied
    ink = strokes(images[labels == 0])
    heaviest = ink.sum(dim=1).argmax(dim=1)  # (n,) column of most ink
    assert set(heaviest.tolist()) == set(range(8))


def test_lengths_are_partial_and_full(varied):
    """Some verticals light all 8 rows, others only a few."""
    images, labels = varied
    ink = strokes(images[labels == 0])
    rows_lit = (ink.amax(dim=2) > 0.3).sum(dim=1)
    assert rows_lit.max() == 8 and rows_lit.min() <= 4
    assert (rows_lit >= 2).all()  # never a dot: the shortest stroke is 1.8 cells plus its round caps


def test_thickness_from_one_to_about_two_cells(varied):
    """Across its middle, a vertical is 1 to 3 cells wide above half its peak."""
    images, labels = varied
    ink = strokes(images[labels == 0])
    across = ink.sum(dim=1) / ink.sum(dim=1).amax(dim=1, keepdim=True)  # column profile, peak 1
    width = (across > 0.5).sum(dim=1)
    assert width.min() >= 1 and width.max() <= 3 and (width == 1).any() and (width >= 2).any()


def test_strokes_have_soft_anti_aliased_edges(varied):
    """Partial cells (between 0.2 and 0.8) exist in most images, as in a downsampled stroke."""
    ink = strokes(varied[0])
    partial = ((ink > 0.2) & (ink < 0.8)).flatten(1).any(dim=1)
    assert partial.float().mean() > 0.8


def test_tilts_stay_small_for_axis_classes(varied):
    """Verticals and horizontals lean at most ~15 degrees: the main axis of their ink says so wherever
    it spans 4 cells or more (on an 8x8 grid a stroke of 2 or 3 cells cannot show its angle that finely)."""
    images, labels = varied
    ink = strokes(images)
    var_r, var_c, cov = moments(ink)
    angle = 0.5 * torch.atan2(2 * cov, var_c - var_r)  # main axis from the column axis
    degrees = torch.rad2deg(angle).abs()
    rows_lit, columns_lit = (ink.amax(dim=2) > 0.3).sum(dim=1), (ink.amax(dim=1) > 0.3).sum(dim=1)
    horizontal_tilt = degrees[(labels == 1) & (columns_lit >= 4)]
    vertical_tilt = (90 - degrees[(labels == 0) & (rows_lit >= 4)]).abs()
    assert horizontal_tilt.max() < 20 and vertical_tilt.max() < 20
    assert horizontal_tilt.max() > 5  # but they do lean


def test_a_model_trained_on_varied_data_also_reads_the_seed_lines():
    """The varied mode covers the lesson's lines: a short varied run classifies seed images."""
    from linecnn.device import cpu_threads
    from linecnn.train.config import RunConfig
    from linecnn.train.trainer import fit

    config = RunConfig.from_flat(per_class=1500, data_mode="varied", epochs=8, batch_size=256, seed=3)
    with cpu_threads("cpu", 1):
        model = fit(config).model.eval()
        seed_x, seed_y = make_lines(100, "lesson", torch.Generator().manual_seed(1))
        with torch.no_grad():
            accuracy = (model(seed_x).argmax(dim=1) == seed_y).float().mean().item()
    assert accuracy > 0.95, f"accuracy on the lesson's lines {accuracy:.2f}"
