"""Is `bench` honest? Compare its CPU ms/epoch with torch.utils.benchmark.Timer on the same epoch.

    python scripts/bench_honesty.py [--repeats 10] [--rounds 8]

For each cell, ``linecnn.bench.bench`` times whole epochs (warm-up, sync, perf_counter, median)
and, in the same run, ``torch.utils.benchmark.Timer`` times ``Workload.epoch`` of an identical
workload one epoch at a time, with the real thread count (Timer defaults to one thread). The
two alternate in rounds; the verdict is the median of the per-round ratios. Prints one JSON
object; exits 1 when a cell's ratio is off by more than the tolerance (20 %).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import replace

import torch
from torch.utils.benchmark import Timer

from linecnn.bench import BenchConfig, bench, prepare

CELLS = {
    "seed (360 images, full batch)": BenchConfig(per_class=120),
    "12,000 images, batch 1,024": BenchConfig(per_class=4_000, batch_size=1_024),
}
TOLERANCE = 0.20


def compare(config: BenchConfig, rounds: int) -> dict:
    """bench's reported median against Timer's median of the same epoch, in alternating rounds.

    Each round takes one ``bench`` call and, right after it, as many single-epoch Timer runs;
    the verdict is the median over rounds of their ratio. Pairs close in time see the same
    machine: on a shared 2-core box a neighbour's burst can stretch epochs tenfold for a second.
    """
    ours, theirs, ratios = [], [], []
    work = prepare(config, "cpu")
    for _ in range(config.warmup):
        work.epoch()
    timer = Timer(stmt="epoch()", globals={"epoch": work.epoch}, num_threads=torch.get_num_threads())
    for _ in range(rounds):
        result = bench(config, "cpu")
        single = [1000 * timer.timeit(number=1).median for _ in range(config.repeats)]
        ours += result.times_ms
        theirs += single
        ratios.append(result.median_ms / statistics.median(single))
    ratio = statistics.median(ratios)
    return {
        "bench_median_ms": round(statistics.median(ours), 3),
        "timer_median_ms": round(statistics.median(theirs), 3),
        "epochs_each": len(ours),
        "pooled_ratio": round(statistics.median(ours) / statistics.median(theirs), 3),
        "round_ratios": [round(r, 3) for r in ratios],
        "ratio": round(ratio, 3),
        "agree": abs(ratio - 1) <= TOLERANCE,
    }


def main() -> int:
    """Compare every cell and print the JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10, help="timed epochs per bench call (10)")
    parser.add_argument("--rounds", type=int, default=8, help="alternating rounds per cell (8)")
    args = parser.parse_args()
    cells = {
        name: compare(replace(config, repeats=args.repeats), args.rounds) for name, config in CELLS.items()
    }
    summary = {"threads": torch.get_num_threads(), "tolerance": TOLERANCE, "cells": cells}
    summary["agree"] = all(cell["agree"] for cell in cells.values())
    print(json.dumps(summary, indent=1))
    return 0 if summary["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
