"""Benchmark history in SQLite: every run the page or the CLI makes, and JSON imported from other machines.

One row per run holds the whole JSON document (what ``linecnn bench --json`` prints) plus a
few columns to list runs without parsing it. The file lives in the per-user data directory,
or under $LINECNN_DATA_DIR (see ``linecnn.paths``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from linecnn.bench import OK, OUT_OF_MEMORY
from linecnn.config import MAX_EXTRA_CONVS, MAX_PER_CLASS, MAX_WIDTH, RENAMED_DATA_MODES
from linecnn.paths import data_dir
from linecnn.sweep import FACTORS, FORMAT

DB_NAME = "bench.sqlite3"
SOURCES = ("page", "cli", "import")
NOT_TIMED = ("failed", "stopped", "skipped")  # how the statuses of cells that have no timing begin
MAX_EPOCH_MS = 86_400_000.0  # a day: any epoch time above it in an imported file is a typo or a forgery
MIN_EPOCH_MS = 1e-6  # a nanosecond: below it a speed-up (a ratio of medians) would not stay finite
# Bounds on any document, so that a file cannot exhaust the server or break a view for everyone.
MAX_FILE_BYTES = 2 * 2**20  # a real sweep's JSON is tens of kB
MAX_RESULTS = 2_000  # the largest sweep the page or the CLI makes has under 200 cells
MAX_VALUES = 250_000  # numbers, strings and containers in one document (~60 per result)
MAX_DEPTH = 8  # nesting of objects and lists; a real document nests 6 deep (results, env, devices)
MAX_TEXT = 2_000  # characters in one string; statuses and notes stay well under
MAX_NUMBER = 2**63 - 1  # magnitude of any number: Arrow's int64, so every table column converts
MAX_DIGITS = len(str(MAX_NUMBER))  # longer integers are refused while parsing, before Python builds them
# The page's listing: imported runs are listed and kept within their own limit, so uploads can
# never push a run measured here out of the list.
MAX_LISTED = 500  # runs made by the page or the CLI, newest first
MAX_IMPORTS = 100  # imported runs kept (at most MAX_FILE_BYTES each); more need a delete first
LOCK_TIMEOUT = 10.0  # seconds a call waits for another writer's lock before it gives up with a sentence
CONFIG_LIMITS = {  # the largest value of each config key a linecnn run can have
    "images": 3 * MAX_PER_CLASS,
    "step_size": 3 * MAX_PER_CLASS,
    "width": MAX_WIDTH,
    "conv_layers": 2 + MAX_EXTRA_CONVS,
}
REQUIRED = ("device", "config", "status", "median_ms", "p25_ms", "p75_ms", "samples_per_s")
CONFIG_KEYS = ("images", "step_size", "width", "conv_layers", "variant")  # what the page reads of a config
TIMES = (  # a result's numbers: at least 0, or null for a cell that was not timed
    "median_ms",
    "p25_ms",
    "p75_ms",
    "samples_per_s",
    "first_epoch_ms",
    "context_ms",
    "setup_ms",
    "autotune_ms",
    "compile_ms",
    "peak_memory_bytes",
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,         -- when the benchmark ran (UTC, ISO 8601)
    saved TEXT NOT NULL,           -- when it entered this history
    source TEXT NOT NULL,          -- 'page', 'cli' or 'import'
    sweep TEXT NOT NULL,           -- the swept factor: none, data, batch, width, conv
    devices TEXT NOT NULL,         -- e.g. 'cpu, cuda:0'
    machine TEXT NOT NULL,         -- e.g. 'AMD EPYC 7B13 · NVIDIA H200'
    cells INTEGER NOT NULL,        -- results in the document
    digest TEXT NOT NULL UNIQUE,   -- sha256 of the document: importing a file twice keeps one copy
    document TEXT NOT NULL         -- the JSON document itself
)
"""
COLUMNS = ("id", "created", "saved", "source", "sweep", "devices", "machine", "cells", "digest", "document")


@dataclass(frozen=True)
class RunSummary:
    """One stored run, as listed (the document stays in the database until loaded)."""

    id: int
    created: str  # when the benchmark ran (UTC, ISO 8601)
    source: str  # 'page', 'cli' or 'import'
    sweep: str  # the swept factor
    devices: str  # e.g. 'cpu, cuda:0'
    machine: str  # CPU model and GPU names
    cells: int  # results in the run

    @property
    def label(self) -> str:
        """E.g. '#7 · 2025-06-01 14:03 · data sweep · cpu, cuda:0 · imported'."""
        when = self.created.replace("T", " ")[:16]
        sweep = "single cell" if self.sweep == "none" else f"{self.sweep} sweep"
        origin = " · imported" if self.source == "import" else ""
        return f"#{self.id} · {when} · {sweep} · {self.devices}{origin}"


def validate_document(document: object) -> dict:
    """Return ``document`` if it is a linecnn benchmark JSON, else raise ValueError saying what is wrong.

    Every field the page and the history read is checked for its type, so that a hand-edited or
    truncated file is refused at import instead of breaking the page each time it is shown.
    """
    what = "This is not a linecnn benchmark JSON (make one with: python -m linecnn bench --json --out FILE)"
    if not isinstance(document, dict):
        raise ValueError(f"{what}.")
    results = document.get("results")
    if isinstance(results, list | tuple) and len(results) > MAX_RESULTS:
        raise ValueError(
            f"This benchmark JSON cannot be used: it has {len(results):,} results, "
            f"more than {MAX_RESULTS:,} results a benchmark may hold."
        )
    problem = _shape_problem(document)
    if problem is not None:
        raise ValueError(f"This benchmark JSON cannot be used: {problem}.")
    if not str(document.get("format", "")).startswith("linecnn.bench/"):
        raise ValueError(f"{what}.")
    if document["format"] != FORMAT:
        raise ValueError(
            f"This benchmark JSON has format {_echo(document['format'])}; this linecnn reads {FORMAT!r}."
        )
    results = document.get("results")
    if not isinstance(results, list) or not results:
        raise ValueError(f"{what}: it has no results.")
    if document.get("sweep") not in FACTORS:
        raise ValueError(f"{what}: unknown sweep {_echo(document.get('sweep'))}.")
    problem = _document_problem(document)
    if problem is None:
        problem = next(filter(None, (_result_problem(r, n) for n, r in enumerate(results, start=1))), None)
    if problem is None:
        problem = _repeated_cell(results, document["sweep"])
    if problem is not None:
        raise ValueError(f"This benchmark JSON cannot be used: {problem}.")
    return with_current_names(document)


def with_current_names(document: dict) -> dict:
    """``document``, or a copy whose results give the data mode its current name (old files say "seed")."""

    def old_mode(result: object) -> bool:
        config = result.get("config") if isinstance(result, dict) else None
        return isinstance(config, dict) and config.get("data_mode") in RENAMED_DATA_MODES

    if not any(old_mode(result) for result in document.get("results") or []):
        return document
    document = copy.deepcopy(document)
    for result in document["results"]:
        if old_mode(result):
            result["config"]["data_mode"] = RENAMED_DATA_MODES[result["config"]["data_mode"]]
    return document


def _echo(value: object) -> str:
    """A value from a file for a sentence: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _where(path: tuple) -> str:
    """A place in a document for a sentence: "result 3's config.images" or "'env.devices'"."""
    if len(path) >= 2 and path[0] == "results" and isinstance(path[1], int):
        return f"result {path[1] + 1}'s {'.'.join(map(str, path[2:])) or 'entry'}"
    return "'" + ".".join(map(str, path)) + "'" if path else "the file"


def _shape_problem(document: object) -> str | None:
    """What breaks the general bounds (nesting, count, text, numbers) anywhere in a document, or None.

    Iterative, so that no nesting can exhaust Python's stack; it runs before any field is read.
    """
    stack: list[tuple[object, tuple]] = [(document, ())]
    seen = 0
    while stack:
        value, path = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            return f"it holds more than {MAX_VALUES:,} values"
        if isinstance(value, dict | list | tuple):
            if len(path) >= MAX_DEPTH:
                return f"it is nested more than {MAX_DEPTH} levels deep (at {_where(path)})"
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str) and (problem := _text_problem(key, path)):
                    return problem
                stack.append((item, (*path, key)))
        elif isinstance(value, str):
            if problem := _text_problem(value, path):
                return problem
        elif isinstance(value, float):
            if not math.isfinite(value):
                return f"{_where(path)} is {value!r}, not a finite number"
            if abs(value) > MAX_NUMBER:
                return f"{_where(path)} is {value:.3g}, too large (at most {MAX_NUMBER:.3g})"
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_NUMBER:
            return f"{_where(path)} is {value}, too large (at most {MAX_NUMBER:,})"
        elif not (value is None or isinstance(value, bool | int)):
            return f"{_where(path)} holds a {type(value).__name__}, which JSON has not"
    return None


def _text_problem(text: str, path: tuple) -> str | None:
    """Why a string cannot be stored and shown (too long, not valid Unicode), or None."""
    if len(text) > MAX_TEXT:
        return f"{_where(path)} is a text of {len(text):,} characters, longer than the {MAX_TEXT:,} allowed"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return f"{_where(path)} is not valid Unicode text (it holds a lone surrogate)"
    return None


def _is_number(value: object) -> bool:
    """A finite int or float (JSON's numbers; NaN, Infinity and booleans are not)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_amount(value: object) -> bool:
    """None, or a finite number of at least 0 (a time, a rate, a size)."""
    return value is None or (_is_number(value) and value >= 0)


def _is_count(value: object) -> bool:
    """A whole number of at least 1."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _strings(value: object) -> bool:
    """A list of strings."""
    return isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)


def _env_problem(env: object, where: str) -> str | None:
    """What is wrong with an environment block (``where`` names it in the sentence), or None."""
    if not isinstance(env, dict):
        return f"{where} 'env' is not an object"
    for key in ("cpu_model", "date", "torch_version", "cuda_version"):
        if env.get(key) is not None and not isinstance(env[key], str):
            return f"{where} 'env.{key}' is not text"
    devices = env.get("devices", [])
    if not isinstance(devices, list | tuple) or not all(isinstance(d, dict) for d in devices):
        return f"{where} 'env.devices' is not a list of objects"
    for d in devices:
        if any(d.get(key) is not None and not isinstance(d[key], str) for key in ("key", "kind", "name")):
            return f"{where} 'env.devices' has a device whose key, kind or name is not text"
        if not _is_amount(d.get("memory_bytes")):
            return f"{where} 'env.devices' has a memory size that is not a number of bytes"
    return None


def _document_problem(document: dict) -> str | None:
    """What is wrong with the document-level fields, or None."""
    if document.get("created") is not None and not isinstance(document["created"], str):
        return "'created' is not a date in text"
    if "devices" in document and not _strings(document["devices"]):
        return "'devices' is not a list of device names"
    if "notes" in document and not _strings(document["notes"]):
        return "'notes' is not a list of sentences"
    if "env" in document:
        return _env_problem(document["env"], "the file's")
    return None


def _result_problem(result: object, number: int) -> str | None:
    """What is wrong with result ``number`` (1-based), or None."""
    where = f"result {number}"
    missing = [key for key in REQUIRED if not isinstance(result, dict) or key not in result]
    if missing:
        return f"{where} lacks {', '.join(missing)}"
    for key in ("device", "status"):
        if not isinstance(result[key], str) or not result[key]:
            return f"{where} has a {key} that is not text ({_echo(result[key])})"
    if result["status"] not in (OK, OUT_OF_MEMORY) and not result["status"].startswith(NOT_TIMED):
        return (
            f"{where} has status {_echo(result['status'])}, not ok, out of memory, failed, stopped or skipped"
        )
    if result.get("device_name") is not None and not isinstance(result["device_name"], str):
        return f"{where} has a device_name that is not text"
    problem = _config_problem(result["config"], where)
    if problem is not None:
        return problem
    for key in TIMES:
        if not _is_amount(result.get(key)):
            return f"{where} has {key} = {_echo(result[key])}, not a number of at least 0 (or null)"
    if result["status"] == OK:
        if any(result[key] is None for key in REQUIRED[3:]):
            return f"{where} is 'ok' but lacks its timings"
        if result["median_ms"] < MIN_EPOCH_MS:
            return f"{where} is 'ok' but its median is not above {MIN_EPOCH_MS:g} ms"
        if not result["p25_ms"] <= result["median_ms"] <= result["p75_ms"] <= MAX_EPOCH_MS:
            return (
                f"{where} has p25, median and p75 of {result['p25_ms']:g}, {result['median_ms']:g} and "
                f"{result['p75_ms']:g} ms; they must rise in that order and stay under a day"
            )
    times = result.get("times_ms", [])
    if not isinstance(times, list | tuple) or not all(t is not None and _is_amount(t) for t in times):
        return f"{where} has times_ms that are not a list of numbers of at least 0"
    if "notes" in result and not _strings(result["notes"]):
        return f"{where} has notes that are not a list of sentences"
    if "factor" in result and result["factor"] not in FACTORS:
        return f"{where} has factor {_echo(result['factor'])}; it must be one of {', '.join(FACTORS)}"
    if "x" in result and not (_is_number(result["x"]) and result["x"] > 0):
        return f"{where} has x = {_echo(result['x'])}, not a number above 0"
    if "env" in result:
        return _env_problem(result["env"], where + "'s")
    return None


def _config_problem(config: object, where: str) -> str | None:
    """What is wrong with a result's flat config (the keys the page reads), or None."""
    if not isinstance(config, dict):
        return f"{where} has no usable config"
    missing = [key for key in CONFIG_KEYS if key not in config]
    if missing:
        return f"{where}'s config lacks {', '.join(missing)}"
    for key, most in CONFIG_LIMITS.items():
        if not (_is_count(config[key]) and config[key] <= most):
            return f"{where}'s config has {key} = {_echo(config[key])}, not a whole number from 1 to {most:,}"
    if not isinstance(config["variant"], str):
        return f"{where}'s config has a variant that is not text"
    return None


def _repeated_cell(results: list[dict], sweep: str) -> str | None:
    """A sentence naming the first cell measured twice (same factor, device, variant and x), or None.

    Each (series, x) must be one point: the page lines series up by x to compute speed-ups.
    """
    seen: dict[tuple, int] = {}
    for number, result in enumerate(results, start=1):
        config = result["config"]
        factor = result.get("factor", sweep)
        x = result.get("x", config["images"])
        names = (("device", result["device"]), ("name", result.get("device_name") or result["device"]))
        for name, device in names:
            cell = (factor, name, device, config["variant"], float(x))
            if cell in seen:
                return (
                    f"result {number} repeats the cell of result {seen[cell]} "
                    f"(device {device}, {config['variant']}, x = {x:g})"
                )
            seen[cell] = number
    return None


class _Refused(ValueError):
    """A value refused while a file is parsed (a number too long to be one linecnn wrote)."""


def _parse_int(text: str) -> int:
    """JSON's integers, refused past MAX_DIGITS digits before Python spends time building them."""
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Refused(
            f"it has a {len(text.lstrip('-')):,}-digit number, too large (at most {MAX_DIGITS} digits)"
        )
    return int(text)


def _parse_float(text: str) -> float:
    """JSON's decimals, refused when they overflow to infinity."""
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"it has the number {text[:20]}, too large to be a float")
    return value


def parse_document(text: str | bytes) -> dict:
    """Parse and validate a benchmark JSON file's text (at most MAX_FILE_BYTES)."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:
        raise ValueError(
            f"This file is {size / 2**20:.1f} MB, larger than the {MAX_FILE_BYTES / 2**20:g} MB "
            "a benchmark JSON may be."
        )
    try:
        document = json.loads(text, parse_int=_parse_int, parse_float=_parse_float)
    except _Refused as refused:
        raise ValueError(f"This benchmark JSON cannot be used: {refused}.") from None
    except RecursionError:
        raise ValueError("This benchmark JSON cannot be used: it is nested too deeply.") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"This file is not valid JSON ({error}).") from None
    return validate_document(document)


def machine_of(document: dict) -> str:
    """CPU model and accelerator names of the machine a document was measured on."""
    env = document.get("env") or {}
    names = [env.get("cpu_model") or "unknown CPU"]
    names += [d.get("name") or "?" for d in env.get("devices") or [] if d.get("kind") != "cpu"]
    return " · ".join(names)


class History:
    """The SQLite file of past benchmark runs. Safe to use from several threads: one connection per call."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else data_dir() / DB_NAME

    def _connect(self) -> sqlite3.Connection:
        """A connection with the table in place (the directory is made on first use)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT)
            connection.execute(SCHEMA)
            columns = tuple(row[1] for row in connection.execute("PRAGMA table_info(runs)"))
        except (OSError, sqlite3.Error) as error:
            raise ValueError(f"Cannot open the benchmark history at {self.path}: {error}.") from None
        if columns != COLUMNS:
            connection.close()
            raise ValueError(
                f"Cannot open the benchmark history at {self.path}: its runs table has other columns "
                f"({', '.join(columns)}), so it is not a linecnn history. Move the file away."
            )
        return connection

    @contextmanager
    def _open(self, doing: str) -> Iterator[sqlite3.Connection]:
        """A connection in a transaction; any SQLite error becomes a ValueError naming the file."""
        try:
            with closing(self._connect()) as connection, connection:
                yield connection
        except sqlite3.Error as error:  # a corrupt, full, read-only or locked file
            raise ValueError(f"Cannot {doing} the benchmark history at {self.path}: {error}.") from None

    def save(self, document: dict, source: str) -> int:
        """Store a run and return its id; a document already stored keeps its first id."""
        if source not in SOURCES:
            raise ValueError(f"Source must be one of {', '.join(SOURCES)}; got {source!r}.")
        document = validate_document(document)
        text = json.dumps(document, sort_keys=True)
        digest = hashlib.sha256(text.encode()).hexdigest()
        devices = ", ".join(dict.fromkeys(result["device"] for result in document["results"]))
        row = (
            document.get("created") or _now(),
            _now(),
            source,
            document["sweep"],
            devices,
            machine_of(document),
            len(document["results"]),
            digest,
            text,
        )
        with self._open("save to") as connection:
            found = connection.execute("SELECT id FROM runs WHERE digest = ?", (digest,)).fetchone()
            if found:
                return found[0]
            if source == "import":
                [count] = connection.execute("SELECT COUNT(*) FROM runs WHERE source = 'import'").fetchone()
                if count >= MAX_IMPORTS:
                    raise ValueError(
                        f"The history holds {count} imported runs, as many as it keeps: "
                        "delete one under History to import another."
                    )
            cursor = connection.execute(
                "INSERT INTO runs (created, saved, source, sweep, devices, machine, cells, digest,"
                " document) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            return cursor.lastrowid

    def import_json(self, text: str | bytes) -> int:
        """Validate a CLI JSON file's text and store it as an imported run."""
        return self.save(parse_document(text), "import")

    def runs(self, limit: int = MAX_LISTED) -> list[RunSummary]:
        """Stored runs, newest first: the newest ``limit`` made here and every import (MAX_IMPORTS)."""
        query = (
            "SELECT id, created, source, sweep, devices, machine, cells FROM runs"
            " WHERE (source = 'import') = ? ORDER BY id DESC LIMIT ?"
        )
        with self._open("read") as connection:
            rows = connection.execute(query, (False, limit)).fetchall()
            rows += connection.execute(query, (True, MAX_IMPORTS)).fetchall()
        return sorted((RunSummary(*row) for row in rows), key=lambda run: run.id, reverse=True)

    def load(self, run_id: int) -> dict:
        """The JSON document of one run."""
        with self._open("read") as connection:
            row = connection.execute("SELECT document FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise ValueError(f"There is no benchmark run #{run_id} in the history.")
        try:
            return with_current_names(json.loads(row[0]))
        except (ValueError, RecursionError) as error:
            raise ValueError(
                f"Run #{run_id} in the history cannot be read ({type(error).__name__})."
            ) from None

    def delete(self, run_id: int) -> None:
        """Forget one run."""
        with self._open("delete from") as connection:
            connection.execute("DELETE FROM runs WHERE id = ?", (run_id,))


def _now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")
