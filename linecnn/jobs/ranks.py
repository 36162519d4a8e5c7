"""A data-parallel series as the Benchmark page's background work: torchrun runs of 1, 2, 4 ... processes.

``job.Job`` runs it in its thread in the benchmark turn; this module adds the GPUs alone (for
NCCL), the progress of the run in flight and the rows kept after each run.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from linecnn.bench.plan import Caps
from linecnn.classroom.bench_turns import gpu_alone
from linecnn.jobs.job import Job
from linecnn.parallel.config import RanksConfig
from linecnn.parallel.launch import Launch
from linecnn.parallel.results import Series
from linecnn.parallel.series import run_plan, run_series

RanksJob = Job[Series, Launch]  # step: the torchrun run in flight; None while the reference trains


def ranks_work(config: RanksConfig, counts: list[int], caps: Caps) -> Callable[[RanksJob], Series]:
    """The job's work: the series of ``counts``, fewest first; a cancel, a killed rank or the cap ends it."""

    runs = len(run_plan(config, counts))  # the 1-process baselines at other thread counts included
    launches: list[int] = []  # ids of the runs started so far: each run has a Launch of its own

    def progress(job: RanksJob, launch: Launch) -> None:
        if id(launch) not in launches:
            launches.append(id(launch))
        index = len(launches) - 1
        job.report(min(1.0, (index + launch.done / max(1, launch.total)) / runs), launch)

    def work(job: RanksJob) -> Series:
        with gpu_alone(torch.device(config.device)):
            return run_series(
                config,
                counts,
                lambda launch: progress(job, launch),
                caps.max_seconds,
                on_row=job.keep,
                check=job.check,
            )

    return work
