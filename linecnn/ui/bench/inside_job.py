""" "Inside one step" as the Benchmark page's background work: profile each cell on each device.

``job.Job`` runs it in its thread under the server-wide benchmark lock, like a sweep; a cancel or
the server's time cap lands between profiled steps. Each cell's trace is kept as bytes for download.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from linecnn.bench.config import BenchConfig
from linecnn.bench.profile import profile_step
from linecnn.bench.step_profile import StepProfile
from linecnn.bench.timing import Watch
from linecnn.ui.bench.job import Job


@dataclass(frozen=True)
class Looked:
    """One cell on one device, looked inside: its figures and its Chrome trace."""

    profile: StepProfile
    trace: bytes  # the Chrome trace JSON, for the download button


InsideJob = Job[list[Looked], tuple[BenchConfig, str]]  # step: the cell and device being profiled


def inside_work(
    targets: list[tuple[BenchConfig, str]], max_seconds: float | None
) -> Callable[[InsideJob], list[Looked]]:
    """The job's work: profile ``targets`` one by one, keeping each as it ends."""

    def work(job: InsideJob) -> list[Looked]:
        watch = Watch(cancel=job.cancel, max_seconds=max_seconds)
        looked: list[Looked] = []
        for index, (config, device) in enumerate(targets):
            job.report(index / len(targets), (config, device))
            with tempfile.TemporaryDirectory(prefix="linecnn-trace-") as folder:
                trace = Path(folder) / "trace.json"
                profile = profile_step(config, device, trace=trace, check=watch.check)
                looked.append(Looked(profile, trace.read_bytes()))
            job.keep(list(looked))
        job.report(1.0, targets[-1])
        return looked

    return work
