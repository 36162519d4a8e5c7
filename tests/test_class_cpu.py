"""The class-load script's helpers: the browsers it starts give way to the server, and it finds the
processes whose CPU it counts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.class_cpu import browser_launcher, descendants, give_way_now

pytestmark = pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux scheduling policies")
ASK = (
    "import os; print(os.sched_getscheduler(0), os.nice(0), open('/proc/self/autogroup').read().split()[-1],"
    " sorted(os.sched_getaffinity(0)))"
)


def launched(tmp_path, cores: tuple[int, ...], priority: str) -> list[str]:
    """What a 'browser' started through the launcher says of its policy, nice value, group nice and cores."""
    launcher = browser_launcher(sys.executable, cores, priority, tmp_path)
    # A session of its own, as Playwright starts a browser: its autogroup is its own to lower.
    answer = subprocess.run(
        [launcher, "-c", ASK], capture_output=True, text=True, check=True, start_new_session=True
    )
    return answer.stdout.split(maxsplit=3)


def test_the_browsers_run_under_sched_idle_on_the_cores_left_to_the_class(tmp_path):
    """By default a class's browsers take a core only when the server leaves one free: SCHED_IDLE, and
    their session's autogroup (the kernel shares the CPU between those first) at nice 19."""
    core = min(os.sched_getaffinity(0))
    # Empty where this process is in the kernel's default group (as under a container's init).
    caller = Path("/proc/self/autogroup").read_text()
    policy, _, group, cores = launched(tmp_path, (core,), "idle")
    assert int(policy) == os.SCHED_IDLE and cores == f"[{core}]\n"
    assert group == "19"
    assert Path("/proc/self/autogroup").read_text() == caller  # the caller's group is left as it was


def test_nice_browsers_run_at_nice_19_and_shared_ones_unchanged(tmp_path):
    """The other choices: nice 19, or as ordinary processes (the executable itself, no launcher)."""
    policy, nice, _, _ = launched(tmp_path, (), "nice")
    assert int(policy) == os.SCHED_OTHER and int(nice) == 19
    assert browser_launcher(sys.executable, (), "shared", tmp_path) == sys.executable


def test_a_running_process_and_its_children_are_found_and_made_to_give_way():
    """Playwright's driver runs before the script can launch it: it is found under the script and moved."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in descendants(os.getpid())
        give_way_now([child.pid], "idle")
        assert os.sched_getscheduler(child.pid) == os.SCHED_IDLE
    finally:
        child.kill()
        child.wait()
