"""Command line: ``python -m linecnn train`` (and ``bench``) without a browser.

Bad options end with one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from linecnn.bench import AMP_MODES, BenchConfig, is_out_of_memory
from linecnn.config import DATA_MODES, DEFAULT_FLAT, RunConfig
from linecnn.device import describe, environment, list_devices, resolve, synchronize
from linecnn.sweep import FACTORS, MAX_STEP_BYTES, SweepPlan, crossover
from linecnn.train import Trainer, check_step_memory


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line, not usage plus message."""

    def error(self, message: str) -> None:  # noqa: D102 - argparse hook
        self.exit(2, f"{self.prog}: error: {message}\n")


def batch_size_arg(text: str) -> int | None:
    """Parse --batch-size: a positive whole number, or 'full' for the whole set."""
    if text.strip().lower() in ("full", "none"):
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number or 'full', got {text!r}") from None


def add_run_options(parser: argparse.ArgumentParser) -> None:
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
    add("--data-mode", choices=DATA_MODES, default=d["data_mode"], help="lesson or varied (%(default)s)")


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
    if not args.no_memory_check:
        try:
            check_step_memory(config, MAX_STEP_BYTES)
        except ValueError as error:
            raise ValueError(f"{error} Or pass --no-memory-check to try anyway.") from None
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


def step_bytes_arg(text: str) -> int | None:
    """Parse --max-step-bytes: a number of bytes above 0 (1e9 is fine), or 'none' for no cap."""
    if text.strip().lower() in ("none", "inf"):
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 1):
        raise argparse.ArgumentTypeError(f"expected a number of bytes or 'none', got {text!r}")
    return int(value)


def devices_arg(text: str) -> list[str]:
    """Parse --devices: 'all' or a comma list such as 'cpu,cuda' (each must exist here)."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names or names == ["all"]:
        return [info.key for info in list_devices()]
    return list(dict.fromkeys(str(resolve(name)) for name in names))


def ranks_arg(text: str) -> list[int]:
    """Parse --ranks: a comma list of process counts such as '1,2,4'."""
    problem = f"expected numbers of processes such as 1,2,4, got {text!r}"
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(problem) from None
    if not counts:
        raise argparse.ArgumentTypeError(problem)
    return counts


def add_bench_options(parser: argparse.ArgumentParser) -> None:
    """Options of ``bench``: the base cell, the sweep, the faster paths and the output."""
    add, timing = parser.add_argument, BenchConfig()
    add("--devices", default="all", help="'all' (default) or a list such as cpu,cuda")
    add_problem_options(parser)
    add("--extra-convs", type=int, default=DEFAULT_FLAT["extra_convs"], help="extra 3x3 convs (%(default)s)")
    add("--warmup", type=int, default=timing.warmup, help="untimed epochs before timing (%(default)s)")
    add("--repeats", type=int, default=timing.repeats, help="timed epochs per cell (%(default)s)")
    parser.add_argument(
        "--sweep", choices=FACTORS, default="none", help="vary one factor, the others held (none)"
    )
    parser.add_argument("--up-to", type=int, default=None, help="largest value of the swept factor")
    parser.add_argument("--amp", choices=AMP_MODES, default="off", help="autocast dtype on CUDA (off)")
    parser.add_argument("--channels-last", action="store_true", help="NHWC layout (CPU and CUDA)")
    parser.add_argument("--compile", action="store_true", help="torch.compile the model")
    parser.add_argument("--cuda-graphs", action="store_true", help="compile with CUDA graphs (CUDA only)")
    parser.add_argument(
        "--no-eager", action="store_true", help="with faster paths on, skip the plain eager comparison"
    )
    parser.add_argument("--max-seconds", type=float, default=None, help="stop the sweep after this long")
    parser.add_argument(
        "--max-step-bytes",
        type=step_bytes_arg,
        default=MAX_STEP_BYTES,
        help="leave out cells whose training step would keep more activations than this, as the page "
        "does (default 2**30, 1 GiB; 'none' for no cap: a far bigger CPU step meets the OOM killer)",
    )
    parser.add_argument("--json", action="store_true", help="print the JSON document instead of a table")
    parser.add_argument("--out", default=None, help="also write the JSON document to this file")
    parser.add_argument("--no-save", action="store_true", help="do not add the run to the history")
    parser.add_argument(
        "--ranks",
        type=ranks_arg,
        default=None,
        help="data-parallel: time torchrun runs of N processes each, e.g. 1,2,4 (CPU ranks over gloo; with "
        "--devices cuda, NCCL with one rank per GPU); not added to the history",
    )
    parser.add_argument(
        "--rank-threads", type=int, default=None, help="CPU threads per rank (default: cores // N or 1)"
    )


def bench_command(args: argparse.Namespace) -> int:
    """Time epochs on each device (a sweep when asked); print a table or the JSON document."""
    from linecnn.sweep import Caps, StepMemoryError, make_document, plan_sweep, run_sweep

    if args.ranks is not None:
        from linecnn.ranks_cli import ranks_command  # the data-parallel benchmark, through torchrun

        return ranks_command(args)
    base = BenchConfig(
        per_class=args.per_class,
        batch_size=args.batch_size,
        width=args.width,
        extra_convs=args.extra_convs,
        warmup=args.warmup,
        repeats=args.repeats,
        amp=args.amp,
        channels_last=args.channels_last,
        compile=args.compile,
        cuda_graphs=args.cuda_graphs,
        seed=args.seed,
    )
    devices = devices_arg(args.devices)
    if args.max_seconds is not None and not (math.isfinite(args.max_seconds) and args.max_seconds > 0):
        raise ValueError(f"--max-seconds must be a number of seconds above 0; got {args.max_seconds}.")
    if args.out:
        check_writable(args.out)  # now, not after a sweep that may take minutes
    caps = Caps(max_seconds=args.max_seconds, max_step_bytes=args.max_step_bytes, name="the CLI's cap")
    try:
        plan = plan_sweep(
            base, args.sweep, devices, up_to=args.up_to, caps=caps, compare_eager=not args.no_eager
        )
    except StepMemoryError as error:
        raise ValueError(f"{error} Or pass --max-step-bytes none to lift the cap.") from None
    for note in plan.notes:  # now, before a sweep that may take minutes
        print(f"linecnn bench: note: {note}", file=sys.stderr, flush=True)
    progress = None
    if not args.json:
        from tqdm import tqdm  # only the human output needs it

        bar = tqdm(total=1.0, file=sys.stderr, leave=False, bar_format="{l_bar}{bar}| {elapsed} {postfix}")
        shown = [None]  # (cell, phase, epoch) drawn last

        def progress(cell) -> None:  # noqa: ANN001 - a sweep.CellProgress
            # Called after every optimizer step too: redraw only when the cell, phase or epoch moves on.
            if shown[0] == (cell.cell, cell.phase, cell.done):
                return
            shown[0] = (cell.cell, cell.phase, cell.done)
            bar.n = round(cell.fraction, 4)
            bar.set_description(f"cell {cell.cell}/{cell.cells}", refresh=False)
            bar.set_postfix_str(f"{cell.device} · {cell.config.images:,} images · {cell.phase}")

    results = list(run_sweep(plan, caps=caps, progress=progress))
    document = make_document(results, plan)
    text = json.dumps(document, indent=1)
    # Results first, then the files: a history that cannot be opened must not swallow a measurement.
    if args.json:
        print(text, flush=True)
    else:
        bar.close()
        print_results(results, plan)
    if not args.no_save:
        save_to_history(document, quiet=args.json)
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as out:
                out.write(text + "\n")
        except OSError as error:
            raise ValueError(f"Cannot write {args.out}: {error.strerror}.") from None
        if not args.json:
            print(f"JSON written to {args.out}; import it on the Benchmark page to compare machines.")
    return 0


def check_writable(path: str) -> None:
    """Raise ValueError unless a file can be written at ``path`` (its folder exists and is writable)."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise ValueError(f"Cannot write {path}: it is a folder; give a file name.")
    if not folder.is_dir():
        raise ValueError(f"Cannot write {path}: the folder {folder} does not exist.")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise ValueError(f"Cannot write {path}: permission denied.")


def save_to_history(document: dict, quiet: bool) -> None:
    """Add a run to the history and say where (unless ``quiet``); a failure is a one-line warning."""
    from linecnn.store import History  # SQLite in the per-user data dir; --no-save skips it

    store = History()
    try:
        run_id = store.save(document, "cli")
    except ValueError as error:
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"linecnn bench: warning: not saved to the history: {first_line}", file=sys.stderr)
        return
    if not quiet:
        print(f"Saved as run #{run_id} in {store.path}")


def print_results(results: list[dict], plan: SweepPlan) -> None:
    """The human output: the table, each accelerator's crossover with the CPU, and the plan's notes."""
    print(bench_table(results))
    cpu = {r["x"]: r["median_ms"] for r in results if r["device"] == "cpu" and r["median_ms"] is not None}
    for device in dict.fromkeys(r["device"] for r in results if r["device"] != "cpu"):
        other = {
            r["x"]: r["median_ms"] for r in results if r["device"] == device and r["median_ms"] is not None
        }
        found = crossover(cpu, other, plan.factor, name=device)
        if found is not None:
            print(found.verdict)
    for note in plan.notes:
        print(note)


def bench_table(results: list[dict]) -> str:
    """Results as a fixed-width table, one line per cell."""

    def number(value: float | None, spec: str) -> str:
        return "-" if value is None else format(value, spec)

    lines = [
        f"{'device':<8} {'images':>9} {'batch':>6} {'width':>5} {'convs':>5} {'variant':<14} "
        f"{'median ms':>10} {'p25-p75 ms':>17} {'samples/s':>11}  status"
    ]
    for r in results:
        c = r["config"]
        spread = "-" if r["median_ms"] is None else f"{r['p25_ms']:.2f}-{r['p75_ms']:.2f}"
        lines.append(
            f"{r['device']:<8} {c['images']:>9,} {c['step_size']:>6,} {c['width']:>5} {c['conv_layers']:>5} "
            f"{c['variant']:<14} {number(r['median_ms'], '.2f'):>10} {spread:>17} "
            f"{number(r['samples_per_s'], ',.0f'):>11}  {r['status']}"
        )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one sub-command per job."""
    parser = OneLineParser(prog="linecnn", description="Train and time the line CNN without a browser.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    train = commands.add_parser("train", help="train once and report metrics and time")
    add_run_options(train)
    train.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    train.add_argument(
        "--no-memory-check",
        action="store_true",
        help="train even when one step would keep more than 1 GiB of activations",
    )
    train.set_defaults(handler=train_command)

    bench = commands.add_parser("bench", help="time training epochs on each device; sweep one factor")
    add_bench_options(bench)
    bench.set_defaults(handler=bench_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``python -m linecnn`` and the ``linecnn`` script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.handler(args)
        sys.stdout.flush()  # a reader that went away shows here, not at interpreter exit
        return status
    except ValueError as error:
        print(f"linecnn {args.command}: error: {error}", file=sys.stderr)
        return 2
    except RuntimeError as error:
        if not is_out_of_memory(error):
            raise
        first_line = str(error).strip().splitlines()[0]
        print(
            f"linecnn {args.command}: error: out of memory ({first_line}). "
            "Try fewer images per class, a smaller batch size or a smaller width.",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print("linecnn: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return quiet_broken_pipe()


def quiet_broken_pipe() -> int:
    """The reader of stdout went away (e.g. ``| head``): end quietly with the shell's SIGPIPE status.

    stdout is pointed at /dev/null first, so flushing it at exit cannot raise again.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 141
