"""Command line: ``python -m linecnn train`` (and ``bench``) without a browser.

Each command lives in its own module (``train``, ``bench``, ``ranks``); this one parses and reports
errors. Bad options end with one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from linecnn.bench.cell import is_out_of_memory
from linecnn.cli.bench import add_bench_options, bench_command
from linecnn.cli.train import add_train_options, train_command
from linecnn.stop import Stopped


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line, not usage plus message."""

    def error(self, message: str) -> NoReturn:  # noqa: D102 - argparse hook
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one sub-command per job."""
    parser = OneLineParser(prog="linecnn", description="Train and time the line CNN without a browser.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    train = commands.add_parser("train", help="train once and report metrics and time")
    add_train_options(train)
    train.set_defaults(handler=train_command)
    bench = commands.add_parser("bench", help="time training epochs on each device; sweep one factor")
    add_bench_options(bench)
    bench.set_defaults(handler=bench_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``python -m linecnn`` and the ``linecnn`` script."""
    args = build_parser().parse_args(argv)
    try:
        status = args.handler(args)
        sys.stdout.flush()  # a reader that went away shows here, not at interpreter exit
        return status
    except (ValueError, Stopped) as error:  # Stopped: a killed rank, said in one sentence
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
