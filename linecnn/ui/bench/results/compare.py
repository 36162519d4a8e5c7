"""Which cells of the shown runs can be compared with the baseline CPU series: speed-ups, crossovers.

No Streamlit calls, but not free of the session: its words come from ``t()``, which reads the
session's language. Two cells are compared only when they share their whole shape.
"""

from __future__ import annotations

import numbers
from dataclasses import replace

import pandas as pd

from linecnn.bench.crossover import Crossover, crossover
from linecnn.bench.factors import FACTORS
from linecnn.ui.bench.words import verdict
from linecnn.ui.i18n import number, t


def baseline_series(frame: pd.DataFrame) -> str | None:
    """The CPU series others are compared with: the first eager CPU line, else the first CPU line."""
    cpus = frame[(frame["kind"] == "cpu") & frame["ok"]]
    eager = cpus[cpus["variant"] == "eager"]
    pick = eager if len(eager) else cpus
    return None if pick.empty else pick["series"].iat[0]


# A cell's shape. Two cells are compared (speed-up, crossover) only when they share all of it:
# a GPU run at width 16 says nothing about a CPU run at width 1 of the same image count.
SETTINGS = ("images", "batch", "width", "conv_layers")  # each swept factor's column is one of these


def _settings(rows: pd.DataFrame) -> list[tuple]:
    """Each row's SETTINGS as a tuple, for matching cells across runs."""
    return [tuple(values) for values in rows[list(SETTINGS)].itertuples(index=False)]


def _baseline_medians(group: pd.DataFrame) -> dict[tuple, float]:
    """The baseline CPU series' median ms by cell settings, within one factor's rows."""
    base = baseline_series(group)
    rows = group[(group["series"] == base) & group["ok"]]
    return dict(zip(_settings(rows), rows["median_ms"], strict=True))


def speedups(frame: pd.DataFrame) -> pd.Series:
    """Baseline CPU median over each cell's median, for cells with the same settings (above 1: faster)."""
    speedup = pd.Series([None] * len(frame), index=frame.index, dtype="float64")
    for _, group in frame.groupby("factor", sort=False):
        reference = _baseline_medians(group)
        timed = group[group["ok"]]
        if timed.empty:
            continue
        matched = [reference.get(key) for key in _settings(timed)]
        speedup.loc[timed.index] = pd.Series(matched, index=timed.index, dtype="float64") / timed["median_ms"]
    return speedup


def vs_eager(frame: pd.DataFrame) -> pd.Series:
    """For a cell with faster paths: the eager median of the same run, device and x over its own."""
    timed = frame[frame["ok"]]
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
    group = frame[(frame["factor"] == factor) & frame["ok"]]
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
        result = crossover(cpu, other, FACTORS[factor], name=name)
        if result is not None:
            found[series] = replace(result, verdict=verdict(result, factor, name))
    return found


def incomparable(frame: pd.DataFrame, factor: str) -> dict[str, str]:
    """Series with no cell sharing its settings with the baseline CPU's: series -> how they differ."""
    group = frame[(frame["factor"] == factor) & frame["ok"]]
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
            if name != FACTORS[factor].column and row[name] != base_row[name]
        ]
        found[series] = ", ".join(differences) or t("bench.data.other_sizes")
    return found


def unmatched(frame: pd.DataFrame, factor: str) -> dict[str, tuple[list[float], list[float]]]:
    """Series sharing some cells with the baseline CPU's but not all: series -> (x only it timed, x only
    the baseline timed). A series sharing none is ``incomparable``'s."""
    group = frame[(frame["factor"] == factor) & frame["ok"]]
    base = baseline_series(group)
    if base is None:
        return {}
    base_rows = group[group["series"] == base]
    base_keys = dict(zip(_settings(base_rows), base_rows["x"], strict=True))
    found = {}
    for series, rows in group[group["series"] != base].groupby("series", sort=False):
        keys = dict(zip(_settings(rows), rows["x"], strict=True))
        if not set(keys) & set(base_keys):
            continue
        only_here = sorted(x for key, x in keys.items() if key not in base_keys)
        only_base = sorted(x for key, x in base_keys.items() if key not in keys)
        if only_here or only_base:
            found[series] = (only_here, only_base)
    return found


def _setting(name: str) -> str:
    """A setting's name in a sentence: 'batch size', 'width'."""
    label = t(f"bench.column.{name}")
    return label[0].lower() + label[1:]


def _number(value: object) -> str:
    """A setting for a sentence: 4096 -> '4,096' (or '4.096')."""
    return number(float(value)) if isinstance(value, numbers.Real) and not pd.isna(value) else str(value)
