"""Command line: ``python -m linecnn train`` (and ``bench``) without a browser.

Bad options end with one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from linecnn.config import DATA_MODES, RunConfig
from linecnn.device import describe, environment, resolve, synchronize
from linecnn.train import Trainer


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line, not usage plus message."""

    def error(self, message: str) -> None:  # noqa: D102 - argparse hook
        self.exit(2, f"{self.prog}: error: {message}\n")


def batch_size_arg(text: str) -> int | None:
    """Parse --batch-size: a positive whole number, or 'full' for the whole set."""
    if text.strip().lower() in ("full", "none", "0"):
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number or 'full', got {text!r}") from None


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that builds a RunConfig (defaults: the seed's)."""
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N or mps (default: auto)")
    parser.add_argument("--epochs", type=int, default=120, help="passes over the training set (120)")
    parser.add_argument("--lr", type=float, default=0.01, help="Adam learning rate (0.01)")
    parser.add_argument("--per-class", type=int, default=120, help="training images per class (120)")
    parser.add_argument("--val-per-class", type=int, default=60, help="validation images per class (60)")
    parser.add_argument("--seed", type=int, default=24, help="seed for data, weights and batch order (24)")
    parser.add_argument(
        "--batch-size", type=batch_size_arg, default=None, help="images per step, or 'full' (default)"
    )
    parser.add_argument("--width", type=int, default=1, help="channel multiplier; 1 = 8/16 channels (1)")
    parser.add_argument("--data-mode", choices=DATA_MODES, default="seed", help="seed or varied (seed)")


def run_config_from(args: argparse.Namespace) -> RunConfig:
    """Build and validate a RunConfig from parsed options (raises ValueError)."""
    return RunConfig.from_flat(
        per_class=args.per_class,
        val_per_class=args.val_per_class,
        data_mode=args.data_mode,
        width=args.width,
        epochs=args.epochs,
        lr=args.lr,
        batch_size=args.batch_size,
        seed=args.seed,
    )


def train_command(args: argparse.Namespace) -> int:
    """Train once and report, as a table with a progress bar or as one JSON object."""
    config = run_config_from(args)
    device = resolve(args.device)
    setup_start = time.perf_counter()
    trainer = Trainer(config, device)
    setup_seconds = time.perf_counter() - setup_start

    epochs = config.train.epochs
    records = trainer.run()
    if not args.json:
        from tqdm import tqdm  # only the human output needs it

        print(f"Training on {describe(device)}: {config.data.train_size} images, {epochs} epochs")
        print(f"{'epoch':>7} {'train loss':>11} {'val loss':>9} {'train acc':>10} {'val acc':>8}")
        records = tqdm(records, total=epochs, unit="epoch", file=sys.stderr, leave=False)

    synchronize(device)
    start = time.perf_counter()
    for record in records:
        if not args.json and (record.epoch in (1, epochs) or record.epoch % 10 == 0):
            line = (
                f"{record.epoch:>7} {record.train_loss:>11.4f} {record.val_loss:>9.4f} "
                f"{record.train_acc:>10.3f} {record.val_acc:>8.3f}"
            )
            records.write(line, file=sys.stdout)
    synchronize(device)
    train_seconds = time.perf_counter() - start

    last = trainer.history[-1]
    result = {
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
        "config": config.as_dict(),
        "env": environment().as_dict(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"Done in {train_seconds:.2f} s ({result['ms_per_epoch']:.2f} ms/epoch) on {describe(device)}; "
            f"val acc {last.val_acc:.3f}, data and model set up in {setup_seconds:.2f} s."
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one sub-command per job."""
    parser = OneLineParser(prog="linecnn", description="Train and time the line CNN without a browser.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    train = commands.add_parser("train", help="train once and report metrics and time")
    add_run_options(train)
    train.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    train.set_defaults(handler=train_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``python -m linecnn`` and the ``linecnn`` script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except ValueError as error:
        print(f"linecnn {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("linecnn: interrupted", file=sys.stderr)
        return 130
