"""Data-parallel training as a benchmark factor: launch ``torchrun`` with N ranks of ``linecnn.ddp``.

Each run is ``python -m torch.distributed.run --standalone --nproc_per_node=N -m linecnn.ddp ...`` in
a process group of its own, so a cancel, a time cap or a rank that dies ends every process of it.
CPU ranks talk over gloo, GPU ranks over NCCL with one rank per GPU. A series of runs (1, 2, 4 ...
ranks) reports time per epoch, images/s and the scaling efficiency T1 / (N * TN), with the
all-reduce time apart, and checks every run's final loss against a single-device run in this process.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import queue
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from linecnn.config import MAX_PER_CLASS, MAX_SEED, MAX_WIDTH, ModelConfig, check_int
from linecnn.data import make_lines
from linecnn.ddp import PREFIX
from linecnn.device import list_devices
from linecnn.model import build_model
from linecnn.train import make_optimizer, train_epoch

MAX_RANKS = 64  # more processes than this on one machine is a mistake, not a measurement
LOSS_TOLERANCE = 1e-3  # relative: the ranks' final loss may differ from one device's by float rounding only
STOP_GRACE_SECONDS = 10.0  # after SIGTERM, how long torchrun may take to end its ranks before SIGKILL
POLL_SECONDS = 0.1  # how often the launcher checks for cancel, the time cap and a finished run


@dataclass(frozen=True)
class RanksConfig:
    """The data-parallel benchmark's problem and timing; the same for every rank count."""

    per_class: int = 120  # training images per class (3x this per epoch), as in the single-device bench
    batch_size: int | None = None  # images per global step (shared by the ranks); None = the whole set
    width: int = 1  # channel multiplier of the model
    warmup: int = 2  # untimed epochs first
    repeats: int = 5  # timed epochs
    seed: int = 24  # seeds the images, the initial weights and the batch order
    lr: float = 0.01  # Adam learning rate
    device: str = "cpu"  # "cpu" (gloo, processes share the cores) or "cuda" (NCCL, one rank per GPU)
    threads: int | None = None  # CPU threads per rank; None = the cores split evenly, max(1, cores // N)

    def __post_init__(self) -> None:
        check_int("Images per class", self.per_class, 1, MAX_PER_CLASS)
        check_int("Model width", self.width, 1, MAX_WIDTH)
        check_int("Warm-up epochs", self.warmup, 0, 1000)
        check_int("Timed epochs", self.repeats, 1, 1000)
        check_int("Seed", self.seed, 0, MAX_SEED)
        if self.batch_size is not None:
            check_int("Batch size", self.batch_size, 1, 3 * MAX_PER_CLASS)
        if self.threads is not None:
            check_int("CPU threads per process", self.threads, 1, 1024)
        if self.device not in ("cpu", "cuda"):
            raise ValueError(f"Data-parallel runs use 'cpu' (gloo) or 'cuda' (NCCL); got {self.device!r}.")

    @property
    def images(self) -> int:
        """Training images per epoch."""
        return 3 * self.per_class

    @property
    def step_size(self) -> int:
        """Images per global optimizer step."""
        return min(self.batch_size or self.images, self.images)


def max_ranks(device: str) -> int:
    """The most ranks a run may have here: one per CPU core, or one per GPU."""
    if device == "cuda":
        return sum(info.kind == "cuda" for info in list_devices())
    return min(MAX_RANKS, os.cpu_count() or 1)


def check_ranks(ranks: Sequence[int], config: RanksConfig) -> list[int]:
    """The rank counts to run, sorted and without repeats; ValueError with a sentence when one cannot run."""
    counts = sorted(set(ranks))
    if not counts:
        raise ValueError("Give at least one number of processes, such as 1,2.")
    limit = max_ranks(config.device)
    for count in counts:
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"A number of processes must be a whole number of at least 1; got {count!r}.")
        if count > config.step_size:
            raise ValueError(
                f"A step of {config.step_size:,} images cannot be shared by {count} processes: "
                "choose a larger batch or fewer processes."
            )
        if count > limit:
            if config.device == "cuda":
                raise ValueError(
                    f"{count} ranks need {count} GPUs (one rank per GPU), and this machine has {limit}."
                )
            raise ValueError(
                f"{count} processes are more than this machine's {limit} CPU cores: the extra ones would "
                f"only take turns on the same cores. Choose at most {limit}."
            )
    return counts


def threads_per_rank(ranks: int, cores: int | None = None, threads: int | None = None) -> int:
    """CPU threads each rank gets: ``threads`` when given, else the cores split evenly, at least one."""
    return threads or max(1, (cores or os.cpu_count() or 1) // ranks)


def torchrun_command(config: RanksConfig, ranks: int, out: str) -> list[str]:
    """The torchrun command line of one run with ``ranks`` processes, rank 0 writing its result to ``out``."""
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc_per_node={ranks}",
        "--monitor-interval=0.1",  # notice a dead rank within 0.1 s, not 5
        "-m",
        "linecnn.ddp",
        f"--out={out}",
        f"--per-class={config.per_class}",
        f"--batch-size={config.batch_size or 0}",
        f"--width={config.width}",
        f"--lr={config.lr}",
        f"--seed={config.seed}",
        f"--warmup={config.warmup}",
        f"--repeats={config.repeats}",
        f"--device={config.device}",
        f"--threads={threads_per_rank(ranks, threads=config.threads)}",
    ]


class Stopped(Exception):
    """Raised by ``run_ranks`` when its time cap ran out; every process of the run has ended."""


@dataclass
class Launch:
    """The processes of one run as the launcher sees them, for progress and for the no-orphans check."""

    ranks: int  # processes asked for
    pid: int | None = None  # torchrun's pid, also the id of the run's process group
    rank_pids: dict[int, int] = field(default_factory=dict)  # rank -> pid, as each rank announced it
    done: int = 0  # epochs finished by rank 0
    total: int = 0  # epochs planned (warm-up included)


# progress(launch): called once torchrun has started, when a rank announces itself and after every epoch;
# it may raise to end the run.
RanksProgress = Callable[[Launch], None]


def run_ranks(
    config: RanksConfig,
    ranks: int,
    progress: RanksProgress | None = None,
    deadline: float | None = None,
) -> dict:
    """Run one torchrun of ``ranks`` processes to its end and return rank 0's result with the start-up time.

    ``deadline`` (a ``time.monotonic()`` value) is the time cap: past it the run is ended and
    ``Stopped`` raised. Whatever ends the run early (a cancel raised from ``progress``, the cap, a
    dead rank), no process of it is left when this returns or raises. A dead rank is a ValueError.
    """
    check_ranks([ranks], config)
    launch = Launch(ranks, total=config.warmup + config.repeats)
    with tempfile.TemporaryDirectory(prefix="linecnn-ddp-") as folder:
        out = os.path.join(folder, "result.json")
        start = time.monotonic()
        threads = threads_per_rank(ranks, threads=config.threads)
        with _group(torchrun_command(config, ranks, out), _environment(threads)) as process:
            launch.pid = process.pid
            lines, errors = _reader(process.stdout), _reader(process.stderr, keep=200)
            if progress is not None:
                progress(launch)
            first_epoch: float | None = None
            while True:
                if deadline is not None and time.monotonic() > deadline:
                    raise Stopped(f"The time cap ended the run of {ranks} processes.")
                try:
                    line = lines.get(timeout=POLL_SECONDS)
                except queue.Empty:
                    if process.poll() is not None and lines.empty() and lines.finished.is_set():
                        break
                    continue
                event = _event(line)
                if event is None:
                    continue
                if event["event"] == "ready":
                    launch.rank_pids[int(event["rank"])] = int(event["pid"])
                elif event["event"] == "epoch":
                    launch.done = int(event["done"])
                    first_epoch = first_epoch or time.monotonic()
                if progress is not None:
                    progress(launch)
            status = process.wait()
        if status != 0:
            raise ValueError(failure_message(ranks, status, errors.text()))
        try:
            result = json.loads(Path(out).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise ValueError(f"The run of {ranks} processes ended without a result.") from None
    result["start_s"] = (first_epoch or time.monotonic()) - start - result["first_epoch_s"]
    return result


def _environment(threads: int) -> dict[str, str]:
    """The ranks' environment: this package importable, and each rank's share of the cores for OpenMP."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    env["OMP_NUM_THREADS"] = str(threads)
    env["PYTHONUNBUFFERED"] = "1"
    return env


@contextlib.contextmanager
def _group(command: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen]:
    """Start ``command`` in a new process group; on the way out, end the whole group and reap it."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group: one signal reaches torchrun and every rank
    )
    try:
        yield process
    finally:
        end_group(process)


def end_group(process: subprocess.Popen) -> None:
    """End every process of ``process``'s group: SIGTERM, so torchrun reaps its ranks, then SIGKILL."""
    if process.poll() is None:
        _signal_group(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=STOP_GRACE_SECONDS)
    _signal_group(process.pid, signal.SIGKILL)  # a rank that outlived torchrun, or torchrun itself
    process.wait()


def _signal_group(pgid: int, signal_number: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal_number)


def group_alive(pgid: int) -> bool:
    """True while any process of the group ``pgid`` exists."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _Lines(queue.Queue):
    """Lines of one stream, read by a thread; ``finished`` is set at end of file."""

    def __init__(self, keep: int | None) -> None:
        super().__init__()
        self.finished = threading.Event()
        self.keep = keep  # None: queue every line; else keep only the last ``keep`` lines, unqueued
        self.tail: list[str] = []

    def text(self) -> str:
        """The last lines kept, joined."""
        self.finished.wait(timeout=STOP_GRACE_SECONDS)
        return "".join(self.tail)


def _reader(stream, keep: int | None = None) -> _Lines:  # noqa: ANN001 - a text stream of a Popen
    """Read ``stream`` in a daemon thread into a _Lines (a pipe left unread would block the ranks)."""
    lines = _Lines(keep)

    def pump() -> None:
        with stream:  # closed here, at end of file, once every line has been read
            for line in stream:
                if keep is None:
                    lines.put(line)
                else:
                    lines.tail = [*lines.tail[-(keep - 1) :], line]
        lines.finished.set()

    threading.Thread(target=pump, name="linecnn-ranks-reader", daemon=True).start()
    return lines


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
    codes: dict[int, int] = {}
    rank: int | None = None
    for line in stderr.splitlines():
        if found := _RANK_LINE.match(line):
            rank = int(found.group(1))
        elif (found := _EXIT_LINE.match(line)) and rank is not None:
            codes.setdefault(rank, int(found.group(1)))
            rank = None
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


def _how(code: int) -> str:
    """How a rank ended, from its exit code (negative: the signal that killed it)."""
    if code < 0 and -code in signal.valid_signals():
        return f"was killed by {signal.Signals(-code).name}"
    return f"ended with exit status {code}"


def reference_loss(config: RanksConfig, after_epoch: Callable[[], None] | None = None) -> float:
    """The final training loss of the same epochs on one device, in this process (what DDP must match).

    ``after_epoch`` runs after each epoch; a cancel or a time cap raises from it.
    """
    device = torch.device("cuda" if config.device == "cuda" else "cpu")
    with torch.random.fork_rng(devices=[]):
        x, y = make_lines(config.per_class, "lesson", torch.Generator().manual_seed(config.seed))
        x, y = x.to(device), y.to(device)
        model = build_model(ModelConfig(config.width), config.seed).to(device)
        optimizer = make_optimizer(model, config.lr, device)
        order = torch.Generator().manual_seed(config.seed + 1)
        for _ in range(config.warmup + config.repeats):
            train_epoch(model, x, y, optimizer, config.batch_size, order)
            if after_epoch is not None:
                after_epoch()
        model.eval()
        with torch.no_grad():
            return float(torch.nn.functional.cross_entropy(model(x), y))


@dataclass(frozen=True)
class RanksRow:
    """One rank count's figures, as the CLI and the page show them."""

    ranks: int  # processes (CPU) or GPUs
    backend: str  # "gloo" or "nccl"
    threads: int  # CPU threads per rank
    median_ms: float  # median time per epoch
    samples_per_s: float  # training images per second at the median
    comm_ms: float  # median all-reduce time per epoch (part of median_ms)
    compute_ms: float  # median_ms - comm_ms: forward, backward and optimizer
    first_epoch_ms: float  # the first warm-up epoch
    start_s: float  # launching torchrun until rank 0 began its first epoch: interpreters, rendezvous, data
    final_loss: float  # mean training loss after every epoch
    loss_error: float  # |final_loss - single-device loss| / single-device loss
    speedup: float | None  # T1 / TN; None without a 1-process run
    efficiency: float | None  # T1 / (N * TN); None without a 1-process run

    def as_dict(self) -> dict:
        """JSON-friendly view."""
        return asdict(self)


def make_row(result: dict, reference: float, base_ms: float | None) -> RanksRow:
    """Summarise one run's result (rank 0's JSON) against the single-device loss and the 1-process time."""
    median = 1000 * statistics.median(result["epoch_s"])
    comm = 1000 * statistics.median(result["comm_s"])
    speedup, efficiency = scaling(base_ms, median, result["ranks"])
    return RanksRow(
        ranks=result["ranks"],
        backend=result["backend"],
        threads=result["threads"],
        median_ms=median,
        samples_per_s=result["images"] / (median / 1000),
        comm_ms=comm,
        compute_ms=max(0.0, median - comm),
        first_epoch_ms=1000 * result["first_epoch_s"],
        start_s=result["start_s"],
        final_loss=result["final_loss"],
        loss_error=abs(result["final_loss"] - reference) / abs(reference),
        speedup=speedup,
        efficiency=efficiency,
    )


def scaling(base_ms: float | None, ms: float, ranks: int) -> tuple[float | None, float | None]:
    """(speed-up T1/TN, efficiency T1/(N*TN)) of ``ranks`` processes taking ``ms`` against ``base_ms``."""
    if base_ms is None or not (math.isfinite(ms) and ms > 0):
        return None, None
    speedup = base_ms / ms
    return speedup, speedup / ranks


def compute_shrank(base_compute_ms: float, row: RanksRow) -> bool:
    """Whether ``row``'s compute per epoch fell to at most twice the ideal share of the 1-process compute.

    When it did not, the ranks did not each get a core (or GPU) of their own, and the low efficiency
    comes from the hardware, not from the all-reduce or the per-step costs.
    """
    return row.compute_ms <= 2 * base_compute_ms / row.ranks


@dataclass
class Series:
    """What ``run_series`` measured so far: the rows, in rank order, and how it ended."""

    config: RanksConfig  # the problem every run trained
    reference_loss: float  # single-device final loss, in this process
    rows: list[RanksRow] = field(default_factory=list)  # one per finished run
    stopped: str | None = None  # why the series ended early (the time cap), if it did
    mismatch: list[int] = field(default_factory=list)  # rank counts whose loss missed the reference

    def as_dict(self) -> dict:
        """JSON-friendly view (the CLI's ``--json`` output)."""
        return {
            "config": asdict(self.config),
            "reference_loss": self.reference_loss,
            "loss_tolerance": LOSS_TOLERANCE,
            "rows": [row.as_dict() for row in self.rows],
            "stopped": self.stopped,
            "mismatch": self.mismatch,
        }


def run_series(
    config: RanksConfig,
    ranks: Sequence[int],
    progress: RanksProgress | None = None,
    max_seconds: float | None = None,
    on_row: Callable[[Series], None] | None = None,
    check: Callable[[], None] | None = None,
) -> Series:
    """Run each rank count in turn (fewest first) and compare each with one device; a cap stops the rest.

    The single-device reference trains first, in this process; ``check`` runs after each of its
    epochs (a cancel raises from it, as from ``progress`` during the runs).
    """
    counts = check_ranks(ranks, config)
    deadline = None if max_seconds is None else time.monotonic() + max_seconds

    def after_epoch() -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise Stopped
        if check is not None:
            check()

    try:
        series = Series(config, reference_loss(config, after_epoch))
    except Stopped:
        stopped = f"The time cap of {max_seconds:g} s ended the series during the single-device reference."
        return Series(config, math.nan, stopped=stopped)
    base_ms: float | None = None
    for count in counts:
        try:
            result = run_ranks(config, count, progress, deadline)
        except Stopped:
            series.stopped = f"The time cap of {max_seconds:g} s ended the series before {count} processes."
            break
        if count == 1:
            base_ms = 1000 * statistics.median(result["epoch_s"])
        row = make_row(result, series.reference_loss, base_ms)
        if row.loss_error > LOSS_TOLERANCE:
            series.mismatch.append(count)
        series.rows.append(row)
        if on_row is not None:
            on_row(series)
    return series
