"""The class board: every device measured on this server or imported, at the same cells, side by side.

Each device of each stored run is one row: its epoch at the lesson's size, its epoch at the largest
size it timed with the lesson's other settings, and for an accelerator where it crosses under the
same run's CPU. Only eager cells with the lesson's batch, width, conv layers and data are read, so
every row is timed on the same problem.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from linecnn.bench.config import BenchConfig
from linecnn.bench.crossover import Crossover, crossover
from linecnn.bench.document import BenchDocument
from linecnn.bench.factors import FACTORS
from linecnn.bench.results import CellResult
from linecnn.bench.store import RunSummary

SHAPE_KEYS = ("batch_size", "width", "extra_convs", "data_mode")  # what the board holds at the lesson's
LESSON = BenchConfig()  # the lesson's cell: what `python -m linecnn bench` times by default
DATA = FACTORS["data"]  # the crossover is read along the data size


def shape(config: BenchConfig) -> tuple:
    """A cell's settings apart from its size: they must be the lesson's for the board to show it."""
    flat = config.run.as_dict()
    return (*(flat[key] for key in SHAPE_KEYS), config.variant)


LESSON_SHAPE = shape(LESSON)
LESSON_IMAGES = LESSON.images  # the lesson's training images (360)


@dataclass(frozen=True)
class BoardRow:
    """One device of one stored run, on the board."""

    run: RunSummary  # the run: id, who, where it came from, when
    device: str  # "cpu", "cuda:0"
    device_name: str  # e.g. "CUDA:0 · NVIDIA H200"
    cpu_model: str  # the machine's CPU, e.g. "AMD EPYC 7B13"
    lesson: CellResult | None  # its cell at the lesson's size, if timed
    largest: CellResult | None  # its cell at the largest size it timed with the lesson's settings
    crossover: Crossover | None  # an accelerator's crossing under the same run's CPU, if both were timed

    @property
    def kind(self) -> str:
        """The device's kind: 'cpu', 'cuda' or 'mps'."""
        return self.device.split(":")[0]


def board_rows(runs: Iterable[tuple[RunSummary, BenchDocument]]) -> list[BoardRow]:
    """A row per device of each run that timed a cell with the lesson's settings, in the runs' order."""
    return [row for summary, document in runs for row in _run_rows(summary, document)]


def _run_rows(summary: RunSummary, document: BenchDocument) -> list[BoardRow]:
    """The rows of one run: each device's lesson and largest cells, and the crossover against its CPU."""
    by_device: dict[str, list[CellResult]] = {}
    for result in document.results:
        if result.ok and shape(result.config) == LESSON_SHAPE:
            by_device.setdefault(result.device, []).append(result)
    # An ok cell always has its median; the filter only tells the type checker so.
    cpu: dict[float, float] = {
        r.config.images: r.median_ms for r in by_device.get("cpu", []) if r.median_ms is not None
    }
    rows = []
    for device, cells in by_device.items():
        points: dict[float, float] = {r.config.images: r.median_ms for r in cells if r.median_ms is not None}
        rows.append(
            BoardRow(
                run=summary,
                device=device,
                device_name=cells[0].device_name,
                cpu_model=document.env.cpu_model or "",
                lesson=next((r for r in cells if r.config.images == LESSON_IMAGES), None),
                largest=max(cells, key=lambda r: r.config.images),
                crossover=None if device == "cpu" or len(points) < 2 else crossover(cpu, points, DATA),
            )
        )
    return rows
