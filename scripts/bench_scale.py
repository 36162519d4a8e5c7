"""Does the data sweep scale? Time CPU epochs up to 1 M images, each size in a fresh process.

    python scripts/bench_scale.py [--largest 333334] [--repeats 3]

Each size runs in its own Python process (``python -m linecnn bench``) so that its peak RSS,
read with getrusage of the child, is that cell's alone. Prints one JSON object with the
per-size median ms/epoch, peak RSS and wall time, and the log-log slope of time against
images past the overhead regime (sizes from 12,000 images). Exits 1 if the 1 M-image point
peaks at 2 GB or more.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time

from linecnn.bench.factors import DATA_PER_CLASS

RSS_LIMIT = 2 * 10**9  # bytes: the bound for the 1 M-image point
SLOPE_FROM = 12_000  # images: below this, fixed per-step costs dominate


def run_cell(per_class: int, repeats: int) -> dict:
    """One CPU cell in a child process: its result and the child's peak RSS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    argv = [sys.executable, "-m", "linecnn", "bench", "--json", "--no-save", "--devices", "cpu"]
    argv += ["--per-class", str(per_class), "--warmup", "1", "--repeats", str(repeats)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    # RUSAGE_CHILDREN keeps the largest child so far; sizes grow, so this is this child's peak.
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = json.loads(done.stdout)["results"][0]
    return {
        "images": result["config"]["images"],
        "steps": result["config"]["steps"],
        "median_ms": round(result["median_ms"], 2),
        "p25_ms": round(result["p25_ms"], 2),
        "p75_ms": round(result["p75_ms"], 2),
        "peak_rss_mb": round(peak_kib / 1024, 1) if peak_kib > before else None,
        "wall_s": round(wall, 1),
    }


def slope(points: list[dict]) -> float:
    """Least-squares slope of log(ms) against log(images)."""
    xs = [math.log(p["images"]) for p in points]
    ys = [math.log(p["median_ms"]) for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def main() -> int:
    """Sweep the sizes and print the JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--largest", type=int, default=DATA_PER_CLASS[-1], help="largest images per class")
    parser.add_argument("--repeats", type=int, default=3, help="timed epochs per size (3)")
    args = parser.parse_args()
    points = [run_cell(n, args.repeats) for n in DATA_PER_CLASS if n <= args.largest]
    linear = [p for p in points if p["images"] >= SLOPE_FROM]
    largest = points[-1]
    summary = {
        "points": points,
        "loglog_slope_from_12k": round(slope(linear), 3) if len(linear) > 1 else None,
        "largest_images": largest["images"],
        "largest_peak_rss_mb": largest["peak_rss_mb"],
        "largest_under_2gb": largest["peak_rss_mb"] is not None
        and largest["peak_rss_mb"] * 2**20 < RSS_LIMIT,
    }
    print(json.dumps(summary, indent=1))
    return 0 if summary["largest_under_2gb"] else 1


if __name__ == "__main__":
    sys.exit(main())
