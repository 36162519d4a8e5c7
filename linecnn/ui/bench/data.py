"""Benchmark documents turned into the tables the page shows. Pure pandas, no Streamlit.

A *series* is one line on the sweep chart: one device of one run with one set of faster paths.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace

import pandas as pd

from linecnn.bench import OK
from linecnn.store import validate_document
from linecnn.sweep import Crossover, crossover
from linecnn.ui.bench.charts import sweep_figure
from linecnn.ui.bench.words import verdict
from linecnn.ui.i18n import number, t

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
    rows = []
    for run in runs:
        for result in run.document["results"]:
            config, env = result["config"], result.get("env") or run.document.get("env") or {}
            series = result.get("device_name") or result["device"]
            if run.source == "reference":
                series += " · " + t("bench.series.reference", gpu=run.title)
            elif many:
                series += f" · {run.name}" + (
                    " " + t("bench.series.imported") if run.source == "import" else ""
                )
            if config.get("variant", "eager") != "eager":
                series += f" · {config['variant']}"
            peak, kind = result.get("peak_memory_bytes"), _kind(result["device"])
            rows.append(
                {
                    "run": run.id,
                    "series": series,
                    "kind": kind,
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
                    "source": run.source,
                    "machine": env.get("cpu_model", ""),
                    "torch": env.get("torch_version", ""),
                    "cuda": env.get("cuda_version") or "",
                    "date": env.get("date") or run.document.get("created", ""),
                    "notes": " ".join(result.get("notes") or []),
                }
            )
    frame = pd.DataFrame(rows, columns=[*COLUMNS, "kind"])
    frame["speedup"] = _speedups(frame)
    frame["vs_eager"] = _vs_eager(frame)
    return frame


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


def baseline_series(frame: pd.DataFrame) -> str | None:
    """The CPU series others are compared with: the first eager CPU line, else the first CPU line."""
    cpus = frame[(frame["kind"] == "cpu") & (frame["status"] == OK)]
    eager = cpus[cpus["variant"] == "eager"]
    pick = eager if len(eager) else cpus
    return None if pick.empty else pick["series"].iat[0]


# A cell's shape. Two cells are compared (speed-up, crossover) only when they share all of it:
# a GPU run at width 16 says nothing about a CPU run at width 1 of the same image count.
SETTINGS = ("images", "batch", "width", "conv_layers")
_SWEPT = {
    "data": "images",
    "batch": "batch",
    "width": "width",
    "conv": "conv_layers",
    "none": None,
}  # per factor


def _settings(rows: pd.DataFrame) -> list[tuple]:
    """Each row's SETTINGS as a tuple, for matching cells across runs."""
    return [tuple(values) for values in rows[list(SETTINGS)].itertuples(index=False)]


def _baseline_medians(group: pd.DataFrame) -> dict[tuple, float]:
    """The baseline CPU series' median ms by cell settings, within one factor's rows."""
    base = baseline_series(group)
    rows = group[(group["series"] == base) & (group["status"] == OK)]
    return dict(zip(_settings(rows), rows["median_ms"], strict=True))


def _speedups(frame: pd.DataFrame) -> pd.Series:
    """Baseline CPU median over each cell's median, for cells with the same settings (above 1: faster)."""
    speedup = pd.Series([None] * len(frame), index=frame.index, dtype="float64")
    for _, group in frame.groupby("factor", sort=False):
        reference = _baseline_medians(group)
        timed = group[group["status"] == OK]
        if timed.empty:
            continue
        matched = [reference.get(key) for key in _settings(timed)]
        speedup.loc[timed.index] = pd.Series(matched, index=timed.index, dtype="float64") / timed["median_ms"]
    return speedup


def _vs_eager(frame: pd.DataFrame) -> pd.Series:
    """For a cell with faster paths: the eager median of the same run, device and x over its own."""
    timed = frame[frame["status"] == OK]
    eager = timed[timed["variant"] == "eager"].set_index(["run", "device", "x"])["median_ms"]
    vs = pd.Series([None] * len(frame), index=frame.index, dtype="float64")
    fast = timed[timed["variant"] != "eager"]
    for index, row in fast.iterrows():
        reference = eager.get((row["run"], row["device"], row["x"]))
        if reference is not None:
            vs.loc[index] = reference / row["median_ms"]
    return vs


def crossings(frame: pd.DataFrame, factor: str) -> dict[str, Crossover]:
    """Each accelerator series' crossover with the baseline CPU series, for one factor, over the
    cells both timed with the same settings."""
    group = frame[(frame["factor"] == factor) & (frame["status"] == OK)]
    reference = _baseline_medians(group)
    if not reference:
        return {}
    others = group[group["kind"] != "cpu"]["series"].unique()
    found = {}
    for series in others:
        points = group[group["series"] == series]
        cpu, other = {}, {}
        for key, x, median in zip(_settings(points), points["x"], points["median_ms"], strict=True):
            if key in reference:
                cpu[x], other[x] = reference[key], median
        name = "GPU" if len(others) == 1 else series
        result = crossover(cpu, other, factor, name=name)
        if result is not None:
            found[series] = replace(result, verdict=verdict(result, factor, name))
    return found


def incomparable(frame: pd.DataFrame, factor: str) -> dict[str, str]:
    """Series with no cell sharing its settings with the baseline CPU's: series -> how they differ."""
    group = frame[(frame["factor"] == factor) & (frame["status"] == OK)]
    base = baseline_series(group)
    if base is None:
        return {}
    reference = _baseline_medians(group)
    base_row = group[group["series"] == base].iloc[-1]
    found = {}
    for series, rows in group[group["series"] != base].groupby("series", sort=False):
        if any(key in reference for key in _settings(rows)):
            continue
        row = rows.iloc[-1]
        differences = [
            t(
                "bench.data.differs",
                setting=_setting(name),
                value=_number(row[name]),
                base=_number(base_row[name]),
            )
            for name in SETTINGS
            if name != _SWEPT[factor] and row[name] != base_row[name]
        ]
        found[series] = ", ".join(differences) or t("bench.data.other_sizes")
    return found


def _setting(name: str) -> str:
    """A setting's name in a sentence: 'batch size', 'width'."""
    label = t(f"bench.column.{name}")
    return label[0].lower() + label[1:]


def _number(value: object) -> str:
    """A setting for a sentence: 4096 -> '4,096' (or '4.096')."""
    return number(value) if isinstance(value, numbers.Number) and not pd.isna(value) else str(value)
