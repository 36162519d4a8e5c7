"""AppTest: Home and Train render without exceptions, and their widgets do what they say."""

import json

import pytest
import torch

from linecnn.device import resolve
from linecnn.ui.chart import TICK_PX
from linecnn.ui.i18n import LANGUAGE
from tests.helpers import app_test

TRAIN = "pages/1_Train.py"
BENCH = "pages/2_Benchmark.py"


def click(at, label: str):
    """Click the page's button called ``label`` and rerun."""
    return next(b for b in at.button if b.label == label).click().run()


def sidebar_links(at) -> list[str]:
    return [link.proto.label for link in at.sidebar.get("page_link")]


@pytest.mark.parametrize(
    "page", [None, TRAIN, BENCH, "pages/3_Draw.py", "pages/4_Lesson.py"]
)
def test_every_page_renders_with_the_shared_sidebar(page):
    """Each page runs cleanly and shows navigation; each but the Benchmark the device toggle."""
    at = app_test(page)
    assert not at.exception
    assert sidebar_links(at) == ["Home", "Train", "Benchmark", "Draw", "Lesson"]
    if page == BENCH:
        assert not at.sidebar.radio
    else:
        assert at.sidebar.radio(key="device").value == str(resolve("auto"))  # the best device present


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_benchmark_sidebar_says_every_device_is_timed_instead_of_offering_one(monkeypatch, language):
    """The Benchmark page times every listed device: its sidebar has no device radio, the Train one has."""
    fake_gpu(monkeypatch)
    bench = app_test(BENCH)
    bench.session_state[LANGUAGE] = language
    bench.run()
    assert not bench.exception and not bench.sidebar.radio
    said = {"en": "times every device listed", "es": "cronometra cada dispositivo"}[language]
    assert any(said in caption.value for caption in bench.sidebar.caption)
    train = app_test(TRAIN)
    assert [radio.key for radio in train.sidebar.radio] == ["device"]
    assert not any(said in caption.value for caption in train.sidebar.caption)


def test_home_shows_the_device_card_and_pattern(monkeypatch):
    """Home names the hardware, the versions and the lesson's one-line device pattern; on a machine
    without CUDA (made so here, whatever this one has) the sidebar says why it is not offered."""
    no_gpu(monkeypatch)
    at = app_test()
    text = " ".join(m.value for m in at.markdown)
    assert "PyTorch" in text and "Selected now" in text
    assert 'torch.device("cuda" if torch.cuda.is_available() else "cpu")' in at.code[0].value
    assert at.code[0].proto.wrap_lines, "a laptop's column cuts the one-line pattern unless it wraps"
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "CUDA is not offered: No NVIDIA driver was found in this test" in captions


def no_gpu(monkeypatch):
    """Pretend this machine has only its CPU, for the sidebar only."""
    from linecnn.device import DeviceInfo
    from linecnn.ui import sidebar

    monkeypatch.setattr(sidebar, "list_devices", lambda: (DeviceInfo("cpu", "cpu", "Test CPU", None),))
    monkeypatch.setattr(sidebar, "resolve", lambda choice: torch.device("cpu"))
    monkeypatch.setattr(sidebar, "cuda_unavailable_reason", lambda: "No NVIDIA driver was found in this test")


def fake_gpu(monkeypatch):
    """Pretend a CUDA GPU is present, for the sidebar only (nothing runs on it)."""
    from linecnn.device import DeviceInfo
    from linecnn.ui import sidebar

    devices = (DeviceInfo("cpu", "cpu", "Test CPU", None), DeviceInfo("cuda:0", "cuda", "Test GPU", 8 << 30))
    monkeypatch.setattr(sidebar, "list_devices", lambda: devices)
    monkeypatch.setattr(sidebar, "resolve", lambda choice: torch.device("cuda:0"))
    monkeypatch.setattr(sidebar, "cuda_unavailable_reason", lambda: None)


def test_device_toggle_offers_gpus_and_keeps_the_choice_across_pages(monkeypatch):
    """With a GPU, 'auto' selects it; picking the CPU sticks when switching pages (the Benchmark, which
    shows no radio, too) and back."""
    fake_gpu(monkeypatch)
    at = app_test()
    radio = at.sidebar.radio(key="device")
    assert radio.options == ["CPU · Test CPU", "CUDA:0 · Test GPU"] and radio.value == "cuda:0"
    assert not any("CUDA is not offered" in c.value for c in at.sidebar.caption)
    radio.set_value("cpu").run()
    assert "Selected now: **CPU" in " ".join(m.value for m in at.markdown)
    for page in (TRAIN, BENCH, "pages/3_Draw.py", None):
        at.switch_page(page or "app.py").run()
        assert page == BENCH or at.sidebar.radio(key="device").value == "cpu", page


def test_train_tiny_config_shows_charts_and_summary():
    """Start on a tiny config streams to the end: both charts (axis text at projector size), the summary
    and the confusion matrix."""
    at = app_test(TRAIN)
    at.text_input(key="train.epochs.text").input("12")
    at.text_input(key="train.per_class.text").input("30")
    at.run()
    click(at, "Start")
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Device"] == "CPU" and metrics["Validation accuracy"].endswith("%")
    charts = at.get("plotly_chart")
    assert len(charts) >= 3  # loss, accuracy, confusion matrix (+ the run overlay)
    assert all(json.loads(c.proto.spec)["layout"]["xaxis"]["tickfont"]["size"] == TICK_PX for c in charts)
    runs = at.session_state["train.runs"]
    assert len(runs) == 1 and len(runs[0].history) == 12 and not runs[0].stopped
    assert "Summary · Run 1 · CPU · 12 ep" in [s.value for s in at.subheader]  # not the key "cpu"


def test_a_host_can_set_the_train_threads(monkeypatch):
    """$LINECNN_TRAIN_THREADS sets the CPU threads a run trains on, and the summary says so."""
    monkeypatch.setenv("LINECNN_TRAIN_THREADS", "2")
    at = app_test(TRAIN)
    at.text_input(key="train.epochs.text").input("3")
    at.run()
    click(at, "Start")
    assert at.session_state["train.runs"][0].threads == 2
    assert "(2 threads)" in " ".join(m.value for m in at.markdown)


def test_step_then_stop_keeps_the_partial_run():
    """Step runs single epochs of a paused run; Stop files it in the history as stopped."""
    at = app_test(TRAIN)
    click(at, "Step")
    click(at, "Step")
    live = at.session_state["train.live"]
    assert live.epoch == 2 and live.paused
    assert next(b for b in at.button if b.label == "Resume")
    click(at, "Stop")
    runs = at.session_state["train.runs"]
    assert len(runs) == 1 and runs[0].stopped and len(runs[0].history) == 2
    assert "train.live" not in at.session_state
    assert not at.exception


def test_settings_lock_during_a_run_and_bad_values_show_a_message(monkeypatch):
    """Controls are disabled while a run is live; a config error is shown on the page, not raised."""
    from linecnn.ui.train import buttons

    at = app_test(TRAIN)
    click(at, "Step")
    assert at.text_input(key="train.epochs.text").disabled
    click(at, "Stop")
    assert not at.text_input(key="train.epochs.text").disabled

    def reject():
        raise ValueError("Learning rate must be a number above 0 and at most 10; got 50.")

    monkeypatch.setattr(buttons, "config_from_widgets", reject)  # the widgets' bounds prevent it
    click(at, "Start")
    assert not at.exception
    assert any("Learning rate must be" in e.value for e in at.error)
    assert "train.live" not in at.session_state


@pytest.mark.parametrize("button", ["Start", "Step"])
def test_running_out_of_memory_mid_run_stops_it_and_keeps_the_finished_epochs(monkeypatch, button):
    """A GPU shared by a class can fill up mid-run: the run is filed as stopped and the page says why."""
    from linecnn.train.trainer import Trainer

    real_epoch = Trainer._train_one_epoch

    def fill_up_in_epoch_3(self):
        if self.epoch == 2:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real_epoch(self)

    monkeypatch.setattr(Trainer, "_train_one_epoch", fill_up_in_epoch_3)
    at = app_test(TRAIN)
    for _ in range(3 if button == "Step" else 1):
        click(at, button)
    assert not at.exception
    assert any("ran out of memory in epoch 3" in e.value and "2 finished epochs" in e.value for e in at.error)
    [run] = at.session_state["train.runs"]
    assert run.stopped and len(run.history) == 2 and "train.live" not in at.session_state


def test_a_step_too_big_for_memory_is_refused_with_a_suggestion():
    """Full batch of 60,000 images at width 16 would need GBs per step: the page says what to pick instead."""
    at = app_test(TRAIN)
    at.text_input(key="train.per_class.text").input("20000")
    at.select_slider(key="train.width").set_value(16)
    at.run()
    click(at, "Start")
    assert not at.exception
    message = " ".join(e.value for e in at.error)
    assert "needs about" in message and "Choose batch size 1,024 or smaller" in message  # one of the choices
    assert "train.live" not in at.session_state


def test_a_run_interrupted_after_its_last_epoch_is_still_filed():
    """A click landing between the last epoch and filing the run must not leave it stuck as live."""
    from linecnn.train.config import RunConfig
    from linecnn.train.trainer import fit

    at = app_test(TRAIN)
    at.session_state["train.live"] = fit(RunConfig.from_flat(epochs=3, per_class=20))  # done, not filed
    at.run()
    assert not at.exception
    runs = at.session_state["train.runs"]
    assert len(runs) == 1 and not runs[0].stopped and "train.live" not in at.session_state
    assert next(b for b in at.button if b.label == "Start").disabled is False


def test_run_numbers_never_repeat_after_clearing_the_history():
    """Clear history, train again: the new run is Run 2, not a second Run 1."""
    at = app_test(TRAIN)
    click(at, "Step")
    click(at, "Stop")
    assert "Clear history" not in [b.label for b in at.button]  # a popover: one click forgets nothing
    click(at, "Yes, clear the history")  # the button inside it
    click(at, "Step")
    click(at, "Stop")
    assert [run.number for run in at.session_state["train.runs"]] == [2]


def test_the_runs_picked_for_comparing_outlive_a_page_switch_and_a_new_run_joins_them():
    """The newest four runs until the reader picks; runs 1 and 3 picked, Home visited: still 1 and 3
    (the picker used to reset to the newest runs), and run 6 joins them."""
    from dataclasses import replace

    from linecnn.train.model import build_model
    from tests.test_run_compare import run

    model = build_model()
    runs = [replace(run(n), model=model) for n in range(1, 7)]
    at = app_test(TRAIN)
    at.session_state["train.runs"] = runs[:4]
    at.run()
    at.session_state["train.runs"] = runs[:5]
    at.run()
    picker = next(m for m in at.multiselect if m.label == "Runs")
    assert picker.value == [2, 3, 4, 5]
    picker.set_value([1, 3]).run()
    at.switch_page("app.py").run()
    at.switch_page(TRAIN).run()
    assert not at.exception and next(m for m in at.multiselect if m.label == "Runs").value == [1, 3]
    at.session_state["train.runs"] = runs
    at.run()
    assert next(m for m in at.multiselect if m.label == "Runs").value == [1, 3, 6]


def test_a_run_past_the_twentieth_drops_the_oldest_and_the_page_says_so():
    """The 21st run silently took Run 1 off the history: the page now says how many runs were dropped."""
    from dataclasses import replace

    from linecnn.train.model import build_model
    from tests.test_run_compare import run

    model = build_model()
    at = app_test(TRAIN)
    at.session_state["train.runs"] = [replace(run(n), model=model) for n in range(1, 21)]
    at.session_state["train.run_count"] = 20
    at.run()
    assert not any("newest runs" in c.value for c in at.caption)
    click(at, "Step")
    click(at, "Stop")
    assert [r.number for r in at.session_state["train.runs"]] == list(range(2, 22))
    said = "This tab keeps its 20 newest runs: 1 older run was dropped."
    assert any(said in c.value for c in at.caption)


def test_the_page_states_the_limits_and_a_host_can_change_them(monkeypatch, caplog):
    """The note behind the limits button names each limit; a bad value falls back with a log warning."""
    monkeypatch.setenv("LINECNN_TRAIN_MAX_SECONDS", "90")
    monkeypatch.setenv("LINECNN_TRAIN_MAX_IMAGE_EPOCHS", "lots")
    at = app_test(TRAIN)
    caption = " ".join(c.value for c in at.markdown)
    assert "Limits per run on this server: 1 min 30 s of training, 10,000,000 image-epochs" in caption
    assert "512.0 MiB of memory" in caption and "LINECNN_TRAIN_MAX_BYTES" in caption
    assert "Ignoring LINECNN_TRAIN_MAX_IMAGE_EPOCHS='lots'" in caplog.text


def test_a_start_over_the_work_budget_is_refused_naming_a_setting_that_fits(monkeypatch):
    monkeypatch.setenv("LINECNN_TRAIN_MAX_IMAGE_EPOCHS", "100000")
    at = app_test(TRAIN)
    at.text_input(key="train.epochs.text").input("5000")
    at.run()
    click(at, "Start")
    assert not at.exception and "train.live" not in at.session_state
    message = " ".join(e.value for e in at.error)
    assert "1,800,000 image-epochs" in message and "Choose at most 277 epochs" in message


def test_a_run_that_reaches_the_time_cap_is_filed_with_its_epochs_and_says_so(monkeypatch):
    monkeypatch.setenv("LINECNN_TRAIN_MAX_SECONDS", "0.001")  # the first epoch alone takes longer
    at = app_test(TRAIN)
    at.text_input(key="train.epochs.text").input("50")
    at.run()
    click(at, "Start")
    assert not at.exception
    [run] = at.session_state["train.runs"]
    assert run.out_of_time and len(run.history) == 1 and "train.live" not in at.session_state
    assert any("stopped at the time cap" in s.value for s in at.subheader)
    assert any("so the run stopped after 1 of 50 epochs" in i.value for i in at.info)


def test_a_run_at_chance_accuracy_suggests_a_smaller_learning_rate():
    at = app_test(TRAIN)
    at.text_input(key="train.lr.text").input("1")
    at.text_input(key="train.epochs.text").input("30")
    at.run()
    click(at, "Start")
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "no better than guessing" in warning and "smaller learning rate than 1" in warning


def test_the_history_table_has_one_type_per_column():
    """A full batch and a numeric batch in one table must not mix types (Arrow refuses that)."""
    import pyarrow as pa

    from linecnn.ui.train.history import history_table

    at = app_test(TRAIN)
    click(at, "Step")
    click(at, "Stop")
    at.selectbox(key="train.batch").set_value(32).run()
    click(at, "Step")
    click(at, "Stop")
    table = history_table(at.session_state["train.runs"]).data
    assert list(table["batch"]) == ["full", "32"]
    pa.Table.from_pandas(table)  # raises ArrowTypeError on a mixed column
    assert table["val acc"].dtype.kind == "f"  # a number beneath its text, so a header click sorts by it
