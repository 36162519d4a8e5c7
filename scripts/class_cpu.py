"""Who used the CPU while a class-load test ran, and the test's browsers kept off the server's cores.

The class-load scripts run a class on one machine: the server, and Chromium tabs standing in for the
students' laptops. In a class the browsers take none of the server's cores, so here they run at a
priority that gives way to everything else (``idle``: SCHED_IDLE, they get a core only when nothing
else wants it; ``nice``: nice 19; either way their autogroup at nice 19, as the kernel shares the
CPU between sessions first) or, for comparison, as ordinary processes (``shared``). The same goes
for Playwright's driver, which stands in for nobody. Everything the server does (Streamlit's threads,
the sessions' reruns and chart deltas, training) keeps its ordinary priority and still counts.

``CpuWatch`` samples the load average and the CPU time of the server, its benchmark worker (the
server's child processes) and the browsers, so a script can say what else computed while a cell
was on the clock. Linux only (/proc); elsewhere the figures are unknown and the browsers unchanged.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

PRIORITIES = ("idle", "nice", "shared")  # how the test's browsers share the machine with the server
SAMPLE_SECONDS = 0.5
COMPUTING = 1.0  # a worker busy on at least this many cores computes a cell (not waiting for its go)
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def give_way_here(priority: str) -> None:
    """Make this process (and all it starts) give way to the server (``idle``, ``nice``; ``shared``: as is).

    With the kernel's autogroups every session is one group that gets as much CPU as any other, and a
    policy only ranks threads inside their group: Chromium runs in a session of its own (Playwright
    starts it so), so its group gives way too (nice 19), set here once this process leads a session
    of its own (never the caller's group)."""
    if priority == "shared":
        return
    if priority == "idle":
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:
        os.nice(19)
    with contextlib.suppress(OSError):  # a process group leader cannot start a session: it keeps its group
        if os.getsid(0) != os.getpid():
            os.setsid()
    if os.getsid(0) == os.getpid():
        group_nice(19)


def group_nice(nice: int, tries: int = 20) -> None:
    """Set this process's autogroup nice value; nothing where the kernel has no autogroups."""
    for _ in range(tries):
        try:
            Path("/proc/self/autogroup").write_text(str(nice))
            return
        except FileNotFoundError:
            return
        except OSError:  # EAGAIN: the kernel allows one change per 100 ms, machine-wide
            time.sleep(0.1)


def browser_launcher(chromium: str, cores: tuple[int, ...], priority: str, folder: Path) -> str:
    """An executable that starts Chromium on ``cores`` (all when empty) at ``priority``; every process
    Chromium starts inherits both."""
    if not cores and priority == "shared":
        return chromium
    launcher = folder / "chromium-for-the-class"
    pin = f"os.sched_setaffinity(0, {set(cores)!r})" if cores else "pass"
    root = str(Path(__file__).resolve().parent.parent)
    launcher.write_text(
        f"#!{sys.executable}\nimport os, sys\nsys.path.insert(0, {root!r})\n"
        f"from scripts.class_cpu import give_way_here\n{pin}\ngive_way_here({priority!r})\n"
        f"os.execv({chromium!r}, [{chromium!r}, *sys.argv[1:]])\n"
    )
    launcher.chmod(0o755)
    return str(launcher)


def describe(priority: str, cores: tuple[int, ...]) -> str:
    """How the browsers ran, in words, for the printed header."""
    where = f"on cores {list(cores)}" if cores else "on every core"
    how = {
        "idle": "under SCHED_IDLE, their autogroup at nice 19 (a core only when the server leaves one free)",
        "nice": "at nice 19, their autogroup too",
        "shared": "as ordinary processes (they compete with the server's threads)",
    }[priority]
    return f"Chromium and Playwright's driver stand in for the students' laptops: {where}, {how}"


def processes() -> dict[int, tuple[int, float, str]]:
    """Every process now: its parent's pid, the CPU seconds (user and system) it has used so far and its
    state ('R': running or waiting for a core)."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rpartition(")")[2].split()
        except OSError:  # a process that ended meanwhile
            continue
        # After the name: state, ppid, ... utime and stime are the 12th and 13th fields.
        table[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, fields[0])
    return table


def descendants(pid: int, table: dict[int, tuple[int, float, str]] | None = None) -> list[int]:
    """Every process under ``pid`` (children, grandchildren, ...) in ``table`` (default: now)."""
    table = processes() if table is None else table
    below: dict[int, list[int]] = {}
    for child, (parent, *_) in table.items():
        below.setdefault(parent, []).append(child)
    found, todo = [], list(below.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo += below.get(child, [])
    return found


def give_way_now(pids: list[int], priority: str) -> None:
    """Make every thread of ``pids`` (running already) give way to the server, as the launcher does."""
    for pid in pids:
        try:
            tasks = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            continue
        for tid in tasks:
            try:
                if priority == "idle":
                    os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
                elif priority == "nice":
                    os.setpriority(os.PRIO_PROCESS, tid, 19)
            except OSError:  # a thread that ended meanwhile
                pass


def used_between(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds used between two readings; a process that started in between counts from 0."""
    return sum(max(0.0, seconds - before.get(pid, 0.0)) for pid, seconds in after.items())


@dataclass
class Usage:
    """CPU seconds used between two samples, and the wall seconds between them."""

    wall: float = 0.0
    server: float = 0.0  # the Streamlit process's own threads (training included)
    worker: float = 0.0  # its child processes: the benchmark worker
    browsers: float = 0.0  # Chromium and Playwright's driver

    def add(self, other: Usage) -> None:
        """Count ``other`` in."""
        self.wall += other.wall
        self.server += other.server
        self.worker += other.worker
        self.browsers += other.browsers

    def text(self) -> str:
        """'server 0.31, worker 1.85, browsers 0.02 cores over 41.0 s'."""
        if self.wall <= 0:
            return "no sample"
        share = lambda used: used / self.wall  # noqa: E731
        return (
            f"server {share(self.server):.2f}, worker {share(self.worker):.2f}, browsers "
            f"{share(self.browsers):.2f} cores over {self.wall:.1f} s"
        )


@dataclass
class CpuWatch:
    """The load average and the CPU the server, its worker and the browsers used, every SAMPLE_SECONDS.

    ``computing`` sums the samples in which the worker computed a cell (it was running at the sample's
    end, or used COMPUTING cores or more):
    what the server and the browsers took then is what competed with the cell (in split mode the
    server's share includes training, which runs on its own cores)."""

    server: int  # the Streamlit process's pid
    browsers: int  # the pid under which the test's browsers run (the script's own), or 0 for none
    # (a process started and ended between two samples is not seen: Chromium's and the worker's live long)
    loads: list[float] = field(default_factory=list)
    total: Usage = field(default_factory=Usage)
    computing: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> CpuWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _reading(self) -> tuple[float, list[dict[int, float]], bool]:
        table = processes()
        worker = descendants(self.server, table) if self.server else []
        under = descendants(self.browsers, table) if self.browsers else []
        browsers = [p for p in under if p != self.server and p not in worker]
        groups = ([self.server] if self.server else [], worker, browsers)
        running = any(table[p][2] == "R" for p in worker if p in table)
        return time.monotonic(), [{p: table[p][1] for p in pids if p in table} for pids in groups], running

    def _run(self) -> None:
        with contextlib.suppress(OSError):  # the watch itself takes little from a timed cell
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        before = self._reading()
        while not self._stop.wait(SAMPLE_SECONDS):
            self.loads.append(os.getloadavg()[0])
            after = self._reading()
            used = [used_between(a, b) for a, b in zip(before[1], after[1], strict=True)]
            step = Usage(after[0] - before[0], *used)
            self.total.add(step)
            # A worker that computes shows as running (on a core or waiting for one) or used cores.
            if after[2] or (step.wall > 0 and step.worker / step.wall >= COMPUTING):
                self.computing.add(step)
            before = after

    def load_text(self) -> str:
        """'2.31 to 4.02 (mean 3.10)'."""
        s = self.loads or [os.getloadavg()[0]]
        return f"{min(s):.2f} to {max(s):.2f} (mean {statistics.mean(s):.2f})"
