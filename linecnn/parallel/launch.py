"""One data-parallel run: ``torchrun`` with N ranks of ``linecnn.parallel.rank``, followed to its end.

Each run is ``python -m torch.distributed.run --standalone --nproc_per_node=N -m linecnn.parallel.rank ...``
in a process group of its own, so a cancel, a time cap or a rank that dies ends every process of it.
Rank 0 reports its progress as ``LINECNN {json}`` lines, read here between its timed epochs; every
rank beats once a second, and a rank silent past the host's bound (``watchdog``) ends the run at once.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from linecnn.parallel.config import RanksConfig, check_ranks, threads_per_rank
from linecnn.parallel.events import PREFIX
from linecnn.parallel.watchdog import WATCH_SECONDS, Watchdog, watch_seconds
from linecnn.procs.child import Child, Lines, python_env, start_child
from linecnn.procs.groups import exited, kill_leaders
from linecnn.stop import Stopped, StopReason

POLL_SECONDS = 0.1  # how often the launcher checks for cancel, the time cap and a finished run
STDERR_LINES = 200  # torchrun's last lines kept for the failure message
STOP_GRACE_SECONDS = 10.0  # after SIGTERM, how long torchrun may take to end its ranks before SIGKILL
RANK_MODULE = "linecnn.parallel.rank"  # what every rank's command line runs


def torchrun_command(config: RanksConfig, ranks: int, out: str, watch: float = WATCH_SECONDS) -> list[str]:
    """The torchrun command line of one run with ``ranks`` processes, rank 0 writing its result to ``out``.

    ``watch``: the launcher's bound on a silent rank, from which the ranks set their collectives' timeout."""
    run = replace(config, threads=threads_per_rank(ranks, threads=config.threads))  # what each rank takes
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc_per_node={ranks}",
        "--monitor-interval=0.1",  # notice a dead rank within 0.1 s, not 5
        "-m",
        RANK_MODULE,
        f"--out={out}",
        f"--config={json.dumps(run.as_dict())}",
        f"--watch={watch:g}",
    ]


@dataclass
class Launch:
    """The processes of one run as the launcher sees them, for progress and for the no-orphans check."""

    ranks: int  # processes asked for
    pid: int | None = None  # torchrun's pid, also the id of the run's process group
    rank_pids: dict[int, int] = field(default_factory=dict)  # rank -> pid, as each rank announced it
    done: int = 0  # epochs finished by rank 0
    total: int = 0  # epochs planned (warm-up included)


# progress(launch): called once torchrun has started, when a rank announces itself and after every epoch;
# it may raise to end the run. It runs in the launcher's process, never inside a rank's timed epoch.
RanksProgress = Callable[[Launch], None]


def run_ranks(
    config: RanksConfig,
    ranks: int,
    progress: RanksProgress | None = None,
    deadline: float | None = None,
    watch: float | None = None,
) -> dict:
    """Run one torchrun of ``ranks`` processes to its end and return rank 0's result with the start-up time.

    ``deadline`` (a ``time.monotonic()`` value) is the time cap: past it the run is ended and
    Stopped (time cap) raised. A rank that dies ends the run with Stopped (process killed), whose
    sentence names the rank and the signal; a rank silent for ``watch`` seconds (default: the host's
    $LINECNN_RANK_TIMEOUT) ends it with Stopped (no progress), naming the rank. Whatever ends the run
    early (these, or a cancel raised from ``progress``), no process of it is left when this returns or raises.
    """
    check_ranks([ranks], config)
    launch = Launch(ranks, total=config.bench.epochs)
    watch = watch_seconds() if watch is None else watch
    with tempfile.TemporaryDirectory(prefix="linecnn-ddp-") as folder:
        out = os.path.join(folder, "result.json")
        start = time.monotonic()
        try:
            first_epoch, status, errors = _launch(config, launch, out, progress, deadline, watch)
        finally:
            # torchrun starts each rank in a process group of its own, beyond the signals to torchrun's
            # group: one that outlived torchrun (a frozen one does) is ended here.
            kill_leaders(launch.rank_pids.values(), RANK_MODULE)
        if status != 0:
            why = failure_message(ranks, status, errors.text(STOP_GRACE_SECONDS))
            raise Stopped(StopReason.PROCESS_KILLED, why)
        result = _read_result(out, ranks)
    result["start_s"] = (first_epoch or time.monotonic()) - start - result["first_epoch_s"]
    return result


def _launch(
    config: RanksConfig,
    launch: Launch,
    out: str,
    progress: RanksProgress | None,
    deadline: float | None,
    watch: float,
) -> tuple[float | None, int, Lines]:
    """Start torchrun and follow it to its end: (when the first epoch ended, exit status, its stderr)."""
    ranks = launch.ranks
    command = torchrun_command(config, ranks, out, watch)
    env = _environment(threads_per_rank(ranks, threads=config.threads))
    # Ended with SIGTERM first, so that torchrun ends its ranks, and SIGKILL after STOP_GRACE_SECONDS.
    with start_child(
        command, env, stdin=False, keep_errors=STDERR_LINES, grace=STOP_GRACE_SECONDS, name="linecnn-torchrun"
    ) as torchrun:
        launch.pid = torchrun.pid
        try:
            first_epoch = _follow(torchrun, launch, progress, deadline, Watchdog(ranks, watch))
        except Stopped as stop:
            if stop.reason is StopReason.NO_PROGRESS:  # a stopped process ignores SIGTERM until it runs again
                kill_leaders(launch.rank_pids.values(), RANK_MODULE)
                torchrun.kill()
            raise
        return first_epoch, torchrun.process.wait(), torchrun.errors


def _follow(
    torchrun: Child,
    launch: Launch,
    progress: RanksProgress | None,
    deadline: float | None,
    watchdog: Watchdog,
) -> float | None:
    """Follow the ranks' events into ``launch`` until torchrun ends; when its first epoch ended (monotonic).

    ``watchdog`` hears every rank's lines and ends the run on a silent one."""
    process, lines = torchrun.process, torchrun.lines
    report = progress or (lambda _launch: None)
    report(launch)
    first_epoch: float | None = None
    while True:
        if deadline is not None and time.monotonic() > deadline:
            raise Stopped(StopReason.TIME_CAP, f"The time cap ended the run of {launch.ranks} processes.")
        if process.poll() is None:  # once torchrun has ended, its ranks' silence is no news
            watchdog.check(lambda rank: exited(launch.rank_pids.get(rank)))
        try:
            line = lines.get(timeout=POLL_SECONDS)
        except queue.Empty:
            if process.poll() is not None and lines.drained():
                return first_epoch
            continue
        event = _event(line)
        if event is None:
            continue
        if isinstance(event.get("rank"), int):
            watchdog.hear(event["rank"])
        if event["event"] == "ready":
            launch.rank_pids[int(event["rank"])] = int(event["pid"])
        elif event["event"] == "epoch":
            launch.done = int(event["done"])
            first_epoch = first_epoch or time.monotonic()
        report(launch)


def _environment(threads: int) -> dict[str, str]:
    """The ranks' environment: this package importable, and each rank's share of the cores for OpenMP."""
    return python_env(OMP_NUM_THREADS=str(threads), PYTHONUNBUFFERED="1")


def _read_result(out: str, ranks: int) -> dict:
    """Rank 0's JSON result; ValueError when the run ended without writing one."""
    try:
        return json.loads(Path(out).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise ValueError(f"The run of {ranks} processes ended without a result.") from None


def _event(line: str) -> dict | None:
    """The event a ``LINECNN {json}`` line carries; None for any other output."""
    if not line.startswith(PREFIX):
        return None
    try:
        event = json.loads(line[len(PREFIX) :])
    except ValueError:
        return None
    return event if isinstance(event, dict) and "event" in event else None


_RANK_LINE = re.compile(r"^\s*rank\s*:\s*(\d+)")  # "  rank      : 1 (local_rank: 1)" in the report
_EXIT_LINE = re.compile(r"^\s*exitcode\s*:\s*(-?\d+)")  # "  exitcode  : -9 (pid: 123)" after it


def failure_message(ranks: int, status: int, stderr: str) -> str:
    """A sentence for a run whose torchrun failed: which ranks ended and how, from torchrun's report.

    A rank killed by a signal other than torchrun's own SIGTERM is named first: it is the likely cause,
    and the others failed because a collective lost it.
    """
    codes = _exit_codes(stderr)
    if not codes:
        last = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), "")
        detail = f": {last[:200]}" if last else ""
        return f"The run of {ranks} processes failed (torchrun exit status {status}){detail}."
    killed = -signal.SIGTERM
    ordered = sorted(codes.items(), key=lambda item: (item[1] >= 0 or item[1] == killed, item[0]))
    (rank, code), others = ordered[0], ordered[1:]
    text = f"Rank {rank} of {ranks} {_how(code)}" + "".join(f"; rank {r} {_how(c)}" for r, c in others)
    return (
        f"{text}. torchrun stopped the run and no process of it is left; "
        "nothing was measured for this number of processes."
    )


def _exit_codes(stderr: str) -> dict[int, int]:
    """rank -> exit code, as torchrun's failure report lists them (the first report of a rank wins)."""
    codes: dict[int, int] = {}
    rank: int | None = None
    for line in stderr.splitlines():
        if found := _RANK_LINE.match(line):
            rank = int(found.group(1))
        elif (found := _EXIT_LINE.match(line)) and rank is not None:
            codes.setdefault(rank, int(found.group(1)))
            rank = None
    return codes


def _how(code: int) -> str:
    """How a rank ended, from its exit code (negative: the signal that killed it)."""
    if code < 0 and -code in signal.valid_signals():
        return f"was killed by {signal.Signals(-code).name}"
    return f"ended with exit status {code}"
