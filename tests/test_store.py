"""The benchmark history: SQLite round trip, the data directory override, importing CLI JSON."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from contextlib import closing

import pytest

from linecnn.bench import store as store_module
from linecnn.bench.document import BenchDocument
from linecnn.bench.results import CellStatus
from linecnn.bench.store import History
from linecnn.classroom import paths
from linecnn.cli.main import main
from linecnn.ui.i18n import say
from tests.bench_fixture import bad_documents, fake_gpu_document, hostile_imports


def test_round_trip_keeps_the_document(tmp_path):
    """A saved run lists with its summary and loads back unchanged; the same document is kept once."""
    store = History(tmp_path / "h.sqlite3")
    data = fake_gpu_document(gpu_only=False, largest=400)  # 2 sizes x 2 devices
    document = BenchDocument.from_dict(data)
    run_id = store.save(document, "page")
    assert store.load(run_id) == document and store.load(run_id).to_dict() == data
    [summary] = store.runs()
    assert (summary.id, summary.source, summary.sweep, summary.cells) == (run_id, "page", "data", 4)
    assert summary.devices == "cuda:0, cpu" and "Imaginary GPU" in summary.machine
    assert f"#{run_id}" in summary.label and "data sweep" in summary.label
    assert store.save(document, "import") == run_id  # same digest: no duplicate
    store.delete(run_id)
    assert store.runs() == []
    with pytest.raises(ValueError, match="no benchmark run #"):
        store.load(run_id)


def test_data_dir_follows_the_environment(tmp_path, monkeypatch):
    """$LINECNN_DATA_DIR moves the history; without it, a per-user directory is used."""
    monkeypatch.setenv(paths.DATA_DIR_ENV, str(tmp_path / "elsewhere"))
    assert History().path == tmp_path / "elsewhere" / "bench.sqlite3"
    monkeypatch.delenv(paths.DATA_DIR_ENV)
    assert paths.data_dir().name == "linecnn"


def test_cli_json_imports_into_the_history(tmp_path, monkeypatch, capsys):
    """The file `bench --json --out` writes on one machine imports into another machine's history."""
    monkeypatch.setenv(paths.DATA_DIR_ENV, str(tmp_path / "laptop"))
    out = tmp_path / "cloud.json"
    argv = ["bench", "--json", "--devices", "cpu", "--per-class", "20", "--warmup", "1", "--repeats", "2"]
    assert main([*argv, "--out", str(out), "--no-save"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(out.read_text())
    store = History()
    run_id = store.import_json(out.read_bytes())
    loaded = store.load(run_id)
    assert loaded.results[0].device == "cpu" and loaded.results[0].config.images == 60
    assert store.runs()[0].source == "import"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"format": "something/else"}', "not a linecnn benchmark JSON"),
        ('{"format": "linecnn.bench/9", "results": []}', "this linecnn reads"),
        ('{"format": "linecnn.bench/1", "sweep": "data", "results": []}', "it has no results"),
        ('{"format": "linecnn.bench/1", "sweep": "data", "results": [{"device": "cpu"}]}', "lacks config"),
    ],
)
def test_bad_imports_are_sentences(text, message):
    """A file that is not a benchmark JSON is refused with a reason, never a traceback."""
    with pytest.raises(ValueError, match=message):
        BenchDocument.from_json(text)


@pytest.mark.parametrize(("name", "case"), bad_documents().items(), ids=list(bad_documents()))
def test_malformed_documents_are_refused_with_a_sentence(name, case, tmp_path):
    """Wrong types, unknown modes, missing config keys and repeated cells are refused at import."""
    document, message = case
    with pytest.raises(ValueError, match=re.escape(message)):
        BenchDocument.from_json(json.dumps(document))
    store = History(tmp_path / "h.sqlite3")
    with pytest.raises(ValueError, match="cannot be used"):
        store.import_json(json.dumps(document))
    assert store.runs() == []  # nothing half-stored


def test_a_real_run_passes_the_strict_check(tmp_path, capsys, monkeypatch):
    """What the CLI writes (tuples in memory, lists in JSON) is accepted both before and after JSON."""
    monkeypatch.setenv(paths.DATA_DIR_ENV, str(tmp_path))
    argv = ["bench", "--json", "--devices", "cpu", "--per-class", "20", "--warmup", "1", "--repeats", "1"]
    assert main([*argv, "--sweep", "width", "--up-to", "2"]) == 0
    assert capsys.readouterr().err == ""  # saved without a warning
    document = History().load(History().runs()[0].id)
    assert BenchDocument.from_json(document.to_json()) == document
    assert [result.config.run.model.width for result in document.results] == [1, 2]
    assert all(result.status is CellStatus.OK for result in document.results)


def test_an_unwritable_history_is_a_sentence(tmp_path):
    """A history under a plain file cannot be opened: a ValueError that names the path."""
    (tmp_path / "file").write_text("")
    store = History(tmp_path / "file" / "sub" / "bench.sqlite3")
    with pytest.raises(ValueError, match="Cannot open the benchmark history"):
        store.save(BenchDocument.from_dict(fake_gpu_document(largest=400)), "cli")


@pytest.mark.parametrize(("name", "case"), hostile_imports().items(), ids=list(hostile_imports()))
def test_hostile_imports_are_refused_with_one_sentence(name, case, tmp_path):
    """Deep nesting, huge numbers, NaN, lone surrogates, oversize files: one sentence each, nothing stored."""
    text, message = case
    store = History(tmp_path / "h.sqlite3")
    with pytest.raises(ValueError, match=re.escape(message)) as refused:
        store.import_json(text)
    sentence = str(refused.value)
    assert len(sentence) < 600 and "\n" not in sentence and sentence.endswith(".")
    assert store.runs() == []


def test_imports_cannot_push_local_runs_out_of_the_listing(tmp_path, monkeypatch):
    """Imports are listed within their own limit: a flood of uploads leaves every local run listed."""
    import linecnn.bench.store

    monkeypatch.setattr(linecnn.bench.store, "MAX_IMPORTS", 3)
    store = History(tmp_path / "h.sqlite3")
    local = [store.save(BenchDocument.from_dict(fake_gpu_document(largest=n)), "page") for n in (120, 400)]
    imported = []
    for n in range(3):
        document = fake_gpu_document(largest=400)
        document["notes"] = [f"upload {n}"]
        imported.append(store.import_json(json.dumps(document)))
    document["notes"] = ["one too many"]
    with pytest.raises(ValueError, match="holds 3 imported runs") as full:
        store.import_json(json.dumps(document))
    # Said in Spanish on a Spanish page, and naming who may make room on a class's server
    spanish = "El historial de este servidor ya tiene el máximo de ejecuciones importadas que guarda (3)"
    assert say(full.value, "es").startswith(spanish)
    assert "by a teacher" in str(full.value)
    listed = [run.id for run in store.runs(limit=2)]
    assert set(local) <= set(listed) and set(imported) <= set(listed)
    store.delete(imported[0])  # deleting one makes room for the next
    assert store.import_json(json.dumps(document))


def corrupt(path, how: str) -> None:
    """Spoil the history file at ``path`` the way ``how`` says."""
    if how == "garbage bytes":
        path.write_bytes(b"this is not an SQLite file at all" * 100)
    elif how == "empty file":
        path.write_bytes(b"")
    elif how == "foreign schema":
        with closing(sqlite3.connect(path)) as connection, connection:
            connection.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT)")
            connection.execute("INSERT INTO runs (name) VALUES ('not a benchmark')")
    elif how == "truncated database":
        store = History(path)
        for n in range(20):
            document = fake_gpu_document(largest=400)
            document["notes"] = [f"run {n}" * 200]
            store.save(BenchDocument.from_dict(document), "page")
        data = path.read_bytes()
        path.write_bytes(data[:4096] + b"\x00" * 100 + data[8192:])


@pytest.mark.parametrize("how", ["garbage bytes", "foreign schema", "truncated database"])
def test_a_corrupt_history_is_a_sentence(tmp_path, how):
    """Listing, loading and saving a corrupt history raise a ValueError naming the file, not sqlite3's."""
    path = tmp_path / "bench.sqlite3"
    corrupt(path, how)
    store = History(path)
    document = BenchDocument.from_dict(fake_gpu_document(largest=400))
    for action in (store.runs, lambda: store.load(1), lambda: store.save(document, "page")):
        with pytest.raises(ValueError, match="benchmark history at"):
            action()


def test_an_empty_file_is_a_new_history(tmp_path):
    """A zero-byte file (a crash before the first write) is an empty history, not an error."""
    path = tmp_path / "bench.sqlite3"
    corrupt(path, "empty file")
    store = History(path)
    assert store.runs() == []
    assert store.save(BenchDocument.from_dict(fake_gpu_document(largest=400)), "page") == 1


def test_old_documents_with_data_mode_seed_load_as_lesson(tmp_path):
    """A benchmark JSON or history row written when the lesson's data mode was called "seed"
    imports and loads with "lesson"; the caller's document is not changed."""
    store = History(tmp_path / "h.sqlite3")
    old = fake_gpu_document(gpu_only=False, largest=400)
    for result in old["results"]:
        result["config"]["data_mode"] = "seed"
    run_id = store.import_json(json.dumps(old))
    assert {r.config.run.data.mode for r in store.load(run_id).results} == {"lesson"}
    with closing(sqlite3.connect(tmp_path / "h.sqlite3")) as db:  # a row stored by an older linecnn
        db.execute("UPDATE runs SET document = ?", (json.dumps(old),))
        db.commit()
    assert {r.config.run.data.mode for r in store.load(run_id).results} == {"lesson"}
    assert {r["config"]["data_mode"] for r in old["results"]} == {"seed"}


@pytest.mark.parametrize(("name", "case"), bad_documents().items(), ids=list(bad_documents()))
def test_a_stored_row_that_is_no_longer_valid_loads_as_a_sentence(name, case, tmp_path):
    """A row written without today's checks (an older linecnn, a hand edit) is a ValueError naming the run
    and the problem when loaded, never a half-read document."""
    store = History(tmp_path / "h.sqlite3")
    run_id = store.save(BenchDocument.from_dict(fake_gpu_document(largest=400)), "import")
    document, message = case
    with closing(sqlite3.connect(store.path)) as db, db:
        db.execute("UPDATE runs SET document = ?", (json.dumps(document),))
    refused = f"Run #{run_id} in the history cannot be read: .*{re.escape(message)}"
    with pytest.raises(ValueError, match=refused):
        store.load(run_id)


def test_a_read_gives_up_at_once_behind_a_writer_that_holds_the_file(tmp_path, monkeypatch):
    """Another process locks the file for a long write: the page's reads say so within READ_TIMEOUT
    instead of freezing every run of the page for a writer's full LOCK_TIMEOUT."""
    monkeypatch.setattr(store_module, "LOCK_TIMEOUT", 120.0)
    monkeypatch.setattr(store_module, "READ_TIMEOUT", 0.05)
    history = History(tmp_path / "bench.sqlite3")
    history.runs()
    holder = sqlite3.connect(history.path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        with pytest.raises(ValueError, match="database is locked"):
            history.runs()
        assert time.monotonic() - started < 60  # gave up long before a writer's 120 s
    finally:
        holder.rollback()
        holder.close()
