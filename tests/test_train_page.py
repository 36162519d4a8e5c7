"""AppTest: the Train page starts at the lesson's run, draws only between timed epochs, checks its number
boxes itself and says how a run ended."""

import time

import pytest

from linecnn.train import trainer as train
from linecnn.train.config import RunConfig
from linecnn.ui.train import charts, live
from tests.helpers import app_test
from tests.test_i18n import page_in
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
    at.text_input(key="train.epochs.text").input("6")
    at.run()
    draws.clear()
    click(at, "Start")
    assert not at.exception
    [run] = at.session_state["train.runs"]
    assert [record.epoch_seconds < 3600 for record in run.history] == [True] * 6
    assert draws.count("loss_figure") >= 6  # after every epoch, and the final draw


def test_a_number_out_of_range_blocks_start_and_says_why():
    """50,000 epochs (the page allows 5,000): Start and Step are disabled and the page says why; a Start
    that arrives anyway (typed and clicked at once, the button drawn enabled) refuses with the same words."""
    said = "**Epochs**: 50,000 is outside the allowed range. Enter a number from 1 to 5,000."
    at = page_in("en", TRAIN)
    at.text_input(key="train.epochs.text").input("50000").run()
    start, step = at.button[0], at.button[2]
    assert start.disabled and step.disabled
    assert [e.value for e in at.error] == [said]
    at.text_input(key="train.epochs.text").input("2").run()
    assert not at.error and not at.button[0].disabled
    at.text_input(key="train.epochs.text").input("50000")
    at.button[0].click().run()
    assert "train.live" not in at.session_state and not at.session_state["train.runs"]
    assert [e.value for e in at.error] == [said, said]  # the box's, and Start's refusal


def test_the_range_message_is_in_the_readers_language():
    """A Spanish reader is told in Spanish, with the numbers written the Spanish way."""
    from streamlit.testing.v1 import AppTest

    from tests.helpers import ROOT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["lang"] = "es"
    at.session_state["train.epochs"] = 50_000.0  # as typed: Spanish selectboxes defeat AppTest's reruns
    at.run()
    at.switch_page(TRAIN).run()
    [error] = at.error
    assert error.value.startswith("**Épocas**: 50") and "está fuera del rango permitido" in error.value
    assert "Escribe un número de 1 a 5" in error.value and at.button[0].disabled


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [("train.lr.text", "5", "from 0.0001 to 1.0000"), ("train.seed.text", "-1", "from 0 to 2,147,483,647")],
)
def test_every_bounded_setting_is_checked_by_the_page(key, value, said):
    """The learning rate and the seed have page-checked ranges too, named in the message."""
    at = page_in("en", TRAIN)
    at.text_input(key=key).input(value).run()
    assert at.button[0].disabled and said in at.error[0].value


def test_a_stopped_run_says_where_it_stopped_and_its_bar_is_not_full():
    """Step twice then Stop a 600-epoch run: 'Stopped at epoch 2 of 600', the bar at 2/600."""
    at = page_in("en", TRAIN)
    at.text_input(key="train.epochs.text").input("600").run()
    click(click(at, "Step"), "Step")
    click(at, "Stop")
    bar = at.get("progress")[0].proto
    assert bar.text.startswith("Stopped at epoch 2 of 600, after ") and bar.value < 5


def test_a_run_ended_by_the_time_cap_says_so(monkeypatch):
    """A time cap far below one epoch ends the run after its first: the bar says the time cap did it."""
    monkeypatch.setenv("LINECNN_TRAIN_MAX_SECONDS", "0.001")
    at = page_in("en", TRAIN)
    at.text_input(key="train.epochs.text").input("50").run()
    click(at, "Start")
    assert at.get("progress")[0].proto.text.startswith("Stopped by the time cap after 1 of 50 epochs")


def test_a_language_switch_sends_the_batch_choice_again():
    """After a switch to Spanish the batch box sends its value again, or the browser would go on showing
    'full' on a Spanish page; a rerun in the same language leaves it alone."""
    at = page_in("en", TRAIN)
    assert not at.selectbox(key="train.batch").proto.set_value
    at.session_state["language"] = "es"  # i18n.LANGUAGE
    at.run()
    batch = at.selectbox(key="train.batch").proto
    assert batch.set_value and batch.raw_value == "completo"
