"""Uploaded files: which are run files (a model, a history), whether each is within its limit, and
their names made safe for the sentences that quote them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from linecnn.checkpoint.checks import check_length
from linecnn.checkpoint.history import MAX_HISTORY_BYTES
from linecnn.checkpoint.model_file import MAX_MODEL_BYTES
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import say, t

KINDS = {  # a run file's extension -> its limit in bytes, and what sentences call it
    ".safetensors": (MAX_MODEL_BYTES, "model_file"),
    ".json": (MAX_HISTORY_BYTES, "history_file"),
}
MAX_NAME = 60  # characters of an uploaded file's name kept for messages and labels


File = tuple[str, bytes]  # an uploaded file: its name and its bytes


def shown_name(name: str) -> str:
    """A file name safe to show in Markdown: letters, digits and . _ - ( ) only, shortened."""
    return re.sub(r"[^\w.()-]", "_", name)[:MAX_NAME] or "file"


def quoted_name(name: str) -> str:
    """A file name for a sentence: ``shown_name``, escaped, since _ and . still mean something to Markdown."""
    return escape_markdown(shown_name(name))


def split_run_files(files: Sequence[File]) -> tuple[File | None, File | None]:
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
