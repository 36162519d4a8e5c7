"""Bundled reference GPU series: read from JSON files with their environment, refused when not a GPU's."""

import json

from linecnn.bench.reference.load import load_references
from tests.bench_fixture import fake_gpu_document


def test_a_reference_file_is_read_with_its_environment(tmp_path):
    """A GPU machine's document gives a reference of its GPU cells only, named after its GPU."""
    (tmp_path / "imaginary-data.json").write_text(json.dumps(fake_gpu_document(gpu_only=False)))
    references, problems = load_references(tmp_path)
    assert problems == [] and len(references) == 1
    reference = references[0]
    assert reference.name == "imaginary-data" and reference.gpu == "Imaginary GPU"
    assert (reference.torch_version, reference.cuda_version) == ("2.13.0+cu128", "12.8")
    assert reference.date.startswith("2026-01-01")
    devices = {result.device for result in reference.document.results}
    assert devices == {"cuda:0"}


def test_files_that_are_not_gpu_measurements_are_named_and_skipped(tmp_path):
    """A CPU-only document and a broken file are reported; a good file beside them still loads."""
    cpu_only = fake_gpu_document(gpu_only=False)
    cpu_only["results"] = [r for r in cpu_only["results"] if r["device"] == "cpu"]
    (tmp_path / "a-cpu.json").write_text(json.dumps(cpu_only))
    (tmp_path / "b-broken.json").write_text("{not json")
    (tmp_path / "c-gpu.json").write_text(json.dumps(fake_gpu_document()))
    references, problems = load_references(tmp_path)
    assert [r.name for r in references] == ["c-gpu"]
    assert problems[0].startswith("a-cpu.json: ") and "no timed GPU cell" in problems[0]
    assert problems[1].startswith("b-broken.json: ")


def test_an_empty_folder_has_no_reference(tmp_path):
    """No file, no reference and nothing to report."""
    assert load_references(tmp_path) == ([], [])


def test_a_reference_file_is_named_after_the_gpu_model():
    """The GPU check writes its series under the GPU's model name, vendor words and sizes left out."""
    from linecnn.bench.reference.load import reference_name

    assert reference_name("NVIDIA H100 80GB HBM3") == "h100-data.json"
    assert reference_name("NVIDIA A100-SXM4-80GB") == "a100-data.json"
    assert reference_name("NVIDIA H200") == "h200-data.json"
    assert reference_name("NVIDIA GeForce RTX 4090") == "rtx4090-data.json"
    assert reference_name("Tesla T4") == "t4-data.json"
    assert reference_name("NVIDIA L40S") == "l40s-data.json"
