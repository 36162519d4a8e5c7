"""Benchmark documents turned into the tables the page shows. Pure pandas, no Streamlit.

A *series* is one line on the sweep chart: one device of one run with one set of faster paths.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from linecnn.bench import OK
from linecnn.store import validate_document
from linecnn.ui.bench.charts import sweep_figure
from linecnn.ui.bench.compare import crossings, speedups, vs_eager
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


@dataclass(frozen=True)
class ShownRun:
    """A stored run on screen."""

    id: int  # its id in the history; 0 and below: a run kept in memory or a bundled reference
    source: str  # 'page', 'cli', 'import', or 'reference' for a bundled reference GPU series
    document: dict  # the JSON document
    title: str = ""  # how a run that is not in the history is named (a reference's GPU)

    @property
    def name(self) -> str:
        """'#7' for a stored run, 'unsaved 1' for one held in memory, the title of a reference."""
        if self.title:
            return self.title
        return f"#{self.id}" if self.id > 0 else t("bench.series.unsaved", n=1 - self.id)


def _kind(device: str) -> str:
    """'cpu', 'cuda' or 'mps' from 'cuda:0' and the like."""
    return device.split(":")[0]


def results_frame(runs: list[ShownRun]) -> pd.DataFrame:
    """One row per cell of every shown run, with a series label, the speed-up and the one-time costs."""
    many = len(runs) > 1
    rows = [_row(run, result, many) for run in runs for result in run.document["results"]]
    frame = pd.DataFrame(rows, columns=[*COLUMNS, "kind"])
    frame["speedup"] = speedups(frame)
    frame["vs_eager"] = vs_eager(frame)
    return frame


def _series(run: ShownRun, result: dict, many: bool) -> str:
    """The chart line a cell belongs to: its device, then the run when several show, then its faster paths."""
    config = result["config"]
    series = result.get("device_name") or result["device"]
    if run.source == "reference":
        series += " · " + t("bench.series.reference", gpu=run.title)
    elif many:
        series += f" · {run.name}" + (" " + t("bench.series.imported") if run.source == "import" else "")
    if config.get("variant", "eager") != "eager":
        series += f" · {config['variant']}"
    return series


def _row(run: ShownRun, result: dict, many: bool) -> dict:
    """One cell's row: what was timed, how long it took, and where it ran."""
    config = result["config"]
    return {
        "run": run.id,
        "series": _series(run, result, many),
        "kind": _kind(result["device"]),
        "device": result["device"],
        "device_name": result.get("device_name", result["device"]),
        "variant": config.get("variant", "eager"),
        "factor": result.get("factor", run.document.get("sweep", "none")),
        "x": float(result.get("x", config["images"])),
        "images": config["images"],
        "batch": config.get("step_size"),
        "steps": config.get("steps") or -(-config["images"] // (config.get("step_size") or 1)),
        "width": config.get("width"),
        "conv_layers": config.get("conv_layers"),
        **_timings(result),
        **_origin(run, result),
    }


def _timings(result: dict) -> dict:
    """A cell's epoch times, its one-time costs and its memory peak."""
    peak, kind = result.get("peak_memory_bytes"), _kind(result["device"])
    return {
        "status": result["status"],
        "median_ms": result["median_ms"],
        "p25_ms": result["p25_ms"],
        "p75_ms": result["p75_ms"],
        "samples_per_s": result["samples_per_s"],
        "first_epoch_ms": result.get("first_epoch_ms"),
        "context_ms": result.get("context_ms"),
        "setup_ms": result.get("setup_ms"),
        "autotune_ms": result.get("autotune_ms"),
        "compile_ms": result.get("compile_ms"),
        # An accelerator's peak is the cell's own; the CPU's is the whole process's peak
        # RSS so far (server and every session included, never reset): kept apart.
        "peak_memory_mb": None if peak is None or kind == "cpu" else peak / 2**20,
        "process_rss_mb": None if peak is None or kind != "cpu" else peak / 2**20,
        "repeats": len(result.get("times_ms") or []),
    }


def _origin(run: ShownRun, result: dict) -> dict:
    """Where a cell comes from: the run's source, the machine and software it ran on, when, and its notes."""
    env = result.get("env") or run.document.get("env") or {}
    return {
        "source": run.source,
        "machine": env.get("cpu_model", ""),
        "torch": env.get("torch_version", ""),
        "cuda": env.get("cuda_version") or "",
        "date": env.get("date") or run.document.get("created", ""),
        "notes": " ".join(result.get("notes") or []),
    }


def run_problem(run: ShownRun) -> str | None:
    """Why a stored run cannot be shown, as a sentence, or None when it can.

    The history may hold rows saved before imports were checked this strictly: each run is
    validated and drawn on its own here, so that one bad row is left out instead of breaking the page.
    """
    try:
        validate_document(run.document)
        frame = results_frame([run])
        for factor in frame["factor"].unique():
            found = crossings(frame, factor)
            timed = frame[(frame["factor"] == factor) & (frame["status"] == OK)]
            sweep_figure(timed, factor, found)
    except ValueError as error:
        return str(error)
    except Exception as error:  # noqa: BLE001 - whatever a malformed row breaks, leave that run out
        return f"its data cannot be read ({type(error).__name__}: {error})."
    return None
