"""``python -m linecnn train``: one training run, as a table with a progress bar or as one JSON object."""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import partial

import torch

from linecnn.bench.plan import MAX_STEP_BYTES
from linecnn.device import describe, environment, resolve
from linecnn.device_ops import synced_seconds, synchronize
from linecnn.train.config import DEFAULT_FLAT, RunConfig
from linecnn.train.limits import check_step_memory
from linecnn.train.lines import DATA_MODES
from linecnn.train.trainer import Trainer


def batch_size_arg(text: str) -> int | None:
    """Parse --batch-size: a positive whole number, or 'full' for the whole set."""
    if text.strip().lower() in ("full", "none"):
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number or 'full', got {text!r}") from None


def add_problem_options(parser: argparse.ArgumentParser) -> None:
    """Options ``train`` and ``bench`` share, with RunConfig()'s defaults."""
    add, d = parser.add_argument, DEFAULT_FLAT
    add("--per-class", type=int, default=d["per_class"], help="training images per class (%(default)s)")
    add(
        "--batch-size",
        type=batch_size_arg,
        default=d["batch_size"],
        help="images per step, or 'full' (default)",
    )
    add("--width", type=int, default=d["width"], help="channel multiplier; 1 = 8/16 channels (%(default)s)")
    add("--seed", type=int, default=d["seed"], help="seed for data, weights and batch order (%(default)s)")


def add_train_options(parser: argparse.ArgumentParser) -> None:
    """Options of ``train``; every default is RunConfig()'s."""
    add, d = parser.add_argument, DEFAULT_FLAT
    add("--device", default="auto", help="auto, cpu, cuda, cuda:N or mps (default: auto)")
    add("--epochs", type=int, default=d["epochs"], help="passes over the training set (%(default)s)")
    add("--lr", type=float, default=d["lr"], help="Adam learning rate (%(default)s)")
    add_problem_options(parser)
    add(
        "--val-per-class",
        type=int,
        default=d["val_per_class"],
        help="validation images per class (%(default)s)",
    )
    modes = ", ".join(DATA_MODES)
    add("--data-mode", choices=DATA_MODES, default=d["data_mode"], help=f"{modes} (%(default)s)")
    add("--json", action="store_true", help="print one JSON object instead of a table")
    add(
        "--no-memory-check",
        action="store_true",
        help="train even when one step would keep more than 1 GiB of activations",
    )


def run_config_from(args: argparse.Namespace) -> RunConfig:
    """Build and validate a RunConfig from parsed options (raises ValueError)."""
    return RunConfig.from_flat(**{key: getattr(args, key) for key in DEFAULT_FLAT if key != "extra_convs"})


def train_command(args: argparse.Namespace) -> int:
    """Train once and report, as a table with a progress bar or as one JSON object."""
    config = run_config_from(args)
    device = resolve(args.device)
    if not args.no_memory_check:
        try:
            check_step_memory(config, MAX_STEP_BYTES)
        except ValueError as error:
            raise ValueError(f"{error} Or pass --no-memory-check to try anyway.") from None
    setup_start = time.perf_counter()
    trainer = Trainer(config, device)
    setup_seconds = time.perf_counter() - setup_start
    train_seconds = _train(trainer, device, args.json)
    result = _report(trainer, device, train_seconds, setup_seconds)
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"Done in {train_seconds:.2f} s ({result['ms_per_epoch']:.2f} ms/epoch) on {describe(device)}; "
            f"val acc {result['val_acc']:.3f}, data and model set up in {setup_seconds:.2f} s."
        )
    return 0


def progress_bars():  # noqa: ANN201 - tqdm's class, or None
    """tqdm, which only the human output needs; None where it is not installed (a bare GPU machine)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


def _train(trainer: Trainer, device: torch.device, quiet: bool) -> float:
    """Run every epoch (printing every tenth unless ``quiet``); the training seconds, device synchronised."""
    epochs = trainer.config.train.epochs
    records = trainer.run()
    if not quiet:
        tqdm = progress_bars()
        print(f"Training on {describe(device)}: {trainer.config.data.train_size} images, {epochs} epochs")
        print(f"{'epoch':>7} {'train loss':>11} {'val loss':>9} {'train acc':>10} {'val acc':>8}")
        # disable=None: no bar when stderr is not a terminal, or its redraws would land between the rows
        # of a file that keeps both streams (`2>&1 | tee run.txt`).
        if tqdm is not None:
            records = tqdm(records, total=epochs, unit="epoch", file=sys.stderr, leave=False, disable=None)

    def every_epoch() -> None:
        for record in records:
            if not quiet and (record.epoch in (1, epochs) or record.epoch % 10 == 0):
                line = (
                    f"{record.epoch:>7} {record.train_loss:>11.4f} {record.val_loss:>9.4f} "
                    f"{record.train_acc:>10.3f} {record.val_acc:>8.3f}"
                )
                if hasattr(records, "write"):
                    records.write(line, file=sys.stdout)  # tqdm's: keeps the bar below the rows
                else:
                    print(line)

    return synced_seconds(every_epoch, partial(synchronize, device))[1]


def _report(trainer: Trainer, device: torch.device, train_seconds: float, setup_seconds: float) -> dict:
    """The run's JSON object: final metrics, times, settings and environment."""
    last = trainer.history[-1]
    return {
        "device": str(device),
        "device_name": describe(device),
        "epochs": last.epoch,
        "train_loss": last.train_loss,
        "val_loss": last.val_loss,
        "train_acc": last.train_acc,
        "val_acc": last.val_acc,
        "train_seconds": train_seconds,
        "ms_per_epoch": 1000 * train_seconds / last.epoch,
        "setup_seconds": setup_seconds,
        "config": trainer.config.as_dict(),
        "env": environment().as_dict(),
    }
