"""Keep runs beyond a session: download a run's model and history, and restore runs from those files.

A session is gone when the page reloads. The files carry a run into the next one: the model
(safetensors, its settings inside) brings back the weights and final metrics, and the history
JSON the curves. Every upload is checked by ``linecnn.checkpoint``; a bad one gets a message.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import TypeVar

import streamlit as st

from linecnn.checkpoint.history import (
    MAX_HISTORY_BYTES,
    SavedRun,
    history_json,
    load_history,
    matching_run,
)
from linecnn.checkpoint.model_file import MAX_MODEL_BYTES, load_model, save_model
from linecnn.ui import draw, state
from linecnn.ui.i18n import count, current, say, t
from linecnn.ui.run_files import File, check_uploads, quoted_name, shown_name, split_run_files
from linecnn.ui.spreadsheet import runs_csv

VERSION = "restore.version"  # bumped after each upload, so the uploaders come back empty
MESSAGE = "restore.message"  # (kind, text) the upload callback leaves for the next render
# Per-file limits the uploaders give the browser, in MB (10**6 bytes, as the browser counts them),
# the same as the core's own, which checks each kind of file again before reading it.
UPLOAD_MB = math.ceil(max(MAX_MODEL_BYTES, MAX_HISTORY_BYTES) / 1e6)
MODEL_UPLOAD_MB = math.ceil(MAX_MODEL_BYTES / 1e6)
Read = TypeVar("Read")  # what a reader makes of a file's bytes


def _uploader_key(where: str) -> str:
    return f"restore.upload.{where}.{st.session_state.get(VERSION, 0)}"


def download_buttons(run: state.RunRecord) -> None:
    """Download buttons for the run's model and history; each file is made when its button is clicked."""
    stem = f"linecnn-run{run.number}"
    files: tuple[tuple[str, Callable[[], bytes], str, str], ...] = (  # label, maker, extension, MIME type
        (
            t("restore.download_model"),
            partial(save_model, run),
            "safetensors",
            "application/octet-stream",
        ),
        (t("restore.download_json"), partial(history_json, [run]), "json", "application/json"),
        (t("restore.download_csv"), partial(runs_csv, [run], language=current()), "csv", "text/csv"),
    )
    with st.container(horizontal=True, gap="small"):
        for label, make, extension, mime in files:
            st.download_button(
                label,
                make,
                file_name=f"{stem}.{extension}",
                mime=mime,
                on_click="ignore",
                icon=":material/download:",
                key=f"restore.{extension}.{run.number}",
            )


def _read(file: File, reader: Callable[[bytes], Read]) -> Read:
    """``reader`` applied to the file's bytes; its ValueError names the file, in the session's language."""
    name, data = file
    try:
        return reader(data)
    except ValueError as error:
        raise ValueError(t("restore.file_error", name=quoted_name(name), error=say(error))) from None


def _read_noting(file: File | None, reader: Callable[[bytes], Read], problems: list[str]) -> Read | None:
    """``_read`` of ``file`` (None without one); a failed check goes to ``problems`` instead of raising."""
    if file is None:
        return None
    try:
        return _read(file, reader)
    except ValueError as error:
        problems.append(str(error))
        return None


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


def restore_files(files: Sequence[File], on_draw: bool = False) -> tuple[str, str]:
    """Restore a run from a model file and, optionally, its history JSON; return what was done, as
    (kind, text) for ``show_message``.

    ``on_draw``: said on the Draw page, whose uploader takes no history, so the curves are left to Train.
    Raises ValueError, restoring nothing, when a file fails its checks or the history is not the model's.
    """
    model_file, history_file = split_run_files(files)
    problems: list[str] = []
    read_model = _read_noting(model_file, load_model, problems)
    saved = _read_noting(history_file, load_history, problems)
    if problems:  # every failing file at once, so a student fixes them all before uploading again
        raise ValueError("\n\n".join(problems))
    if model_file is None or read_model is None:  # (each is None exactly when the other is)
        if history_file is None or saved is None:  # (likewise)
            raise ValueError(t("restore.no_file"))
        return "success", _attach_curves(history_file[0], saved)
    config, model, info = read_model
    curves = matching_run(saved, config, info.final) if saved is not None else None
    if saved is not None and curves is None:
        assert history_file is not None  # saved was read from it
        raise ValueError(t("restore.other_history", name=quoted_name(history_file[0])))
    last = state.runs()[-1] if state.runs() else None
    if last is not None and last.config == config and last.history[-1] == info.final:
        # The same files again (a second drop, or a run downloaded and put back): filing it twice
        # would only list one run under two numbers; its curves are still added if they were missing.
        if curves is not None and len(last.history) < len(curves.history):
            assert history_file is not None and saved is not None  # curves come from the history file
            return "success", _attach_curves(history_file[0], saved)
        return "info", t("restore.already_last", run=last.label, name=quoted_name(model_file[0]))
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
        return "success", t("restore.restored_on_draw", run=record.label, name=quoted_name(model_file[0]))
    how = (
        t("restore.with_curves", epochs=count(len(curves.history))) if curves else t("restore.without_curves")
    )
    return "success", t("restore.restored", run=record.label, name=quoted_name(model_file[0]), how=how)


def _on_upload(key: str, models_only: bool = False) -> None:
    """Uploader callback: restore from the files just uploaded, then empty the uploader."""
    files = st.session_state.get(key)
    if not files:
        return
    files = files if isinstance(files, list) else [files]
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1
    try:
        check_uploads([(file.name, file.size) for file in files], models_only)
        st.session_state[MESSAGE] = restore_files(
            [(file.name, file.getvalue()) for file in files], on_draw=models_only
        )
    except ValueError as error:
        st.session_state[MESSAGE] = ("error", str(error))
        return
    # The Draw page classifies with the restored run, now the last one, whatever was picked before.
    st.session_state[draw.MODEL] = state.runs()[-1].number


def show_message(slot=None) -> bool:
    """Show, once, what the last upload did (in ``slot`` if given); True if there was a message."""
    kind, text = st.session_state.pop(MESSAGE, (None, None))
    target = slot if slot is not None else st
    if kind == "error":
        target.error(text, icon=":material/error:")
    elif kind == "success":
        target.success(text, icon=":material/check_circle:")
    elif kind == "info":
        target.info(text, icon=":material/info:")
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
            placeholder=t("common.choose_one"),
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
