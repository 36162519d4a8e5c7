"""Benchmark History names each run by what it timed: a single cell's size (and batch), a sweep's range."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from linecnn.bench.config import BenchConfig
from linecnn.bench.document import FORMAT, BenchDocument
from linecnn.bench.schema import OWNED_COLUMNS
from linecnn.bench.span import Span
from linecnn.bench.store import History, RunSummary
from linecnn.ui import i18n
from linecnn.ui.bench.history.section import run_label
from tests.bench_fixture import fake_env, fake_gpu_document, fake_result

# The table as linecnn wrote it once runs had owners, before it kept what each run timed.
OWNED_SCHEMA = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL, saved TEXT NOT NULL, source TEXT NOT NULL,
    sweep TEXT NOT NULL, devices TEXT NOT NULL, machine TEXT NOT NULL, cells INTEGER NOT NULL,
    digest TEXT NOT NULL UNIQUE, document TEXT NOT NULL,
    owner TEXT NOT NULL DEFAULT '', owner_name TEXT NOT NULL DEFAULT ''
)
"""


def single_cell(batch: int | None = None, per_class: int = 120) -> BenchDocument:
    """A CPU-only single-cell run of ``per_class`` images per class, in batches of ``batch`` (None: full)."""
    env = fake_env()
    config = BenchConfig.from_flat(per_class=per_class, batch_size=batch, warmup=2, repeats=5)
    result = {**fake_result("cpu", config, 5.0, env), "factor": "none"}
    document = {"format": FORMAT, "created": env["date"], "sweep": "none", "devices": ["cpu"], "env": env}
    return BenchDocument.from_dict({**document, "notes": [], "results": [result]})


def labels(store: History, language: str, monkeypatch) -> list[str]:
    """Every stored run's label in the picker, newest first, in ``language``."""
    monkeypatch.setattr(i18n, "current", lambda: language)
    return [run_label(summary) for summary in store.runs()]


def test_each_run_kept_says_what_it_timed_in_both_languages(tmp_path, monkeypatch):
    """A full-batch cell names its images, a smaller batch too, a data sweep its range, in both languages."""
    store = History(tmp_path / "h.sqlite3")
    store.save(single_cell(), "page")
    store.save(single_cell(batch=64), "page")
    store.save(BenchDocument.from_dict(fake_gpu_document(gpu_only=False, largest=40_000)), "cli")
    english, spanish = labels(store, "en", monkeypatch), labels(store, "es", monkeypatch)
    assert " · data sweep · 360–120,000 images · CUDA:0, CPU · " in english[0]
    assert " · single cell · 360 images, batches of 64 · CPU · " in english[1]
    assert " · single cell · 360 images · CPU · " in english[2]
    assert " · variando datos · de 360 a 120.000 imágenes · CUDA:0, CPU · " in spanish[0]
    assert " · una celda · 360 imágenes, lotes de 64 · CPU · " in spanish[1]
    assert " · una celda · 360 imágenes · CPU · " in spanish[2]


def test_a_device_this_pytorch_does_not_know_is_named_as_the_board_names_it(tmp_path, monkeypatch):
    """An imported run from a machine with other devices names them in capitals, as the class board does."""
    data = fake_gpu_document(gpu_only=False, largest=400)
    data["results"][0] = {**data["results"][0], "device": "npu:1"}
    store = History(tmp_path / "h.sqlite3")
    store.save(BenchDocument.from_dict(data), "import")
    for language in ("en", "es"):
        assert " · NPU:1, CPU, CUDA:0 · " in labels(store, language, monkeypatch)[0]


def test_the_range_is_the_cells_that_got_timings():
    """Cells skipped at the time cap are not claimed; a run with none timed spans all its cells."""
    data = fake_gpu_document(gpu_only=True, largest=4_000)  # 360 to 12,000 images
    data["results"][-1] = {**data["results"][-1], "status": "skipped: time cap", "times_ms": []}
    for key in ("median_ms", "p25_ms", "p75_ms", "samples_per_s", "first_epoch_ms", "context_ms"):
        data["results"][-1][key] = None
    assert Span.of(BenchDocument.from_dict(data)) == Span(360, 3_600, None)
    assert Span.of(single_cell(batch=64)) == Span(360, 360, 64)


def test_a_history_from_before_spans_gains_them_and_keeps_loading(tmp_path, monkeypatch):
    """An old file without the span column lists, loads and names its runs' sizes; a row unreadable today
    is listed without one; new runs are saved with theirs."""
    path = tmp_path / "bench.sqlite3"
    old = BenchDocument.from_dict(fake_gpu_document(largest=400))
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(OWNED_SCHEMA)
        row = ("2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00+00:00", "cli", "data", "cuda:0", "m", 2)
        insert = f"INSERT INTO runs ({', '.join(OWNED_COLUMNS[1:])}) VALUES ({', '.join('?' * 11)})"
        db.execute(insert, (*row, "d1", old.to_json(), "grace@school.edu", "Grace"))
        db.execute(insert, (*row, "d2", '{"format": "linecnn.bench/1"}', "", ""))
    store = History(path)
    broken, good = store.runs()
    assert (good.id, good.owner_name, good.timed) == (1, "Grace", Span(360, 1_200, None))
    assert broken.timed is None and store.load(1) == old
    english = labels(store, "en", monkeypatch)
    assert " · data sweep · 360–1,200 images · CUDA:0 · " in english[1]
    assert " · data sweep · CUDA:0 · " in english[0]  # its size unknown, the rest of its name as before
    new = store.save(single_cell(batch=64), "page")
    assert store.runs()[0].id == new and store.runs()[0].timed == Span(360, 360, 64)


NOT_SPANS = ["", "not json", "[]", '{"low": 0, "high": 5}', '{"low": 9, "high": 5}', '{"low": true}']


@pytest.mark.parametrize("text", NOT_SPANS)
def test_a_span_text_that_is_not_ours_reads_as_unknown(text):
    """A row's span that is empty, not JSON or not sensible numbers names no size rather than a wrong one."""
    assert RunSummary(1, "2026-01-01T00:00", "page", "none", "cpu", "m", 1, span=text).timed is None
