"""``python -m linecnn.bench.worker``: one sweep timed in a process of its own, for the Benchmark page.

A timing thread inside the Streamlit server shares the interpreter lock with every session's script
runs, so an epoch the CLI times in a few ms could read a second there. The page therefore runs each
benchmark here, in a fresh process that runs exactly the CLI's code (``run_sweep``) on torch's
start-up thread count, as the CLI does. ``linecnn.bench.remote`` starts it and reads it.

The protocol is JSON lines. The parent writes one request line on stdin (``request``) and keeps
stdin open: at its end of file (a cancel, the server gone) this process exits at once. Stdout carries
only the replies: ``{"env": ...}`` first, then ``{"progress": [cell, phase, done, total]}`` between
epochs, ``{"result": ...}`` per cell, and ``{"end": true}``, with ``{"beat": true}`` every second
among them (``heartbeat``); anything else printed goes to stderr.
"""

from __future__ import annotations

import json
import sys
import time

from linecnn.bench.config import RUN_KEYS, TIMING_KEYS, BenchConfig
from linecnn.bench.document import BenchEnv
from linecnn.bench.factors import factor
from linecnn.bench.heartbeat import open_replies
from linecnn.bench.plan import Caps, SweepPlan
from linecnn.bench.sweep import CellProgress, run_sweep


def request(plan: SweepPlan, max_seconds: float | None) -> str:
    """The request line for ``plan``: its cells, and the time cap counted from now (wall clock)."""
    return json.dumps(
        {
            "factor": plan.factor.name,
            "configs": [config.to_flat() for config in plan.configs],
            "devices": list(plan.devices),
            "compare_eager": plan.compare_eager,
            "max_seconds": max_seconds,
            "sent": time.time(),  # the cap counts the worker's start-up too, as the page's time cap did
        }
    )


def read_request(line: str) -> tuple[SweepPlan, Caps]:
    """The plan and caps a request line holds (only a parent of this server writes one)."""
    data = json.loads(line)
    configs = tuple(
        BenchConfig.from_flat(**{key: flat[key] for key in (*RUN_KEYS, *TIMING_KEYS)})
        for flat in data["configs"]
    )
    plan = SweepPlan(factor(data["factor"]), configs, tuple(data["devices"]), bool(data["compare_eager"]))
    cap = data["max_seconds"]
    left = None if cap is None else max(0.001, cap - (time.time() - data["sent"]))
    return plan, Caps(max_seconds=left)


def main() -> int:
    """Read the request, time its cells, reply line by line."""
    plan, caps = read_request(sys.stdin.readline())
    replies = open_replies("linecnn-worker")
    try:
        replies.send({"env": BenchEnv.here().to_dict()})

        def progress(cell: CellProgress) -> None:
            replies.send({"progress": [cell.cell, cell.phase, cell.done, cell.total]})

        for result in run_sweep(plan, caps=caps, progress=progress):
            replies.send({"result": result.to_dict(plan.factor)})
    finally:
        replies.close()
    replies.send({"end": True})
    return 0


if __name__ == "__main__":
    sys.exit(main())
