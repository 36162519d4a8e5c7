"""A run's history as files: JSON (config and every epoch, enough to restore the curves) and CSV
(one row per epoch of each run, for spreadsheets). Reading a JSON back checks every field.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, fields

from linecnn.checkpoint.checks import (
    FORMAT_VERSION,
    MAX_TEXT,
    RunLike,
    check_size,
    confusion_matrix,
    device_name,
    epoch_record,
    exact_dict,
    fail,
    now,
    parse_json,
    run_config,
    thread_count,
    timestamp,
    whole_number,
)
from linecnn.train.config import RunConfig
from linecnn.train.trainer import EpochRecord

HISTORY_FORMAT = "linecnn-history"  # the "format" field of a history JSON
MAX_HISTORY_BYTES = 8_000_000  # a history JSON, with room for the longest runs a session keeps
MAX_HISTORY_RUNS = 20  # runs in one history file: as many as a session keeps
MAX_HISTORY_EPOCHS = 20_000  # epoch records in one history file, all runs together
# JSON values in a history file: an epoch record has 10, a run's settings and confusion matrix about 60
MAX_HISTORY_VALUES = MAX_HISTORY_EPOCHS * 12 + MAX_HISTORY_RUNS * 400
CSV_COLUMNS = (
    "run",
    "device",
    "threads",
    *RunConfig().as_dict(),
    *(f.name for f in fields(EpochRecord) if f.name not in ("epochs", "device")),
)


@dataclass(frozen=True)
class SavedRun:
    """One run read back from a history JSON."""

    number: int  # its number in the session that saved it
    config: RunConfig  # the settings it trained with
    device: str  # where it trained
    threads: int | None  # CPU threads it trained on; None for GPUs
    history: tuple[EpochRecord, ...]  # every epoch, 1 to n
    confusion: list[list[int]]  # validation [true][predicted] at the end


def _run_dict(run: RunLike) -> dict:
    return {
        "number": run.number,
        "config": run.config.as_dict(),
        "device": run.device,
        "threads": run.threads,
        "confusion": run.confusion,
        "epochs": [record.as_dict() for record in run.history],
    }


def history_json(runs: Sequence[RunLike]) -> bytes:
    """The runs' configs and every epoch as JSON: the file that restores their curves."""
    document = {
        "format": HISTORY_FORMAT,
        "format_version": FORMAT_VERSION,
        "created": now(),
        "runs": [_run_dict(run) for run in runs],
    }
    return json.dumps(document, indent=1).encode()


def history_csv(runs: Sequence[RunLike]) -> bytes:
    """One row per epoch of each run, its settings repeated on every row: for spreadsheets."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for run in runs:
        settings = {**run.config.as_dict(), "batch_size": run.config.train.batch_size or "full"}
        for record in run.history:
            threads = "" if run.threads is None else run.threads
            writer.writerow({"run": run.number, "threads": threads, **settings, **record.as_dict()})
    return buffer.getvalue().encode()


def _saved_run(value: object) -> SavedRun:
    keys = ("number", "config", "device", "threads", "confusion", "epochs")
    raw = exact_dict(value, "run_in_history", keys)
    config = run_config(raw["config"])
    epochs = raw["epochs"]
    if not isinstance(epochs, list) or not epochs:
        fail("run_without_epochs")
    history = tuple(epoch_record(record, config) for record in epochs)
    if [record.epoch for record in history] != list(range(1, len(history) + 1)):
        fail("epochs_out_of_order")
    return SavedRun(
        number=whole_number(raw["number"], "run_number", 1, 10**9),
        config=config,
        device=device_name(raw["device"]),
        threads=thread_count(raw["threads"]),
        history=history,
        confusion=confusion_matrix(raw["confusion"]),
    )


def load_history(data: bytes) -> list[SavedRun]:
    """The runs of a history JSON, every field checked."""
    check_size(data, MAX_HISTORY_BYTES, "history_file")
    if not data.isascii():  # json.dumps writes ASCII; other text would cost Python up to 4 bytes a character
        fail("history_not_ascii")
    keys = ("format", "format_version", "created", "runs")
    parsed = parse_json(bytes(data), "history_file", MAX_HISTORY_VALUES)
    document = exact_dict(parsed, "history_file", keys)
    if document["format"] != HISTORY_FORMAT:
        fail("not_history")
    if document["format_version"] != FORMAT_VERSION:
        version = str(document["format_version"])[:MAX_TEXT]
        fail("history_version", version=version, expected=FORMAT_VERSION)
    timestamp(document["created"])
    runs = document["runs"]
    if not isinstance(runs, list) or not 1 <= len(runs) <= MAX_HISTORY_RUNS:
        fail("history_runs", limit=MAX_HISTORY_RUNS)
    lists = [run.get("epochs") for run in runs if isinstance(run, dict)]
    total = sum(len(epochs) for epochs in lists if isinstance(epochs, list))
    if total > MAX_HISTORY_EPOCHS:
        fail("history_too_long", epochs=total, limit=MAX_HISTORY_EPOCHS)
    return [_saved_run(run) for run in runs]


def matching_run(runs: Sequence[SavedRun], config: RunConfig, final: EpochRecord) -> SavedRun | None:
    """The saved run with these settings whose last epoch is ``final``, if any: a model's curves."""
    for run in runs:
        if run.config == config and run.history[-1] == final:
            return run
    return None
