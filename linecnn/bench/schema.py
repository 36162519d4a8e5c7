"""The benchmark history's table: today's columns, and how a file made by an older linecnn gains them."""

from __future__ import annotations

import contextlib
import sqlite3

from linecnn.bench.document import BenchDocument
from linecnn.bench.span import Span

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
    document TEXT NOT NULL,        -- the JSON document itself
    owner TEXT NOT NULL DEFAULT '',       -- who ran or imported it when signed in (e-mail), else ''
    owner_name TEXT NOT NULL DEFAULT '',  -- that person's name as the class sees it, else ''
    span TEXT NOT NULL DEFAULT ''         -- what it timed (linecnn.bench.span's JSON), '' when not known
)
"""
OLD_COLUMNS = (  # the first histories' columns
    "id", "created", "saved", "source", "sweep", "devices", "machine", "cells", "digest", "document",
)
OWNED_COLUMNS = (*OLD_COLUMNS, "owner", "owner_name")  # a history's columns before spans
COLUMNS = (*OWNED_COLUMNS, "span")
# A RunSummary's fields, in its order
LISTED = "id, created, source, sweep, devices, machine, cells, owner, owner_name, span"
# A history made before runs had owners gains the two columns, its rows owned by nobody; one made
# before spans gains that column, each row's worked out once from its document.
ADD_OWNERS = (
    "ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN owner_name TEXT NOT NULL DEFAULT ''",
)
ADD_SPAN = ("ALTER TABLE runs ADD COLUMN span TEXT NOT NULL DEFAULT ''",)


def upgrade(connection: sqlite3.Connection) -> tuple[str, ...]:
    """Give a history made by an older linecnn today's columns, and return its columns now."""
    columns = _columns(connection)
    if columns == OLD_COLUMNS:
        columns = _add(connection, ADD_OWNERS)
    if columns == OWNED_COLUMNS:
        columns = _add(connection, ADD_SPAN)
        _fill_spans(connection)
    return columns


def span_text(document: BenchDocument) -> str:
    """What a row keeps of ``document``'s span."""
    return Span.of(document).to_text()


def _add(connection: sqlite3.Connection, statements: tuple[str, ...]) -> tuple[str, ...]:
    """Add columns to the runs table, and return its columns now."""
    # Another process may add them first: its "duplicate column" error is no problem.
    with contextlib.suppress(sqlite3.OperationalError), connection:
        for statement in statements:
            connection.execute(statement)
    return _columns(connection)


def _fill_spans(connection: sqlite3.Connection) -> None:
    """Work out each older row's span once, one document at a time; a row that cannot be read keeps ''."""
    spans = []
    for (run_id,) in connection.execute("SELECT id FROM runs WHERE span = ''").fetchall():
        row = connection.execute("SELECT document FROM runs WHERE id = ?", (run_id,)).fetchone()
        with contextlib.suppress(ValueError):  # unreadable today: loading the run says why
            spans.append((span_text(BenchDocument.from_json(row[0])), run_id))
    with connection:  # one transaction: a commit per row would wait on the disk hundreds of times
        connection.executemany("UPDATE runs SET span = ? WHERE id = ? AND span = ''", spans)


def _columns(connection: sqlite3.Connection) -> tuple[str, ...]:
    """The runs table's columns, in order."""
    return tuple(row[1] for row in connection.execute("PRAGMA table_info(runs)"))
