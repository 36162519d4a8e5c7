"""One truth across pages: a Train run's ms per epoch beside the benchmark cell of the same settings.

The Train summary and the Benchmark's results each say, in one sentence, whether the two figures
agree within 20 % and, if not, why (``bench.agree``): the thread counts, the validation the Train
page includes, or the machine's load. Only cells measured on this server are compared, on the
Train run's own device.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from linecnn.bench.agree import Verdict, compare, same_settings
from linecnn.bench.results import CellResult
from linecnn.device import device_key
from linecnn.ui.bench.results.data import ShownRun
from linecnn.ui.bench.state import shown_runs
from linecnn.ui.i18n import count, number, percent, t
from linecnn.ui.state import RunRecord, latest_run


def train_ms(record: RunRecord) -> float:
    """The Train summary's ms per epoch: the run's training time over its epochs, validation included."""
    last = record.history[-1]
    return 1000 * last.elapsed_seconds / last.epoch


def matching_cell(record: RunRecord, runs: Sequence[ShownRun]) -> tuple[CellResult, int | None] | None:
    """The newest timed cell of ``runs`` with ``record``'s settings on its device, with its CPU threads.

    Imported and bundled runs were measured on other machines: they are left out.
    """
    device, found = device_key(record.device), None
    for shown in runs:
        if shown.source in ("import", "reference"):
            continue
        for cell in shown.document.results:
            if cell.ok and device_key(cell.device) == device and same_settings(record.config, cell.config):
                # The cell's own thread count where it was recorded; older runs give their process's.
                threads = (cell.threads or shown.document.env.torch_threads) if device == "cpu" else None
                found = (cell, threads)
    return found


def agreement(record: RunRecord, runs: Sequence[ShownRun]) -> str | None:
    """The sentence on ``record``'s figure against its cell's; None without a matching cell."""
    if not record.history or record.history[-1].epoch == 0:
        return None
    match = matching_cell(record, runs)
    if match is None:
        return None
    cell, cell_threads = match
    if cell.median_ms is None:  # an ok cell always has one; a file could still lack it
        return None
    verdict = compare(train_ms(record), cell.median_ms, record.threads, cell_threads)
    return sentence(verdict, record.threads, cell_threads)


def sentence(verdict: Verdict, train_threads: int | None, cell_threads: int | None) -> str:
    """``verdict`` in one sentence of the session's language."""
    key = verdict.reason or "same"
    more = cell_threads is not None and train_threads is not None and cell_threads > train_threads
    if key == "threads" and more:  # the benchmark's usual case: more threads
        key = "threads_cell_slower" if verdict.cell_ms > verdict.train_ms else "threads_cell_faster"
    elif key == "load" and train_threads is None:
        key = "load_device"
    return t(
        f"bench.agree.{key}",
        cell=number(verdict.cell_ms, 2),
        train=number(verdict.train_ms, 2),
        threads=count(train_threads),
        cell_threads=count(cell_threads),
        share=percent(verdict.validation_share),
    )


def show_on_bench(runs: Sequence[ShownRun]) -> None:
    """Under the Benchmark's results: the session's last Train run against the cell of its settings."""
    record = latest_run()
    text = None if record is None else agreement(record, runs)
    if record is not None and text is not None:
        st.caption(t("bench.agree.on_bench", run=record.label, sentence=text))


def show_on_train(record: RunRecord) -> None:
    """Under the Train summary's speed: ``record`` against the cell of its settings on the Benchmark."""
    text = agreement(record, shown_runs())
    if text is not None:
        st.caption(text)
