"""Benchmark documents turned into the tables the page shows, with pandas.

No Streamlit calls, but its column words come from ``t()``, which reads the session's language.

A *series* is one line on the sweep chart: one device of one run with one set of faster paths.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from linecnn.bench.document import BenchDocument
from linecnn.bench.results import COSTS, CellResult
from linecnn.ui.bench.results.compare import speedups, vs_eager
from linecnn.ui.bench.words import device_label, disturbed_text
from linecnn.ui.i18n import t

# Columns of the results table, in the order shown and downloaded as CSV.
COLUMNS = (
    "run",
    "series",
    "device",
    "device_name",
    "variant",
    "factor",
    "x",
    "images",
    "batch",
    "steps",
    "width",
    "conv_layers",
    "status",
    "disturbed",
    "median_ms",
    "p25_ms",
    "p75_ms",
    "samples_per_s",
    "speedup",
    "vs_eager",
    "first_epoch_ms",
    "context_ms",
    "setup_ms",
    "autotune_ms",
    "compile_ms",
    "peak_memory_mb",
    "process_rss_mb",
    "repeats",
    "source",
    "machine",
    "torch",
    "cuda",
    "date",
    "notes",
)
HIDDEN = ("x", "kind", "ok", "result")  # not shown nor downloaded: x repeats a column, the rest are for code


@dataclass(frozen=True)
class ShownRun:
    """A stored run on screen."""

    id: int  # its id in the history; 0 and below: a run kept in memory or a bundled reference
    source: str  # 'page', 'cli', 'import', or 'reference' for a bundled reference GPU series
    document: BenchDocument  # what was measured
    title: str = ""  # how a run that is not in the history is named (a reference's GPU)

    @property
    def name(self) -> str:
        """'#7' for a stored run, 'unsaved 1' for one held in memory, the title of a reference."""
        if self.title:
            return self.title
        return f"#{self.id}" if self.id > 0 else t("bench.series.unsaved", n=1 - self.id)


def results_frame(runs: list[ShownRun]) -> pd.DataFrame:
    """One row per cell of every shown run, with a series label, the speed-up and the one-time costs.

    Besides the table's COLUMNS, ``kind`` is the device's kind, ``ok`` whether the cell was timed
    and ``result`` the CellResult itself.
    """
    many = len(runs) > 1
    rows = [_row(run, result, many) for run in runs for result in run.document.results]
    frame = pd.DataFrame(rows, columns=[*COLUMNS, "kind", "ok", "result"])
    frame["ok"] = frame["ok"].astype(bool)  # a boolean mask even when no run has a cell
    frame["speedup"] = speedups(frame)
    frame["vs_eager"] = vs_eager(frame)
    return frame


def _series(run: ShownRun, result: CellResult, many: bool) -> str:
    """The chart line a cell belongs to: its device, then the run when several show, then its faster paths."""
    series = device_label(result)
    if run.source == "reference":
        series += " · " + t("bench.series.reference", gpu=run.title)
    elif many:
        series += f" · {run.name}" + (" " + t("bench.series.imported") if run.source == "import" else "")
    if result.config.variant != "eager":
        series += f" · {result.config.variant}"
    return series


def _row(run: ShownRun, result: CellResult, many: bool) -> dict:
    """One cell's row: what was timed, how long it took, and where it ran."""
    config = result.config
    return {
        "run": run.id,
        "series": _series(run, result, many),
        "kind": result.kind,
        "device": result.device,
        "device_name": result.device_name,
        "variant": config.variant,
        "factor": run.document.factor.name,
        "x": run.document.x(result),
        "images": config.images,
        "batch": config.step_size,
        "steps": config.steps,
        "width": config.run.model.width,
        "conv_layers": config.conv_layers,
        **_timings(result),
        **_origin(run, result),
    }


def _timings(result: CellResult) -> dict:
    """A cell's epoch times, its one-time costs and its memory peak."""
    peak, cpu = result.peak_memory_bytes, result.kind == "cpu"
    return {
        "status": result.status_text,
        "ok": result.ok,
        "result": result,
        "median_ms": result.median_ms,
        "p25_ms": result.p25_ms,
        "p75_ms": result.p75_ms,
        "samples_per_s": result.samples_per_s,
        **{key: getattr(result, key) for key in COSTS},
        # An accelerator's peak is the cell's own; the CPU's is the whole process's peak
        # RSS so far (server and every session included, never reset): kept apart.
        "peak_memory_mb": None if peak is None or cpu else peak / 2**20,
        "process_rss_mb": None if peak is None or not cpu else peak / 2**20,
        "repeats": len(result.times_ms),
    }


def _origin(run: ShownRun, result: CellResult) -> dict:
    """Where a cell comes from: the run's source, the machine and software it ran on, when, and its notes."""
    env = run.document.env
    return {
        "source": run.source,
        "machine": env.cpu_model or "",
        "torch": env.torch_version or "",
        "cuda": env.cuda_version or "",
        "date": env.date or run.document.created or "",
        "notes": " ".join(result.notes),
        "disturbed": disturbed_text(result, env.cpu_count),
    }
