"""The Benchmark page's "Processes / GPUs" factor: data-parallel runs through torchrun, progress, cancel.

The runs are ``linecnn.ranks.run_series`` in a background thread that never calls Streamlit, under the
server-wide benchmark lock (and the GPU lock for NCCL runs), polled by a fragment as the sweep is.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st
import torch

from linecnn.bench import BENCH_LOCK, gpu_alone
from linecnn.device import cuda_available
from linecnn.model import ModelConfig
from linecnn.ranks import run_series
from linecnn.ranks_config import RanksConfig, check_ranks, max_ranks
from linecnn.ranks_launch import Launch
from linecnn.ranks_results import LOSS_TOLERANCE, Series, compute_shrank
from linecnn.sweep import BATCH_SIZES, Caps
from linecnn.train import format_size, step_memory_bytes
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import duration, number, percent, t

RUNNING = "ddp.running"  # this session's RanksJob, from Run until the page has shown its end
RESULT = "ddp.result"  # the last Series measured, shown until the next run ends
MESSAGE = "ddp.message"  # (kind, text) about the last run
POLL_SECONDS = 0.5  # how often the fragment redraws the progress
RANK_CHOICES = (1, 2, 4, 8, 16, 32, 64)  # offered up to what this machine can run
POOR = 0.8  # below this efficiency the page explains where the time went
SUPERLINEAR = 1.1  # above this, the 1-process baseline was slow for a reason of its own: said so


class _Cancel(BaseException):
    """Raised in the job's thread from the progress callback when the user cancels."""


@dataclass
class RanksJob:
    """A series of torchrun runs in a background thread; the thread writes it, the page only reads it."""

    config: RanksConfig  # the problem every run trains
    counts: list[int]  # the rank counts, fewest first
    caps: Caps  # this server's limits (the time cap ends the series)
    who: str  # the session's short name, for the lock
    series: Series | None = None  # what has been measured so far
    ranks: int = 0  # the run in flight: its number of processes
    done: int = 0  # its epochs done
    total: int = 0  # its epochs planned
    waited: float | None = None  # seconds queued behind another benchmark, while queued
    locked: bool = False  # holds the benchmark lock: the reference or the runs are under way
    cancel: threading.Event = field(default_factory=threading.Event)  # set by the Cancel button
    finished: threading.Event = field(default_factory=threading.Event)  # set when the thread has ended
    cancelled: bool = False  # the user cancelled it
    error: str | None = None  # what ended it unexpectedly (a dead rank), if anything did
    started: float = field(default_factory=time.monotonic)  # time.monotonic() at Run
    seconds: float = 0.0  # how long it ran, once finished

    @property
    def fraction(self) -> float:
        """Share of the series done, for the progress bar."""
        if not self.ranks:
            return 0.0
        index = self.counts.index(self.ranks)
        return min(1.0, (index + self.done / max(1, self.total)) / len(self.counts))

    def queued(self, _holder: str | None, waited: float) -> None:
        """BENCH_LOCK's wait callback: note the wait; a cancel lands here too."""
        self.waited = waited
        if self.cancel.is_set():
            raise _Cancel

    def progress(self, launch: Launch) -> None:
        """run_series' callback: note where the run in flight is; a cancel ends its processes from here."""
        self.ranks, self.done, self.total = launch.ranks, launch.done, launch.total
        if self.cancel.is_set():
            raise _Cancel

    def check(self) -> None:
        """run_series' callback between the reference's epochs: a cancel lands here too."""
        if self.cancel.is_set():
            raise _Cancel

    def keep(self, series: Series) -> None:
        """run_series' callback after each finished run: keep the rows, whatever ends the series later."""
        self.series = series

    def run(self) -> None:
        """The thread's body: the series under the server-wide lock (and the GPUs alone for NCCL)."""
        try:
            with BENCH_LOCK.hold(self.who, on_wait=self.queued, poll=POLL_SECONDS):
                self.waited, self.locked = None, True
                with gpu_alone(torch.device(self.config.device)):
                    self.series = run_series(
                        self.config,
                        self.counts,
                        self.progress,
                        self.caps.max_seconds,
                        on_row=self.keep,
                        check=self.check,
                    )
        except _Cancel:
            self.cancelled = True
        except Exception as error:  # noqa: BLE001 - a dead rank or a failed launch: said on the page
            self.error = str(error)
        finally:
            self.seconds = time.monotonic() - self.started
            self.finished.set()


def running() -> bool:
    """True while this session's data-parallel job is in flight."""
    job = st.session_state.get(RUNNING)
    return job is not None and not job.finished.is_set()


def render(caps: Caps) -> None:
    """The factor's section: settings, Run, progress with Cancel, the last result and its explanation."""
    _finish()
    st.subheader(t("ddp.title"))
    st.markdown(t("ddp.intro"))
    submitted, config, counts = _form(caps)
    message = st.session_state.get(MESSAGE)
    if message is not None:
        getattr(st, message[0])(message[1])
    if submitted:
        try:
            _start(config(), counts, caps)
        except ValueError as error:
            st.error(str(error), icon=":material/error:")
    if st.session_state.get(RUNNING) is not None:
        _job_fragment()
    series = st.session_state.get(RESULT)
    if series is not None and series.rows:
        _render_series(series)
    st.caption(t("ddp.multi_node"))


def _form(caps: Caps):  # noqa: ANN202 - (submitted, config factory, rank counts)
    """The settings form; returns whether Run was pressed, a config builder (it may raise) and the counts."""
    kinds = {"cpu": t("ddp.device_cpu")}
    if cuda_available():
        kinds["cuda"] = t("ddp.device_cuda")
    with st.form("ddp.settings", border=True):
        top = st.columns([2, 2, 1, 1])
        kind = top[0].selectbox(t("ddp.device"), list(kinds), format_func=kinds.get, key="ddp.device")
        limit = max(1, max_ranks(kind))
        options = [n for n in RANK_CHOICES if n <= limit]
        counts = top[1].multiselect(
            t("ddp.ranks"),
            options,
            default=options[:2],
            key="ddp.ranks",
            help=t("ddp.ranks_help", limit=limit),
        )
        warmup = top[2].number_input(t("ddp.warmup"), 0, 20, 2, key="ddp.warmup")
        repeats = top[3].number_input(t("ddp.repeats"), 1, 100, 5, key="ddp.repeats")
        held = st.columns(4)
        per_class = held[0].number_input(
            t("ddp.per_class"), 1, caps.max_images // 3, 120, key="ddp.per_class"
        )
        batch = held[1].selectbox(
            t("ddp.batch"),
            ["full", *BATCH_SIZES],
            format_func=lambda v: t("ddp.full_batch") if v == "full" else number(v),
            key="ddp.batch",
        )
        width = held[2].number_input(t("ddp.width"), 1, 64, 1, key="ddp.width")
        threads = held[3].selectbox(
            t("ddp.threads"),
            ["auto", *range(1, 17)],
            format_func=lambda v: t("ddp.threads_auto") if v == "auto" else str(v),
            key="ddp.threads",
            help=t("ddp.threads_help"),
        )
        cap = t("ddp.no_cap") if caps.max_seconds is None else duration(caps.max_seconds)
        st.caption(t("ddp.caps", images=number(caps.max_images), cap=cap))
        submitted = st.form_submit_button(
            t("ddp.run"), type="primary", icon=":material/lan:", disabled=running()
        )

    def config() -> RanksConfig:
        made = RanksConfig(
            per_class=int(per_class),
            batch_size=None if batch == "full" else int(batch),
            width=int(width),
            warmup=int(warmup),
            repeats=int(repeats),
            device=kind,
            threads=None if threads == "auto" else int(threads),
        )
        needed = step_memory_bytes(ModelConfig(made.width), made.step_size)
        if needed > caps.max_step_bytes:
            raise ValueError(
                t("ddp.too_big", needed=format_size(needed), allowed=format_size(caps.max_step_bytes))
            )
        return made

    return submitted, config, sorted(counts)


def _start(config: RanksConfig, counts: list[int], caps: Caps) -> None:
    """Check the counts, then start the series in a background thread."""
    if running():
        raise ValueError(t("ddp.still_running"))
    if not counts:
        raise ValueError(t("ddp.no_ranks"))
    counts = check_ranks(counts, config)
    who = st.session_state.setdefault("bench.session", uuid.uuid4().hex[:6])
    st.session_state.pop(MESSAGE, None)
    job = RanksJob(config, counts, caps, who)
    st.session_state[RUNNING] = job
    threading.Thread(target=job.run, name=f"linecnn-ddp-{who}", daemon=True).start()


@st.fragment(run_every=POLL_SECONDS)
def _job_fragment() -> None:
    """Progress, queue and Cancel, redrawn on their own until the job ends; then the whole page reruns."""
    job: RanksJob | None = st.session_state.get(RUNNING)
    if job is None:
        return
    if job.finished.is_set():
        st.rerun()
    if job.waited is not None:
        st.info(t("ddp.queued", seconds=number(job.waited)), icon=":material/hourglass_top:")
    if job.cancel.is_set():
        st.caption(t("ddp.cancelling"))
    else:
        st.button(t("ddp.cancel"), key="ddp.cancel", icon=":material/stop_circle:", on_click=job.cancel.set)
    if not job.locked:
        text = t("ddp.waiting")
    elif not job.ranks:
        text = t("ddp.reference")
    elif job.done == 0:
        text = t("ddp.progress_start", ranks=job.ranks)
    else:
        text = t("ddp.progress_epoch", ranks=job.ranks, done=job.done, total=job.total)
    st.progress(job.fraction, text=text)


def _finish() -> None:
    """Once this session's job has ended, keep its rows and say how it ended."""
    job: RanksJob | None = st.session_state.get(RUNNING)
    if job is None or not job.finished.is_set():
        return
    st.session_state.pop(RUNNING)
    series = job.series
    if series is not None and series.rows:
        st.session_state[RESULT] = series
    runs = len(series.rows) if series is not None else 0
    if job.cancelled:
        st.session_state[MESSAGE] = ("info", t("ddp.cancelled", runs=runs))
    elif job.error is not None:
        st.session_state[MESSAGE] = ("error", t("ddp.failed", error=escape_markdown(job.error)))
    elif series is not None and series.mismatch:
        counts = ", ".join(str(n) for n in series.mismatch)
        st.session_state[MESSAGE] = (
            "error",
            t("ddp.mismatch", counts=counts, tolerance=f"{LOSS_TOLERANCE:.0e}"),
        )
    elif series is not None and series.stopped:
        st.session_state[MESSAGE] = ("warning", t("ddp.stopped", runs=runs))
    else:
        st.session_state[MESSAGE] = (
            "success",
            t("ddp.done", seconds=duration(job.seconds), runs=runs, tolerance=f"{LOSS_TOLERANCE:.0e}"),
        )


def _render_series(series: Series) -> None:
    """One metric card per rank count, the table, and why the efficiency is what it is."""
    rows = series.rows
    columns = st.columns(min(4, len(rows)))
    for index, row in enumerate(rows):
        with columns[index % len(columns)].container(border=True):
            st.markdown(t("ddp.card_title", ranks=row.ranks, backend=row.backend))
            left, right = st.columns(2)
            left.metric(t("ddp.median"), f"{number(row.median_ms, 2)} ms")
            value = "—" if row.efficiency is None else percent(row.efficiency)
            right.metric(t("ddp.efficiency"), value, help=t("ddp.efficiency_help"))
            st.caption(
                t(
                    "ddp.card_line",
                    images=number(row.samples_per_s),
                    comm=number(row.comm_ms, 2),
                    compute=number(row.compute_ms, 2),
                    threads=row.threads,
                    start=number(row.start_s, 1),
                )
            )
    st.dataframe(_frame(series), hide_index=True, key="ddp.table")
    config = series.config
    batch = t("ddp.full_batch") if config.batch_size is None else number(config.batch_size)
    st.caption(
        t(
            "ddp.table_note",
            images=number(config.images),
            batch=batch,
            width=config.width,
            repeats=config.repeats,
            warmup=config.warmup,
            loss=number(series.reference_loss, 6),
            tolerance=f"{LOSS_TOLERANCE:.0e}",
        )
    )
    scored = [row for row in rows if row.efficiency is not None and row.ranks > 1]
    if not any(row.ranks == 1 for row in rows):
        st.info(t("ddp.no_baseline"), icon=":material/info:")
    elif scored:
        worst = min(scored, key=lambda row: row.efficiency)
        key = "ddp.why_poor" if worst.efficiency < POOR else "ddp.why_good"
        if worst.efficiency > SUPERLINEAR:
            key = "ddp.why_superlinear"
        elif not compute_shrank(rows[0].compute_ms, worst):
            key = "ddp.why_cores"
        st.info(
            t(
                key,
                threads=rows[0].threads,
                base=number(rows[0].compute_ms, 2),
                ranks=worst.ranks,
                efficiency=percent(worst.efficiency),
                compute=number(worst.compute_ms, 2),
                comm=number(worst.comm_ms, 2),
            ),
            icon=":material/lightbulb:",
        )


def _frame(series: Series) -> pd.DataFrame:
    """The rows with translated column names and the language's number format."""
    return pd.DataFrame(
        {
            t("ddp.col_ranks"): [row.ranks for row in series.rows],
            t("ddp.col_backend"): [row.backend for row in series.rows],
            t("ddp.col_threads"): [row.threads for row in series.rows],
            t("ddp.col_ms"): [number(row.median_ms, 2) for row in series.rows],
            t("ddp.col_comm"): [number(row.comm_ms, 2) for row in series.rows],
            t("ddp.col_compute"): [number(row.compute_ms, 2) for row in series.rows],
            t("ddp.col_images"): [number(row.samples_per_s) for row in series.rows],
            t("ddp.col_speedup"): [
                "—" if row.speedup is None else number(row.speedup, 2) for row in series.rows
            ],
            t("ddp.col_efficiency"): [
                "—" if row.efficiency is None else percent(row.efficiency) for row in series.rows
            ],
            t("ddp.col_start"): [number(row.start_s, 1) for row in series.rows],
            t("ddp.col_loss"): [f"{row.loss_error:.1e}" for row in series.rows],
        }
    )
