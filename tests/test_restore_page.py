"""AppTest: restoring runs from model and history files on the Train and Draw pages."""

from __future__ import annotations

import json

import pytest

from linecnn.checkpoint.history import history_json
from linecnn.checkpoint.model_file import MAX_MODEL_BYTES, save_model
from linecnn.device import cpu_threads
from linecnn.train.config import RunConfig
from linecnn.train.trainer import fit
from linecnn.ui import state
from linecnn.ui.format import escape_markdown
from tests.draw_helpers import synthetic_canvas
from tests.helpers import app_test
from tests.test_draw_page import TIMEOUT, as_session_run, draw, texts, verdict

TRAIN, DRAW = "pages/1_Train.py", "pages/3_Draw.py"
BINARY, JSON = "application/octet-stream", "application/json"


@pytest.fixture(scope="module")
def files() -> tuple[bytes, bytes, state.RunRecord]:
    """A 3-epoch run's model file and history JSON, as the Train page's buttons make them."""
    with cpu_threads("cpu", 1):
        trainer = fit(RunConfig.from_flat(epochs=3, per_class=30, data_mode="varied", seed=5))
    run = as_session_run(trainer)
    return save_model(run), history_json([run]), run


def upload(at, *files: tuple[str, bytes, str]):
    """Put files in the page's (only) uploader and rerun, as a drop does."""
    [uploader] = at.get("file_uploader")
    uploader.set_value(list(files))
    return at.run()


def holders(at, element) -> list[str]:
    """The types of the blocks that hold ``element`` on the page, outermost first ([] if not found)."""

    def path(node) -> list[str] | None:
        for child in getattr(node, "children", {}).values():
            if child is element:
                return []
            found = path(child)
            if found is not None:
                return [getattr(child, "type", "")] + found
        return None

    return path(at.main) or []


def test_a_finished_run_offers_its_three_downloads():
    at = app_test(TRAIN)
    at.session_state[state.RUNS] = [run_record(RunConfig.from_flat(epochs=1, per_class=5))]
    at.run()
    labels = [button.label for button in at.get("download_button")][1:]  # after Compare runs' CSV
    assert labels == ["Download model (.safetensors)", "Download history (JSON)", "Download history (CSV)"]


def run_record(config: RunConfig) -> state.RunRecord:
    with cpu_threads("cpu", 1):
        return as_session_run(fit(config))


def test_model_and_history_restore_a_run_with_its_curves(files):
    model, history, run = files
    at = upload(app_test(TRAIN), ("run1.safetensors", model, BINARY), ("run1.json", history, JSON))
    assert not at.exception and not at.error
    [restored] = at.session_state[state.RUNS]
    assert restored.label == "Run 1 · CPU · 3 ep · restored"
    assert restored.config == run.config and restored.history == run.history
    assert restored.confusion == run.confusion and restored.restored_from == "run1.safetensors"
    assert "with its curves (3 epochs)" in at.success[0].value
    assert "Finished 3 epochs" in at.get("progress")[0].proto.text
    last = run.history[-1]
    assert [m.value for m in at.metric][:2] == [f"{last.val_acc:.1%}", f"{last.val_loss:.4g}"]
    assert not at.get("file_uploader")[0].value  # emptied for the next upload


def test_a_model_alone_restores_the_last_epoch_and_a_later_history_adds_the_curves(files):
    model, history, run = files
    at = upload(app_test(TRAIN), ("run1.safetensors", model, BINARY))
    [restored] = at.session_state[state.RUNS]
    assert restored.history == run.history[-1:] and restored.epochs_done == 3 and not restored.stopped
    assert "without its curves" in at.success[0].value
    assert "Finished 3 epochs" in at.get("progress")[0].proto.text
    loss_chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert loss_chart["layout"]["xaxis"]["range"] == [0, 4]  # the one known epoch, 3, is on the chart
    at = upload(at, ("run1.json", history, JSON))
    [restored] = at.session_state[state.RUNS]
    assert restored.history == run.history
    assert "Added the curves" in at.success[0].value


@pytest.mark.parametrize(
    ("name", "data", "fragment"),
    [
        ("model.safetensors", b"not a model", "not in the safetensors format"),
        ("model.safetensors", b"\0" * (MAX_MODEL_BYTES + 1), "at most 3.0 MB"),
        ("history.json", b"{", "history file is not valid JSON"),
        ("notes.txt", b"hello", "is not a model file (.safetensors) or a history (.json)."),
    ],
)
def test_a_bad_upload_shows_an_error_and_the_page_keeps_working(name, data, fragment):
    at = upload(app_test(TRAIN), (name, data, BINARY))
    assert not at.exception
    [error] = at.error
    assert error.value.startswith(escape_markdown(name)) and fragment in error.value
    assert not at.session_state[state.RUNS]
    at.run()  # the message is shown once; the page renders cleanly after it
    assert not at.exception and not at.error


def test_the_same_files_again_add_no_second_run_but_bring_missing_curves(files):
    """A model dropped twice is said to be the session's last run already, not filed as a twin; dropped
    again with its history, it gets its curves."""
    model, history, run = files
    at = upload(app_test(TRAIN), ("run1.safetensors", model, BINARY))
    at = upload(at, ("run1.safetensors", model, BINARY))
    assert not at.exception and not at.error
    name = escape_markdown("run1.safetensors")
    [said] = at.info
    last = "**Run 1 · CPU · 3 ep · restored**, already the last run of this session: nothing was added."
    assert said.value == f"{name} is {last}"
    [restored] = at.session_state[state.RUNS]
    assert len(restored.history) == 1
    at = upload(at, ("run1.safetensors", model, BINARY), ("run1.json", history, JSON))
    [restored] = at.session_state[state.RUNS]
    assert restored.history == run.history
    assert "Added the curves of" in at.success[0].value


def test_a_history_alone_asks_for_its_model(files):
    _, history, _ = files
    at = upload(app_test(TRAIN), ("run1.json", history, JSON))
    assert "Upload the model file (.safetensors) as well" in at.error[0].value
    assert not at.session_state[state.RUNS]


def test_another_runs_history_restores_nothing(files):
    model, _, _ = files
    other = run_record(RunConfig.from_flat(epochs=2, per_class=5))
    at = upload(
        app_test(TRAIN),
        ("run1.safetensors", model, BINARY),
        ("other.json", history_json([other]), JSON),
    )
    assert "it is another run's history. Nothing was restored." in at.error[0].value
    assert not at.session_state[state.RUNS]


def test_a_file_name_cannot_inject_markdown(files):
    model, _, _ = files
    at = upload(app_test(TRAIN), ("[click](http://x) **big**.safetensors", model, BINARY))
    assert at.session_state[state.RUNS][0].restored_from == "_click_(http___x)___big__.safetensors"


def test_a_run_restored_on_train_is_what_draw_classifies_with(files):
    model, _, _ = files
    at = upload(app_test(TRAIN), ("run1.safetensors", model, BINARY))
    at.session_state["draw.model"] = "default"  # even after choosing the default model before
    at = upload(at, ("run1.safetensors", model, BINARY))
    at.switch_page(DRAW).run()
    at = draw(at, synthetic_canvas(((140, 10), (140, 270))))
    assert not at.exception
    assert at.selectbox(key="draw.model").value == 1  # the restored run
    assert "Run 1 · CPU · 3 ep · restored" in texts(at.caption)  # the same file twice is one run
    name = escape_markdown("run1.safetensors")  # a file name is quoted as escaped Markdown
    detail = f"Restored from {name}: hand-drawn-like data, 30 images per class, 3 epochs on CPU."
    assert detail in texts(at.caption)


def test_draw_page_uploads_a_model_and_classifies_with_it(files):
    model, _, run = files
    at = app_test(DRAW, timeout=TIMEOUT)
    at = draw(at, synthetic_canvas(((10, 140), (270, 140))))
    assert "Default model" in texts(at.caption)
    at = upload(at, ("saved.safetensors", model, BINARY))
    assert not at.exception
    name = escape_markdown("saved.safetensors")  # a file name is quoted as escaped Markdown
    assert f"Restored **Run 1 · CPU · 3 ep · restored** from {name}" in at.success[0].value
    # Draw's uploader takes no history: the sentence sends the curves to Train instead of asking for it here.
    said = at.success[0].value
    assert "on the Train page" in said and "upload its history JSON too" not in said
    assert at.selectbox(key="draw.model").value == 1  # the restored run
    assert f"Restored from {name}" in texts(at.caption)
    assert verdict(at) is not None
    assert at.session_state[state.RUNS][0].config == run.config


def test_draw_page_refuses_a_history_with_a_sentence_and_keeps_the_default(files):
    """Draw's uploader takes any file, so a run's history (no model) gets a sentence, not a silent mark."""
    at = app_test(DRAW, timeout=TIMEOUT)
    at = upload(at, ("run1.json", files[1], JSON))
    assert not at.exception
    [error] = at.error
    assert error.value == (
        f"{escape_markdown('run1.json')} is not a model file (.safetensors): "
        "Draw classifies with a model saved from the Train page."
    )
    # Said under the uploader, in its popover, which stays open: the page's top is off a phone's screen.
    assert "popover" in holders(at, error)
    assert not at.session_state[state.RUNS]
    assert "Default model" in texts(at.caption)


def test_draw_page_shows_a_bad_model_file_and_keeps_the_default(files):
    at = app_test(DRAW, timeout=TIMEOUT)
    at = upload(at, ("broken.safetensors", files[0][:-5], BINARY))
    assert not at.exception
    name = escape_markdown("broken.safetensors")  # a file name is quoted as escaped Markdown
    assert f"{name}: The model file is damaged or cut short" in at.error[0].value
    assert "Default model" in texts(at.caption)


def test_a_broken_model_and_a_broken_history_are_both_said_at_once():
    """Two bad files in one drop: the message names both, so a student fixes both before uploading again."""
    at = upload(
        app_test(TRAIN),
        ("run1.safetensors", b"not a model", BINARY),
        ("run1.json", b"{", JSON),
    )
    [message] = at.error
    said = message.value.replace("\\", "")  # the names are escaped for Markdown
    assert "run1.safetensors: The file is not a model" in said and "run1.json: The history file" in said, said
    assert not at.session_state[state.RUNS]


def test_an_empty_history_is_said_to_be_empty():
    """A 0-byte history dropped on Train: the file is said to be empty, not broken at line 1, column 1."""
    at = upload(app_test(TRAIN), ("run1.json", b"", JSON))
    [message] = at.error
    assert "is not valid JSON (the file is empty)" in message.value, message.value
    assert not at.session_state[state.RUNS]
