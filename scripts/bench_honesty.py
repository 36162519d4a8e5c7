"""Is `bench` honest? Compare its CPU ms/epoch with an independent loop timed by torch.utils.benchmark.

    python scripts/bench_honesty.py [--repeats 10] [--rounds 8]

The app's figure is the median that ``linecnn.bench.cell.bench`` reports for a cell (what the
Benchmark page and ``linecnn bench`` show). The reference shares no code with it: this script
writes its own copy of the lesson's CNN (Conv -> ReLU -> Pool twice, two Linear layers), its
own line images and its own epoch loop (plain ``torch.optim.Adam``, a fresh shuffle per epoch
when there are mini-batches), and times one epoch at a time with ``torch.utils.benchmark.Timer``
on the real thread count (Timer defaults to one thread). The two alternate in rounds whose
order flips (bench first, then the reference first, ...); the verdict is the median of the
per-round ratios. Prints one JSON object; exits 1 when a cell's ratio is off by more than the
tolerance (20 %).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path

import torch
from torch import nn
from torch.utils.benchmark import Timer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from linecnn.bench.cell import bench  # noqa: E402
from linecnn.bench.config import BenchConfig  # noqa: E402

CELLS = {
    "lesson (360 images, full batch)": BenchConfig.from_flat(per_class=120),
    "12,000 images, batch 1,024": BenchConfig.from_flat(per_class=4_000, batch_size=1_024),
}
TOLERANCE = 0.20


def lesson_cnn() -> nn.Module:
    """The lesson's CNN as it was written: Conv(1->8) ReLU Pool, Conv(8->16) ReLU Pool, 64->16->3."""
    return nn.Sequential(
        nn.Conv2d(1, 8, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 2 * 2, 16),
        nn.ReLU(),
        nn.Linear(16, 3),
    )


def lesson_lines(per_class: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Images (3n, 1, 8, 8) and labels: a lit column, row or (anti-)diagonal over 0.1 * U(0, 1) noise."""
    generator = torch.Generator().manual_seed(seed)
    n = 3 * per_class
    images = 0.1 * torch.rand(n, 8, 8, generator=generator)
    labels = torch.arange(n) % 3
    where = torch.randint(1, 7, (n,), generator=generator)
    for index in range(n):
        kind, k = int(labels[index]), int(where[index])
        if kind == 0:
            images[index, :, k] = 1.0
        elif kind == 1:
            images[index, k, :] = 1.0
        else:
            diagonal = torch.eye(8) if k % 2 else torch.eye(8).flip(1)
            images[index] = torch.maximum(images[index], diagonal)
    return images.unsqueeze(1), labels


class Reference:
    """The independent training epoch: its own model, data, optimizer and loop, on the CPU."""

    def __init__(self, config: BenchConfig) -> None:
        run = config.run
        torch.manual_seed(run.seed)
        self.model = lesson_cnn()
        self.x, self.y = lesson_lines(run.data.per_class, run.seed)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=run.train.lr)
        self.loss = nn.CrossEntropyLoss()
        self.batch = run.train.batch_size or len(self.x)

    def epoch(self) -> None:
        """One pass over the training images, in mini-batches of a fresh order when there are several."""
        x, y = self.x, self.y
        if self.batch < len(x):
            order = torch.randperm(len(x))
            x, y = x[order], y[order]
        for start in range(0, len(x), self.batch):
            loss = self.loss(self.model(x[start : start + self.batch]), y[start : start + self.batch])
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


def compare(config: BenchConfig, rounds: int) -> dict:
    """bench's reported median against the reference's median epoch, in rounds of alternating order.

    Each round is one ``bench`` call and as many single-epoch Timer runs of the reference,
    bench first in even rounds and second in odd ones; the verdict is the median over rounds of
    their ratio. Pairs close in time see the same machine: on a shared 2-core box a neighbour's
    burst can stretch epochs tenfold for a second.
    """
    reference = Reference(config)
    for _ in range(config.warmup):
        reference.epoch()
    timer = Timer(stmt="epoch()", globals={"epoch": reference.epoch}, num_threads=torch.get_num_threads())

    def app() -> list[float]:
        return list(bench(config, "cpu").times_ms)

    def independent() -> list[float]:
        return [1000 * timer.timeit(number=1).median for _ in range(config.repeats)]

    ours, theirs, ratios = [], [], []
    for index in range(rounds):
        if index % 2 == 0:
            app_ms = app()
            reference_ms = independent()
        else:
            reference_ms = independent()
            app_ms = app()
        ours += app_ms
        theirs += reference_ms
        ratios.append(statistics.median(app_ms) / statistics.median(reference_ms))
    ratio = statistics.median(ratios)
    return {
        "bench_median_ms": round(statistics.median(ours), 3),
        "reference_median_ms": round(statistics.median(theirs), 3),
        "epochs_each": len(ours),
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
    for name, cell in cells.items():
        verdict = "PASS" if cell["agree"] else "FAIL"
        print(
            f"{verdict} {name}: bench {cell['bench_median_ms']:.2f} ms/epoch, independent "
            f"{cell['reference_median_ms']:.2f} ms/epoch, ratio {cell['ratio']:.2f} "
            f"(tolerance ±{TOLERANCE:.0%})",
            file=sys.stderr,
        )
    return 0 if summary["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
