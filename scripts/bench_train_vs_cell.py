"""A Train-page epoch against a benchmark cell's epoch, same settings, side by side in one run.

    python scripts/bench_train_vs_cell.py [--rounds 5] [--epochs 30] [--warmup 5]

For each setting (the lesson's defaults, and a bigger one) it measures, in alternating order:
- train: the Train page's epoch (``Trainer``: train, validate, one sync) on the threads the page takes
  with a browser on this machine (``limits.cpu_threads_for``);
- train_only / validate: the same run's two parts timed apart, so the validation's share is known;
- cell: the benchmark's epoch (``bench.cell.bench``: training steps only) on torch's start-up threads,
  as the benchmark worker runs it;
- cell_1t: the same cell on the Train page's thread count.
Each figure is the median over rounds of each round's median epoch. The load average is printed
beside the results: a figure measured under load shows the mechanism, not the speed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from linecnn.bench.cell import bench  # noqa: E402
from linecnn.bench.config import BenchConfig  # noqa: E402
from linecnn.bench.timing import prepare, summarize, time_epochs  # noqa: E402
from linecnn.device import cpu_threads  # noqa: E402
from linecnn.train.config import DataConfig, ModelConfig, RunConfig, TrainConfig  # noqa: E402
from linecnn.train.epoch import evaluate, train_epoch  # noqa: E402
from linecnn.train.limits import cpu_threads_for  # noqa: E402
from linecnn.train.trainer import Trainer  # noqa: E402

SETTINGS = {
    "lesson": RunConfig(),
    "bigger": RunConfig(
        data=DataConfig(per_class=2000, val_per_class=1000),
        model=ModelConfig(width=2),
        train=TrainConfig(batch_size=256),
    ),
}


def train_page(config: RunConfig, epochs: int, warmup: int) -> dict[str, float]:
    """Median ms of the Train page's epoch, and of its training and validation parts timed apart."""
    with cpu_threads("cpu", cpu_threads_for(config)):
        trainer = Trainer(config, "cpu")
        whole = [1000 * record.epoch_seconds for record in trainer.run(warmup + epochs)][warmup:]
        data, parts = trainer.data, {"train_only": [], "validate": []}
        for index in range(warmup + epochs):
            start = time.perf_counter()
            loss, right = train_epoch(
                trainer.model, data.train_x, data.train_y, trainer.optimizer, config.train.batch_size,
                trainer.order,
            )
            torch.stack([loss, right.float()]).tolist()
            middle = time.perf_counter()
            evaluate(trainer.model, data.val_x, data.val_y)[0].item()
            end = time.perf_counter()
            if index >= warmup:
                parts["train_only"].append(1000 * (middle - start))
                parts["validate"].append(1000 * (end - middle))
    return {
        "train": statistics.median(whole),
        **{name: statistics.median(times) for name, times in parts.items()},
        "threads": cpu_threads_for(config) or torch.get_num_threads(),
    }


def cell(config: RunConfig, epochs: int, warmup: int, threads: int | None) -> float:
    """Median ms of a benchmark cell's epoch; ``threads`` None: as the worker runs it (start-up threads)."""
    bench_config = BenchConfig(run=config, warmup=warmup, repeats=epochs)
    if threads is None:
        return bench(bench_config, "cpu").median_ms
    # bench() runs on the start-up threads whatever is set around it: its recipe, on ``threads``.
    with cpu_threads("cpu", threads):
        work = prepare(bench_config, "cpu")
        work.first_steps(work.eager)
        time_epochs(work.epoch, "cpu", warmup)
        return summarize(time_epochs(work.epoch, "cpu", epochs), bench_config.images).median_ms


def main() -> None:
    """Print each setting's figures, measured in alternating order over the rounds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=30, help="timed epochs per measurement")
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}, cores: {os.cpu_count()}, torch {torch.__version__}")
    for name, config in SETTINGS.items():
        figures: dict[str, list[float]] = {}
        page_threads = cpu_threads_for(config) or torch.get_num_threads()
        for index in range(args.rounds):
            steps = {
                "page": partial(train_page, config, args.epochs, args.warmup),
                "cell": partial(cell, config, args.epochs, args.warmup, None),
                "cell_1t": partial(cell, config, args.epochs, args.warmup, page_threads),
            }
            order = list(steps) if index % 2 == 0 else list(reversed(steps))
            for step in order:
                measured = steps[step]()
                for key, value in (measured if isinstance(measured, dict) else {step: measured}).items():
                    figures.setdefault(key, []).append(value)
        medians = {key: statistics.median(values) for key, values in figures.items()}
        spread = {key: (min(values), max(values)) for key, values in figures.items()}
        print(f"\n{name}: {config.data.per_class}/class, batch {config.train.batch_size}, width "
              f"{config.model.width}; page threads {page_threads}, worker threads {torch.get_num_threads()}")
        for key in ("train", "train_only", "validate", "cell", "cell_1t"):
            low, high = spread[key]
            print(f"  {key:>10}: {medians[key]:8.2f} ms  (rounds {low:.2f}..{high:.2f})")
        print(f"  validation share of the page's epoch: {medians['validate'] / medians['train']:.0%}; "
              f"page / cell: {medians['train'] / medians['cell']:.2f}; page / cell_1t: "
              f"{medians['train'] / medians['cell_1t']:.2f}")
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
