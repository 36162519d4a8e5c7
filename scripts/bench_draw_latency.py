"""Latency of one Draw-page prediction on the CPU: canvas RGBA -> preprocessing -> inference.

Times exactly what the page does per drawing (``preprocess`` then ``predict`` with the
default model, the model copy included) on a set of 280 x 280 canvases of lines drawn
with the page's brushes, after a warm-up. Prints the median and spread per stage and the
environment. The target is a median of at most 20 ms per drawing.

The geometry check (``straightness``, part of ``preprocess``) is also timed on its own, on
generated lines and on generated non-lines (letters, marks, spirals, fills), with the
machine's load average beside it: on a shared machine a figure means little without it.

    python scripts/bench_draw_latency.py [--repeats 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for tests.draw_helpers

import torch  # noqa: E402

from linecnn.device import environment  # noqa: E402
from linecnn.draw.default_weights import load_default_model  # noqa: E402
from linecnn.draw.geometry import straightness  # noqa: E402
from linecnn.draw.predict import predict, train_default_model  # noqa: E402
from linecnn.draw.preprocess import ink_map, preprocess  # noqa: E402
from tests.draw_helpers import SUITE, synthetic_canvas  # noqa: E402
from tests.draw_shapes import generated_lines, generated_non_lines  # noqa: E402

TARGET_MS = 20.0


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) of values, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def report(name: str, values: list[float]) -> None:
    """One line: the median and spread of ``values`` (ms)."""
    print(
        f"{name:>10}: median {statistics.median(values):6.2f} ms   "
        f"p10 {percentile(values, 10):6.2f}   p90 {percentile(values, 90):6.2f}   "
        f"max {max(values):7.2f}   (n={len(values)})"
    )


def geometry_ms(repeats: int) -> dict[str, list[float]]:
    """Milliseconds of the straightness check per drawing, on generated lines and on non-lines."""
    sets = {"lines": generated_lines(56, seed=7), "non-lines": generated_non_lines(40, seed=8)}
    timings = {}
    for name, figures in sets.items():
        inks = [ink / ink.max() for ink in (ink_map(figure.canvas()) for figure in figures)]
        for ink in inks[:5]:  # warm-up
            straightness(ink)
        values = []
        for i in range(repeats):
            start = time.perf_counter()
            straightness(inks[i % len(inks)])
            values.append(1000 * (time.perf_counter() - start))
        timings[name] = values
    return timings


def main() -> None:
    """Measure and print the per-drawing latency."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=200, help="timed drawings (default 200)")
    args = parser.parse_args()

    env = environment()
    print(
        f"torch {env.torch_version} · {env.cpu_model} · {env.cpu_count} CPUs · "
        f"torch threads {env.torch_threads} (inference runs on one)"
    )
    model = load_default_model() or train_default_model()  # the page's model: shipped, else trained
    canvases = [synthetic_canvas(stroke.points, width=stroke.brush) for stroke in SUITE]
    for canvas in canvases[:10]:  # warm-up: first calls allocate and pick kernels
        predict(model, preprocess(canvas).image, "cpu")

    pre_ms, infer_ms, total_ms = [], [], []
    for i in range(args.repeats):
        canvas = canvases[i % len(canvases)]
        start = time.perf_counter()
        drawing = preprocess(canvas)
        middle = time.perf_counter()
        predict(model, drawing.image, torch.device("cpu"))
        end = time.perf_counter()
        pre_ms.append(1000 * (middle - start))
        infer_ms.append(1000 * (end - middle))
        total_ms.append(1000 * (end - start))

    for name, values in (("preprocess", pre_ms), ("inference", infer_ms), ("total", total_ms)):
        report(name, values)
    print("Geometry check alone (straightness of the ink, inside preprocess):")
    for name, values in geometry_ms(args.repeats).items():
        report(name, values)
    print("Load average (1, 5, 15 min): " + ", ".join(f"{load:.2f}" for load in os.getloadavg()))
    median = statistics.median(total_ms)
    verdict = "meets" if median <= TARGET_MS else "MISSES"
    print(f"Median {median:.2f} ms per drawing on the CPU: {verdict} the {TARGET_MS:.0f} ms target.")
    sys.exit(0 if median <= TARGET_MS else 1)


if __name__ == "__main__":
    main()
