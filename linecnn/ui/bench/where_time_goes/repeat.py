"""Time a run's doubtful cells again: what 'Where the time goes' offers when a run is too noisy to split."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from linecnn.bench.document import BenchDocument
from linecnn.bench.plan import SweepPlan
from linecnn.bench.results import CellResult
from linecnn.device import list_devices
from linecnn.ui import notice
from linecnn.ui.bench.results.data import ShownRun
from linecnn.ui.bench.state import MESSAGE, server_caps
from linecnn.ui.bench.sweep import running
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import t

REPEATABLE = ("page", "cli")  # runs measured on this machine; an import or a reference was timed elsewhere


def offer_repeat(series: str, rows: pd.DataFrame, runs: list[ShownRun]) -> None:
    """A button that re-times the series' disturbed cells (all its cells when none is marked)."""
    run = next((run for run in runs if run.id == rows["run"].iat[0]), None)
    here = {info.key for info in list_devices()}
    if run is None or run.source not in REPEATABLE or not set(rows["device"]) <= here:
        return
    results = [result for result in rows["result"] if result.disturbed]
    label = (
        t("bench.explain.repeat", cells=len(results), series=escape_markdown(series))
        if results
        else t("bench.explain.repeat_all", series=escape_markdown(series))
    )
    st.button(
        label,
        key=f"bench.repeat.{run.id}.{series}",
        icon=":material/replay:",
        help=t("bench.explain.repeat_help"),
        disabled=running.running(),
        on_click=_repeat,
        args=(run.document, results or list(rows["result"])),
    )


def repeat_plan(document: BenchDocument, results: list[CellResult]) -> SweepPlan:
    """The plan that times ``results``' cells again: their configs on their devices, nothing else."""
    configs = tuple(dict.fromkeys(result.config for result in results))
    devices = tuple(dict.fromkeys(result.device for result in results))
    return SweepPlan(document.factor, configs, devices, compare_eager=False)


def _repeat(document: BenchDocument, results: list[CellResult]) -> None:
    """The button's callback: start the re-timing; a refusal (another run of this session) is said."""
    try:
        running.start_benchmark(repeat_plan(document, results), server_caps(), base=document)
    except ValueError as error:  # already Markdown, its names escaped: escaped again, backslashes show
        notice.keep(MESSAGE, notice.said("error", str, error))
