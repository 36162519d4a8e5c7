"""Comparing runs: EMA smoothing, legends naming what differs, the validation-set warning, loss axes."""

import math
from dataclasses import replace

import pytest

from linecnn.train.config import RunConfig
from linecnn.train.trainer import EpochRecord
from linecnn.ui import i18n
from linecnn.ui.state import RunRecord
from linecnn.ui.train import charts
from linecnn.ui.train.compare import ema, legend_labels, significant, val_set_warning


def run(number: int, device: str = "cpu", **settings) -> RunRecord:
    """A finished 3-epoch run with the lesson's settings, except ``settings`` (RunConfig.from_flat names)."""
    config = RunConfig.from_flat(**{"epochs": 3, **settings})
    history = tuple(EpochRecord(e, 3, 1.0 / e, 0.5, 1.0 / e, 0.5, 0.01, 0.01 * e, device) for e in (1, 2, 3))
    return RunRecord(number, config, device, history, [[0] * 3] * 3, model=None)


def test_ema_starts_at_the_first_value_and_is_debiased():
    """TensorBoard's smoothing: no pull towards zero at the start, then the running average."""
    smoothed = ema([10.0, 20.0, 30.0], 0.5)
    assert smoothed[0] == 10.0
    # (0.5 * 5 + 0.5 * 20) / (1 - 0.25) = 12.5 / 0.75; without debiasing it would be 12.5
    assert smoothed[1] == pytest.approx(12.5 / 0.75)
    assert smoothed[2] == pytest.approx((0.5 * 12.5 + 0.5 * 30) / (1 - 0.125))


def test_ema_weight_zero_is_the_raw_curve_and_a_constant_stays_constant():
    assert ema([3.0, 1.0, 2.0], 0.0) == [3.0, 1.0, 2.0]
    assert ema([0.7] * 50, 0.99) == pytest.approx([0.7] * 50)


def test_ema_smooths_noise_and_passes_non_finite_values_through():
    noisy = [1.0, 0.0] * 20
    smoothed = ema(noisy, 0.9)
    assert max(smoothed[10:]) - min(smoothed[10:]) < 0.2  # raw swings by 1.0
    with_nan = ema([1.0, math.nan, 3.0], 0.5)
    assert with_nan[0] == 1.0 and math.isnan(with_nan[1])
    assert with_nan[2] == pytest.approx((0.25 + 1.5) / 0.75)  # the NaN left no mark


@pytest.mark.parametrize("weight", [-0.1, 1.0, 2.0])
def test_ema_refuses_a_weight_outside_zero_to_one(weight):
    with pytest.raises(ValueError, match="Smoothing"):
        ema([1.0], weight)


def test_legends_name_the_setting_that_differs():
    runs = [run(1), run(2, lr=0.05), run(3, lr=0.001)]
    assert legend_labels(runs) == ["Run 1 · lr 0.01", "Run 2 · lr 0.05", "Run 3 · lr 0.001"]


def test_legends_name_every_differing_setting_and_the_device():
    runs = [run(1, batch_size=32, seed=7), run(2, "cuda:0", width=2, seed=7)]
    assert legend_labels(runs) == [
        "Run 1 · CPU · batch 32 · width 1",
        "Run 2 · CUDA:0 · batch full · width 2",
    ]


def test_a_long_legend_name_breaks_between_settings_so_a_phone_shows_it_whole():
    """Five differing settings make a name too long for one line: it breaks at a separator, no line
    over 40 characters, no setting cut in two."""
    runs = [run(1, lr=0.01, per_class=20, seed=24), run(2, lr=0.05, per_class=25, seed=25)]
    runs.append(run(3, lr=0.002, per_class=30, data_mode="noisy", seed=26, epochs=7))
    labels = legend_labels(runs)
    assert all(len(line) <= 40 for label in labels for line in label.split("<br>"))
    assert "<br>" in labels[2] and labels[2].replace("<br>", " · ").startswith("Run 3 · lr 0.002 · 30 ")
    assert legend_labels([run(1), run(2, lr=0.05)]) == ["Run 1 · lr 0.01", "Run 2 · lr 0.05"]  # one line
    history = runs[0].history  # the chart makes room for every line of the legend, not one per run
    heights = [charts.overlay_figure([(label, history)] * 3).layout.height for label in ("Run 1", labels[2])]
    assert heights[1] > heights[0]


def test_runs_that_differ_in_nothing_keep_their_full_label():
    assert legend_labels([run(4)]) == ["Run 4 · CPU · 3 ep"]
    assert legend_labels([run(1), run(2)]) == ["Run 1 · CPU · 3 ep", "Run 2 · CPU · 3 ep"]


def test_different_validation_sets_are_named_same_ones_are_not():
    assert val_set_warning([run(1), run(2, "cuda:0", lr=0.1, batch_size=8)]) is None  # same images
    warning = val_set_warning([run(1), run(2, seed=7)])
    assert warning and "(they differ in seed)" in warning
    warning = val_set_warning([run(1), run(2, per_class=200, data_mode="varied")])
    assert "(they differ in data, images per class)" in warning


def test_numbers_are_written_to_their_significant_digits():
    assert significant(0.05, 4) == "0.05" and significant(0.012345, 4) == "0.01235"
    assert significant(1234.56, 4) == "1,235" and significant(0.0, 4) == "0"
    assert significant(5.5962e-8, 4) == "5.596 × 10⁻⁸"  # as the log axis writes its powers of ten


def test_a_tiny_number_is_written_as_the_charts_write_powers_of_ten_in_either_language(monkeypatch):
    """One rule for small floats on every page: '5,894 × 10⁻⁸' in Spanish, never '5,894E-8' or '0,0E0'."""
    monkeypatch.setattr(i18n, "current", lambda: "es")
    assert significant(5.8937e-8, 4) == "5,894 × 10⁻⁸"
    assert i18n.scientific(0.0) == "0" and i18n.scientific(9.9996e-5, 4) == "1 × 10⁻⁴"
    assert i18n.scientific(-2.5e12, 2) == "-2,5 × 10¹²"


def test_the_loss_axis_holds_every_value_and_moves_only_in_steps():
    start = charts.loss_range([1.1, 1.05], log=True)
    assert start == [-2.0, 0.5]  # from 0.01 to 10^0.5, headroom above the first loss
    assert charts.loss_range([1.1, 1.05, 0.4, 0.05, 0.011], log=True) == start  # the same axis
    assert charts.loss_range([1.1, 0.004], log=True) == [-3.0, 0.5]  # a whole decade more
    assert charts.loss_range([], log=True) == start  # before the first epoch: where runs start
    assert charts.loss_range([1.1, 0.3], log=False) == [0.0, 2.0]
    assert charts.loss_range([1.1, 4.5], log=False) == [0.0, 10.0]  # a diverging run is still shown


def test_the_compare_legend_sits_at_the_charts_foot():
    """One name per run wraps to several lines on a phone: above the plot they covered the chart's title."""
    history = run(1).history
    legend = charts.overlay_figure([("Run 1 · lr 0.01", history), ("Run 2 · lr 0.05", history)]).layout.legend
    assert (legend.yref, legend.y, legend.yanchor) == ("container", 0, "bottom")


def test_a_loss_of_exactly_zero_is_named_where_the_log_axis_breaks_its_curve():
    """Plotly leaves a gap at log(0): the curve fell off the chart with nothing said; a note now says why."""
    history = list(run(1).history)
    zero = replace(history[1], train_loss=0.0, val_loss=0.0)
    notes = [a.text for a in charts.loss_figure([history[0], zero, history[2]], 3).layout.annotations]
    assert notes == ["A gap: the loss was exactly 0,<br>which a log scale cannot draw."]
    assert not charts.loss_figure(history, 3).layout.annotations  # no zero, no note
    linear = charts.ChartStyle(log_loss=False)
    assert not charts.loss_figure([history[0], zero], 3, linear).layout.annotations  # 0 is drawn there


def test_twelve_compared_runs_each_get_a_line_of_their_own_and_the_plot_keeps_its_room():
    """Past eight colours lines were alike (Run 1 and Run 9); twelve legend lines squeezed the plot flat."""
    history = run(1).history
    figure = charts.overlay_figure([(f"Run {n}", history) for n in range(1, 13)])
    looks = {(trace.line.color, trace.line.dash) for trace in figure.data}
    assert len(looks) == 12
    assert figure.layout.height >= charts.overlay_figure([("Run 1", history)]).layout.height + 10 * 30


def test_a_compared_run_keeps_its_line_whichever_others_are_shown():
    """Its slot (the run's number) sets its look, not its place among the runs picked."""
    history = run(1).history
    alone = charts.overlay_figure([("Run 9", history)], slots=[8]).data[0].line
    among = charts.overlay_figure([("Run 2", history), ("Run 9", history)], slots=[1, 8]).data[1].line
    assert (alone.color, alone.dash) == (among.color, among.dash) == (charts.RUN_COLORS[0], "dash")


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ("Epoch: %{x}", "Validation loss: %{customdata}")),
        ("es", ("Época: %{x}", "Pérdida de validación: %{customdata}")),
    ],
)
def test_the_compare_hover_names_the_run_the_axis_and_the_metric(language, words, monkeypatch):
    """Plotly's own hover was a bare '(30, 1,49×10⁻⁴)': on a Spanish page the decimal comma read as the
    pair's comma. Each value now follows its name, and the run's name leads (raw curves behind a smoothed
    one answer no hover)."""
    monkeypatch.setattr(i18n, "current", lambda: language)
    history = run(1).history
    for smoothing in (0.0, 0.6):
        figure = charts.overlay_figure(
            [("Run 1", history), ("Run 2", history)], style=charts.ChartStyle(smoothing)
        )
        answering = [trace for trace in figure.data if trace.hoverinfo != "skip"]
        assert len(answering) == 2
        for trace in answering:
            assert trace.hovertemplate.startswith("%{fullData.name}<br>")
            assert all(word in trace.hovertemplate for word in words)
    seconds = (
        charts.overlay_figure([("Run 1", history)], metric="val_acc", x_axis="seconds").data[0].hovertemplate
    )
    assert f"{i18n.t('train.x_axis.seconds')}: %{{x:.2f}}" in seconds
    assert i18n.t("train.metric.val_acc") in seconds


@pytest.mark.parametrize(
    ("language", "loss", "accuracy"),
    [("en", ["1.117", "0.01235"], ["95.3%", "100.0%"]), ("es", ["1,117", "0,01235"], ["95,3 %", "100,0 %"])],
)
def test_hover_boxes_write_losses_to_four_digits_and_accuracies_as_percentages(
    language, loss, accuracy, monkeypatch
):
    """The live loss hover read 'train : 1.117175' and the compare chart's accuracy a raw '0.953': a loss
    now has 4 significant digits and an accuracy is a percentage, both the language's way, with the
    series' name before each value."""
    monkeypatch.setattr(i18n, "current", lambda: language)
    history = (
        EpochRecord(1, 2, 1.117175, 0.953, 0.01234567, 1.0, 0.01, 0.01, "cpu"),
        EpochRecord(2, 2, 0.01234567, 1.0, 1.117175, 0.953, 0.01, 0.02, "cpu"),
    )
    figures = (charts.loss_figure(history, 2), loss), (charts.accuracy_figure(history, 2), accuracy)
    for figure, values in figures:
        train, val = figure.data
        assert (train.name, val.name) == (i18n.t("train.chart.train"), i18n.t("train.chart.val"))
        assert train.hovertemplate == val.hovertemplate == "%{fullData.name}: %{customdata}<extra></extra>"
        assert (list(train.customdata), list(val.customdata)) == (values, values[::-1])
    for metric, values in (("train_loss", loss), ("train_acc", accuracy)):
        assert list(charts.overlay_figure([("Run 1", history)], metric=metric).data[0].customdata) == values
    smoothed = charts.loss_figure(history, 2, charts.ChartStyle(0.6))  # the curve that answers the hover
    answering = [trace for trace in smoothed.data if trace.hoverinfo != "skip"]
    assert len(answering) == 2 and all(len(trace.customdata) == 2 for trace in answering)


@pytest.mark.parametrize(("language", "title"), [("en", "Epoch %{x}"), ("es", "Época %{x}")])
def test_the_live_charts_hover_is_headed_by_its_epoch(language, title, monkeypatch):
    """The live loss and accuracy charts' shared hover starts 'Epoch 17', not a bare '17'."""
    monkeypatch.setattr(i18n, "current", lambda: language)
    history = run(1).history
    for figure in (charts.loss_figure(history, 3), charts.accuracy_figure(history, 3)):
        assert figure.layout.xaxis.unifiedhovertitle.text == title


def test_a_short_runs_epoch_axes_tick_whole_epochs_only():
    """A 1-epoch run's charts ticked 0.5 and 1.5 ('0,5' in Spanish): epochs are whole, so are the ticks."""
    one = run(1, epochs=1).history[:1]
    for figure in (
        charts.loss_figure(one, 1),
        charts.accuracy_figure(one, 1),
        charts.overlay_figure([("Run 1", one)]),
    ):
        axis = figure.layout.xaxis
        assert axis.tick0 == 0 and axis.dtick == 1, (axis.tick0, axis.dtick)
    seconds = charts.overlay_figure([("Run 1", one)], x_axis="seconds").layout.xaxis
    assert seconds.dtick is None  # seconds are not whole: Plotly's own ticks suit them
    long = [EpochRecord(e, 300, 1.0, 0.5, 1.0, 0.5, 0.01, 0.01 * e, "cpu") for e in range(1, 301)]
    assert charts.loss_figure(long, 300).layout.xaxis.dtick is None  # Plotly's, which follow a zoom


def test_accuracy_ticks_write_percentages_the_languages_way():
    """Plotly's '.0%' wrote '100%' on a Spanish page whose text writes '100 %' (RAE): the ticks are ours."""
    import streamlit as st

    history = run(1).history
    st.session_state[i18n.LANGUAGE] = "es"
    try:
        for figure in (
            charts.accuracy_figure(history, 3),
            charts.overlay_figure([("Run 1", history)], "val_acc"),
        ):
            assert list(figure.layout.yaxis.ticktext) == ["0 %", "50 %", "100 %"]
    finally:
        del st.session_state[i18n.LANGUAGE]
    assert list(charts.accuracy_figure(history, 3).layout.yaxis.ticktext) == ["0%", "50%", "100%"]


def test_a_stopped_run_is_named_by_the_epochs_it_trained_of_those_planned(monkeypatch):
    """Stopped at epoch 3 of 3,000, a run's legend says so, not '3,000 ep' as if it had trained them all."""
    runs = [run(1, epochs=3000), run(2)]
    assert legend_labels(runs) == ["Run 1 · 3 of 3,000 ep", "Run 2 · 3 ep"]
    monkeypatch.setattr(i18n, "current", lambda: "es")
    assert legend_labels(runs) == ["Ejecución 1 · 3 de 3.000 ép", "Ejecución 2 · 3 ép"]


def test_epoch_ticks_group_thousands_as_the_pages_counts_do():
    """'1.000 2.000' under a Spanish chart, beside a progress line that writes '3.000', not '1000 2000'."""
    figure = charts.loss_figure(run(1).history, 3000)
    assert figure.layout.xaxis.separatethousands is True
