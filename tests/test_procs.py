"""The one process supervisor (``linecnn.procs``) on real tiny children: lines read on a thread, silence
noticed, the whole group signalled and reaped, a child that cannot start refused with a sentence."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from linecnn.errors import Message
from linecnn.procs.beat import Beater, Silence
from linecnn.procs.child import CannotStart, start_child
from linecnn.procs.groups import exited, group_alive
from linecnn.stop import Stopped, StopReason

JOIN = 30.0  # generous bound for a busy machine; each wait ends on an event, not on a sleep


def python(code: str) -> list[str]:
    """A tiny Python child (no torch, so it starts fast)."""
    return [sys.executable, "-c", code]


def group_gone(pgid: int) -> bool:
    """True once no process of the group is left; an orphan is reaped by init, so this waits a little."""
    deadline = time.monotonic() + JOIN
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not group_alive(pgid)


def test_the_child_lines_come_in_order_and_its_stderr_end_is_kept():
    """Every stdout line arrives through ``follow``, which ends at end of file; stderr keeps its end."""
    code = (
        "import sys\nfor i in range(5): print(i, flush=True)\nfor i in range(30): print(i, file=sys.stderr)"
    )
    with start_child(python(code), keep_errors=3) as child:
        lines = list(child.lines.follow(lambda: None))
        assert child.process.wait(timeout=JOIN) == 0
        assert [line.strip() for line in lines] == ["0", "1", "2", "3", "4"]
        assert child.errors.text(JOIN).splitlines() == ["27", "28", "29"]
        assert child.last_error() == "29"


def test_a_line_sent_reaches_the_child_and_ending_it_leaves_nothing():
    """``send`` writes one line the child reads; ``end`` (stdin closed, then SIGTERM) leaves no process."""
    code = "import sys\nprint(sys.stdin.readline().upper(), end='', flush=True)\nsys.stdin.read()"
    child = start_child(python(code))
    child.send("hello")
    assert child.lines.get(timeout=JOIN) == "HELLO\n"
    child.end()
    assert child.process.returncode in (0, -signal.SIGTERM) and group_gone(child.pid)


def test_a_child_silent_past_its_bound_is_stopped_with_a_sentence():
    """A child that spoke once and then froze ends the follow with Stopped (no progress), saying so."""
    code = "import time\nprint('beat', flush=True)\ntime.sleep(60)"
    with start_child(python(code)) as child:
        silence = Silence(0.3)
        with pytest.raises(Stopped) as stopped:
            for _line in child.lines.follow(silence.check):
                silence.heard()
        assert stopped.value.reason is StopReason.NO_PROGRESS
        assert stopped.value.args[0] == Message("worker_silent", seconds=0.3)
    assert child.process.returncode == -signal.SIGTERM


def test_ending_signals_the_whole_group_and_kills_what_ignores_sigterm():
    """A child ignoring SIGTERM and its own child are gone after ``end`` (SIGKILL after the grace)."""
    code = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "grandchild = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print(grandchild.pid, flush=True)\n"
        "time.sleep(60)"
    )
    child = start_child(python(code), grace=0.3)
    grandchild = int(child.lines.get(timeout=JOIN))
    begun = time.monotonic()
    child.end()
    assert time.monotonic() - begun < JOIN
    assert child.process.returncode == -signal.SIGKILL
    assert group_gone(child.pid) and exited(grandchild)  # a SIGKILL lands a moment after it is sent


def test_kill_ends_a_frozen_child_at_once():
    """A stopped (SIGSTOP) child is SIGKILLed and reaped without waiting for any grace."""
    child = start_child(python("import time; time.sleep(60)"), grace=JOIN)
    os.kill(child.pid, signal.SIGSTOP)
    begun = time.monotonic()
    child.kill()
    assert time.monotonic() - begun < JOIN / 2
    assert child.process.returncode == -signal.SIGKILL and group_gone(child.pid)


def test_a_child_that_cannot_start_raises_a_clear_error(tmp_path):
    """No such program: CannotStart (an OSError) whose sentence names what could not start."""
    missing = str(tmp_path / "no-python")
    with pytest.raises(CannotStart, match=f"Could not start {missing} -c pass: No such file"):
        start_child([missing, "-c", "pass"])


def test_a_beater_beats_until_stopped_and_stops_when_nobody_listens():
    """The beat runs at once and then every second; stop ends it, and so does a closed pipe (OSError)."""
    beats = []
    first = threading.Event()
    beater = Beater(lambda: (beats.append(1), first.set()))
    beater.start()
    assert first.wait(JOIN)
    beater.stop()
    count = len(beats)
    time.sleep(0.05)
    assert len(beats) == count >= 1

    def closed() -> None:
        raise BrokenPipeError

    deaf = Beater(closed)
    deaf.start()
    deaf._thread.join(JOIN)
    assert not deaf._thread.is_alive()
