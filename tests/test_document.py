"""The benchmark document's JSON edge: what the app writes reads back equal, old files still read."""

from __future__ import annotations

import json

import pytest

from linecnn.bench.config import BenchConfig
from linecnn.bench.document import BenchDocument, BenchEnv
from linecnn.bench.factors import FACTORS
from linecnn.bench.results import CellResult, CellStatus
from tests.bench_fixture import fake_gpu_document

STATUSES = [
    ("ok", CellStatus.OK, ""),
    ("out of memory", CellStatus.OUT_OF_MEMORY, ""),
    ("failed: RuntimeError: shape mismatch", CellStatus.FAILED, "RuntimeError: shape mismatch"),
    ("stopped: time cap of 15 s", CellStatus.STOPPED, "time cap of 15 s"),
    ("skipped: time cap", CellStatus.SKIPPED, "time cap"),
]


def test_a_document_reads_back_as_the_same_json():
    """A file shaped as the app writes it becomes a typed document whose JSON is that file again."""
    data = fake_gpu_document(gpu_only=False, largest=4_000)
    document = BenchDocument.from_json(json.dumps(data))
    assert document.factor.name == "data" and len(document.results) == 8
    assert document.results[0].config == BenchConfig.from_flat(per_class=120, warmup=2, repeats=5)
    assert document.env.gpus == ["Imaginary GPU"] and document.env.machine.endswith("· Imaginary GPU")
    assert json.loads(document.to_json()) == data
    assert BenchDocument.from_json(document.to_json()) == document


@pytest.mark.parametrize(("text", "status", "reason"), STATUSES, ids=[s[0] for s in STATUSES])
def test_every_status_the_app_wrote_reads_as_its_enum(text, status, reason):
    """'failed: ...', 'stopped: ...' and 'skipped: ...' become an enum and a reason, and are written back."""
    data = fake_gpu_document(largest=120)
    untimed = dict.fromkeys(("median_ms", "p25_ms", "p75_ms", "samples_per_s"))
    data["results"][0].update(status=text, **({} if status is CellStatus.OK else untimed))
    result = BenchDocument.from_dict(data).results[0]
    assert (result.status, result.reason, result.ok) == (status, reason, status is CellStatus.OK)
    assert result.status_text == text


def test_an_old_file_with_the_data_mode_seed_reads_as_lesson():
    """Files written when the lesson's data mode was called "seed" read with "lesson"."""
    data = fake_gpu_document(largest=120)
    data["results"][0]["config"]["data_mode"] = "seed"
    [result] = BenchDocument.from_dict(data).results
    assert result.config.run.data.mode == "lesson"


def test_the_derived_sizes_are_recomputed_not_trusted():
    """images, step_size, x and variant in a file are written for other readers; linecnn recomputes them."""
    data = fake_gpu_document(largest=120)
    data["results"][0]["config"].update(images=5, variant="fast")
    data["results"][0]["x"] = 5.0
    [result] = BenchDocument.from_dict(data).results
    assert (result.config.images, result.config.variant) == (360, "eager")
    assert BenchDocument.from_dict(data).to_dict()["results"][0]["x"] == 360.0


def test_a_run_made_here_converts_both_ways():
    """A document built from typed results (as a sweep makes it) survives its own JSON."""
    config = BenchConfig.from_flat(per_class=40, batch_size=16, width=2, amp="bf16", compile=True)
    results = (
        CellResult("cpu", "CPU · test", config.for_device("cpu")[0], CellStatus.FAILED, reason="boom"),
        CellResult("cuda:0", "CUDA:0 · test", config, CellStatus.SKIPPED, reason="time cap"),
    )
    env = BenchEnv(cpu_model="test")
    document = BenchDocument(FACTORS["batch"], results, env, ("cpu", "cuda:0"), ("a note",))
    assert BenchDocument.from_json(document.to_json()) == document
    assert json.loads(document.to_json())["results"][1]["config"]["variant"] == "bf16 + compile"
