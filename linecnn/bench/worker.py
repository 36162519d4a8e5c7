"""``python -m linecnn.bench.worker``: one sweep timed in a process of its own, for the Benchmark page.

A timing thread inside the Streamlit server shares the interpreter lock with every session's script
runs, so an epoch the CLI times in a few ms could read a second there. The page therefore runs each
benchmark here, in a fresh process that runs exactly the CLI's code (``run_sweep``) on torch's
start-up thread count, as the CLI does. ``linecnn.bench.in_worker`` starts it and reads it.

The protocol is JSON lines. The parent writes one request line on stdin (``request``) and keeps
stdin open: at its end of file (a cancel, the server gone) this process exits at once. Stdout carries
only the replies: ``{"env": ...}`` first, then per cell ``{"ready": cell}``, after which the worker
waits for one line on stdin (the parent's go, once it has reserved the cell's cores:
``linecnn.classroom.cores``), ``{"progress": [cell, phase, done, total]}`` between epochs and
``{"result": ...}``; at last ``{"end": true}``. A ``{"beat": true}`` comes every second among them,
waits included (``heartbeat``); anything else printed goes to stderr.

The worker pins itself to the cores the request names and runs one torch thread per core: a cell
never uses more threads than the cores it owns.
"""

from __future__ import annotations

import json
import queue
import sys
import time
from collections.abc import Sequence
from dataclasses import replace

from linecnn.bench.config import RUN_KEYS, TIMING_KEYS, BenchConfig
from linecnn.bench.document import BenchEnv
from linecnn.bench.factors import factor
from linecnn.bench.heartbeat import open_replies
from linecnn.bench.plan import Caps, SweepPlan
from linecnn.bench.sweep import CellProgress, run_sweep
from linecnn.classroom.cores import OS_AFFINITY, confine_all


def request(
    plan: SweepPlan,
    max_seconds: float | None,
    cores: Sequence[int] | None = None,
    machine_cores: int | None = None,
    handshake: bool = False,
) -> str:
    """The request line for ``plan``: its cells, the time cap counted from now (wall clock), the cores
    the cells own (None: wherever the worker runs, on torch's start-up threads) and whether the
    worker waits for a go line before each cell."""
    return json.dumps(
        {
            "cores": None if cores is None else list(cores),
            "machine_cores": machine_cores,
            "handshake": handshake,
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
    """Read the request, pin to its cores, time its cells (each after the parent's go), reply line by line."""
    line = sys.stdin.readline()
    plan, caps = read_request(line)
    data = json.loads(line)
    cores, handshake = data.get("cores"), bool(data.get("handshake"))
    threads = None
    if cores:
        if OS_AFFINITY.supported:
            confine_all(cores)
        threads = len(cores)
    commands: queue.Queue = queue.Queue()
    replies = open_replies("linecnn-worker", commands)
    try:
        env = BenchEnv.here()
        replies.send({"env": (env if threads is None else replace(env, torch_threads=threads)).to_dict()})

        def progress(cell: CellProgress) -> None:
            replies.send({"progress": [cell.cell, cell.phase, cell.done, cell.total]})

        def ready(index: int) -> None:
            replies.send({"ready": index})
            commands.get()  # the parent's go; its end of file exits the process instead

        before = ready if handshake else None
        machine = data.get("machine_cores")
        cells = run_sweep(
            plan, caps=caps, progress=progress, threads=threads, machine_cores=machine, before_cell=before
        )
        for result in cells:
            replies.send({"result": result.to_dict(plan.factor)})
    finally:
        replies.close()
    replies.send({"end": True})
    return 0


if __name__ == "__main__":
    sys.exit(main())
