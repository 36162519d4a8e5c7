""" "Inside one step" as the Benchmark page's background work: profile each cell on each device.

``job.Job`` runs it in its thread in the server-wide benchmark turn, like a sweep, and the steps
are profiled in a worker process (``profile_worker``); a cancel or the time cap ends that process.
Each cell's trace is kept as bytes for download.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from linecnn.bench.config import BenchConfig
from linecnn.bench.profile_worker import profile_in_worker, trace_path
from linecnn.bench.step_profile import StepProfile
from linecnn.jobs.job import Job


@dataclass(frozen=True)
class Looked:
    """One cell on one device, looked inside: its figures and its Chrome trace."""

    profile: StepProfile
    trace: bytes  # the Chrome trace JSON, for the download button


InsideJob = Job[list[Looked], tuple[BenchConfig, str]]  # step: the cell and device being profiled


def inside_work(
    targets: list[tuple[BenchConfig, str]], max_seconds: float | None
) -> Callable[[InsideJob], list[Looked]]:
    """The job's work: profile ``targets`` in a worker process, keeping each cell as it ends."""

    def work(job: InsideJob) -> list[Looked]:
        looked: list[Looked] = []
        job.report(0.0, targets[0])
        with tempfile.TemporaryDirectory(prefix="linecnn-trace-") as folder:
            for profile in profile_in_worker(targets, Path(folder), max_seconds, job.check):
                config, device = targets[len(looked)]
                trace = trace_path(Path(folder), config, device).read_bytes()
                looked.append(Looked(profile, trace))
                job.keep(list(looked))
                job.report(len(looked) / len(targets), targets[min(len(looked), len(targets) - 1)])
        return looked

    return work
