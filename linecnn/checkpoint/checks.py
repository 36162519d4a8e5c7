"""What a run's model file and history file share: the format version, what saving needs from a
run, and the checks on every value read back.

Nothing read from a file is trusted: sizes, keys, numbers and strings are checked before
anything is built, and a bad one raises a ``UserError`` (a ValueError) with a sentence that
names what was wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import fields
from datetime import UTC, datetime
from typing import NoReturn, Protocol

from torch import nn

from linecnn.errors import Message, UserError, json_place
from linecnn.train.config import MAX_PER_CLASS, RunConfig
from linecnn.train.model import NUM_CLASSES
from linecnn.train.trainer import EpochRecord
from linecnn.untrusted import json_echo, value_bound

FORMAT_VERSION = 1  # bumped when a file's layout changes; older readers refuse newer files
MAX_TEXT = 64  # characters of any string read from a file (device names, timestamps)
MAX_SECONDS = 1e9  # any time read from a file, in seconds
MAX_LOSS = 1e9  # any loss read from a file
MAX_NAMES = 3  # names quoted in one error message
MAX_DIGITS = 1_000  # digits of any integer read from a file; a longer one is refused before it is built
DEVICE_PATTERN = re.compile(r"[a-z]{2,10}(:\d{1,3})?")  # "cpu", "cuda:0", "mps"


class RunLike(Protocol):
    """What saving needs from a finished run (the Train page's RunRecord has it).

    Read-only properties, so that a frozen dataclass (RunRecord) and a narrower type (a tuple of
    epochs) both fit."""

    @property
    def number(self) -> int: ...  # the run's number in its session
    @property
    def config(self) -> RunConfig: ...  # the settings it trained with
    @property
    def device(self) -> str: ...  # where it trained
    @property
    def history(self) -> Sequence[EpochRecord]: ...  # its epochs, oldest first
    @property
    def confusion(self) -> list[list[int]]: ...  # validation [true][predicted] at the end
    @property
    def model(self) -> nn.Module: ...  # its final weights
    @property
    def threads(self) -> int | None: ...  # CPU threads it trained on; None for GPUs


def fail(key: str, **values: object) -> NoReturn:
    """Refuse the file with the sentence ``key`` of linecnn.errors (a ValueError)."""
    raise UserError(key, **values)


def about(name: str) -> Message:
    """What a message is about ("model file", "training loss"), translatable with the sentence."""
    return Message(f"what.{name}")


def check_size(data: bytes, limit: int, what: str) -> None:
    """Refuse ``data`` unless it is bytes of at most ``limit`` bytes."""
    if not isinstance(data, bytes | bytearray):
        fail("file_not_bytes", what=about(what))
    check_length(len(data), limit, what)


def check_length(size: int, limit: int, what: str) -> None:
    """Refuse a file of ``size`` bytes over ``limit`` before it is read; said in MB of 10**6 bytes."""
    if size > limit:
        fail("file_too_big", what=about(what), size=size / 1e6, limit=limit / 1e6)


def reject_constant(name: str) -> NoReturn:
    """json.loads's hook for NaN and Infinity: refuse them."""
    fail("json_constant", name=name)


def _parse_int(text: str) -> int:
    """json.loads's hook for integers: one longer than MAX_DIGITS digits is refused before it is built."""
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _TooLong(Message("json.digits", digits=digits, limit=MAX_DIGITS))
    return int(text)


class _TooLong(ValueError):
    """An integer in a file too long to be a count linecnn wrote."""


def parse_json(text: bytes | str, what: str, max_values: int) -> object:
    """Parse JSON of at most ``max_values`` values, refusing NaN and Infinity; a failure names ``what``.

    The values are counted before parsing, so a file of many tiny objects costs no memory to refuse.
    """
    count = value_bound(text)
    if count > max_values:
        fail("json_too_many", what=about(what), count=count, limit=max_values)
    try:
        return json.loads(text, parse_constant=reject_constant, parse_int=_parse_int)
    except _TooLong as error:
        fail("file_unusable", what=about(what), problem=error.args[0])
    except (UnicodeDecodeError, RecursionError) as error:
        fail("not_json", what=about(what), detail=type(error).__name__)
    except UserError as error:  # NaN or Infinity
        fail("not_json", what=about(what), detail=error.message)
    except json.JSONDecodeError as error:  # where, in the reader's language; the parser's words are English
        fail("not_json", what=about(what), detail=json_place(error, text))
    except ValueError as error:
        fail("not_json", what=about(what), detail=str(error)[:120])


def exact_dict(value: object, what: str, keys: Sequence[str]) -> dict:
    """``value`` as a dict with exactly ``keys``."""
    if not isinstance(value, dict):
        fail("not_object", what=about(what))
    missing = [key for key in keys if key not in value]
    extra = [str(key)[:MAX_TEXT] for key in value if key not in keys]
    if missing or extra:
        parts = [Message("missing", names=", ".join(missing))] if missing else []
        parts += [Message("unknown", names=", ".join(extra[:MAX_NAMES]))] if extra else []
        fail("wrong_fields", what=about(what), detail=joined(parts))
    return value


def joined(parts: Sequence[Message]) -> Message:
    """Up to two messages as one, separated by '; ' (for ``detail`` fields)."""
    return parts[0] if len(parts) == 1 else Message("two_parts", first=parts[0], second=parts[1])


def whole_number(value: object, what: str, low: int, high: int) -> int:
    """``value`` as an int in [low, high] (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        fail("not_whole_number", what=about(what), low=low, high=high, value=json_echo(value))
    return value


def bounded_number(value: object, what: str, low: float, high: float) -> float:
    """``value`` as a float in [low, high]: NaN, infinities and bools are refused."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        # NaN fails both comparisons; huge ints compare exactly
        fail("not_number", what=about(what), low=plain(low), high=plain(high), value=json_echo(value))
    return float(value)


def plain(bound: float) -> int | float:
    """A bound as an int when it is whole, so it reads '1' rather than '1.0'."""
    return int(bound) if float(bound).is_integer() else bound


def short_text(value: object, what: str) -> str:
    """``value`` as a non-empty, printable string of at most MAX_TEXT characters; each fault said as it is."""
    if not isinstance(value, str) or not value:
        fail("not_text", what=about(what), limit=MAX_TEXT, value=json_echo(value))
    if len(value) > MAX_TEXT:
        fail("text_too_long", what=about(what), count=len(value), limit=MAX_TEXT)
    unprintable = next((char for char in value if not char.isprintable()), None)
    if unprintable is not None:
        fail("text_unprintable", what=about(what), char=repr(unprintable)[1:-1])
    return value


def device_name(value: object) -> str:
    """``value`` as a device name such as "cpu" or "cuda:0"."""
    text = short_text(value, "device_name")
    if not DEVICE_PATTERN.fullmatch(text):
        fail("bad_device", name=repr(text))
    return text


def thread_count(value: object) -> int | None:
    """``value`` as a CPU thread count, or None (a GPU run)."""
    return None if value is None else whole_number(value, "cpu_threads", 1, 4096)


def timestamp(value: object) -> str:
    """``value`` as an ISO 8601 time."""
    text = short_text(value, "creation_time")
    try:
        datetime.fromisoformat(text)
    except ValueError:
        fail("bad_time", text=repr(text))
    return text


def run_config(value: object) -> RunConfig:
    """A RunConfig from the flat dict of ``RunConfig.as_dict``, checked by RunConfig itself."""
    flat = exact_dict(value, "run_settings", tuple(RunConfig().as_dict()))
    try:
        return RunConfig.from_flat(**flat)
    except (TypeError, ValueError) as error:
        fail("bad_settings", detail=error.message if isinstance(error, UserError) else str(error))


def confusion_matrix(value: object) -> list[list[int]]:
    """``value`` as a NUM_CLASSES x NUM_CLASSES matrix of counts."""
    if (
        not isinstance(value, list)
        or len(value) != NUM_CLASSES
        or not all(isinstance(row, list) and len(row) == NUM_CLASSES for row in value)
    ):
        fail("bad_confusion", classes=NUM_CLASSES)
    return [[whole_number(count, "confusion_count", 0, MAX_PER_CLASS) for count in row] for row in value]


def epoch_record(value: object, config: RunConfig) -> EpochRecord:
    """One EpochRecord from its ``as_dict`` form, consistent with the run's config."""
    raw = exact_dict(value, "epoch_record", tuple(f.name for f in fields(EpochRecord)))
    planned = config.train.epochs
    return EpochRecord(
        epoch=whole_number(raw["epoch"], "epoch_number", 1, planned),
        epochs=whole_number(raw["epochs"], "planned_epochs", planned, planned),
        train_loss=bounded_number(raw["train_loss"], "train_loss", 0.0, MAX_LOSS),
        train_acc=bounded_number(raw["train_acc"], "train_acc", 0.0, 1.0),
        val_loss=bounded_number(raw["val_loss"], "val_loss", 0.0, MAX_LOSS),
        val_acc=bounded_number(raw["val_acc"], "val_acc", 0.0, 1.0),
        epoch_seconds=bounded_number(raw["epoch_seconds"], "epoch_time", 0.0, MAX_SECONDS),
        elapsed_seconds=bounded_number(raw["elapsed_seconds"], "elapsed_time", 0.0, MAX_SECONDS),
        device=device_name(raw["device"]),
    )


def now() -> str:
    """The current time in UTC, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")
