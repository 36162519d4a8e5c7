"""The fixed-per-step plus per-image fit of measured epochs."""

import pytest

from linecnn.bench.costfit import fit_costs


def test_the_fit_recovers_a_per_step_and_a_per_image_cost():
    """Epochs made exactly of 0.4 ms per step and 2 µs per image give those two costs back."""
    steps = [1, 1, 1, 3, 9]
    images = [360, 1_200, 3_600, 12_000, 36_000]
    times = [0.4 * s + 0.002 * n for s, n in zip(steps, images, strict=True)]
    fit = fit_costs(steps, images, times)
    assert fit.per_step_ms == pytest.approx(0.4)
    assert fit.per_image_ms == pytest.approx(0.002)
    assert fit.max_error == pytest.approx(0, abs=1e-9) and fit.points == 5
    assert fit.balance_images == pytest.approx(200)
    assert fit.fixed_share(1, 360) == pytest.approx(0.4 / (0.4 + 0.72))


def test_the_fit_says_how_far_it_is_from_noisy_points():
    """A point 10 % off the line shows in max_error; the costs stay close."""
    steps, images = [1, 1, 1, 3], [360, 1_200, 3_600, 12_000]
    times = [0.4 * s + 0.002 * n for s, n in zip(steps, images, strict=True)]
    times[1] *= 1.1
    fit = fit_costs(steps, images, times)
    assert 0.03 < fit.max_error < 0.1
    assert fit.per_step_ms == pytest.approx(0.4, rel=0.2)


def test_costs_never_go_negative():
    """Times that fall as images grow would need a negative per-image cost: a one-cost line instead."""
    fit = fit_costs([1, 1, 1], [100, 1_000, 10_000], [5.0, 4.0, 3.0])
    assert fit.per_step_ms >= 0 and fit.per_image_ms >= 0
    assert fit.per_image_ms == 0


def test_one_epoch_size_is_refused_with_a_sentence():
    """A width sweep has one size only: the two costs cannot be told apart."""
    with pytest.raises(ValueError, match="at least two sizes"):
        fit_costs([1, 1], [360, 360], [1.0, 2.0])
    with pytest.raises(ValueError, match="one value per"):
        fit_costs([1], [360, 720], [1.0])


@pytest.mark.parametrize(("language", "unit"), [("en", "images"), ("es", "imágenes")])
def test_the_fit_chart_hover_names_each_line_and_what_its_numbers_are(language, unit, monkeypatch):
    """Plotly's own hover was a bare '(3.600, 25,6)' on a Spanish page, the decimal comma reading as the
    pair's comma: every line's hover now names the line, the images and the milliseconds."""
    import pandas as pd

    from linecnn.ui import i18n
    from linecnn.ui.bench.results.charts import fit_figure

    monkeypatch.setattr(i18n, "current", lambda: language)
    points = pd.DataFrame(
        {"series": ["CPU"] * 3, "kind": ["cpu"] * 3, "x": [360, 3600, 36000], "steps": [1, 1, 9]}
        | {"images": [360, 3600, 36000], "median_ms": [3.1, 25.6, 307.0]}
    )
    figure = fit_figure(points, {"CPU": fit_costs([1, 1, 9], [360, 3600, 36000], [3.1, 25.6, 307.0])}, "data")
    assert len(figure.data) == 3
    for trace in figure.data:
        assert (
            trace.hovertemplate == f"%{{fullData.name}}<br>{unit} %{{x:,.0f}}<br>%{{y:.3g}} ms<extra></extra>"
        )
