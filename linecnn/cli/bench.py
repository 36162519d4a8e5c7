"""``python -m linecnn bench``: time epochs on each device, sweep one factor, print a table or the JSON."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from linecnn.bench.config import AMP_MODES, BenchConfig
from linecnn.bench.document import BenchDocument, BenchEnv
from linecnn.bench.factors import FACTORS, SINGLE
from linecnn.bench.plan import MAX_STEP_BYTES, Caps, StepMemoryError, SweepPlan, SweepRequest
from linecnn.classroom.cores import OS_AFFINITY, confine_all, usable_cores
from linecnn.cli.table import print_results
from linecnn.cli.train import add_problem_options, progress_bars
from linecnn.device import list_devices, resolve
from linecnn.train.config import DEFAULT_FLAT

if TYPE_CHECKING:  # the profiler's types, imported for real only when a profile is asked for
    from linecnn.bench.step_profile import StepProfile


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
    return list(dict.fromkeys(str(resolve(name, "--devices")) for name in names))


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
    """Options of ``bench``: the base cell (with RunConfig()'s defaults), the sweep, the output."""
    add, timing = parser.add_argument, BenchConfig()
    add("--devices", default="all", help="'all' (default) or a list such as cpu,cuda")
    add_problem_options(parser)
    add("--extra-convs", type=int, default=DEFAULT_FLAT["extra_convs"], help="extra 3x3 convs (%(default)s)")
    add("--warmup", type=int, default=timing.warmup, help="untimed epochs before timing (%(default)s)")
    add("--repeats", type=int, default=timing.repeats, help="timed epochs per cell (%(default)s)")
    add("--sweep", choices=list(FACTORS), default=SINGLE.name, help="vary one factor, the others held (none)")
    add("--up-to", type=int, default=None, help="largest value of the swept factor")
    add("--amp", choices=AMP_MODES, default=timing.amp, help="autocast dtype on CUDA (off)")
    add("--channels-last", action="store_true", help="NHWC layout (CPU and CUDA)")
    add("--compile", action="store_true", help="torch.compile the model")
    add("--cuda-graphs", action="store_true", help="compile with CUDA graphs (CUDA only)")
    add("--no-eager", action="store_true", help="with faster paths on, skip the plain eager comparison")
    add("--max-seconds", type=float, default=None, help="stop the sweep after this long")
    add(
        "--threads",
        type=int,
        default=None,
        help="CPU cells on N torch threads, pinned to N cores where the system allows (default: torch's "
        "start-up count, unpinned); compare with the Benchmark page's cells at equal threads",
    )
    add(
        "--max-step-bytes",
        type=step_bytes_arg,
        default=MAX_STEP_BYTES,
        help="leave out cells whose training step would keep more activations than this, as the page "
        "does (default 2**30, 1 GiB; 'none' for no cap: a far bigger CPU step meets the OOM killer)",
    )
    add("--profile", action="store_true", help="after timing, look inside one step with torch.profiler")
    add("--trace", default=None, help="write the profile's Chrome trace to this file (implies --profile)")
    add("--json", action="store_true", help="print the JSON document instead of a table")
    add("--out", default=None, help="also write the JSON document to this file")
    add("--no-save", action="store_true", help="do not add the run to the history")
    add(
        "--ranks",
        type=ranks_arg,
        default=None,
        help="data-parallel: time torchrun runs of N processes each, e.g. 1,2,4 (CPU ranks over gloo; with "
        "--devices cuda, NCCL with one rank per GPU); not added to the history",
    )
    add("--rank-threads", type=int, default=None, help="CPU threads per rank (default: cores // N or 1)")


def bench_config_from(args: argparse.Namespace) -> BenchConfig:
    """The base cell from parsed options (raises ValueError)."""
    keys = ["per_class", "batch_size", "width", "extra_convs", "seed", "warmup", "repeats", "amp"]
    keys += ["channels_last", "compile", "cuda_graphs"]
    return BenchConfig.from_flat(**{key: getattr(args, key) for key in keys})


def bench_command(args: argparse.Namespace) -> int:
    """Time epochs on each device (a sweep when asked); print a table or the JSON document."""
    if args.ranks is not None:
        from linecnn.cli.ranks import ranks_command  # the data-parallel benchmark, through torchrun

        return ranks_command(args)
    plan, caps = plan_from(args)
    machine = len(usable_cores())
    if args.threads is not None:
        pin_threads(args.threads)
    document = run_plan(plan, caps, quiet=args.json, threads=args.threads, machine_cores=machine)
    profiles: list[StepProfile] = []
    traces: list[Path | None] = []
    if args.profile or args.trace:
        from linecnn.cli.profile import run_profiles  # torch.profiler only when asked

        profiles, traces = run_profiles(bench_config_from(args), plan, args.trace, args.max_seconds)
    text = json_text(document, profiles)
    # Results first, then the files: a history that cannot be opened must not swallow a measurement.
    if args.json:
        print(text, flush=True)
    else:
        print_results(document, plan)
        if profiles:
            from linecnn.cli.profile import profile_text

            print("\n" + profile_text(profiles, traces))
    if not args.no_save:
        save_to_history(document, quiet=args.json)
    if args.out:
        try:
            Path(args.out).write_text(text + "\n", encoding="utf-8")
        except OSError as error:
            raise ValueError(f"Cannot write {args.out}: {error.strerror}.") from None
        if not args.json:
            print(f"JSON written to {args.out}; import it on the Benchmark page to compare machines.")
    return 0


def plan_from(args: argparse.Namespace) -> tuple[SweepPlan, Caps]:
    """Check every option and plan the sweep, before anything is timed; its notes go to stderr now."""
    base = bench_config_from(args)
    devices = devices_arg(args.devices)
    cores = len(usable_cores())
    if args.threads is not None and not 1 <= args.threads <= cores:
        raise ValueError(
            f"--threads must be a whole number from 1 to {cores}, this machine's cores; got {args.threads}."
        )
    if args.max_seconds is not None and not (math.isfinite(args.max_seconds) and args.max_seconds > 0):
        raise ValueError(f"--max-seconds must be a number of seconds above 0; got {args.max_seconds}.")
    for path in (args.out, args.trace):
        if path:
            check_writable(path)  # now, not after a sweep that may take minutes
    caps = Caps(max_seconds=args.max_seconds, max_step_bytes=args.max_step_bytes, name="the CLI's cap")
    try:
        request = SweepRequest(base, FACTORS[args.sweep], tuple(devices), args.up_to, not args.no_eager)
        plan = request.plan(caps)
    except StepMemoryError as error:
        raise ValueError(f"{error} Or pass --max-step-bytes none to lift the cap.") from None
    for note in plan.notes:
        print(f"linecnn bench: note: {note}", file=sys.stderr, flush=True)
    return plan, caps


def json_text(document: BenchDocument, profiles: list) -> str:
    """The document's JSON; with a profile, its figures under "profile" (the page's import ignores them)."""
    if not profiles:
        return document.to_json(indent=1)
    data = document.to_dict()
    data["profile"] = [profile.to_dict() for profile in profiles]
    return json.dumps(data, indent=1, sort_keys=True)


def pin_threads(threads: int) -> None:
    """Pin this process to its last ``threads`` cores, where the system allows, as the page's worker does."""
    if OS_AFFINITY.supported:
        confine_all(usable_cores()[-threads:])


def run_plan(
    plan: SweepPlan, caps: Caps, quiet: bool, threads: int | None = None, machine_cores: int | None = None
) -> BenchDocument:
    """Run the sweep (CPU cells on ``threads``), with a tqdm bar on a terminal's stderr unless ``quiet``,
    and make its document."""
    from linecnn.bench import sweep  # torch's import cost only for a command that times

    env, progress, bar = BenchEnv.here(), None, None
    if threads is not None:  # the threads the cells ran on, as the page's worker reports its own
        env = replace(env, torch_threads=threads)
    tqdm = None if quiet else progress_bars()
    if tqdm is not None:
        # disable=None: no bar when stderr is not a terminal. In a file (`2>&1 | tee run.txt`) its
        # redraws stay as carriage returns, and the table's first line would follow them on one line.
        bar_format = "{l_bar}{bar}| {elapsed} {postfix}"
        bar = tqdm(total=1.0, file=sys.stderr, leave=False, bar_format=bar_format, disable=None)

        def progress(cell: sweep.CellProgress) -> None:
            bar.n = round(cell.fraction, 4)
            bar.set_description(f"cell {cell.cell}/{cell.cells}", refresh=False)
            bar.set_postfix_str(f"{cell.device} · {cell.config.images:,} images · {cell.phase}")

    cells = sweep.run_sweep(plan, caps=caps, progress=progress, threads=threads, machine_cores=machine_cores)
    results = list(cells)
    if bar is not None:
        bar.close()
    return sweep.make_document(plan, results, env)


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


def save_to_history(document: BenchDocument, quiet: bool) -> None:
    """Add a run to the history and say where (unless ``quiet``); a failure is a one-line warning."""
    from linecnn.bench.store import History  # SQLite in the per-user data dir; --no-save skips it

    store = History()
    try:
        run_id = store.save(document, "cli")
    except ValueError as error:
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"linecnn bench: warning: not saved to the history: {first_line}", file=sys.stderr)
        return
    if not quiet:
        print(f"Saved as run #{run_id} in {store.path}")
