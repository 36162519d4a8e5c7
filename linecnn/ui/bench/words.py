"""The Benchmark page's words for values: sizes, times, ratios, cell statuses and crossover verdicts.

Each is written in the session's language, numbers with its separators (``linecnn.ui.i18n``).
"""

from __future__ import annotations

import math
import re

from linecnn.bench.crossover import Crossover
from linecnn.bench.factors import FACTORS
from linecnn.bench.results import TIME_CAP, WIDE_SPREAD, CellResult, CellStatus
from linecnn.bench.store import SOURCES
from linecnn.bench.sweep import CellProgress
from linecnn.errors import recognise
from linecnn.ui.i18n import count, duration, number, percent, say, t


def significant(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits with the language's separators: '0.412', '1,234'."""
    if value == 0 or not math.isfinite(value):
        return number(value) if math.isfinite(value) else "-"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return number(round(value, decimals), decimals)


def ms_text(ms: float | None) -> str:
    """Milliseconds for a label: '0.412 ms', '123 ms', '12.3 s'; '-' when missing."""
    if ms is None or not math.isfinite(ms):
        return "-"
    return f"{significant(ms / 1000)} s" if ms >= 1000 else f"{significant(ms)} ms"


def ratio_text(ratio: float) -> str:
    """A ratio such as a speed-up: '24×', '1.3×'."""
    return f"{significant(ratio, 2)}×"


def factor_words(factor: str, part: str, **values: object) -> str:
    """One of a factor's catalog words (title, unit, x, axis, hover, sweep), from its line in ``[factor]``."""
    return t(f"bench.factor.{factor}.{part}", **values)


def factor_title(factor: str) -> str:
    """The name of a swept factor: 'Data size', 'Batch size'…"""
    return factor_words(factor, "title")


def x_text(factor: str, x: float, exact: bool = False) -> str:
    """A swept value for a sentence ('1,200 images', 'a batch of 256'); rounded unless ``exact``."""
    if FACTORS[factor].counts:
        return factor_words(factor, "x", n=number(x, 0 if float(x).is_integer() else 1))
    rounded = round(x) if exact or x < 100 else float(f"{x:.2g}")
    return factor_words(factor, "x", n=number(rounded))


def status_text(result: CellResult) -> str:
    """A cell's status in the page's language; an error's own text stays as it was written."""
    status, reason = result.status, result.reason
    cap = re.fullmatch(r"time cap of (\S+) s", reason)
    if status is CellStatus.SKIPPED and reason == TIME_CAP:
        return t("bench.status.skipped")
    if status is CellStatus.STOPPED and cap is not None:
        return t("bench.status.stopped", seconds=cap[1])
    if status is CellStatus.FAILED:
        return t("bench.status.failed", error=reason)
    simple = {CellStatus.OK: "bench.status.ok", CellStatus.OUT_OF_MEMORY: "bench.status.oom"}
    return t(simple[status]) if status in simple else result.status_text


def variant_text(variant: str) -> str:
    """A cell's variant in the page's language: plain PyTorch ('eager') has a word; faster paths keep
    their PyTorch names (compile, channels_last, CUDA graphs, AMP)."""
    return t("bench.variant.eager") if variant == "eager" else variant


def source_text(source: str) -> str:
    """Where a run comes from ('page', 'cli', 'import', 'reference') in the page's language."""
    return t(f"bench.source.{source}") if source in (*SOURCES, "reference") else source


def disturbed_text(result: CellResult, cores: int | None) -> str:
    """Why a cell's timing is doubtful, in words ('' when not): spread, load, a Train run, core waits."""
    load = "-" if result.load_average is None else number(result.load_average, 1)
    words = {
        "spread": t("bench.disturbed.spread", factor=number(WIDE_SPREAD, 1)),
        "load": t("bench.disturbed.load", load=load, cores="?" if cores is None else number(cores)),
        "training": t("bench.disturbed.training"),
        "cores": t("bench.disturbed.cores", share=percent(result.run_queue or 0.0)),
    }
    return "; ".join(words[reason] for reason in result.disturbed)


def device_label(result: CellResult) -> str:
    """The device a cell ran on and, for a CPU cell, the cores it had: 'CPU · Intel Xeon, 1 of 2 cores'."""
    if result.kind != "cpu" or result.cores is None or result.machine_cores is None:
        return result.device_name
    cores = t("bench.series.cores", cores=number(result.cores), machine=count(result.machine_cores))
    return f"{result.device_name}, {cores}"


def waits_text(results: list[CellResult]) -> str:
    """What timing these cells cost this server's training runs, in one sentence; '' when not known.

    The runs are counted per cell (the same run waits for each cell it meets), so the sentence says the
    most that waited for one cell and the seconds of all of them together.
    """
    known = [result for result in results if result.mode is not None and result.waited_runs is not None]
    if not known:
        return ""
    runs = max(result.waited_runs or 0 for result in known)
    seconds = sum(result.waited_seconds or 0.0 for result in known)
    if runs:
        return t("bench.results.waited", runs=count(runs), time=duration(seconds))
    split = [result for result in known if result.mode == "split"]
    if split:
        cell = split[0]
        return t("bench.results.split", cores=count(cell.cores), machine=number(cell.machine_cores or 0))
    return t("bench.results.none_waited")


def notes_text(result: CellResult) -> str:
    """A cell's notes (faster paths its device dropped) in the page's language; unknown ones as stored."""
    return " ".join(say(recognise(note)) for note in result.notes)


def verdict(found: Crossover, factor: str, name: str) -> str:
    """The crossover's sentence: 'GPU faster above ≈ 12,000 images', 'CPU faster at every size tried'."""
    unit = factor_words(factor, "unit")
    if found.kind == "crosses" and found.x is not None:
        return t("bench.verdict.crosses", name=name, x=x_text(factor, found.x))
    if found.kind == "always":
        return t("bench.verdict.always", name=name, unit=unit, x=x_text(factor, found.measured_up_to, True))
    if found.kind == "never":
        return t("bench.verdict.never", unit=unit, x=x_text(factor, found.measured_up_to, True))
    return t("bench.verdict.unclear", unit=unit)


def progress_label(cell: CellProgress | None) -> str:
    """The progress bar's label: which cell, which device, which phase; waiting before the first."""
    if cell is None:
        return t("bench.job.waiting_turn")
    c = cell.config
    phase = (
        t("bench.job.setup")
        if cell.phase == "setup"
        else t(
            "bench.job.warmup" if cell.phase == "warm-up" else "bench.job.timing",
            done=cell.done,
            total=cell.total,
        )
    )
    return t(
        "bench.job.cell",
        cell=cell.cell,
        cells=cell.cells,
        device=cell.device,
        images=number(c.images),
        batch=number(c.step_size),
        width=c.run.model.width,
        convs=c.conv_layers,
        variant=c.variant,
        phase=phase,
    )
