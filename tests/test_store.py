"""The benchmark history: SQLite round trip, the data directory override, importing CLI JSON."""

from __future__ import annotations

import json
import re

import pytest

from linecnn import paths
from linecnn.cli import main
from linecnn.store import History, parse_document
from tests.bench_fixture import bad_documents, fake_gpu_document


def test_round_trip_keeps_the_document(tmp_path):
    """A saved run lists with its summary and loads back unchanged; the same document is kept once."""
    store = History(tmp_path / "h.sqlite3")
    document = fake_gpu_document(gpu_only=False, largest=400)  # 2 sizes x 2 devices
    run_id = store.save(document, "page")
    assert store.load(run_id) == document
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
    assert loaded["results"][0]["device"] == "cpu" and loaded["results"][0]["config"]["images"] == 60
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
        parse_document(text)


@pytest.mark.parametrize(("name", "case"), bad_documents().items(), ids=list(bad_documents()))
def test_malformed_documents_are_refused_with_a_sentence(name, case, tmp_path):
    """Wrong types, unknown factors, missing config keys and repeated cells are refused at import."""
    document, message = case
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_document(json.dumps(document))
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
    assert parse_document(json.dumps(document)) == document


def test_an_unwritable_history_is_a_sentence(tmp_path):
    """A history under a plain file cannot be opened: a ValueError that names the path."""
    (tmp_path / "file").write_text("")
    store = History(tmp_path / "file" / "sub" / "bench.sqlite3")
    with pytest.raises(ValueError, match="Cannot open the benchmark history"):
        store.save(fake_gpu_document(largest=400), "cli")
