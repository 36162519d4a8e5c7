"""``python -m linecnn.bench.profile_worker``: "Inside one step" profiled in a process of its own.

For the reason ``linecnn.bench.worker`` times sweeps apart from the server: a step profiled inside
the Streamlit server shares the interpreter lock with every session's script runs, which would show
as time "around the operators" that is not the lesson's. The parent writes one request line (the
cells, the folder for the traces, the time cap) and keeps stdin open; at its end this process exits.
Stdout carries one ``{"profile": ...}`` line per cell, then ``{"end": true}``, with ``{"beat": true}``
every second among them (``heartbeat``): a worker silent past the host's bound is ended.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import torch

from linecnn.bench.config import RUN_KEYS, TIMING_KEYS, BenchConfig
from linecnn.bench.heartbeat import BEAT, Replies, open_replies, worker_timeout
from linecnn.bench.in_worker import start_worker
from linecnn.bench.lock import gpu_alone
from linecnn.bench.profile import profile_step
from linecnn.bench.step_profile import StepProfile
from linecnn.bench.timing import Watch
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
) -> Iterator[StepProfile]:
    """Profile ``targets`` in a worker process, yielding each profile as it ends; traces go to ``folder``.

    ``check`` is called while waiting (a cancel raises from it); the worker is then killed, not waited for.
    """
    # A CUDA cell is profiled alone: no Train run of this server shares the GPU meanwhile.
    cuda = any(torch.device(device).type == "cuda" for _, device in targets)
    with gpu_alone(torch.device("cuda" if cuda else "cpu")):
        yield from _profile_in_worker(targets, folder, max_seconds, check)


def _profile_in_worker(
    targets: list[tuple[BenchConfig, str]],
    folder: Path,
    max_seconds: float | None,
    check: Callable[[], None],
) -> Iterator[StepProfile]:
    """``profile_in_worker`` once the GPU is held."""
    # stderr holds torch.profiler's own log lines; an error ends the run with its status instead.
    worker = start_worker("linecnn.bench.profile_worker", keep_errors=None)
    deadline = None if max_seconds is None else time.monotonic() + max_seconds + STARTUP_GRACE
    request = {
        "cells": [[c.to_flat(), d] for c, d in targets],
        "folder": str(folder),
        "max_seconds": max_seconds,
    }
    try:
        worker.send(json.dumps(request))
        for line in _lines(worker.lines, check, deadline, max_seconds):
            message = json.loads(line)
            if BEAT in message:
                continue
            if "end" in message:
                return
            if "capped" in message:
                assert max_seconds is not None  # the worker caps only a request that has a cap
                raise Stopped.time_cap(max_seconds)
            if "error" in message:
                raise ValueError(message["error"])
            yield StepProfile.from_dict(message["profile"])
        raise RuntimeError(f"The profiling process ended early (exit status {worker.process.wait()}).")
    finally:
        worker.end()


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
    """Read the request, profile each cell, reply line by line."""
    request = json.loads(sys.stdin.readline())
    replies = open_replies("linecnn-profile")
    try:
        last = _profile_cells(request, replies)
    finally:
        replies.close()
    replies.send(last)
    return 0 if "end" in last else 1


def _profile_cells(request: dict, replies: Replies) -> dict:
    """Profile each cell of ``request``, replying one line per cell; the last line to send."""
    watch = Watch(max_seconds=request["max_seconds"])
    for flat, device in request["cells"]:
        config = BenchConfig.from_flat(**{key: flat[key] for key in (*RUN_KEYS, *TIMING_KEYS)})
        trace = trace_path(Path(request["folder"]), config, device)
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
