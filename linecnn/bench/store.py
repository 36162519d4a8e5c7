"""Benchmark history in SQLite: every run the page or the CLI makes, and JSON imported from other machines.

One row per run holds the whole JSON document (``BenchDocument.to_json``, what ``linecnn bench
--json`` prints) plus a few columns to list runs without parsing it. The file lives in the
per-user data directory, or under $LINECNN_DATA_DIR (see ``linecnn.classroom.paths``).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from linecnn.bench.document import BenchDocument
from linecnn.bench.factors import SINGLE
from linecnn.bench.schema import COLUMNS, LISTED, SCHEMA, span_text, upgrade
from linecnn.bench.span import Span
from linecnn.classroom.paths import data_dir
from linecnn.errors import UserError, said

DB_NAME = "bench.sqlite3"
SOURCES = ("page", "cli", "import")
# The page's listing: imported runs are listed and kept within their own limit, so uploads can
# never push a run measured here out of the list.
MAX_LISTED = 500  # runs made by the page or the CLI, newest first
MAX_IMPORTS = 100  # imported runs kept (at most MAX_FILE_BYTES each); more need a delete first
LOCK_TIMEOUT = 10.0  # seconds a write waits for another writer's lock before it gives up with a sentence
# Seconds a read waits: a page reads the history on every run, and an ordinary write holds its lock
# for milliseconds, so a reader that waited longer would only freeze the page behind a stuck writer.
READ_TIMEOUT = 1.0


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
    owner: str = ""  # who ran or imported it when signed in (e-mail), else ''
    owner_name: str = ""  # that person's name as the class sees it, else ''
    span: str = ""  # what it timed, as its row keeps it (``timed`` reads it); '' when not known

    @property
    def timed(self) -> Span | None:
        """What the run timed (a sweep's range, a single cell's size), or None when not known."""
        return Span.read(self.span)

    def user_owns(self, user: str) -> bool:
        """True when ``user`` (a signed-in e-mail) ran or imported this run."""
        return bool(user) and self.owner == user

    @property
    def label(self) -> str:
        """E.g. '#7 · 2025-06-01 14:03 · data sweep · cpu, cuda:0 · imported'."""
        when = self.created.replace("T", " ")[:16]
        sweep = "single cell" if self.sweep == SINGLE.name else f"{self.sweep} sweep"
        origin = " · imported" if self.source == "import" else ""
        return f"#{self.id} · {when} · {sweep} · {self.devices}{origin}"


class HistoryError(ValueError):
    """The history file cannot be used: the sentence names the file, ``detail`` says why without it."""

    def __init__(self, sentence: str, detail: str) -> None:
        super().__init__(sentence)
        self.detail = detail  # what went wrong, for a page that must not show the server's paths


class History:
    """The SQLite file of past benchmark runs. Safe to use from several threads: one connection per call."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else data_dir() / DB_NAME

    def _connect(self, timeout: float = LOCK_TIMEOUT) -> sqlite3.Connection:
        """A connection with the table in place (the directory is made on first use); ``timeout``: how
        long it waits for another connection's lock."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=timeout)
            connection.execute(SCHEMA)
            columns = upgrade(connection)
        except (OSError, sqlite3.Error) as error:
            # An OSError's own text names the path; its strerror alone does not.
            detail = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            raise HistoryError(f"{self._cannot('open')}: {error}.", detail) from None
        if columns != COLUMNS:
            connection.close()
            detail = (
                f"its runs table has other columns ({', '.join(columns)}), so it is not a linecnn history"
            )
            raise HistoryError(f"{self._cannot('open')}: {detail}. Move the file away.", detail)
        return connection

    @contextmanager
    def _open(self, doing: str) -> Iterator[sqlite3.Connection]:
        """A connection in a transaction; any SQLite error becomes a ValueError naming the file."""
        try:
            timeout = READ_TIMEOUT if doing == "read" else LOCK_TIMEOUT
            with closing(self._connect(timeout)) as connection, connection:
                yield connection
        except sqlite3.Error as error:  # a corrupt, full, read-only or locked file
            raise HistoryError(f"{self._cannot(doing)}: {error}.", str(error)) from None

    def _cannot(self, doing: str) -> str:
        """'Cannot read the benchmark history at PATH': the start of a sentence for the CLI and the log."""
        return f"Cannot {doing} the benchmark history at {self.path}"

    def save(self, document: BenchDocument, source: str, owner: str = "", owner_name: str = "") -> int:
        """Store a run (``owner``: who ran or imported it) and return its id; a document already stored
        keeps its first id and owner."""
        if source not in SOURCES:
            raise ValueError(f"Source must be one of {', '.join(SOURCES)}; got {source!r}.")
        text = document.to_json()
        digest = _digest(text)
        devices = ", ".join(dict.fromkeys(result.device for result in document.results))
        row = (
            document.created or _now(),
            _now(),
            source,
            document.factor.name,
            devices,
            document.env.machine,
            len(document.results),
            digest,
            text,
            owner,
            owner_name,
            span_text(document),
        )
        with self._open("save to") as connection:
            found = connection.execute("SELECT id FROM runs WHERE digest = ?", (digest,)).fetchone()
            if found:
                return found[0]
            if source == "import":
                [count] = connection.execute("SELECT COUNT(*) FROM runs WHERE source = 'import'").fetchone()
                if count >= MAX_IMPORTS:
                    raise UserError("history_imports_full", count=count)
            cursor = connection.execute(
                f"INSERT INTO runs ({', '.join(COLUMNS[1:])}) VALUES ({', '.join('?' * len(row))})",
                row,
            )
            assert cursor.lastrowid is not None  # set by every INSERT into a rowid table
            return cursor.lastrowid

    def import_json(self, text: str | bytes, owner: str = "", owner_name: str = "") -> int:
        """Validate a CLI JSON file's text and store it as an imported run."""
        return self.save(BenchDocument.from_json(text), "import", owner, owner_name)

    def stored(self, document: BenchDocument) -> RunSummary | None:
        """The run this very document already is in the history (the same file imported twice), or None."""
        query = f"SELECT {LISTED} FROM runs WHERE digest = ?"
        with self._open("read") as connection:
            row = connection.execute(query, (_digest(document.to_json()),)).fetchone()
        return None if row is None else RunSummary(*row)

    def runs(self, limit: int = MAX_LISTED) -> list[RunSummary]:
        """Stored runs, newest first: the newest ``limit`` made here and every import (MAX_IMPORTS)."""
        query = f"SELECT {LISTED} FROM runs WHERE (source = 'import') = ? ORDER BY id DESC LIMIT ?"
        with self._open("read") as connection:
            rows = connection.execute(query, (False, limit)).fetchall()
            rows += connection.execute(query, (True, MAX_IMPORTS)).fetchall()
        return sorted((RunSummary(*row) for row in rows), key=lambda run: run.id, reverse=True)

    def version(self) -> tuple[int, int, int]:
        """What changes whenever a run is stored, imported or deleted: the count, sum and top of the ids."""
        with self._open("read") as connection:
            row = connection.execute("SELECT COUNT(*), COALESCE(SUM(id), 0), COALESCE(MAX(id), 0) FROM runs")
            count, total, top = row.fetchone()
        return count, total, top

    def load(self, run_id: int) -> BenchDocument:
        """The document of one run; ValueError with a sentence when its row cannot be read."""
        with self._open("read") as connection:
            row = connection.execute("SELECT document FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise ValueError(f"There is no benchmark run #{run_id} in the history.")
        try:
            return BenchDocument.from_json(row[0])
        except ValueError as error:
            raise UserError("history_unreadable", run=str(run_id), problem=said(error)) from None

    def delete(self, run_id: int) -> None:
        """Forget one run."""
        with self._open("delete from") as connection:
            connection.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    def clear(self) -> int:
        """Forget every run; returns how many there were."""
        with self._open("clear") as connection:
            return connection.execute("DELETE FROM runs").rowcount


def _digest(text: str) -> str:
    """The key that recognises a document stored twice: sha256 of its canonical JSON."""
    return hashlib.sha256(text.encode()).hexdigest()


def _now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")
