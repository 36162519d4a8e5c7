"""In Chromium: download a run's files, lose the session by reloading, restore it, draw with it."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import torch
from playwright.sync_api import expect

from linecnn.checkpoint.history import load_history
from linecnn.checkpoint.model_file import load_model
from linecnn.draw.predict import predict
from linecnn.draw.preprocess import from_cells
from linecnn.ui.draw.verdict import LOW_CONFIDENCE
from tests.draw_helpers import CANVAS, CONFIDENCE, PREDICTION, cell_button, use_cells
from tests.helpers import wait_for_app

pytestmark = pytest.mark.browser

EPOCHS = 3
COLUMN = 3  # the cells painted on the Draw page: one vertical line in this column
LOADED_MS = 90_000  # a long flow: on a busy 2-core machine one step can take tens of seconds
SHOTS = os.environ.get("LINECNN_SHOTS")  # a folder for screenshots of the flow, when set


def shot(tab, name: str, scroll_to: str | None = None) -> None:
    """A screenshot into $LINECNN_SHOTS when set, after scrolling the text ``scroll_to`` into view."""
    if SHOTS:
        if scroll_to:
            tab.get_by_text(scroll_to).first.scroll_into_view_if_needed()
        tab.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


def download(tab, label: str, folder: Path) -> Path:
    """Click a download button and save the file the browser receives."""
    with tab.expect_download() as received:
        tab.get_by_role("button", name=label).click()
    path = folder / received.value.suggested_filename
    received.value.save_as(path)
    return path


def go_to(tab, name: str) -> None:
    """Follow the sidebar's page link, which keeps the session (a new URL would not)."""
    tab.locator('[data-testid="stSidebar"]').get_by_role("link", name=name).click()
    tab.get_by_role("heading", name=name, exact=True).first.wait_for()
    wait_for_app(tab)


def test_a_downloaded_run_survives_a_reload_and_draws(server, page, tmp_path):
    """Train 3 epochs, download model and history, reload, upload both, classify with the run."""
    page.set_default_timeout(LOADED_MS)
    page.goto(f"{server.url}/Train")
    wait_for_app(page, LOADED_MS)
    epochs = page.get_by_label("Epochs")
    epochs.fill(str(EPOCHS))
    epochs.press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Start").click()
    page.get_by_text(f"Finished {EPOCHS} epochs in").wait_for()
    page.get_by_role("button", name="Download model (.safetensors)").wait_for()
    wait_for_app(page)
    shot(page, "train-downloads", "Save and restore")
    model_path = download(page, "Download model (.safetensors)", tmp_path)
    history_path = download(page, "Download history (JSON)", tmp_path)
    assert (model_path.name, history_path.name) == ("linecnn-run1.safetensors", "linecnn-run1.json")
    config, model, info = load_model(model_path.read_bytes())
    assert config.train.epochs == EPOCHS and info.epochs_done == EPOCHS
    assert len(load_history(history_path.read_bytes())[0].history) == EPOCHS

    page.reload()  # a new session: the run is gone
    wait_for_app(page, LOADED_MS)
    page.get_by_text("Press Start (or Step) to train.").wait_for()
    assert page.get_by_role("button", name="Download model (.safetensors)").count() == 0

    # The uploader takes any file (Streamlit's own refusal of a type is a red mark with nothing said),
    # so a wrong one is refused in a sentence, and the uploader is ready for the right ones.
    dropzone = page.locator("[data-testid='stFileUploaderDropzoneInput']")
    dropzone.set_input_files({"name": "notes.txt", "mimeType": "text/plain", "buffer": b"my notes"})
    page.get_by_text("notes.txt is not a model file (.safetensors) or a history (.json).").wait_for()
    wait_for_app(page)
    dropzone.set_input_files([model_path, history_path])
    page.get_by_text(f"Run 1 · CPU · {EPOCHS} ep · restored from linecnn-run1.safetensors").wait_for()
    wait_for_app(page)
    expect(page.get_by_text(f"with its curves ({EPOCHS} epochs)")).to_have_count(1)
    expect(page.get_by_text(f"Finished {EPOCHS} epochs in")).to_have_count(1)
    shot(page, "train-restored", "Save and restore")

    go_to(page, "Draw")
    page.locator(CANVAS).wait_for(timeout=120_000)  # the first visit may train the default model
    picker = page.get_by_role("combobox", name="Model")  # the restored run is the pick
    expect(picker).to_have_value(re.compile(rf"^Run 1 · CPU · {EPOCHS} ep · restored · val acc \d"))
    use_cells(page)
    for row in range(8):
        cell = cell_button(page, row * 8 + COLUMN)
        cell.click()
        expect(cell).to_have_attribute("aria-pressed", "true", timeout=LOADED_MS)
    wait_for_app(page)
    # .first: on a loaded machine the rerun's verdict shows beside the earlier one, faded, for a moment.
    page.locator(PREDICTION).first.wait_for()
    image = torch.zeros(8, 8)
    image[:, COLUMN] = 1.0
    expected = predict(model, from_cells(image).image)
    # The last click's rerun may still be on its way: wait for the page to show the whole line's answer.
    # A three-epoch run may hesitate: below LOW_CONFIDENCE the page says so and names the class it leans to.
    percent = f"{expected.confidence:.0%}"
    if expected.confidence < LOW_CONFIDENCE:
        shown, under = "Not sure", re.compile(rf"^Leaning to {expected.name} \({percent}\)")
    else:
        shown, under = expected.name, re.compile(rf"^{percent} ")
    expect(page.locator(PREDICTION)).to_have_text(shown, timeout=LOADED_MS)
    expect(page.locator(CONFIDENCE)).to_have_text(under, timeout=LOADED_MS)
    expect(page.get_by_text("Restored from linecnn-run1.safetensors").first).to_be_visible()
    shot(page, "draw-restored")
