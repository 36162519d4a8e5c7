"""AppTest: the Train page starts at the lesson's run and draws only between timed epochs."""

import time

from linecnn.train import trainer as train
from linecnn.train.config import RunConfig
from linecnn.ui.train import charts, live
from tests.helpers import app_test
from tests.test_pages import TRAIN, click


def test_every_setting_starts_at_the_lessons_run():
    """Each widget's default is RunConfig()'s, so a Step on a fresh page trains exactly the lesson's run."""
    at = app_test(TRAIN)
    lesson = RunConfig()
    shown = {key: at.session_state[f"train.{key}"] for key in ("epochs", "lr", "per_class", "width", "seed")}
    assert shown == {
        "epochs": lesson.train.epochs,
        "lr": lesson.train.lr,
        "per_class": lesson.data.per_class,
        "width": lesson.model.width,
        "seed": lesson.seed,
    }
    assert at.session_state["train.batch"] == "full" and lesson.train.batch_size is None
    assert at.session_state["train.mode"] == lesson.data.mode
    click(at, "Step")
    assert at.session_state["train.live"].config == lesson


def test_the_page_draws_only_between_timed_epochs(monkeypatch):
    """Redraws of the progress bar and the charts never fall inside the time an epoch record reports.

    The training clock jumps an hour at every redraw: an epoch timed across one would report it.
    """

    class TrainingClock:
        offset = 0.0

        def perf_counter(self) -> float:
            return time.perf_counter() + self.offset

    clock, draws = TrainingClock(), []

    def drawn(build):
        def draw(*args, **kwargs):
            clock.offset += 3600.0
            draws.append(build.__name__)
            return build(*args, **kwargs)

        return draw

    monkeypatch.setenv("LINECNN_TRAIN_MAX_SECONDS", "inf")  # an epoch timed across a redraw runs on
    monkeypatch.setattr(train, "time", clock)
    monkeypatch.setattr(live.LiveCharts, "PROGRESS_SECONDS", 0.0)  # redraw after every epoch
    monkeypatch.setattr(live.LiveCharts, "CHART_SECONDS", 0.0)
    monkeypatch.setattr(charts, "loss_figure", drawn(charts.loss_figure))
    monkeypatch.setattr(live, "progress_text", drawn(live.progress_text))
    at = app_test(TRAIN)
    at.number_input(key="train.epochs").set_value(6)
    at.run()
    draws.clear()
    click(at, "Start")
    assert not at.exception
    [run] = at.session_state["train.runs"]
    assert [record.epoch_seconds < 3600 for record in run.history] == [True] * 6
    assert draws.count("loss_figure") >= 6  # after every epoch, and the final draw
