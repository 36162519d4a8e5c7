"""The history's owners, twins and clearing, and the class board's rows: pure core, no Streamlit."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest

from linecnn.bench.board import LESSON_IMAGES, board_rows
from linecnn.bench.document import BenchDocument
from linecnn.bench.schema import OLD_COLUMNS
from linecnn.bench.store import History, HistoryError
from tests.bench_fixture import fake_gpu_document

OLD_SCHEMA = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL, saved TEXT NOT NULL, source TEXT NOT NULL,
    sweep TEXT NOT NULL, devices TEXT NOT NULL, machine TEXT NOT NULL, cells INTEGER NOT NULL,
    digest TEXT NOT NULL UNIQUE, document TEXT NOT NULL
)
"""


def laptop_document() -> dict:
    """A laptop's CPU-only run of the lesson's cell, as `python -m linecnn bench --json` writes it."""
    document = fake_gpu_document(gpu_only=False, largest=120)
    document["results"] = [
        {**r, "device_name": "CPU · Laptop 4-core CPU"} for r in document["results"] if r["device"] == "cpu"
    ]
    document["devices"] = ["cpu"]
    cpu = {"key": "cpu", "kind": "cpu", "name": "Laptop 4-core CPU", "memory_bytes": 16 * 2**30}
    document["env"] = {**document["env"], "cpu_model": "Laptop 4-core CPU", "devices": [cpu]}
    return document


def test_a_history_from_before_owners_still_loads_and_gains_them(tmp_path):
    """An old file without the owner columns lists and loads its runs, owned by nobody, and takes new ones."""
    path = tmp_path / "bench.sqlite3"
    old = BenchDocument.from_dict(fake_gpu_document(largest=400))
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(OLD_SCHEMA)
        row = ("2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00+00:00", "cli", "data", "cuda:0", "m", 3)
        db.execute(
            f"INSERT INTO runs ({', '.join(OLD_COLUMNS[1:])}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*row, "digest", old.to_json()),
        )
    store = History(path)
    [run] = store.runs()
    assert (run.id, run.owner, run.owner_name) == (1, "", "")
    assert store.load(1) == old
    new = store.save(BenchDocument.from_dict(laptop_document()), "import", "grace@school.edu", "Grace Hopper")
    assert [(r.id, r.owner_name) for r in store.runs()] == [(new, "Grace Hopper"), (1, "")]


def test_the_same_file_imported_twice_is_recognised(tmp_path):
    """``stored`` finds the run a document already is, whoever imported it; saving it again adds nothing."""
    store = History(tmp_path / "h.sqlite3")
    text = json.dumps(laptop_document())
    first = store.import_json(text, "grace@school.edu", "Grace Hopper")
    twin = store.stored(BenchDocument.from_json(json.dumps(json.loads(text), indent=2)))
    assert twin is not None and (twin.id, twin.owner_name) == (first, "Grace Hopper")
    assert twin.user_owns("grace@school.edu") and not twin.user_owns("ada@school.edu")
    assert store.import_json(text, "ada@school.edu", "Ada") == first and len(store.runs()) == 1
    assert store.stored(BenchDocument.from_dict(fake_gpu_document(largest=400))) is None


def test_clearing_forgets_every_run(tmp_path):
    """Clear deletes every run and says how many."""
    store = History(tmp_path / "h.sqlite3")
    store.save(BenchDocument.from_dict(fake_gpu_document(largest=400)), "page")
    store.import_json(json.dumps(laptop_document()))
    assert store.clear() == 2 and store.runs() == []


def test_a_history_error_keeps_the_path_out_of_its_detail(tmp_path):
    """The sentence names the file (for the CLI and the log); the detail a page shows does not."""
    (tmp_path / "file").write_text("")
    store = History(tmp_path / "file" / "sub" / "bench.sqlite3")
    with pytest.raises(HistoryError) as refused:
        store.runs()
    assert str(tmp_path) in str(refused.value)
    assert str(tmp_path) not in refused.value.detail and refused.value.detail


def test_the_board_puts_a_laptop_beside_the_servers_gpu_at_the_same_cells(tmp_path):
    """Each device of each run is a row: the lesson's cell, its largest cell, a GPU's crossover."""
    store = History(tmp_path / "h.sqlite3")
    server = store.save(BenchDocument.from_dict(fake_gpu_document(gpu_only=False)), "page")
    laptop = store.import_json(json.dumps(laptop_document()), "grace@school.edu", "Grace Hopper")
    rows = board_rows((summary, store.load(summary.id)) for summary in store.runs())
    expected = [(laptop, "cpu"), (server, "cuda:0"), (server, "cpu")]
    assert [(row.run.id, row.device) for row in rows] == expected
    grace, gpu, cpu = rows
    assert grace.run.owner_name == "Grace Hopper" and grace.cpu_model == "Laptop 4-core CPU"
    assert grace.lesson is not None and grace.lesson.config.images == LESSON_IMAGES
    assert grace.largest == grace.lesson and grace.crossover is None
    assert gpu.lesson.config.images == LESSON_IMAGES and gpu.largest.config.images > LESSON_IMAGES
    assert gpu.crossover is not None and gpu.crossover.kind == "crosses"
    assert cpu.crossover is None


def test_the_board_leaves_out_cells_not_timed_on_the_lessons_problem(tmp_path):
    """A width sweep's cells are another problem: no row for a run with none at the lesson's settings."""
    document = fake_gpu_document(largest=400)
    for result in document["results"]:
        result["config"]["width"] = 4
    store = History(tmp_path / "h.sqlite3")
    store.import_json(json.dumps(document))
    assert board_rows((s, store.load(s.id)) for s in store.runs()) == []
