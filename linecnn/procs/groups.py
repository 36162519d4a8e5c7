"""Signals to whole process groups, and what ``/proc`` says about a process (Linux and other Unixes).

A child started in a process group of its own is ended with one signal to the group, which reaches
it and anything it started; a grandchild that made a group of its own (torchrun's ranks) is found
by its command line and ended by ``kill_leaders``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable

LEADERS_GRACE = 10.0  # how long kill_leaders waits for the groups it killed to be gone


def signal_group(pgid: int, signal_number: int) -> None:
    """Signal every process of the group ``pgid``, if any is left."""
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


def exited(pid: int | None) -> bool:
    """True when ``pid`` has exited: gone, or a zombie its parent has not reaped."""
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return True


def kill_leaders(pids: Iterable[int], marker: str, wait: float = LEADERS_GRACE) -> None:
    """SIGKILL the process group of each of ``pids`` that still leads its own group and runs ``marker``
    (so never a process that took a dead one's pid), then wait up to ``wait`` s until they are gone."""
    ours = [pid for pid in pids if _leads_group_running(pid, marker)]
    for pid in ours:
        signal_group(pid, signal.SIGKILL)
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
