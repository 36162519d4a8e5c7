"""``python -m linecnn.bench.profile_worker``: "Inside one step" profiled in a process of its own.

For the reason ``linecnn.bench.worker`` times sweeps apart from the server: a step profiled inside
the Streamlit server shares the interpreter lock with every session's script runs, which would show
as time "around the operators" that is not the lesson's. The parent writes one request line (the
cells, the folder for the traces, the time cap, the cores a cell owns) and keeps stdin open; at its
end this process exits. Stdout carries, per cell, ``{"ready": cell}`` (the worker then waits for the
parent's go line, once the parent has reserved the cell's cores as for a sweep cell:
``linecnn.classroom.cores``) and ``{"profile": ...}``; then ``{"end": true}``, with ``{"beat": true}``
every second among them (``heartbeat``): a worker silent past the host's bound is ended. The worker
pins itself to the cores it owns and runs one torch thread per core, as the sweep worker does.
"""

from __future__ import annotations

import contextlib
import json
import queue
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import torch

from linecnn.bench.config import RUN_KEYS, TIMING_KEYS, BenchConfig
from linecnn.bench.heartbeat import BEAT, Replies, open_replies, worker_timeout
from linecnn.bench.in_worker import start_worker
from linecnn.bench.profile import profile_step
from linecnn.bench.step_profile import StepProfile
from linecnn.bench.timing import Watch
from linecnn.classroom.bench_turns import gpu_alone
from linecnn.classroom.cores import OS_AFFINITY, Affinity, CoreSplit, confine_all, core_split, hold_cores
from linecnn.classroom.sharing import CPU_CLOCK
from linecnn.procs.beat import Silence
from linecnn.procs.child import Lines
from linecnn.stop import Stopped

STARTUP_GRACE = 60.0  # past the time cap, how long the worker may still take before it is killed


def trace_path(folder: Path, config: BenchConfig, device: str) -> Path:
    """Where the worker writes the trace of ``config`` on ``device``."""
    return folder / f"trace-{device.replace(':', '')}-{config.step_size}.json"


def profile_in_worker(
    targets: list[tuple[BenchConfig, str]],
    folder: Path,
    max_seconds: float | None,
    check: Callable[[], None],
    split: CoreSplit | None = None,
    affinity: Affinity = OS_AFFINITY,
) -> Iterator[StepProfile]:
    """Profile ``targets`` in a worker process, yielding each profile as it ends; traces go to ``folder``.

    ``check`` is called while waiting (a cancel raises from it); the worker is then killed, not waited for.
    Each cell owns its cores while it is profiled, as a sweep cell does (``split``, default this machine's).
    """
    # A CUDA cell is profiled alone: no Train run of this server shares the GPU meanwhile.
    cuda = any(torch.device(device).type == "cuda" for _, device in targets)
    split = split or core_split(affinity=affinity)
    with gpu_alone(torch.device("cuda" if cuda else "cpu")):
        yield from _profile_in_worker(targets, folder, max_seconds, check, (split, affinity))


def _profile_in_worker(
    targets: list[tuple[BenchConfig, str]],
    folder: Path,
    max_seconds: float | None,
    check: Callable[[], None],
    cores: tuple[CoreSplit, Affinity],
) -> Iterator[StepProfile]:
    """``profile_in_worker`` once the GPU is held; ``cores``: the split and the affinity calls."""
    # stderr holds torch.profiler's own log lines; an error ends the run with its status instead.
    worker = start_worker("linecnn.bench.profile_worker", keep_errors=None)
    deadline = None if max_seconds is None else time.monotonic() + max_seconds + STARTUP_GRACE
    split, affinity = cores
    request = {
        "cells": [[c.to_flat(), d] for c, d in targets],
        "folder": str(folder),
        "max_seconds": max_seconds,
        "cores": list(split.bench),
    }
    try:
        worker.send(json.dumps(request))
        with contextlib.ExitStack() as reserved:
            for line in _lines(worker.lines, check, deadline, max_seconds):
                message = json.loads(line)
                if BEAT in message:
                    continue
                if "ready" in message:  # the next cell waits for its cores: reserve them, then say go
                    reserved.enter_context(hold_cores(split, CPU_CLOCK, affinity))
                    worker.send("go")
                    continue
                reserved.close()  # the cell is over (or the run): training may use every core again
                if "end" in message:
                    return
                yield _profile(message, max_seconds)
        raise RuntimeError(f"The profiling process ended early (exit status {worker.process.wait()}).")
    finally:
        worker.end()


def _profile(message: dict, max_seconds: float | None) -> StepProfile:
    """The profile a reply line holds; Stopped (time cap) or ValueError when the worker says so."""
    if "capped" in message:
        assert max_seconds is not None  # the worker caps only a request that has a cap
        raise Stopped.time_cap(max_seconds)
    if "error" in message:
        raise ValueError(message["error"])
    return StepProfile.from_dict(message["profile"])


def _lines(
    lines: Lines, check: Callable[[], None], deadline: float | None, cap: float | None
) -> Iterator[str]:
    """The worker's reply lines as they come; a cancel (raised by ``check``), the deadline or the worker's
    silence (past $LINECNN_WORKER_TIMEOUT) lands within 0.1 s."""
    silence = Silence(worker_timeout())

    def between() -> None:
        check()
        if deadline is not None and time.monotonic() > deadline:
            assert cap is not None  # a deadline exists only with a time cap
            raise Stopped.time_cap(cap)
        silence.check()

    for line in lines.follow(between):
        silence.heard()
        yield line


def main() -> int:
    """Read the request, pin to its cores, profile each cell (after the parent's go), reply line by line."""
    request = json.loads(sys.stdin.readline())
    cores = request.get("cores")
    if cores:  # one torch thread per core the cells own, as a sweep cell
        if OS_AFFINITY.supported:
            confine_all(cores)
        torch.set_num_threads(len(cores))
    commands: queue.Queue = queue.Queue()
    replies = open_replies("linecnn-profile", commands)
    try:
        last = _profile_cells(request, replies, commands)
    finally:
        replies.close()
    replies.send(last)
    return 0 if "end" in last else 1


def _profile_cells(request: dict, replies: Replies, commands: queue.Queue) -> dict:
    """Profile each cell of ``request`` once the parent says go, replying one line per cell; the last
    line to send."""
    watch = Watch(max_seconds=request["max_seconds"])
    for index, (flat, device) in enumerate(request["cells"], start=1):
        config = BenchConfig.from_flat(**{key: flat[key] for key in (*RUN_KEYS, *TIMING_KEYS)})
        trace = trace_path(Path(request["folder"]), config, device)
        if "cores" in request:  # a parent that reserves cores answers each ready with a go
            replies.send({"ready": index})
            commands.get()  # its end of file exits the process instead
        try:
            profile = profile_step(config, device, trace=trace, check=watch.check)
        except Stopped:
            return {"capped": True}
        except ValueError as error:
            return {"error": str(error)}
        replies.send({"profile": profile.to_dict()})
    return {"end": True}


if __name__ == "__main__":
    sys.exit(main())
