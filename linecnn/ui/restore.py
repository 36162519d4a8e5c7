"""Keep runs beyond a session: download a run's model and history, and restore runs from those files.

A session is gone when the page reloads. The files carry a run into the next one: the model
(safetensors, its settings inside) brings back the weights and final metrics, and the history
JSON the curves. Every upload is checked by ``linecnn.checkpoint``; a bad one gets a message.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

import streamlit as st

from linecnn.checkpoint.checks import check_length
from linecnn.checkpoint.history import (
    MAX_HISTORY_BYTES,
    SavedRun,
    history_json,
    load_history,
    matching_run,
)
from linecnn.checkpoint.model_file import MAX_MODEL_BYTES, load_model, save_model
from linecnn.ui import draw, state
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import count, current, say, t
from linecnn.ui.spreadsheet import runs_csv

VERSION = "restore.version"  # bumped after each upload, so the uploaders come back empty
MESSAGE = "restore.message"  # (kind, text) the upload callback leaves for the next render
# Per-file limits the uploaders give the browser, in MB (10**6 bytes, as the browser counts them),
# the same as the core's own, which checks each kind of file again before reading it.
UPLOAD_MB = math.ceil(max(MAX_MODEL_BYTES, MAX_HISTORY_BYTES) / 1e6)
MODEL_UPLOAD_MB = math.ceil(MAX_MODEL_BYTES / 1e6)
KINDS = {  # a run file's extension -> its limit in bytes, and what sentences call it
    ".safetensors": (MAX_MODEL_BYTES, "model_file"),
    ".json": (MAX_HISTORY_BYTES, "history_file"),
}
MAX_NAME = 60  # characters of an uploaded file's name kept for messages and labels

File = tuple[str, bytes]  # an uploaded file: its name and its bytes


def _uploader_key(where: str) -> str:
    return f"restore.upload.{where}.{st.session_state.get(VERSION, 0)}"


def shown_name(name: str) -> str:
    """A file name safe to show in Markdown: letters, digits and . _ - ( ) only, shortened."""
    return re.sub(r"[^\w.()-]", "_", name)[:MAX_NAME] or "file"


def quoted_name(name: str) -> str:
    """A file name for a sentence: ``shown_name``, escaped, since _ and . still mean something to Markdown."""
    return escape_markdown(shown_name(name))


def download_buttons(run: state.RunRecord) -> None:
    """Download buttons for the run's model and history; each file is made when its button is clicked."""
    stem = f"linecnn-run{run.number}"
    files = (  # label, what makes the file, from what, extension, MIME type
        (
            t("restore.download_model"),
            save_model,
            run,
            "safetensors",
            "application/octet-stream",
        ),
        (t("restore.download_json"), history_json, [run], "json", "application/json"),
        (t("restore.download_csv"), partial(runs_csv, language=current()), [run], "csv", "text/csv"),
    )
    with st.container(horizontal=True, gap="small"):
        for label, make, what, extension, mime in files:
            st.download_button(
                label,
                partial(make, what),
                file_name=f"{stem}.{extension}",
                mime=mime,
                on_click="ignore",
                icon=":material/download:",
                key=f"restore.{extension}.{run.number}",
            )


def _split(files: Sequence[File]) -> tuple[File | None, File | None]:
    """The uploaded model file and history file, each optional; anything else is refused."""
    models = [file for file in files if file[0].lower().endswith(".safetensors")]
    histories = [file for file in files if file[0].lower().endswith(".json")]
    for name, _ in files:
        if not name.lower().endswith((".safetensors", ".json")):
            raise ValueError(t("restore.not_a_run_file", name=quoted_name(name)))
    if len(models) > 1 or len(histories) > 1:
        raise ValueError(t("restore.one_model"))
    return (models[0] if models else None), (histories[0] if histories else None)


def check_uploads(files: Sequence[tuple[str, int]], models_only: bool = False) -> None:
    """Refuse, by name and size alone, a file that is no run file (no model file, with ``models_only``)
    or is larger than its kind's limit.

    Streamlit's server takes any file up to its one ``maxUploadSize``, whatever the browser checked,
    so each file's own limit is checked here, before a byte of it is read. The uploaders let the
    browser take files of any type, so that a wrong one reaches this check and gets a sentence:
    Streamlit's own refusal is a red mark on the file with nothing said.
    """
    for name, size in files:
        suffix = Path(name.lower()).suffix
        kind = KINDS.get(suffix)
        if models_only and suffix != ".safetensors":
            raise ValueError(t("restore.not_a_model_file", name=quoted_name(name)))
        if kind is None:
            raise ValueError(t("restore.not_a_run_file", name=quoted_name(name)))
        try:
            check_length(size, *kind)
        except ValueError as error:
            raise ValueError(t("restore.file_error", name=quoted_name(name), error=say(error))) from None


def _read(file: File, reader: Callable[[bytes], object]):
    """``reader`` applied to the file's bytes; its ValueError names the file, in the session's language."""
    name, data = file
    try:
        return reader(data)
    except ValueError as error:
        raise ValueError(t("restore.file_error", name=quoted_name(name), error=say(error))) from None


def _attach_curves(name: str, saved: Sequence[SavedRun]) -> str:
    """Give a session run restored without its curves the curves of a matching history."""
    runs = state.runs()
    for index, run in enumerate(runs):
        match = matching_run(saved, run.config, run.history[-1])
        if match is not None:
            if len(run.history) >= len(match.history):
                return t("restore.has_curves", run=run.label)
            runs[index] = replace(run, history=match.history)
            return t("restore.added_curves", name=quoted_name(name), run=runs[index].label)
    raise ValueError(t("restore.history_alone", name=quoted_name(name)))


def restore_files(files: Sequence[File], on_draw: bool = False) -> str:
    """Restore a run from a model file and, optionally, its history JSON; return what was done.

    ``on_draw``: said on the Draw page, whose uploader takes no history, so the curves are left to Train.
    Raises ValueError, restoring nothing, when a file fails its checks or the history is not the model's.
    """
    model_file, history_file = _split(files)
    saved = _read(history_file, load_history) if history_file else None
    if model_file is None:
        if history_file is None:
            raise ValueError(t("restore.no_file"))
        return _attach_curves(history_file[0], saved)
    config, model, info = _read(model_file, load_model)
    curves = matching_run(saved, config, info.final) if saved is not None else None
    if saved is not None and curves is None:
        raise ValueError(t("restore.other_history", name=quoted_name(history_file[0])))
    record = state.file_run(
        state.RunRecord(
            number=0,
            config=config,
            device=info.device,
            history=curves.history if curves else (info.final,),
            confusion=info.confusion,
            model=model,
            threads=info.threads,
            restored_from=shown_name(model_file[0]),
        )
    )
    if on_draw:
        return t("restore.restored_on_draw", run=record.label, name=quoted_name(model_file[0]))
    how = (
        t("restore.with_curves", epochs=count(len(curves.history))) if curves else t("restore.without_curves")
    )
    return t("restore.restored", run=record.label, name=quoted_name(model_file[0]), how=how)


def _on_upload(key: str, models_only: bool = False) -> None:
    """Uploader callback: restore from the files just uploaded, then empty the uploader."""
    files = st.session_state.get(key)
    if not files:
        return
    files = files if isinstance(files, list) else [files]
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1
    try:
        check_uploads([(file.name, file.size) for file in files], models_only)
        message = restore_files([(file.name, file.getvalue()) for file in files], on_draw=models_only)
    except ValueError as error:
        st.session_state[MESSAGE] = ("error", str(error))
        return
    st.session_state[MESSAGE] = ("success", message)
    st.session_state[draw.MODEL] = "run"  # the Draw page classifies with the restored run


def show_message(slot=None) -> bool:
    """Show, once, what the last upload did (in ``slot`` if given); True if there was a message."""
    kind, text = st.session_state.pop(MESSAGE, (None, None))
    target = slot if slot is not None else st
    if kind == "error":
        target.error(text, icon=":material/error:")
    elif kind == "success":
        target.success(text, icon=":material/check_circle:")
    return kind is not None


def train_section() -> None:
    """Train page: download a finished run's files, or restore a run from them."""
    st.divider()
    st.subheader(t("restore.title"))
    st.caption(t("restore.explain"))
    runs = state.runs()
    if runs:
        by_number = {run.number: run for run in runs}
        chosen = st.selectbox(
            t("restore.run_to_download"),
            list(by_number),
            index=len(runs) - 1,
            format_func=lambda n: by_number[n].label,
        )
        download_buttons(by_number[chosen])
    key = _uploader_key("train")
    st.file_uploader(
        t("restore.upload"),
        accept_multiple_files=True,
        key=key,
        on_change=_on_upload,
        args=(key,),
        max_upload_size=UPLOAD_MB,
    )
    show_message()


def draw_uploader() -> None:
    """Draw page: a popover to classify with a model file saved from the Train page.

    What an upload did is said in the popover, under its uploader: the popover stays open, and on a
    phone the top of the page, where it was said before, lies a screen or more above."""
    with st.popover(t("restore.use_file"), icon=":material/upload_file:"):
        key = _uploader_key("draw")
        st.file_uploader(
            t("restore.draw_upload"),
            key=key,
            on_change=_on_upload,
            args=(key, True),
            max_upload_size=MODEL_UPLOAD_MB,
        )
        show_message()
