"""The lesson's crossover sweep: one factor at a time, on every device, within caps on size and time.

The lesson says a GPU gains little on tiny problems (launch and transfer overheads) and a lot
as the data, the batch, the model width and the convolution work grow. A sweep varies one of
those factors, holds the others at the base cell's values, and times each cell on each device.
Planning is ``linecnn.bench.plan``; this module runs a plan and makes its document.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial

import torch

from linecnn.bench.cell import bench
from linecnn.bench.config import BenchConfig
from linecnn.bench.document import BenchDocument, BenchEnv
from linecnn.bench.noise import highest, load_average, mark
from linecnn.bench.plan import Caps, SweepPlan
from linecnn.bench.results import TIME_CAP, CellResult, CellStatus
from linecnn.bench.timing import Watch
from linecnn.classroom.cores import usable_cores
from linecnn.device import describe
from linecnn.stop import Stopped, StopReason


@dataclass(frozen=True)
class CellProgress:
    """Where a sweep is, for a progress bar."""

    cell: int  # 1-based number of the cell running now
    cells: int  # cells planned
    device: str
    config: BenchConfig
    phase: str  # "setup", "warm-up" or "timing"
    done: int  # epochs of this phase finished
    total: int  # epochs of this phase planned

    @property
    def fraction(self) -> float:
        """Share of the sweep done, from 0 to 1."""
        epochs = self.config.warmup + self.config.repeats
        finished = {"setup": 0, "warm-up": self.done, "timing": self.config.warmup + self.done}[self.phase]
        return min(1.0, (self.cell - 1 + finished / epochs) / self.cells)


def run_sweep(
    plan: SweepPlan,
    *,
    caps: Caps | None = None,
    progress: Callable[[CellProgress], None] | None = None,
    cancel: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
    threads: int | None = None,
    machine_cores: int | None = None,
    before_cell: Callable[[int], None] | None = None,
) -> Iterator[CellResult]:
    """Run the plan's cells in order, yielding one result per cell.

    CPU cells run on ``threads`` torch threads (None: torch's start-up count). Each result says the
    cores this process owned and ``machine_cores`` (None: the cores it may use now).
    ``before_cell(index)`` runs before each cell starts (the page's worker waits there for the cores).

    An out-of-memory cell is recorded and the sweep goes on. At the time cap the running cell
    is recorded as stopped and the cells left as skipped. Each timed cell carries the highest load
    average seen around it and its reasons to be distrusted (``noise.mark``). Setting ``cancel``
    ends the sweep within one optimizer step by raising ``Stopped`` (cancelled). ``progress`` is
    called at each phase and after each epoch, never inside a timed epoch. The size and
    step-memory caps apply when planning (``plan_sweep``).
    """
    cells = plan.cells()
    watch = Watch(cancel, (caps or Caps()).max_seconds, clock)
    machine_cores = machine_cores or len(usable_cores())
    for index, (config, device) in enumerate(cells, start=1):
        where = partial(CellProgress, index, len(cells), device, config)
        report = None if progress is None else _reporter(progress, where)
        if before_cell is not None:
            before_cell(index)
        before = load_average()
        try:
            result = bench(config, device, report, watch, threads)
        except Stopped as stop:
            if stop.reason is not StopReason.TIME_CAP:
                raise
            yield not_run(config, device, CellStatus.STOPPED, str(stop))
            for config_left, device_left in cells[index:]:
                yield not_run(config_left, device_left, CellStatus.SKIPPED, TIME_CAP)
            return
        result = replace(result, cores=len(usable_cores()), machine_cores=machine_cores)
        yield mark(result, highest(before, load_average()))


def _reporter(
    progress: Callable[[CellProgress], None], where: Callable[[str, int, int], CellProgress]
) -> Callable[[str, int, int], None]:
    """bench's progress(phase, done, total), passed on as a CellProgress of this cell."""
    return lambda phase, done, total: progress(where(phase, done, total))


def not_run(config: BenchConfig, device: str, status: CellStatus, reason: str) -> CellResult:
    """A cell with no timings, and why."""
    effective, notes = config.for_device(device)
    return CellResult(
        str(torch.device(device)), describe(device), effective, status=status, reason=reason, notes=notes
    )


def make_document(plan: SweepPlan, results: Sequence[CellResult], env: BenchEnv) -> BenchDocument:
    """The document of a sweep: what the CLI prints, the page downloads and the history stores."""
    return BenchDocument(
        factor=plan.factor,
        results=tuple(results),
        env=env,
        devices=plan.devices,
        notes=plan.notes,
        created=env.date,
    )


def retimed(base: BenchDocument, results: Sequence[CellResult], env: BenchEnv) -> BenchDocument:
    """``base`` with each cell timed again in ``results`` put in its place (same device, variant and x)."""

    def cell(result: CellResult) -> tuple:
        """Where a result sits: its device, variant and swept value."""
        return result.device, result.config.variant, base.x(result)

    again = {cell(result): result for result in results}
    merged = [again.pop(cell(result), result) for result in base.results]
    return replace(base, results=(*merged, *again.values()), env=env, created=env.date)
