"""Benchmark history in SQLite: every run the page or the CLI makes, and JSON imported from other machines.

One row per run holds the whole JSON document (what ``linecnn bench --json`` prints) plus a
few columns to list runs without parsing it. The file lives in the per-user data directory,
or under $LINECNN_DATA_DIR (see ``linecnn.paths``).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from linecnn.paths import data_dir
from linecnn.sweep import FACTORS, FORMAT

DB_NAME = "bench.sqlite3"
SOURCES = ("page", "cli", "import")
REQUIRED = ("device", "config", "status", "median_ms", "p25_ms", "p75_ms", "samples_per_s")

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
    """Return ``document`` if it is a linecnn benchmark JSON, else raise ValueError saying what is wrong."""
    what = "This is not a linecnn benchmark JSON (make one with: python -m linecnn bench --json --out FILE)"
    if not isinstance(document, dict) or not str(document.get("format", "")).startswith("linecnn.bench/"):
        raise ValueError(f"{what}.")
    if document["format"] != FORMAT:
        raise ValueError(
            f"This benchmark JSON has format {document['format']!r}; this linecnn reads {FORMAT!r}."
        )
    results = document.get("results")
    if not isinstance(results, list) or not results:
        raise ValueError(f"{what}: it has no results.")
    for number, result in enumerate(results, start=1):
        missing = [key for key in REQUIRED if not isinstance(result, dict) or key not in result]
        if missing:
            raise ValueError(f"{what}: result {number} lacks {', '.join(missing)}.")
        if not isinstance(result["config"], dict) or "images" not in result["config"]:
            raise ValueError(f"{what}: result {number} has no usable config.")
    if document.get("sweep") not in FACTORS:
        raise ValueError(f"{what}: unknown sweep {document.get('sweep')!r}.")
    return document


def parse_document(text: str | bytes) -> dict:
    """Parse and validate a benchmark JSON file's text."""
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"This file is not valid JSON ({error}).") from None
    return validate_document(document)


def machine_of(document: dict) -> str:
    """CPU model and accelerator names of the machine a document was measured on."""
    env = document.get("env") or {}
    names = [env.get("cpu_model") or "unknown CPU"]
    names += [d.get("name", "?") for d in env.get("devices", []) if d.get("kind") != "cpu"]
    return " · ".join(names)


class History:
    """The SQLite file of past benchmark runs. Safe to use from several threads: one connection per call."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else data_dir() / DB_NAME

    def _connect(self) -> sqlite3.Connection:
        """A connection with the table in place (the directory is made on first use)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=10)
            connection.execute(SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise ValueError(f"Cannot open the benchmark history at {self.path}: {error}.") from None
        return connection

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
        with closing(self._connect()) as connection, connection:
            found = connection.execute("SELECT id FROM runs WHERE digest = ?", (digest,)).fetchone()
            if found:
                return found[0]
            cursor = connection.execute(
                "INSERT INTO runs (created, saved, source, sweep, devices, machine, cells, digest, document)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            return cursor.lastrowid

    def import_json(self, text: str | bytes) -> int:
        """Validate a CLI JSON file's text and store it as an imported run."""
        return self.save(parse_document(text), "import")

    def runs(self, limit: int = 500) -> list[RunSummary]:
        """Stored runs, newest first."""
        with closing(self._connect()) as connection:
            rows = connection.execute(
                "SELECT id, created, source, sweep, devices, machine, cells FROM runs"
                " ORDER BY id DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [RunSummary(*row) for row in rows]

    def load(self, run_id: int) -> dict:
        """The JSON document of one run."""
        with closing(self._connect()) as connection:
            row = connection.execute("SELECT document FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise ValueError(f"There is no benchmark run #{run_id} in the history.")
        return json.loads(row[0])

    def delete(self, run_id: int) -> None:
        """Forget one run."""
        with closing(self._connect()) as connection, connection:
            connection.execute("DELETE FROM runs WHERE id = ?", (run_id,))


def _now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")
