"""A hand-made benchmark document from an imaginary GPU machine, for tests and screenshots only.

Its numbers are MADE UP (a simple launch-cost-plus-work model), never a measurement: the device
name says so on screen. It has the exact shape ``linecnn bench --json`` prints.
"""

from __future__ import annotations

import json
import math

from linecnn.bench.config import BenchConfig
from linecnn.bench.document import FORMAT
from linecnn.bench.factors import DATA_PER_CLASS

FAKE_GPU_NAME = "CUDA:0 · Imaginary GPU (test fixture, made-up numbers)"


def fake_env() -> dict:
    """An environment block like a GPU machine's, marked as made up."""
    return {
        "torch_version": "2.13.0+cu128",
        "cuda_version": "12.8",
        "cudnn_version": 91000,
        "python_version": "3.11.7",
        "platform": "Linux (test fixture)",
        "cpu_model": "Imaginary 16-core CPU (test fixture)",
        "cpu_count": 16,
        "torch_threads": 16,
        "devices": [
            {"key": "cpu", "kind": "cpu", "name": "Imaginary 16-core CPU", "memory_bytes": 128 * 2**30},
            {"key": "cuda:0", "kind": "cuda", "name": "Imaginary GPU", "memory_bytes": 141 * 2**30},
        ],
        "cuda_note": None,
        "date": "2026-01-01T00:00:00+00:00",
        "float32": "float32 matmul precision highest, TF32 matmuls off, TF32 convolutions on",
    }


def fake_result(device: str, config: BenchConfig, median_ms: float, env: dict) -> dict:
    """One 'ok' cell with a small made-up spread."""
    times = [median_ms * f for f in (0.97, 0.99, 1.0, 1.02, 1.06)]
    values = config.to_flat()
    return {
        "device": device,
        "device_name": FAKE_GPU_NAME if device != "cpu" else "CPU · Imaginary 16-core CPU (test fixture)",
        "config": values,
        "status": "ok",
        "times_ms": times,
        "median_ms": median_ms,
        "p25_ms": times[1],
        "p75_ms": times[3],
        "samples_per_s": values["images"] / (median_ms / 1000),
        "first_epoch_ms": 3 * median_ms,
        "context_ms": 350.0 if device != "cpu" else None,
        "setup_ms": 5.0,
        "autotune_ms": 40.0,
        "compile_ms": None,
        "peak_memory_bytes": 10_000_000 + 300 * values["images"],
        "notes": [],
        "load_average": None,
        "disturbed": [],
        "factor": "data",
        "x": float(values["images"]),
        "env": env,
    }


def fake_gpu_document(gpu_only: bool = True, largest: int = DATA_PER_CLASS[-1]) -> dict:
    """A data sweep on the imaginary machine: the GPU pays 6 ms per step, then little per image."""
    env = fake_env()
    results = []
    for per_class in [n for n in DATA_PER_CLASS if n <= largest]:
        config = BenchConfig.from_flat(per_class=per_class, warmup=2, repeats=5)
        gpu_ms = 6.0 * config.steps + 2e-5 * config.images
        results.append(fake_result("cuda:0", config, gpu_ms, env))
        if not gpu_only:
            cpu_ms = 0.4 + 1.5e-3 * config.images * (1 + 0.1 * math.log10(config.images))
            results.append(fake_result("cpu", config, cpu_ms, env))
    return {
        "format": FORMAT,
        "created": env["date"],
        "sweep": "data",
        "devices": ["cuda:0"] if gpu_only else ["cpu", "cuda:0"],
        "notes": ["Made-up numbers for tests and screenshots."],
        "env": env,
        "results": results,
    }


def cpu_document(scale: float) -> dict:
    """The fixture machine's CPU cells only, every time multiplied by ``scale``."""
    document = fake_gpu_document(gpu_only=False, largest=1_200)
    document["results"] = [r for r in document["results"] if r["device"] == "cpu"]
    document["devices"] = ["cpu"]
    for result in document["results"]:
        for key in ("median_ms", "p25_ms", "p75_ms"):
            result[key] *= scale
        result["times_ms"] = [t * scale for t in result["times_ms"]]
        result["samples_per_s"] /= scale
    return document


def _bad(change) -> dict:  # noqa: ANN001 - change: a function that spoils a good document in place
    """A small good document (2 sizes x CPU and GPU) with ``change`` applied to it."""
    document = fake_gpu_document(gpu_only=False, largest=400)
    change(document)
    return document


def _set(key: str, value: object, where: str = "result"):  # noqa: ANN202 - a document mutator
    """A change that sets ``key`` of the first result (or of the document, or the first config)."""

    def change(document: dict) -> None:
        target = {
            "document": document,
            "result": document["results"][0],
            "config": document["results"][0]["config"],
        }[where]
        target[key] = value

    return change


def bad_documents() -> dict[str, tuple[dict, str]]:
    """Malformed benchmark documents, each with a fragment of the sentence that refuses it.

    Each one, let through, would break the Benchmark page, at import or every time it was shown.
    """
    return {
        "env is a list": (_bad(_set("env", [1], "document")), "'env' is not an object"),
        "env devices hold a number": (
            _bad(lambda d: d["env"].update(devices=[1])),
            "'env.devices' is not a list of objects",
        ),
        "device is a list": (_bad(_set("device", ["cpu"])), "result 1's device is [\"cpu\"], not text"),
        "median is text": (_bad(_set("median_ms", "fast")), "median_ms is \"fast\", not a number"),
        "median is negative": (_bad(_set("median_ms", -1.0)), "median_ms is -1.0, not a number from 0"),
        "median is NaN": (_bad(_set("median_ms", float("nan"))), "median_ms is nan, not a finite number"),
        "ok median is zero": (_bad(_set("median_ms", 0.0)), "median is not above 1e-06 ms"),
        "lr is text": (_bad(_set("lr", "big", "config")), "result 1's config.lr is \"big\", not a number"),
        "config lacks per_class": (
            _bad(lambda d: d["results"][0]["config"].pop("per_class")),
            "result 1's config lacks per_class",
        ),
        "per_class is text": (_bad(_set("per_class", "many", "config")), 'config.per_class is "many", not a'),
        "unknown data mode": (_bad(_set("data_mode", "wiggly", "config")), "config.data_mode is \"wiggly\""),
        "unknown amp": (_bad(_set("amp", "fp8", "config")), "config.amp is \"fp8\", not one of"),
        "images is text": (_bad(_set("images", "360", "config")), 'config.images is "360", not a whole'),
        "status is a number": (_bad(_set("status", 1)), "status is 1, not text"),
        "times are text": (_bad(_set("times_ms", "1, 2")), "times_ms is not a list of numbers"),
        "created is a list": (_bad(_set("created", ["2026"], "document")), 'created\' is ["2026"], not text'),
        "p25 above the median": (_bad(_set("p25_ms", 1e9)), "must rise in that order"),
        "an epoch of two days": (
            _bad(lambda d: d["results"][0].update(median_ms=1.7e8, p25_ms=1.7e8, p75_ms=1.8e8)),
            "stay under a day",
        ),
        "images per class beyond any sweep": (
            _bad(_set("per_class", 2**40, "config")),
            "Images per class must be a whole number from 1 to 2,000,000",
        ),
        "unknown status": (_bad(_set("status", "weird")), "status is \"weird\", not ok"),
        "a cell repeated": (
            _bad(lambda d: d["results"].append(dict(d["results"][0]))),
            "result 5 repeats the cell of result 1",
        ),
    }


HOSTILE = (
    "![pixel](http://evil.example/p.png) <img src=x onerror=alert(1)> [click](http://evil.example) "
    "<a href='http://evil.example'>a</a> **bold** $x$ :red[red]"
)  # markdown, HTML and a remote image in one string


def hostile_document() -> dict:
    """A good document whose every free-text field (device names, notes, env, variant) is HOSTILE."""
    document = fake_gpu_document(gpu_only=False, largest=400)
    document["notes"] = [HOSTILE]
    for env in [document["env"], *(r["env"] for r in document["results"])]:
        env.update(cpu_model=HOSTILE, torch_version=HOSTILE, cuda_version=HOSTILE, date=HOSTILE)
        env.update(python_version=HOSTILE, platform=HOSTILE)
        for device in env["devices"]:
            device["name"] = HOSTILE
    for number, result in enumerate(document["results"]):
        result["device_name"] = f"{HOSTILE} {result['device']}"
        result["notes"] = [HOSTILE]
        if number % 2:
            result["config"]["variant"] = HOSTILE
    return document


def _text(change) -> str:  # noqa: ANN001 - change: a function that spoils a good document's JSON text
    """The JSON text of a small good document with ``change`` applied to the text."""
    return change(json.dumps(fake_gpu_document(gpu_only=False, largest=400)))


def _median(raw: str) -> str:
    """A document whose first result's median_ms is ``raw`` JSON text."""
    return _text(lambda text: text.replace('"median_ms": ', f'"median_ms": {raw}, "was": ', 1))


def hostile_imports() -> dict[str, tuple[str | bytes, str]]:
    """Files a hostile user can upload, each with a fragment of the one sentence that refuses it."""
    deep = "[" * 100_000 + "]" * 100_000
    many = fake_gpu_document(gpu_only=False, largest=400)
    cell = {**many["results"][0], "env": {}, "times_ms": [], "notes": [], "device_name": None}
    many["results"] = [{**cell, "x": float(n + 1)} for n in range(20_000)]
    small = {**many, "results": many["results"][:2_500]}
    images = fake_gpu_document(gpu_only=False, largest=400)
    images["results"][0]["config"]["images"] = 2**70
    return {
        "deep nesting": (_text(lambda t: t.replace('"notes": []', f'"notes": {deep}', 1)), "nested"),
        "nesting past the limit": (
            _text(lambda t: t.replace('"notes": []', f'"notes": {deep[99_990:-99_990]}', 1)),
            "nested",
        ),
        "a 400-digit integer": (_median("1" * 400), "too large"),
        "a float overflow": (_median("1e400"), "too large"),
        "2**70 images": (json.dumps(images), "22-digit number, too large"),
        "NaN": (_median("NaN"), "result 1's median_ms is nan, not a finite number"),
        "Infinity": (_median("-Infinity"), "median_ms is -inf, not a finite number"),
        "a lone surrogate": (
            _text(lambda t: t.replace('"device_name": "', '"device_name": "\\ud800', 1)),
            "not valid Unicode",
        ),
        "a huge string": (
            _text(lambda t: t.replace('"notes": []', f'"notes": ["{"x" * 5_000}"]', 1)),
            "longer than",
        ),
        "an oversize file": (_text(lambda t: t[:-1] + ', "pad": "' + " " * 3_000_000 + '"}'), "larger than"),
        "20,000 cells": (json.dumps(many), "larger than the 2 MB"),
        "2,500 cells in a small file": (json.dumps(small), "more than 2,000 results"),
        "an ok median of a zeptosecond": (_median("1e-21"), "median is not above"),
        "not UTF-8": (b'{"format": "\xff"}', "not valid JSON"),
    }
