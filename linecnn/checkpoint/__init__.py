"""A run's model and history as files, and the checks that read them back.

A model file is safetensors: the weights, and metadata strings with the run's config, where it
trained and how it ended (``model_file``). A history file is JSON (config and every epoch, enough
to restore the curves) or CSV (one row per epoch of each run, for spreadsheets) (``history``).
Nothing read from a file is trusted (``checks``). The names below are the package's interface.
"""

from linecnn.checkpoint.checks import FORMAT_VERSION, RunLike
from linecnn.checkpoint.history import (
    HISTORY_FORMAT,
    MAX_HISTORY_BYTES,
    MAX_HISTORY_EPOCHS,
    MAX_HISTORY_RUNS,
    SavedRun,
    history_csv,
    history_json,
    load_history,
    matching_run,
)
from linecnn.checkpoint.model_file import MAX_MODEL_BYTES, MODEL_FORMAT, ModelInfo, load_model, save_model

__all__ = [
    "FORMAT_VERSION",
    "HISTORY_FORMAT",
    "MAX_HISTORY_BYTES",
    "MAX_HISTORY_EPOCHS",
    "MAX_HISTORY_RUNS",
    "MAX_MODEL_BYTES",
    "MODEL_FORMAT",
    "ModelInfo",
    "RunLike",
    "SavedRun",
    "history_csv",
    "history_json",
    "load_history",
    "load_model",
    "matching_run",
    "save_model",
]
