"""A sweep timed in a worker process (``linecnn.bench.worker``), read as if it ran here: the page's path.

``run_in_worker`` has ``run_sweep``'s shape (a plan in, one CellResult per cell out, progress, a
cancel event, the time cap) so the page's background job calls one or the other alike. The worker
runs in a process group of its own (``linecnn.procs``): a cancel, a time cap, an error or the worker's
silence past the host's bound (``heartbeat``) ends the whole group and reaps it, so no process is left
behind. While a CUDA cell may run, this server's Train runs stay off the GPUs (``gpu_alone``). Each
cell owns its cores while it runs (``linecnn.classroom.cores``): the worker says it is ready, this
server reserves the cores (its own threads moved to the others, or training paused between epochs),
then says go, and releases them when the cell's result comes (or on a cancel, an error, the time
cap). Each result says what the cell had and what it cost the server's training runs.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace

import torch

from linecnn.bench.document import BenchEnv
from linecnn.bench.heartbeat import BEAT, worker_timeout
from linecnn.bench.jsonfields import Fields
from linecnn.bench.noise import add_reason
from linecnn.bench.plan import Caps, SweepPlan
from linecnn.bench.results import TIME_CAP, CellResult, CellStatus
from linecnn.bench.sweep import CellProgress, not_run
from linecnn.bench.worker import request
from linecnn.classroom.bench_turns import gpu_alone
from linecnn.classroom.cores import OS_AFFINITY, Affinity, CoreHold, CoreSplit, core_split, hold_cores
from linecnn.classroom.gpu_use import GPU_USE
from linecnn.classroom.sharing import CPU_CLOCK, training_queue
from linecnn.errors import UserError
from linecnn.procs.beat import Silence
from linecnn.procs.child import CannotStart, Child, Lines, python_env, start_child
from linecnn.stop import Stopped, StopReason

POLL_SECONDS = 0.1  # how often the reader checks for a cancel while no line comes
STARTUP_GRACE = 60.0  # past the time cap, how long the worker may still take before it is killed
STOP_GRACE = 2.0  # after SIGTERM, how long the worker may take to exit before SIGKILL
STDERR_LINES = 20  # lines of the worker's stderr kept to explain a crash

_LOG = logging.getLogger(__name__)


def training_busy(device: str) -> bool:
    """True while a Train run of this server holds a slot on the CPU or on ``device``, or, for a GPU
    cell, when other GPU work of this server (Draw, Lesson) ran since the last look."""
    keys = dict.fromkeys(["cpu", str(torch.device(device))])
    gpu_work = torch.device(device).type == "cuda" and GPU_USE.since_last_look()
    return any(training_queue(key).busy for key in keys) or gpu_work


def run_in_worker(
    plan: SweepPlan,
    *,
    caps: Caps | None = None,
    progress: Callable[[CellProgress], None] | None = None,
    cancel: threading.Event | None = None,
    on_env: Callable[[BenchEnv], None] | None = None,
    busy: Callable[[str], bool] = training_busy,
    split: CoreSplit | None = None,
    affinity: Affinity = OS_AFFINITY,
    watch: Callable[[], None] | None = None,
) -> Iterator[CellResult]:
    """Run the plan's cells in a worker process, yielding one result per cell as ``run_sweep`` does.

    ``on_env`` receives the worker's environment (its threads are the cells'); ``split`` (default: this
    machine's) says which cores a cell owns. A cancel raises Stopped (cancelled) within POLL_SECONDS, and
    ``watch``, run at each poll, may set it; a worker silent past $LINECNN_WORKER_TIMEOUT (frozen, hung)
    raises Stopped (no progress). Either way the worker is killed, not waited for."""
    caps, cancel, split = caps or Caps(), cancel or threading.Event(), split or core_split(affinity=affinity)
    cells, cuda = plan.cells(), any(torch.device(device).type == "cuda" for device in plan.devices)
    deadline = None if caps.max_seconds is None else time.monotonic() + caps.max_seconds + STARTUP_GRACE
    with (
        gpu_alone(torch.device("cuda" if cuda else "cpu")),
        _worker(plan, caps, split) as worker,
        contextlib.ExitStack() as reserved,
    ):
        done, disturbed, silence, hold = 0, False, Silence(worker_timeout()), None
        while True:
            message = _next(worker.lines, cancel, deadline, silence, watch)
            if message is None:  # past the time cap and its grace: the cells left are skipped
                yield from _capped(cells[done:], caps)
                return
            if "end" in message:
                return
            if "env" in message and on_env is not None:
                on_env(BenchEnv.from_dict(Fields(message["env"])))
            elif "ready" in message:  # the next cell waits for its cores: reserve them, then say go
                hold = _say_go(worker, reserved.enter_context(hold_cores(split, CPU_CLOCK, affinity)))
            elif "progress" in message:
                index, phase, count, total = message["progress"]
                config, device = cells[index - 1]
                disturbed = disturbed or (hold is None and busy(device))
                if progress is not None:
                    progress(CellProgress(index, len(cells), device, config, phase, count, total))
            elif "result" in message:
                reserved.close()  # the cell is over: training may use every core again
                yield _finished(CellResult.from_dict(Fields(message["result"])), hold, disturbed, busy)
                done, disturbed, hold = done + 1, False, None
            elif message.get("eof"):
                raise RuntimeError(_crash(worker))


def _finished(
    result: CellResult, hold: CoreHold | None, disturbed: bool, busy: Callable[[str], bool]
) -> CellResult:
    """A cell's result with what its core reservation cost; only a cell whose cores were not reserved
    can have shared them with a Train run (``disturbed``: one held a slot while it ran)."""
    if hold is not None:
        return replace(result, mode=hold.mode, waited_runs=hold.runs, waited_seconds=hold.seconds)
    return add_reason(result, "training") if disturbed or busy(result.device) else result


def _say_go(worker: Child, hold: CoreHold) -> CoreHold:
    """Tell the worker that its cell's cores are reserved (``hold``, returned)."""
    worker.send("go")
    return hold


def start_worker(module: str, keep_errors: int | None = STDERR_LINES) -> Child:
    """``python -m module`` on this copy of linecnn, supervised (``linecnn.procs.child``): a process
    group of its own, stdout read line by line, the last ``keep_errors`` lines of stderr kept (None: none)."""
    command = [sys.executable, "-m", module]
    try:
        return start_child(command, python_env(), keep_errors=keep_errors, grace=STOP_GRACE, name=module)
    except CannotStart as error:  # its path goes to the log only, the page says it could not start
        _LOG.error("Could not start the worker process %s with %s: %s", module, sys.executable, error)
        raise UserError("worker_not_started") from None


@contextlib.contextmanager
def _worker(plan: SweepPlan, caps: Caps, split: CoreSplit) -> Iterator[Child]:
    """The worker process with its request sent, its reply lines read by a thread; ended on the way out."""
    worker = start_worker("linecnn.bench.worker")
    try:
        worker.send(request(plan, caps.max_seconds, split.bench, len(split.cores), handshake=True))
        yield worker
    finally:
        worker.end()


def _parse(line: str) -> dict:
    """One reply line; a line that is not ours (a library printing on the protocol's fd) is ignored."""
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def _next(
    lines: Lines,
    cancel: threading.Event,
    deadline: float | None,
    silence: Silence,
    watch: Callable[[], None] | None = None,
) -> dict | None:
    """The next reply (beats only count as signs of life), ``{"eof": True}`` once stdout ended; Stopped
    (cancelled) on a cancel, (no progress) once the worker fell silent; None once the deadline has passed.
    ``watch`` runs before each look at ``cancel``."""
    while True:
        if watch is not None:
            watch()
        if cancel.is_set():
            raise Stopped(StopReason.CANCELLED)
        if deadline is not None and time.monotonic() > deadline:
            return None
        try:
            message = _parse(lines.get(timeout=POLL_SECONDS))
        except queue.Empty:
            if lines.drained():
                return {"eof": True}
            silence.check()
            continue
        silence.heard()
        if BEAT not in message:
            return message


def _capped(cells: list, caps: Caps) -> Iterator[CellResult]:
    """The cells a killed worker never finished: the running one stopped, the rest skipped."""
    assert caps.max_seconds is not None  # the worker is killed at a deadline only under a time cap
    for number, (config, device) in enumerate(cells):
        if number == 0:
            yield not_run(config, device, CellStatus.STOPPED, str(Stopped.time_cap(caps.max_seconds)))
        else:
            yield not_run(config, device, CellStatus.SKIPPED, TIME_CAP)


def _crash(worker: Child) -> str:
    """Why the worker ended without its last line: its exit status and the end of its stderr."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        worker.process.wait(timeout=STOP_GRACE)
    worker.errors.finished.wait(timeout=STOP_GRACE)
    status = worker.process.returncode
    return f"The benchmark worker process ended early (exit status {status}): {worker.last_error()}"
