"""Data-parallel runs through torchrun on CPU ranks (gloo): equivalence, scaling math, dead ranks, cancel."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from linecnn.parallel.config import RanksConfig, check_ranks, threads_per_rank
from linecnn.parallel.launch import Launch, _event, failure_message, run_ranks, torchrun_command
from linecnn.parallel.results import LOSS_TOLERANCE, compute_shrank, make_row, scaling
from linecnn.parallel.series import run_series
from linecnn.procs.groups import group_alive
from linecnn.stop import Stopped, StopReason
from tests.helpers import ROOT

# 15 images in steps of 4: the last step has 3 images, which two ranks share unevenly (2 and 1).
UNEVEN = RanksConfig.from_flat(per_class=5, batch_size=4, warmup=1, repeats=2, threads=1)
# Minutes of epochs (about 0.2 s each on 2 cores), ended early by every test that runs it: the launcher,
# which a busy machine may leave seconds behind the ranks' lines, still acts while the run trains.
LONG = RanksConfig.from_flat(per_class=100, batch_size=4, warmup=1, repeats=1000, threads=1)


def config_of(command: list[str]) -> RanksConfig:
    """The run a torchrun command line hands its ranks (its --config JSON)."""
    text = next(arg for arg in command if arg.startswith("--config="))
    return RanksConfig.from_flat(**json.loads(text.removeprefix("--config=")))


def gone(pid: int) -> bool:
    """True when no process ``pid`` exists (a zombie still counts as existing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def assert_no_process_left(launch: Launch) -> None:
    """torchrun's process group and every rank the run announced are gone."""
    assert launch.pid is not None and not group_alive(launch.pid)
    assert launch.rank_pids and all(gone(pid) for pid in launch.rank_pids.values()), launch.rank_pids


@pytest.mark.slow  # a torchrun process group
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="two CPU ranks need two cores")
def test_two_gloo_ranks_match_one_device_even_with_an_uneven_last_step():
    """Two ranks sharing each step's batch end at the single-device loss, and the figures add up."""
    series = run_series(UNEVEN, [2])
    (row,) = series.rows
    assert row.ranks == 2 and row.backend == "gloo" and row.threads == 1
    assert row.loss_error <= LOSS_TOLERANCE and series.mismatch == []
    assert row.final_loss == pytest.approx(series.reference_loss, rel=LOSS_TOLERANCE)
    assert 0 < row.comm_ms <= row.median_ms and row.compute_ms == pytest.approx(row.median_ms - row.comm_ms)
    assert row.samples_per_s == pytest.approx(15 / (row.median_ms / 1000))
    assert row.efficiency is None  # no 1-process run to compare with


def test_efficiency_is_t1_over_n_times_tn():
    """Speed-up T1/TN and efficiency T1/(N*TN); no baseline, no figures."""
    assert scaling(10.0, 4.0, 2) == (pytest.approx(2.5), pytest.approx(1.25))
    assert scaling(10.0, 8.0, 4) == (pytest.approx(1.25), pytest.approx(0.3125))
    assert scaling(None, 8.0, 4) == (None, None)
    result = {
        "ranks": 2,
        "backend": "gloo",
        "threads": 1,
        "images": 360,
        "epoch_s": [0.004, 0.006, 0.005],
        "comm_s": [0.001, 0.003, 0.002],
        "first_epoch_s": 0.01,
        "start_s": 3.0,
        "final_loss": 1.01,
    }
    row = make_row(result, reference=1.0, base_ms=4.0)
    assert row.median_ms == pytest.approx(5.0) and row.comm_ms == pytest.approx(2.0)
    assert row.compute_ms == pytest.approx(3.0) and row.samples_per_s == pytest.approx(72_000)
    assert row.efficiency == pytest.approx(0.4) and row.loss_error == pytest.approx(0.01)
    # 3 ms of compute each for 2 ranks against 4 ms for one: shrank (ideal 2 ms, allowed up to 4 ms).
    assert compute_shrank(4.0, row) and not compute_shrank(2.9, row)


@pytest.mark.slow  # a torchrun process group
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="two CPU ranks need two cores")
def test_a_killed_rank_ends_the_run_with_a_clear_error_and_no_process_left():
    """SIGKILL one rank mid-run: Stopped (process killed) naming it, and no process of the run survives."""
    seen: list[Launch] = []
    killed: list[int] = []

    def kill_rank_one(launch: Launch) -> None:
        seen[:] = [launch]
        if launch.done >= 1 and 1 in launch.rank_pids and not killed:
            killed.append(launch.rank_pids[1])
            os.kill(killed[0], signal.SIGKILL)

    with pytest.raises(Stopped, match="Rank 1 of 2 was killed by SIGKILL") as error:
        run_ranks(LONG, 2, progress=kill_rank_one)
    assert "no process of it is left" in str(error.value)
    assert error.value.reason is StopReason.PROCESS_KILLED
    assert_no_process_left(seen[0])


@pytest.mark.slow  # a torchrun process group
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="two CPU ranks need two cores")
def test_a_frozen_rank_ends_the_run_within_the_bound_naming_it_and_no_process_left():
    """SIGSTOP one rank mid-run: within the watch bound (plus a beat and a poll) the run ends with Stopped
    (no progress) naming that rank, and every process of the run, the stopped one too, is gone."""
    seen: list[Launch] = []
    frozen: list[float] = []

    def freeze_rank_one(launch: Launch) -> None:
        seen[:] = [launch]
        if launch.done >= 1 and 1 in launch.rank_pids and not frozen:
            os.kill(launch.rank_pids[1], signal.SIGSTOP)
            frozen.append(time.monotonic())

    with pytest.raises(Stopped) as error:
        run_ranks(LONG, 2, progress=freeze_rank_one, watch=5)
    ended = time.monotonic() - frozen[0]
    assert error.value.reason is StopReason.NO_PROGRESS
    assert str(error.value).startswith("Rank 1 of 2 made no progress for 5 s (the process froze or hung)")
    assert 4 < ended < 5 + 4, ended  # its last beat came at most a second before the freeze; then 0.1 s polls
    assert_no_process_left(seen[0])


class Cancel(Exception):
    """What a page's Cancel raises from the progress callback."""


@pytest.mark.slow  # a torchrun process group
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="two CPU ranks need two cores")
def test_cancel_from_progress_ends_every_process_at_once():
    """An exception raised by the progress callback ends torchrun and both ranks, then propagates."""
    seen: list[Launch] = []

    def cancel_after_first_epoch(launch: Launch) -> None:
        seen[:] = [launch]
        if launch.done >= 1 and len(launch.rank_pids) == 2:
            raise Cancel

    started = time.monotonic()
    with pytest.raises(Cancel):
        run_ranks(LONG, 2, progress=cancel_after_first_epoch)
    assert time.monotonic() - started < 120
    assert_no_process_left(seen[0])


def test_the_time_cap_stops_the_run_and_its_processes():
    """A deadline already past ends the run at once with Stopped (time cap), its process group gone."""
    seen: list[Launch] = []
    with pytest.raises(Stopped) as stop:
        run_ranks(LONG, 1, progress=seen.append, deadline=time.monotonic() - 1)
    assert stop.value.reason is StopReason.TIME_CAP
    assert seen[0].pid is not None and not group_alive(seen[0].pid)


def test_rank_counts_this_machine_cannot_run_are_refused_with_a_sentence():
    """Too many CPU processes, GPUs that are not there, a step smaller than the ranks, a zero."""
    cores = os.cpu_count() or 1
    with pytest.raises(ValueError, match=f"more than this machine's {cores} CPU cores"):
        check_ranks([1, cores + 1], RanksConfig())
    with pytest.raises(ValueError, match="one rank per GPU"):
        check_ranks([64], RanksConfig(device="cuda"))
    with pytest.raises(ValueError, match="A step of 1 images cannot be shared by 2 processes"):
        check_ranks([2], RanksConfig.from_flat(per_class=1, batch_size=1))
    with pytest.raises(ValueError, match="at least 1"):
        check_ranks([0], RanksConfig())
    assert check_ranks([1, 1], RanksConfig()) == [1]


def test_the_command_is_torchrun_standalone_with_one_thread_share_per_rank():
    """The launcher runs torchrun --standalone -m linecnn.parallel.rank; threads split the cores if unset."""
    command = torchrun_command(RanksConfig(), 2, "/tmp/out.json")
    assert command[1:5] == ["-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    assert command[command.index("-m", 2) + 1] == "linecnn.parallel.rank"
    assert config_of(command).threads == max(1, (os.cpu_count() or 1) // 2)
    assert config_of(torchrun_command(RanksConfig(threads=3), 2, "/tmp/out.json")) == RanksConfig(threads=3)
    assert threads_per_rank(4, cores=2) == 1 and threads_per_rank(2, cores=16) == 8


def test_a_failure_report_names_the_rank_that_was_killed_first():
    """torchrun's failure report is read into one sentence; the SIGKILLed rank comes before the victims."""
    report = """
E1201 19:30:32 api.py:1002] failed (exitcode: -9) local_rank: 1 (pid: 15438) of binary: python
Failures:
[1]:
  rank      : 1 (local_rank: 1)
  exitcode  : -9 (pid: 15438)
  error_file: <N/A>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 15436)
"""
    text = failure_message(2, 1, report)
    assert text.startswith("Rank 1 of 2 was killed by SIGKILL; rank 0 ended with exit status 1.")
    assert failure_message(3, 1, "oops\nsomething broke\n") == (
        "The run of 3 processes failed (torchrun exit status 1): something broke."
    )


def test_a_cancel_or_the_cap_ends_the_series_while_the_reference_trains():
    """The single-device reference checks after every step: a cancel raises, the cap stops before a launch."""
    config = RanksConfig.from_flat(per_class=5, warmup=1, repeats=1000, threads=1)
    calls: list[int] = []

    def cancel_at_third_epoch() -> None:
        calls.append(1)
        if len(calls) == 3:
            raise Cancel

    with pytest.raises(Cancel):
        run_series(config, [1], check=cancel_at_third_epoch)
    assert len(calls) == 3

    def page_cancel() -> None:
        raise Stopped(StopReason.CANCELLED)

    with pytest.raises(Stopped) as stop:  # the series ends itself on the time cap only: a cancel goes on up
        run_series(config, [1], check=page_cancel)
    assert stop.value.reason is StopReason.CANCELLED
    launched: list[Launch] = []
    series = run_series(config, [1], progress=launched.append, max_seconds=1e-9)
    assert series.rows == [] and launched == [] and "during the single-device reference" in series.stopped


def test_a_series_knows_its_baseline_its_worst_run_and_its_mismatches():
    """The 1-process row is the baseline; the worst is the lowest efficiency above 1 process; misses noted."""
    from linecnn.parallel.results import Series

    def result(ranks: int, seconds: float, loss: float) -> dict:
        return {
            "ranks": ranks, "backend": "gloo", "threads": 1, "images": 15, "epoch_s": [seconds],
            "comm_s": [0.0], "first_epoch_s": seconds, "start_s": 1.0, "final_loss": loss,
        }

    series = Series(UNEVEN, reference_loss=1.0)
    for ranks, seconds, loss in ((1, 0.010, 1.0), (2, 0.008, 1.0), (4, 0.004, 1.1)):
        series.add(make_row(result(ranks, seconds, loss), 1.0, base_ms=10.0))
    assert series.base is series.rows[0]
    assert series.worst is series.rows[1] and series.worst.efficiency == pytest.approx(0.625)
    assert series.mismatch == [4]
    without_one = Series(UNEVEN, reference_loss=1.0)
    without_one.add(make_row(result(2, 0.008, 1.0), 1.0, base_ms=None))
    assert without_one.base is None and without_one.worst is None and without_one.mismatch == []


def test_ranks_writing_events_at_once_on_one_pipe_never_spoil_a_line():
    """Two processes emit events as fast as they can on one shared stdout pipe, as torchrun's ranks do: the
    launcher reads every event of both, each on a line of its own."""
    each = 3000
    emitter = (
        "import sys\nfrom linecnn.parallel.events import emit\n"
        f"for step in range({each}): emit('beat', rank=int(sys.argv[1]), steps=step)"
    )
    python = [sys.executable, "-u", "-c", emitter]
    read, write = os.pipe()
    writers = [subprocess.Popen([*python, str(rank)], stdout=write, cwd=ROOT) for rank in (0, 1)]
    os.close(write)
    with os.fdopen(read, encoding="utf-8") as lines:
        events = [_event(line.rstrip("\n")) for line in lines]
    assert all(writer.wait(timeout=60) == 0 for writer in writers)
    assert None not in events, "a spoiled line"
    assert sorted((event["rank"], event["steps"]) for event in events) == [
        (rank, step) for rank in (0, 1) for step in range(each)
    ]
