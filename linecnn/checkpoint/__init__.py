"""A run's model and history as files, and the checks that read them back.

A model file is safetensors: the weights, and metadata strings with the run's config, where it
trained and how it ended. A history file is JSON (config and every epoch, enough to restore the
curves) or CSV (one row per epoch of each run, for spreadsheets). Nothing read from a file is
trusted: sizes, keys, shapes, dtypes, numbers and strings are checked before anything is built.
"""

from __future__ import annotations

import csv
import io
import json
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import NoReturn, Protocol

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_tensors
from safetensors.torch import save as save_tensors
from torch import nn

from linecnn.config import MAX_PER_CLASS, RunConfig
from linecnn.errors import Message, UserError
from linecnn.model import NUM_CLASSES, LineCNN, build_model
from linecnn.train import EpochRecord

MODEL_FORMAT = "linecnn-model"  # the metadata's "format" tag of a model file
HISTORY_FORMAT = "linecnn-history"  # the "format" field of a history JSON
FORMAT_VERSION = 1  # bumped when a file's layout changes; older readers refuse newer files

# The Train page's widest model (width 16) has 559,619 float32 parameters: a 2.24 MB file with its
# header. 3 MiB holds it with room to spare and refuses anything much bigger before it is parsed.
MAX_MODEL_BYTES = 3 << 20
MAX_HEADER_BYTES = 64 << 10  # a model file's JSON header: the tensor table and the metadata
MAX_HISTORY_BYTES = 8 << 20  # a history JSON; a 5,000-epoch run takes about 1.2 MB
MAX_HISTORY_RUNS = 20  # runs in one history file: as many as a session keeps
MAX_HISTORY_EPOCHS = 20_000  # epoch records in one history file, all runs together
MAX_TEXT = 64  # characters of any string read from a file (device names, timestamps)
MAX_SECONDS = 1e9  # any time read from a file, in seconds
MAX_LOSS = 1e9  # any loss read from a file
MAX_NAMES = 3  # weight names quoted in one error message

DEVICE_PATTERN = re.compile(r"[a-z]{2,10}(:\d{1,3})?")  # "cpu", "cuda:0", "mps"
CSV_COLUMNS = (
    "run",
    "device",
    "threads",
    *RunConfig().as_dict(),
    *(f.name for f in fields(EpochRecord) if f.name not in ("epochs", "device")),
)


class RunLike(Protocol):
    """What saving needs from a finished run (the Train page's RunRecord has it)."""

    number: int  # the run's number in its session
    config: RunConfig  # the settings it trained with
    device: str  # where it trained
    history: Sequence[EpochRecord]  # its epochs, oldest first
    confusion: list[list[int]]  # validation [true][predicted] at the end
    model: nn.Module  # its final weights
    threads: int | None  # CPU threads it trained on; None for GPUs


@dataclass(frozen=True)
class ModelInfo:
    """A model file's metadata, checked: how the run that made it ended."""

    device: str  # where it trained, e.g. "cpu" or "cuda:0"
    threads: int | None  # CPU threads it trained on; None for GPUs
    final: EpochRecord  # its last epoch: metrics and times
    confusion: list[list[int]]  # validation [true][predicted] at the end
    created: str  # when the file was written, ISO 8601 in UTC

    @property
    def epochs_done(self) -> int:
        """Epochs the saved weights were trained for."""
        return self.final.epoch


@dataclass(frozen=True)
class SavedRun:
    """One run read back from a history JSON."""

    number: int  # its number in the session that saved it
    config: RunConfig  # the settings it trained with
    device: str  # where it trained
    threads: int | None  # CPU threads it trained on; None for GPUs
    history: tuple[EpochRecord, ...]  # every epoch, 1 to n
    confusion: list[list[int]]  # validation [true][predicted] at the end


def _fail(key: str, **values: object) -> NoReturn:
    """Refuse the file with the sentence ``key`` of linecnn.errors (a ValueError)."""
    raise UserError(key, **values)


def _what(name: str) -> Message:
    """What a message is about ("model file", "training loss"), translatable with the sentence."""
    return Message(f"what.{name}")


def _size(data: bytes, limit: int, what: str) -> None:
    if not isinstance(data, bytes | bytearray):
        _fail("file_not_bytes", what=_what(what))
    if len(data) > limit:
        _fail("file_too_big", what=_what(what), size=len(data) / 1e6, limit=limit / 1e6)


def _reject_constant(name: str) -> NoReturn:
    _fail("json_constant", name=name)


def _json(text: bytes | str, what: str) -> object:
    """Parse JSON, refusing NaN and Infinity; any failure is a ValueError naming ``what``."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (UnicodeDecodeError, RecursionError) as error:
        _fail("not_json", what=_what(what), detail=type(error).__name__)
    except UserError as error:  # NaN or Infinity
        _fail("not_json", what=_what(what), detail=error.message)
    except ValueError as error:  # json.JSONDecodeError is one
        _fail("not_json", what=_what(what), detail=str(error)[:120])


def _dict(value: object, what: str, keys: Sequence[str]) -> dict:
    """``value`` as a dict with exactly ``keys``."""
    if not isinstance(value, dict):
        _fail("not_object", what=_what(what))
    missing = [key for key in keys if key not in value]
    extra = [str(key)[:MAX_TEXT] for key in value if key not in keys]
    if missing or extra:
        parts = [Message("missing", names=", ".join(missing))] if missing else []
        parts += [Message("unknown", names=", ".join(extra[:MAX_NAMES]))] if extra else []
        _fail("wrong_fields", what=_what(what), detail=_joined(parts))
    return value


def _joined(parts: Sequence[Message]) -> Message:
    """Up to two messages as one, separated by '; ' (for ``detail`` fields)."""
    return parts[0] if len(parts) == 1 else Message("two_parts", first=parts[0], second=parts[1])


def _int(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        _fail("not_whole_number", what=_what(what), low=low, high=high, value=str(value)[:40])
    return value


def _float(value: object, what: str, low: float, high: float) -> float:
    number_ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not number_ok or not low <= value <= high:  # NaN fails both comparisons; huge ints compare exactly
        _fail("not_number", what=_what(what), low=_plain(low), high=_plain(high), value=str(value)[:40])
    return float(value)


def _plain(bound: float) -> int | float:
    """A bound as an int when it is whole, so it reads '1' rather than '1.0'."""
    return int(bound) if float(bound).is_integer() else bound


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_TEXT or not value.isprintable():
        _fail("not_text", what=_what(what), limit=MAX_TEXT)
    return value


def _device(value: object) -> str:
    text = _text(value, "device_name")
    if not DEVICE_PATTERN.fullmatch(text):
        _fail("bad_device", name=repr(text))
    return text


def _threads(value: object) -> int | None:
    return None if value is None else _int(value, "cpu_threads", 1, 4096)


def _timestamp(value: object) -> str:
    text = _text(value, "creation_time")
    try:
        datetime.fromisoformat(text)
    except ValueError:
        _fail("bad_time", text=repr(text))
    return text


def _config(value: object) -> RunConfig:
    """A RunConfig from the flat dict of ``RunConfig.as_dict``, checked by RunConfig itself."""
    flat = _dict(value, "run_settings", tuple(RunConfig().as_dict()))
    try:
        return RunConfig.from_flat(**flat)
    except (TypeError, ValueError) as error:
        _fail("bad_settings", detail=error.message if isinstance(error, UserError) else str(error))


def _confusion(value: object) -> list[list[int]]:
    rows_ok = isinstance(value, list) and len(value) == NUM_CLASSES
    if not rows_ok or not all(isinstance(row, list) and len(row) == NUM_CLASSES for row in value):
        _fail("bad_confusion", classes=NUM_CLASSES)
    return [[_int(count, "confusion_count", 0, MAX_PER_CLASS) for count in row] for row in value]


def _epoch_record(value: object, config: RunConfig) -> EpochRecord:
    """One EpochRecord from its ``as_dict`` form, consistent with the run's config."""
    raw = _dict(value, "epoch_record", tuple(f.name for f in fields(EpochRecord)))
    planned = config.train.epochs
    return EpochRecord(
        epoch=_int(raw["epoch"], "epoch_number", 1, planned),
        epochs=_int(raw["epochs"], "planned_epochs", planned, planned),
        train_loss=_float(raw["train_loss"], "train_loss", 0.0, MAX_LOSS),
        train_acc=_float(raw["train_acc"], "train_acc", 0.0, 1.0),
        val_loss=_float(raw["val_loss"], "val_loss", 0.0, MAX_LOSS),
        val_acc=_float(raw["val_acc"], "val_acc", 0.0, 1.0),
        epoch_seconds=_float(raw["epoch_seconds"], "epoch_time", 0.0, MAX_SECONDS),
        elapsed_seconds=_float(raw["elapsed_seconds"], "elapsed_time", 0.0, MAX_SECONDS),
        device=_device(raw["device"]),
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def save_model(run: RunLike) -> bytes:
    """The run's final weights as safetensors bytes, with its config and how it ended as metadata."""
    if not run.history:
        _fail("no_epochs_to_save")
    tensors = {
        name: tensor.detach().to(device="cpu", dtype=torch.float32).contiguous()
        for name, tensor in run.model.state_dict().items()
    }
    final = run.history[-1]
    metadata = {
        "format": MODEL_FORMAT,
        "format_version": str(FORMAT_VERSION),
        "config": json.dumps(run.config.as_dict()),
        "device": run.device,
        "threads": json.dumps(run.threads),
        "epochs_done": str(final.epoch),
        "final_metrics": json.dumps(final.as_dict()),
        "confusion": json.dumps(run.confusion),
        "created": _now(),
    }
    return save_tensors(tensors, metadata=metadata)


def _header(data: bytes) -> dict:
    """The JSON header of a safetensors file: tensor table plus ``__metadata__``."""
    not_safetensors = "not_safetensors"
    if len(data) < 8:
        _fail(not_safetensors)
    (length,) = struct.unpack("<Q", data[:8])
    if length > min(MAX_HEADER_BYTES, len(data) - 8) or data[8:9] != b"{":
        _fail(not_safetensors)
    try:
        header = json.loads(data[8 : 8 + length], parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        _fail(not_safetensors)
    if not isinstance(header, dict):
        _fail(not_safetensors)
    return header


def _metadata(header: dict) -> dict[str, str]:
    """The metadata strings, with the format tag and version checked."""
    metadata = header.get("__metadata__")
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        _fail("no_metadata")
    if metadata.get("format") != MODEL_FORMAT:
        _fail("wrong_model_tag")
    if metadata.get("format_version") != str(FORMAT_VERSION):
        version = str(metadata.get("format_version"))[:MAX_TEXT]
        _fail("model_version", version=version, expected=FORMAT_VERSION)
    keys = ("config", "device", "threads", "epochs_done", "final_metrics", "confusion", "created")
    missing = [key for key in keys if key not in metadata]
    if missing:
        _fail("metadata_lacks", names=", ".join(missing))
    return metadata


def _info(metadata: Mapping[str, str], config: RunConfig) -> ModelInfo:
    final = _epoch_record(_json(metadata["final_metrics"], "final_metrics"), config)
    epochs_done = _int(_json(metadata["epochs_done"], "epochs_done"), "epochs_done", 1, config.train.epochs)
    if epochs_done != final.epoch:
        _fail("epochs_mismatch", epochs=epochs_done)
    return ModelInfo(
        device=_device(metadata["device"]),
        threads=_threads(_json(metadata["threads"], "thread_count")),
        final=final,
        confusion=_confusion(_json(metadata["confusion"], "confusion")),
        created=_timestamp(metadata["created"]),
    )


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(repr(str(name)[:40]) for name in sorted(names)[:MAX_NAMES])
    more = len(names) - min(len(names), MAX_NAMES)
    return Message("and_more", names=shown, count=more) if more > 0 else shown


def _check_tensors(header: Mapping[str, object], config: RunConfig) -> None:
    """Compare the tensor table with a model of ``config`` built on the meta device (no memory)."""
    with torch.device("meta"):
        expected = {name: tuple(t.shape) for name, t in LineCNN(config.model).state_dict().items()}
    found = {name: entry for name, entry in header.items() if name != "__metadata__"}
    missing, unexpected = expected.keys() - found.keys(), found.keys() - expected.keys()
    if missing or unexpected:
        parts = [Message("missing", names=_names(list(missing)))] if missing else []
        parts += [Message("unexpected", names=_names(list(unexpected)))] if unexpected else []
        _fail("weights_mismatch", width=config.model.width, detail=_joined(parts))
    for name, shape in expected.items():
        entry = found[name]
        if not isinstance(entry, dict):
            _fail("weight_damaged", name=name)
        if entry.get("dtype") != "F32":
            _fail("weight_dtype", name=name, dtype=str(entry.get("dtype"))[:12])
        if entry.get("shape") != list(shape):
            found_shape = str(entry.get("shape"))[:40]
            width = config.model.width
            _fail("weight_shape", name=name, shape=found_shape, width=width, expected=list(shape))


def load_model(data: bytes) -> tuple[RunConfig, nn.Module, ModelInfo]:
    """Config, CPU model in eval mode and metadata of a model file, every part checked first."""
    _size(data, MAX_MODEL_BYTES, "model_file")
    header = _header(bytes(data))
    metadata = _metadata(header)
    config = _config(_json(metadata["config"], "run_settings"))
    info = _info(metadata, config)
    _check_tensors(header, config)
    try:
        tensors = load_tensors(bytes(data))
    except (SafetensorError, ValueError, RuntimeError) as error:
        _fail("model_damaged", detail=str(error)[:80])
    for name, tensor in tensors.items():
        if not torch.isfinite(tensor).all():
            _fail("weight_not_finite", name=name)
    model = build_model(config.model, config.seed)
    model.load_state_dict(tensors, strict=True)
    return config, model.eval(), info


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
        "created": _now(),
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
    raw = _dict(value, "run_in_history", keys)
    config = _config(raw["config"])
    epochs = raw["epochs"]
    if not isinstance(epochs, list) or not epochs:
        _fail("run_without_epochs")
    history = tuple(_epoch_record(record, config) for record in epochs)
    if [record.epoch for record in history] != list(range(1, len(history) + 1)):
        _fail("epochs_out_of_order")
    return SavedRun(
        number=_int(raw["number"], "run_number", 1, 10**9),
        config=config,
        device=_device(raw["device"]),
        threads=_threads(raw["threads"]),
        history=history,
        confusion=_confusion(raw["confusion"]),
    )


def load_history(data: bytes) -> list[SavedRun]:
    """The runs of a history JSON, every field checked."""
    _size(data, MAX_HISTORY_BYTES, "history_file")
    keys = ("format", "format_version", "created", "runs")
    document = _dict(_json(bytes(data), "history_file"), "history_file", keys)
    if document["format"] != HISTORY_FORMAT:
        _fail("not_history")
    if document["format_version"] != FORMAT_VERSION:
        version = str(document["format_version"])[:MAX_TEXT]
        _fail("history_version", version=version, expected=FORMAT_VERSION)
    _timestamp(document["created"])
    runs = document["runs"]
    if not isinstance(runs, list) or not 1 <= len(runs) <= MAX_HISTORY_RUNS:
        _fail("history_runs", limit=MAX_HISTORY_RUNS)
    lists = [run.get("epochs") for run in runs if isinstance(run, dict)]
    total = sum(len(epochs) for epochs in lists if isinstance(epochs, list))
    if total > MAX_HISTORY_EPOCHS:
        _fail("history_too_long", epochs=total, limit=MAX_HISTORY_EPOCHS)
    return [_saved_run(run) for run in runs]


def matching_run(runs: Sequence[SavedRun], config: RunConfig, final: EpochRecord) -> SavedRun | None:
    """The saved run with these settings whose last epoch is ``final``, if any: a model's curves."""
    for run in runs:
        if run.config == config and run.history[-1] == final:
            return run
    return None
