"""A child process in a process group of its own, ended as a whole, and its output read by threads.

A torchrun run is torchrun plus one process per rank, each rank in a process group of its own:
torchrun ends its ranks when its group is signalled, and ``kill_leaders`` ends any that outlived it
(a frozen rank ignores torchrun's SIGTERM), so a cancel, a time cap or a dead rank leaves no process.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator
from typing import IO

STOP_GRACE_SECONDS = 10.0  # after SIGTERM, how long torchrun may take to end its ranks before SIGKILL


@contextlib.contextmanager
def process_group(command: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen]:
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


def kill_group(process: subprocess.Popen) -> None:
    """SIGKILL every process of ``process``'s group at once and reap it: a frozen one too, which SIGTERM
    would reach only once it ran again."""
    _signal_group(process.pid, signal.SIGKILL)
    process.wait()


def kill_leaders(pids: Iterable[int], marker: str, wait: float = STOP_GRACE_SECONDS) -> None:
    """SIGKILL the process group of each of ``pids`` that still leads its own group and runs ``marker``
    (so never a process that took a dead one's pid), then wait up to ``wait`` s until they are gone."""
    ours = [pid for pid in pids if _leads_group_running(pid, marker)]
    for pid in ours:
        _signal_group(pid, signal.SIGKILL)
    deadline = time.monotonic() + wait
    while any(os.path.exists(f"/proc/{pid}") for pid in ours) and time.monotonic() < deadline:
        time.sleep(0.05)  # an orphan is reaped by init, not by us


def _leads_group_running(pid: int, marker: str) -> bool:
    """True when ``pid`` is alive, leads its process group and its command line holds ``marker``."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            running = marker.encode() in cmdline.read()
        return running and os.getpgid(pid) == pid
    except (OSError, ProcessLookupError):
        return False


def _signal_group(pgid: int, signal_number: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal_number)


def exited(pid: int | None) -> bool:
    """True when ``pid`` has exited: gone, or a zombie its parent has not reaped."""
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return True


def group_alive(pgid: int) -> bool:
    """True while any process of the group ``pgid`` exists."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Lines(queue.Queue):
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

    def drained(self) -> bool:
        """True once the stream has ended and every queued line has been taken."""
        return self.finished.is_set() and self.empty()


def reader(stream: IO[str], keep: int | None = None) -> Lines:
    """Read ``stream`` in a daemon thread into Lines (a pipe left unread would block the ranks)."""
    lines = Lines(keep)

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
