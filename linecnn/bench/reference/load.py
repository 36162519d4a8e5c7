"""Reference GPU series measured on real GPU machines and bundled with linecnn, for machines without one.

Each ``*.json`` file in this folder is a document printed by ``python -m linecnn bench --json``
on a GPU machine, committed unchanged with the environment it records (GPU, torch, CUDA, date).
Only its accelerator results are drawn, as a series labelled with the GPU it was measured on:
a page on a CPU-only machine can then show where a real GPU's line crosses its CPU's.
Nothing here is ever estimated: a reference is a measurement or it is not bundled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from linecnn.bench.document import BenchDocument

FOLDER = Path(__file__).parent  # where the bundled reference documents live


@dataclass(frozen=True)
class Reference:
    """One bundled reference: the accelerator cells of a benchmark document, and where they were measured."""

    name: str  # the file's name without .json, e.g. 'h200-data'
    gpu: str  # the accelerator names of the machine, e.g. 'NVIDIA H200'
    torch_version: str  # PyTorch that measured it, e.g. '2.13.0+cu128'
    cuda_version: str  # CUDA of that PyTorch build
    date: str  # when it was measured (ISO 8601)
    document: BenchDocument  # the benchmark document with its accelerator results only


def load_references(folder: Path | None = None) -> tuple[list[Reference], list[str]]:
    """The references in ``folder`` (the bundled FOLDER by default), and a sentence per unusable file."""
    found, problems = [], []
    for path in sorted((folder or FOLDER).glob("*.json")):
        try:
            found.append(read_reference(path))
        except (OSError, ValueError) as error:
            problems.append(f"{path.name}: {error}")
    return found, problems


def read_reference(path: Path) -> Reference:
    """One reference file, checked like an import; ValueError when it holds no timed accelerator cell."""
    document = BenchDocument.from_json(path.read_bytes())
    results = tuple(result for result in document.results if result.kind != "cpu")
    if not any(result.ok for result in results):
        raise ValueError("it holds no timed GPU cell: a reference must be measured on a GPU.")
    env = document.env
    gpu = ", ".join(dict.fromkeys(env.gpus)) or results[0].device_name
    return Reference(
        name=path.stem,
        gpu=gpu,
        torch_version=env.torch_version or "?",
        cuda_version=env.cuda_version or "?",
        date=env.date or document.created or "?",
        document=replace(document, results=results),
    )


VENDOR_WORDS = ("nvidia", "geforce", "tesla", "quadro")  # words that name no GPU model


def reference_name(gpu: str, factor: str = "data") -> str:
    """The file a GPU's reference series is kept in, e.g. 'h100-data.json' for 'NVIDIA H100 80GB HBM3'.

    The model is the words up to the first one with a digit, vendor words left out.
    """
    words = [word for word in re.split(r"[^a-z0-9]+", gpu.lower()) if word and word not in VENDOR_WORDS]
    model = []
    for word in words:
        model.append(word)
        if any(ch.isdigit() for ch in word):
            break
    if not model:
        raise ValueError(f"Cannot tell a GPU model from the name {gpu!r}.")
    return f"{''.join(model)}-{factor}.json"
