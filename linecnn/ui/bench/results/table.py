"""The Benchmark page's results table with readable headers, its downloads, and each run's environment."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from linecnn.bench.document import BenchEnv
from linecnn.ui.bench.results.data import HIDDEN, ShownRun
from linecnn.ui.bench.words import (
    factor_title,
    notes_text,
    significant,
    source_text,
    status_text,
    variant_text,
)
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import count, current, number, size, t
from linecnn.ui.spreadsheet import for_language
from linecnn.ui.tables import show_table, sortable

TEXT_COLUMNS = (
    "run",
    "series",
    "device",
    "device_name",
    "variant",
    "source",
    "machine",
    "torch",
    "cuda",
    "date",
    "notes",
    "disturbed",
)
COUNTS = ("images", "batch", "steps", "width", "conv_layers", "repeats")  # whole numbers, with separators
# Shown first, so a phone's three visible columns and one swipe reach a cell's size and its time; the
# series stays pinned while the rest scroll by. The CSV keeps data.COLUMNS' order.
SHOWN_FIRST = (
    "run",
    "series",
    "images",
    "batch",
    "width",
    "conv_layers",
    "median_ms",
    "samples_per_s",
    "speedup",
)
PINNED = "series"


def _in_words(frame: pd.DataFrame) -> pd.DataFrame:
    """The table's cells that are words (status, factor, variant, source) in the page's language, as the
    screen and the CSV both show them; numbers stay as they are."""
    shown = frame.drop(columns=list(HIDDEN)).copy()
    shown["status"] = frame["result"].map(status_text)
    shown["notes"] = frame["result"].map(notes_text)
    shown["factor"] = shown["factor"].map(factor_title)
    shown["variant"] = shown["variant"].map(variant_text)
    shown["source"] = shown["source"].map(source_text)
    return shown


def _shown(frame: pd.DataFrame) -> Styler:
    """The table as shown: translated values, readable headers, and numbers that stay numbers (a click on
    a header sorts them by size) written with the language's separators."""
    shown = _in_words(frame)
    numeric = [column for column in shown.columns if column not in (*TEXT_COLUMNS, "status", "factor")]
    formats: dict[str, Callable[[float], str]] = {
        column: number if column in COUNTS else _significant for column in numeric
    }
    formats["run"] = lambda run: f"#{run:.0f}" if run > 0 else ""
    first = [column for column in SHOWN_FIRST if column in shown.columns]
    shown = shown[first + [column for column in shown.columns if column not in first]]
    names = {column: t(f"bench.column.{column}") for column in shown.columns}
    return sortable(shown.rename(columns=names), {names[column]: write for column, write in formats.items()})


def _significant(value: float) -> str:
    """A measured figure to three significant digits, the language's way."""
    return significant(float(value))


def _column_name(key: str) -> str:
    return t(f"bench.column.{key}")


def results_csv(frame: pd.DataFrame) -> bytes:
    """The results as the CSV download: full-precision numbers, the page's words and column names."""
    return for_language(_in_words(frame).to_csv(index=False), _column_name, current())


def render_table(frame: pd.DataFrame, runs: list[ShownRun]) -> None:
    """The results as a table, with a CSV of the raw numbers and each run's JSON to download."""
    st.subheader(t("bench.table.title"))
    pinned = {t(f"bench.column.{PINNED}"): st.column_config.Column(pinned=True)}
    show_table(_shown(frame), hide_index=True, column_config=pinned, key="bench.table")
    st.caption(t("bench.table.caption"))
    stem = "linecnn-bench-" + "-".join(file_name(run) for run in runs)
    buttons = st.container(horizontal=True)
    buttons.download_button(
        t("bench.table.csv"),
        results_csv(frame),
        file_name=f"{stem}.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",
    )
    for run in runs:  # one file per run: each is the CLI's format, and imports on another machine
        buttons.download_button(
            t("bench.table.json", run=run.name),
            run.document.to_json(indent=1),
            file_name=f"linecnn-bench-{file_name(run)}.json",
            mime="application/json",
            icon=":material/data_object:",
            on_click="ignore",
            help=t("bench.table.json_help"),
        )


def file_name(run: ShownRun) -> str:
    """A run's name for a file name: '7', or 'unsaved-1' for a run held in memory."""
    return run.name.removeprefix("#").replace(" ", "-").replace(",", "")


def render_environment(runs: list[ShownRun]) -> None:
    """The machine and software behind each shown run (every value escaped: it may come from a file)."""
    with st.expander(t("bench.env.title")):
        for run in runs:
            env = run.document.env

            def value(key: str, missing: str = "?", env: BenchEnv = env) -> str:
                found = getattr(env, key)
                return escape_markdown(missing if found is None else found)

            gpus = [
                f"{escape_markdown(d.name or '?')} ({size(d.memory_bytes)})"
                for d in env.devices
                if d.kind != "cpu"
            ]
            st.markdown(
                t(
                    "bench.env.line",
                    run=escape_markdown(run.name),
                    source=t(f"bench.source.{run.source}"),
                    date=value("date"),
                    cpu=value("cpu_model"),
                    count=count(env.cpu_count),
                    threads=count(env.torch_threads),
                    gpus=", ".join(gpus) or t("bench.env.no_gpu"),
                    torch=value("torch_version"),
                    cuda=value("cuda_version", t("bench.env.none")),
                    cudnn=value("cudnn_version", "n/a"),
                    python=value("python_version"),
                )
            )
