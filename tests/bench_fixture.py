"""A hand-made benchmark document from an imaginary GPU machine, for tests and screenshots only.

Its numbers are MADE UP (a simple launch-cost-plus-work model), never a measurement: the device
name says so on screen. It has the exact shape ``linecnn bench --json`` prints.
"""

from __future__ import annotations

import math

from linecnn.bench import BenchConfig
from linecnn.sweep import DATA_PER_CLASS, FORMAT

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
    }


def fake_result(device: str, config: BenchConfig, median_ms: float, env: dict) -> dict:
    """One 'ok' cell with a small made-up spread."""
    times = [median_ms * f for f in (0.97, 0.99, 1.0, 1.02, 1.06)]
    values = config.as_dict()
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
        "factor": "data",
        "x": float(values["images"]),
        "env": env,
    }


def fake_gpu_document(gpu_only: bool = True, largest: int = DATA_PER_CLASS[-1]) -> dict:
    """A data sweep on the imaginary machine: the GPU pays 6 ms per step, then little per image."""
    env = fake_env()
    results = []
    for per_class in [n for n in DATA_PER_CLASS if n <= largest]:
        config = BenchConfig(per_class=per_class, warmup=2, repeats=5)
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
