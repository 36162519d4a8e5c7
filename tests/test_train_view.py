"""The Train page's live charts redraw at most every interval, never right before the end; its threads."""

import pytest

from linecnn.train.config import RunConfig
from linecnn.train.trainer import EpochRecord
from linecnn.ui.train.charts import thinned
from linecnn.ui.train.live import LiveCharts, seconds_left
from linecnn.ui.train.sharing import TRAIN_THREADS_ENV, training_threads
from tests.helpers import ManualClock


class Slot:
    """Stands in for an ``st.empty()`` slot or a chart's container, and counts what is drawn into it."""

    def __init__(self) -> None:
        self.draws = 0

    def progress(self, *args, **kwargs) -> None:
        self.draws += 1

    def plotly_chart(self, *args, **kwargs) -> "Slot":
        self.draws += 1
        return self

    def empty(self) -> "Slot":
        return Slot()


def history(done: int, seconds_per_epoch: float) -> list[EpochRecord]:
    """``done`` epochs of a run, each ``seconds_per_epoch`` long."""
    return [
        EpochRecord(e, 120, 1.0, 0.5, 1.0, 0.5, seconds_per_epoch, e * seconds_per_epoch, "cpu")
        for e in range(1, done + 1)
    ]


def charts_due_now() -> tuple[LiveCharts, Slot, Slot]:
    """LiveCharts whose progress bar and charts were last drawn long ago (on a clock it owns)."""
    progress, loss = Slot(), Slot()
    charts = LiveCharts(progress, loss, Slot(), clock=ManualClock(100.0))
    charts.progress_at = charts.charts_at = 0.0
    return charts, progress, loss


def test_seconds_left_extrapolates_the_pace_so_far():
    assert seconds_left(history(30, 0.01), 120) == pytest.approx(0.9)
    assert seconds_left(history(120, 0.01), 120) == 0
    assert seconds_left([], 120) == float("inf")


def test_a_due_redraw_happens_while_the_end_is_far():
    charts, progress, loss = charts_due_now()
    charts.update(history(10, 0.1), 120, live=None)  # 11 s to go
    assert (progress.draws, loss.draws) == (1, 1)
    charts.update(history(11, 0.1), 120, live=None)  # drawn just now: nothing is due yet
    assert (progress.draws, loss.draws) == (1, 1)
    charts.clock.now += LiveCharts.PROGRESS_SECONDS
    charts.update(history(12, 0.1), 120, live=None)  # the progress bar is due, the charts not yet
    assert (progress.draws, loss.draws) == (2, 1)
    charts.clock.now += LiveCharts.CHART_SECONDS
    charts.update(history(13, 0.1), 120, live=None)
    assert (progress.draws, loss.draws) == (3, 2)


def test_no_redraw_in_the_last_moments_of_a_run():
    charts, progress, loss = charts_due_now()
    charts.update(history(110, 0.002), 120, live=None)  # 0.02 s to go: the final draw is next
    assert (progress.draws, loss.draws) == (0, 0)


def test_the_charts_rest_for_their_last_interval_while_the_progress_bar_goes_on():
    """A chart redraw keeps the browser busy longest: none starts when the final draw is that close."""
    charts, progress, loss = charts_due_now()
    charts.update(history(80, 0.01), 120, live=None)  # 0.4 s to go: within CHART_SECONDS only
    assert (progress.draws, loss.draws) == (1, 0)


@pytest.mark.parametrize(("value", "expected"), [("3", 3), ("", 1), ("0", 1), ("two", 1), ("-2", 1)])
def test_train_threads_come_from_the_host_when_valid(monkeypatch, value, expected):
    monkeypatch.setenv(TRAIN_THREADS_ENV, value)
    assert training_threads(RunConfig(), "cpu") == expected  # a local browser's default run: 1 thread


def test_long_runs_are_thinned_for_live_redraws_but_keep_their_last_epoch():
    records = history(5_003, 0.001)
    kept = thinned(records, 500)
    assert len(kept) <= 501 and kept[0] is records[0] and kept[-1] is records[-1]
    assert thinned(records[:400], 500) == records[:400]


def test_a_live_redraw_of_a_long_run_plots_a_thinned_history():
    drawn = []
    charts, _, _ = charts_due_now()
    charts.loss.stack.plotly_chart = lambda figure, **kwargs: drawn.append(len(figure.data[0].x))
    charts.update(history(5_000, 0.001), 20_000, live=None)  # 15 s to go
    assert drawn and drawn[0] <= LiveCharts.LIVE_POINTS + 1


def test_a_live_runs_progress_writes_its_epochs_the_languages_way():
    """'Época 20 / 1000' sat above 'Detenido en la época 48 de 1.000' once stopped: both now say 1.000."""
    import streamlit as st

    from linecnn.ui.train.live import progress_text

    st.session_state["language"] = "es"  # i18n.LANGUAGE
    try:
        assert progress_text(history(1200, 0.01), 5000, live=object()).startswith("Época 1.200 / 5.000 · ")
    finally:
        del st.session_state["language"]


def test_an_ended_runs_progress_names_its_device_as_the_page_does():
    """'Finished 3 epochs in … on cpu' showed the raw key where the page says 'CPU · <processor>'."""
    from linecnn.ui.format import device_text
    from linecnn.ui.train.live import progress_text

    finished = progress_text(history(3, 0.01), 3, live=None)
    stopped = progress_text(history(2, 0.01), 3, live=None)
    assert finished.startswith("Finished 3 epochs in ") and finished.endswith(f" on {device_text('cpu')}.")
    assert stopped.endswith(f" on {device_text('cpu')}.") and " on cpu" not in stopped


def test_a_one_epoch_runs_ending_agrees_with_its_count():
    """A 1-epoch run ended 'Finished 1 epochs' ('1 épocas terminadas'): the noun now agrees."""
    import streamlit as st

    from linecnn.ui.train.live import progress_text

    assert progress_text(history(1, 0.01), 1, live=None).startswith("Finished 1 epoch in ")
    assert progress_text(history(2, 0.01), 2, live=None).startswith("Finished 2 epochs in ")
    st.session_state["language"] = "es"  # i18n.LANGUAGE
    try:
        assert progress_text(history(1, 0.01), 1, live=None).startswith("1 época terminada en ")
        assert progress_text(history(1_200, 0.01), 1_200, live=None).startswith("1.200 épocas terminadas en ")
    finally:
        del st.session_state["language"]


def test_start_builds_its_empty_charts_once(monkeypatch):
    """Each Start draws two charts of no epochs before its first epoch: the second Start (or the page
    before any run) reuses the figures built by the first, and draws the same chart."""
    from linecnn.ui.train import charts as chart_builders

    built = []
    loss_figure = chart_builders.loss_figure

    def counted(*args, **kwargs):
        built.append(args[0])
        return loss_figure(*args, **kwargs)

    monkeypatch.setattr(chart_builders, "loss_figure", counted)
    drawn = []
    for _ in range(2):
        charts, _, _ = charts_due_now()
        charts.loss.stack.plotly_chart = lambda figure, **kwargs: drawn.append(figure.to_dict())
        charts.show([], 120, live=object())
    assert len(built) == 1 and len(drawn) == 2 and drawn[0] == drawn[1]


def test_the_smoothing_stops_are_worded_once_per_language():
    """The smoothing slider writes its 100 stops on every script run, Start's included."""
    from linecnn.ui.train.history import SMOOTHING_STOPS, smoothing_labels

    spanish = smoothing_labels("es")
    assert spanish[0.5] == "0,50" and smoothing_labels("en")[0.99] == "0.99"
    assert smoothing_labels("es") is spanish and list(spanish) == list(SMOOTHING_STOPS)
