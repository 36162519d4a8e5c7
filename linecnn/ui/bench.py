"""The Benchmark page's Streamlit side: session keys, the queued run with progress and cancel, the views.

The timing itself is ``linecnn.sweep``; this module only drives it and draws what it returns.
A benchmark runs in a background thread that never calls Streamlit, so touching a widget (which
reruns the page) or leaving the page does not stop it; a fragment polls it for the progress bar.
Every text taken from a stored or imported run goes through ``escape_markdown`` (Plotly labels
through ``bench_charts.plotly_text``): a file must not put links, images or HTML on anyone's screen.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from linecnn.bench import BENCH_LOCK, OK
from linecnn.device import cuda_unavailable_reason, list_devices
from linecnn.hostenv import env_number, env_uncapped
from linecnn.store import MAX_FILE_BYTES, History, RunSummary
from linecnn.sweep import (
    FACTOR_TITLES,
    MAX_IMAGES,
    MAX_STEP_BYTES,
    Caps,
    CellProgress,
    SweepPlan,
    format_x,
    make_document,
    run_sweep,
)
from linecnn.ui.bench_charts import sweep_figure
from linecnn.ui.bench_data import (
    ShownRun,
    baseline_series,
    crossings,
    format_ms,
    incomparable,
    results_frame,
    run_problem,
)
from linecnn.ui.format import escape_markdown, format_bytes, format_seconds

_LOG = logging.getLogger(__name__)

SHOWN = "bench.shown"  # ids of the history runs on screen, newest first
RUNNING = "bench.running"  # this session's Job, from Run benchmark until the page has shown its end
UNSAVED = "bench.unsaved"  # documents of runs the history could not store, newest first, shown from memory
MESSAGE = "bench.message"  # (kind, text) about the last run, shown until the next one starts
IMPORTED = "bench.imported"  # ids of uploaded files already imported, so a rerun does not import again
SESSION = "bench.session"  # a short name for this session in the queue
CANCEL = "bench.cancel"  # key of the Cancel button
DELETE = "bench.delete"  # keys of the delete control: the run picked, the confirmation, the button

MAX_SECONDS_ENV = "LINECNN_BENCH_MAX_SECONDS"  # server cap on one benchmark's wall time (default 300 s)
MAX_IMAGES_ENV = "LINECNN_BENCH_MAX_IMAGES"  # server cap on one cell's training images (default 1 M)
MAX_STEP_BYTES_ENV = "LINECNN_BENCH_MAX_STEP_BYTES"  # server cap on one step's activations (default 1 GiB)
MIN_CAP_IMAGES = 360  # a host's image cap below the seed's 3 x 120 images would leave nothing to time
MIN_CAP_STEP_BYTES = 1 << 20  # nor would a step cap below 1 MiB (the seed's full batch needs ~5 MiB)
WIDE_SPREAD = 1.5  # a cell whose p75 exceeds its p25 by more than this factor was disturbed while timed
SAME_SPEED = 0.05  # speed-ups within 5 % of 1x are shown as "about the same", not as a win or a loss
POLL_SECONDS = 0.5  # how often the page redraws a running benchmark's progress
MAX_UNSAVED = 3  # runs kept in memory per session while the history cannot save them


def history() -> History:
    """The benchmark history (the SQLite file under the data directory)."""
    return History()


def server_caps() -> Caps:
    """This server's limits, from the environment where the host set them.

    A value that is not a number, or is below what the page needs, falls back to the default
    with a warning in the server's log; a time cap of "inf" or "none" means no time cap.
    """

    return Caps(
        max_images=int(env_number(MAX_IMAGES_ENV, MAX_IMAGES, minimum=MIN_CAP_IMAGES)),
        max_seconds=None if env_uncapped(MAX_SECONDS_ENV) else env_number(MAX_SECONDS_ENV, 300.0, minimum=0),
        max_step_bytes=int(env_number(MAX_STEP_BYTES_ENV, MAX_STEP_BYTES, minimum=MIN_CAP_STEP_BYTES)),
    )


def shown_runs() -> list[ShownRun]:
    """Runs kept in memory, then the stored runs selected for display; unreadable ones with a warning."""
    unsaved = [ShownRun(-n, "page", document) for n, document in enumerate(st.session_state.get(UNSAVED, []))]
    store, runs, ids = history(), [], st.session_state.get(SHOWN, [])
    if not ids:
        return unsaved
    try:
        sources = {r.id: r.source for r in store.runs()}
    except ValueError:
        return unsaved  # the history cannot be opened: render_history says why
    for run_id in ids:
        try:
            run = ShownRun(run_id, sources.get(run_id, "page"), store.load(run_id))
        except ValueError:
            continue
        problem = run_problem(run)
        if problem is None:
            runs.append(run)
        else:
            st.warning(f"Run #{run_id} is left out: {escape_markdown(problem)}", icon=":material/warning:")
    return unsaved + runs


def show_run(run_id: int, keep_imported: bool = True) -> None:
    """Put a run on screen first; imported runs stay beside it, earlier local runs make room."""
    summaries = {r.id: r for r in history().runs()}
    kept = [
        i
        for i in st.session_state.get(SHOWN, [])
        if i != run_id and keep_imported and i in summaries and summaries[i].source == "import"
    ]
    st.session_state[SHOWN] = [run_id, *kept]


class _Cancel(BaseException):
    """Raised in the benchmark thread when the user cancels.

    A BaseException, because ``bench`` records any Exception as a failed cell and goes on to the
    next: a cancel must end the whole sweep.
    """


@dataclass
class Job:
    """A benchmark running in a background thread; the thread writes it, the page only reads it.

    The thread never calls Streamlit, so reruns and page switches cannot stop it; what it
    measured is saved by the thread itself, even if the session that started it is gone.
    """

    plan: SweepPlan  # the cells to time
    caps: Caps  # this server's limits
    who: str  # the session's short name, for the queue
    results: list[dict] = field(default_factory=list)  # one per finished cell, in order
    fraction: float = 0.0  # share of the sweep done, for the progress bar
    text: str = "Waiting for the benchmark lock…"  # the progress bar's label
    waited: float | None = None  # seconds queued behind another session's benchmark, while queued
    cancel: threading.Event = field(default_factory=threading.Event)  # set by the Cancel button
    done: threading.Event = field(default_factory=threading.Event)  # set when the thread has finished
    cancelled: bool = False  # the user cancelled it
    error: str | None = None  # what ended the sweep unexpectedly, if anything did
    run_id: int | None = None  # its id in the history once saved
    save_error: str | None = None  # why the history could not store it
    document: dict | None = None  # the JSON document of what was measured
    started: float = field(default_factory=time.monotonic)  # time.monotonic() at Run benchmark
    seconds: float = 0.0  # how long it ran, once done

    def queued(self, holder: str | None, waited: float) -> None:
        """BENCH_LOCK's wait callback: note the wait; a cancel lands here too."""
        self.waited = waited
        if self.cancel.is_set():
            raise _Cancel

    def progress(self, cell: CellProgress) -> None:
        """run_sweep's callback, after every step: note where it is; a cancel lands here."""
        self.fraction, self.text = cell.fraction, cell.label
        if self.cancel.is_set():
            raise _Cancel

    def run(self) -> None:
        """The thread's body: the sweep under the server-wide lock, then save what it measured."""
        try:
            with BENCH_LOCK.hold(self.who, on_wait=self.queued, poll=POLL_SECONDS):
                self.waited = None
                for result in run_sweep(self.plan, caps=self.caps, progress=self.progress):
                    self.results.append(result)
        except _Cancel:
            self.cancelled = True
        except Exception as error:  # noqa: BLE001 - whatever ended the sweep, what it measured is kept
            _LOG.exception("The benchmark thread ended with an error")
            self.error = f"{type(error).__name__}: {error}"
        finally:
            self.seconds = time.monotonic() - self.started
            self._save()
            self.done.set()

    def _save(self) -> None:
        """Store the cells measured; if the history cannot, keep the document for the page to show."""
        if not self.results:
            return
        self.document = make_document(self.results, self.plan)
        try:
            self.run_id = history().save(self.document, "page")
        except ValueError as error:
            self.save_error = str(error)


def start_benchmark(plan: SweepPlan, caps: Caps) -> None:
    """Start ``plan`` in a background thread (it queues for the server-wide lock); the page polls it."""
    if running():
        raise ValueError("Your benchmark is still running: wait for it to end, or cancel it first.")
    who = st.session_state.setdefault(SESSION, uuid.uuid4().hex[:6])
    st.session_state.pop(MESSAGE, None)
    job = Job(plan, caps, who)
    st.session_state[RUNNING] = job
    threading.Thread(target=job.run, name=f"linecnn-bench-{who}", daemon=True).start()


def running() -> bool:
    """True while this session's benchmark is in flight."""
    job = st.session_state.get(RUNNING)
    return job is not None and not job.done.is_set()


def render_job() -> None:
    """This session's running benchmark: progress, queue and Cancel (polled until it ends)."""
    if st.session_state.get(RUNNING) is not None:
        _job_fragment()


@st.fragment(run_every=POLL_SECONDS)
def _job_fragment() -> None:
    """Redrawn every POLL_SECONDS on its own (the rest of the page does not rerun) until the job ends."""
    job: Job | None = st.session_state.get(RUNNING)
    if job is None:
        return
    if job.done.is_set():
        # The whole page, where finish_job shows the run: the history's multiselect takes its new
        # value only in a run that sets it before drawing it, which a fragment run cannot.
        st.rerun()
    if job.waited is not None:
        st.info(
            f"**Queued.** Another session is running a benchmark (waiting {job.waited:.0f} s). "
            "Yours starts as soon as it ends: one benchmark at a time keeps the timings honest.",
            icon=":material/hourglass_top:",
        )
    if job.cancel.is_set():
        st.caption("Cancelling after the current training step…")
    else:
        st.button(
            "Cancel",
            key=CANCEL,
            icon=":material/stop_circle:",
            help="Stop after the current training step; the cells finished are kept",
            on_click=job.cancel.set,
        )
    st.progress(job.fraction, text=job.text)
    if job.results:
        st.caption(cell_line(job.results[-1], len(job.results), len(job.plan.cells())))
    st.caption(
        "The benchmark runs on the server: you can change settings or switch pages meanwhile. "
        "Charts are not redrawn while cells are timed, so the browser leaves the cores to the timing."
    )


def finish_job() -> None:
    """At the top of the page: once this session's benchmark has ended, show its run and its message."""
    job: Job | None = st.session_state.get(RUNNING)
    if job is not None and job.done.is_set():
        st.session_state.pop(RUNNING)
        _finish(job)


def _finish(job: Job) -> None:
    """Show the ended job's run (from memory if the history could not store it) and leave its message."""
    if job.run_id is not None:
        # Saved, but the history may not list now (locked, corrupt): render_history says why.
        with contextlib.suppress(ValueError):
            show_run(job.run_id)
    elif job.document is not None:
        st.session_state[UNSAVED] = [job.document, *st.session_state.get(UNSAVED, [])][:MAX_UNSAVED]
    st.session_state[MESSAGE] = outcome(job)


def outcome(job: Job) -> tuple[str, str]:
    """(kind, markdown) saying how a finished benchmark ended: done, cancelled, capped, failed, not saved."""
    results, cells = job.results, len(job.plan.cells())
    where = f"run #{job.run_id}" if job.run_id is not None else "shown below from memory"
    if job.cancelled:
        if not results:
            return "info", "Benchmark cancelled before its first cell finished."
        kind, text = "info", f"Benchmark cancelled after {len(results)} of {cells} cells; those are {where}."
    elif job.error is not None:
        kind = "error"
        text = f"The benchmark ended with an error after {len(results)} of {cells} cells: "
        text += escape_markdown(job.error) + "."
        if results:
            text += f" The cells finished are {where}."
    else:
        kind, text = _summary(job)
    if job.save_error is not None:
        kind = "error" if kind == "error" else "warning"
        text += (
            f" **The benchmark ran but could not be saved:** {escape_markdown(job.save_error)} "
            "Its results are shown below from memory until this session ends: download its JSON to keep them."
        )
    return kind, text


def _summary(job: Job) -> tuple[str, str]:
    """(kind, text) for a benchmark that ran to its end (or to the server's time cap)."""
    results, plan, caps = job.results, job.plan, job.caps
    skipped = sum(r["status"].startswith(("skipped", "stopped")) for r in results)
    oom = sum(r["status"] == "out of memory" for r in results)
    failed = [r["status"] for r in results if r["status"].startswith("failed")]
    name = f"run #{job.run_id}" if job.run_id is not None else "not saved"
    text = f"Benchmark done in {format_seconds(job.seconds)}: {name}, {len(results)} cells."
    kind = "success"
    if skipped:
        kind = "warning"
        text += (
            f" The server's time cap of {format_seconds(caps.max_seconds or 0)} was hit: "
            f"{skipped} cells were stopped or skipped. Sweep a smaller range or fewer repeats."
        )
    if oom:
        kind = "warning"
        text += f" {oom} cells ran out of memory; they are marked so and the sweep went on."
    noisy = sum(r["status"] == OK and r["p75_ms"] > WIDE_SPREAD * r["p25_ms"] for r in results)
    if noisy:
        kind = "warning"
        text += (
            f" {noisy} cells had a wide spread (p75 over {WIDE_SPREAD:g}× p25): the machine was busy, "
            "so take their medians with care or rerun them."
        )
    if failed:
        kind = "warning"
        first = failed[0].removeprefix("failed: ").rstrip(".")
        text += f" {len(failed)} cells failed, the first with {escape_markdown(first)}."
    if plan.notes:
        kind = "warning"
        text += " " + " ".join(plan.notes)
    if not any(r["status"] == OK for r in results):
        kind = "error" if failed else "warning"
        text += " No cell was timed; the table below says why for each."
    return kind, text


def show_message() -> None:
    """The message about the last run; kept until the next run starts, so a rerun cannot lose it."""
    message = st.session_state.get(MESSAGE)
    if message is not None:
        kind, text = message
        {"success": st.success, "warning": st.warning, "error": st.error}.get(kind, st.info)(text)


def cell_line(result: dict, done: int, total: int) -> str:
    """'Cell 3 of 14 · cpu · 1,200 images: 7.7 ms/epoch' (or the cell's status)."""
    what = f"{result['device']} · {format_x(result['factor'], result['x'], exact=True)}"
    outcome = f"{result['median_ms']:.3g} ms/epoch" if result["status"] == OK else result["status"]
    return f"Cell {done} of {total} · {what}: {outcome}"


def render_results(runs: list[ShownRun]) -> None:
    """Device columns, the sweep chart with its crossover, the table and its downloads."""
    frame = results_frame(runs)
    factor = frame["factor"].iat[0] if len(frame) else "none"
    group = frame[frame["factor"] == factor]
    timed = group[group["status"] == OK]
    found = crossings(frame, factor)

    st.subheader("Side by side")
    st.caption(
        "ms/epoch here is a training epoch only: no validation pass and no per-epoch metrics, so it is "
        "lower than the Train page's ms/epoch for the same settings."
    )
    for series, how in incomparable(frame, factor).items():
        st.warning(
            f"**{escape_markdown(series)}** was timed with other settings than "
            f"**{escape_markdown(baseline_series(timed))}** ({escape_markdown(how)}), "
            "so no speed-up or crossover is computed between them. Compare runs of the same settings.",
            icon=":material/compare_arrows:",
        )
    x = _pick_x(timed, factor, key="bench.at." + "-".join(str(run.id) for run in runs))
    _device_columns(group, timed, x, factor)

    if len(timed["x"].unique()) > 1 or factor != "none":
        st.subheader(f"Time per epoch against {FACTOR_TITLES[factor].lower()}")
        for series, crossing in found.items():
            icon = ":material/rocket_launch:" if crossing.kind in ("crosses", "always") else ":material/info:"
            st.success(
                f"**{escape_markdown(crossing.verdict)}** ({escape_markdown(series)} against "
                f"{escape_markdown(baseline_series(group))})",
                icon=icon,
            )
        if not found and not (timed["kind"] != "cpu").any():
            st.caption(
                "Only CPU lines here, so no crossover to mark: import the JSON of a GPU machine below "
                "to see where its line crosses under this CPU's."
            )
        st.plotly_chart(sweep_figure(timed, factor, found), config={"displayModeBar": False})
        st.caption(
            "Log-log axes. Dots are medians of the timed epochs; bars span p25 to p75. "
            "Where lines are flat, fixed per-step costs (kernel launches, Python) dominate; "
            "where they rise with slope 1, time grows in proportion to the work."
        )
    if len(frame["factor"].unique()) > 1:
        st.caption("The runs shown sweep different factors; the chart shows the first one's.")
    _table(frame, runs)


def _pick_x(timed: pd.DataFrame, factor: str, key: str) -> float | None:
    """The cell the device columns compare: by default the largest the CPU baseline measured."""
    values = sorted(timed["x"].unique())
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    base = timed[timed["series"] == baseline_series(timed)]["x"]
    return st.select_slider(
        "Compare the devices at",
        options=values,
        value=base.max() if len(base) else values[-1],
        format_func=lambda v: format_x(factor, v, exact=True),
        key=key,  # one per set of runs shown: a new set starts at its own default
    )


def cuda_absent_text() -> str | None:
    """What the CUDA column says when this machine has no CUDA, or None when it has."""
    reason = cuda_unavailable_reason()
    if reason is None:
        return None
    return (
        f"Not available here: {reason} Run `python -m linecnn bench --json --out gpu.json` "
        "on a GPU machine and import the file below to compare it with this CPU."
    )


def render_absent_cuda() -> None:
    """Say plainly, before any run, that there is no CUDA column to fill on this machine."""
    text = cuda_absent_text()
    if text is not None:
        with st.container(border=True):
            st.markdown("**CUDA**")
            st.info(text, icon=":material/block:")


def _device_columns(group: pd.DataFrame, timed: pd.DataFrame, x: float | None, factor: str) -> None:
    """One column per series at the chosen cell; a CUDA column that says plainly when CUDA is absent."""
    series = list(dict.fromkeys(group["series"]))
    has_gpu = (group["kind"] == "cuda").any()
    absent = cuda_absent_text()
    extra = [] if has_gpu or absent is None else ["cuda-absent"]
    if not series:
        series = [info.label for info in list_devices()]
    columns = st.columns(max(1, min(3, len(series) + len(extra))))  # 4 across cut the numbers short
    for index, name in enumerate(series + extra):
        with columns[index % len(columns)].container(border=True):
            if name == "cuda-absent":
                st.markdown("**CUDA**")
                st.info(absent, icon=":material/block:")
                continue
            _device_card(name, group, timed, x)


def _device_card(name: str, group: pd.DataFrame, timed: pd.DataFrame, x: float | None) -> None:
    """Median ms/epoch with its spread, images/s, the speed-up headline and the one-time costs."""
    st.markdown(f"**{escape_markdown(name)}**")
    rows = timed[(timed["series"] == name) & (timed["x"] == x)]
    if rows.empty:
        # Nothing timed here: say what happened to this series' cells at this size, or at all
        # when no cell of the shown runs was timed (then there is no size to pick).
        untimed = group[(group["series"] == name) & ((group["x"] == x) | (x is None))]
        statuses = list(dict.fromkeys(untimed["status"])) or ["not measured at this size"]
        st.warning(f"No timing: {escape_markdown('; '.join(statuses))}.", icon=":material/warning:")
        return
    row = rows.iloc[0]
    left, right = st.columns(2)
    left.metric("median per epoch", format_ms(row["median_ms"]))
    speedup = row["speedup"]
    if pd.isna(speedup):
        right.metric("speed-up vs CPU", "n/a")
    elif row["series"] == baseline_series(group):
        right.metric("speed-up vs CPU", "1.0×", help="This is the CPU line the others are compared with.")
    elif abs(speedup - 1) < SAME_SPEED:
        right.metric(
            "speed-up vs CPU", f"{speedup:.2g}×", delta="about the same", delta_color="off", delta_arrow="off"
        )
    else:
        right.metric(
            "speed-up vs CPU",
            f"{speedup:.2g}×",
            delta="faster" if speedup >= 1 else f"CPU {1 / speedup:.2g}× faster",
            delta_color="normal" if speedup >= 1 else "inverse",
            delta_arrow="up" if speedup >= 1 else "down",
        )
    if not pd.isna(row["vs_eager"]):
        st.markdown(
            f"**{row['vs_eager']:.2g}×** the speed of plain eager on this device "
            f"({escape_markdown(row['variant'])})"
        )
    if row["p75_ms"] > WIDE_SPREAD * row["p25_ms"]:
        st.warning(
            "Wide spread: the slow and fast epochs differ by more than half, so something else was using "
            "the machine. Rerun it with more timed epochs when the machine is quiet.",
            icon=":material/ssid_chart:",
        )
    st.markdown(
        f"spread p25–p75: **{format_ms(row['p25_ms'])} – {format_ms(row['p75_ms'])}** "
        f"({row['repeats']} epochs)  \n**{row['samples_per_s']:,.0f}** images/s · "
        f"{row['images']:,} images, batch {row['batch']:,}, width {row['width']}, {row['conv_layers']} convs"
    )
    costs = [
        ("CUDA context", group.loc[group["series"] == name, "context_ms"].dropna()),
        ("first epoch", pd.Series([row["first_epoch_ms"]]).dropna()),
        (
            "cuDNN autotune + first steps" if row["kind"] == "cuda" else "first steps",
            pd.Series([row["autotune_ms"]]).dropna(),
        ),
        ("compile", pd.Series([row["compile_ms"]]).dropna()),
    ]
    parts = [f"{label} {format_ms(values.iat[0])}" for label, values in costs if len(values)]
    st.caption("One-time, not in the median: " + " · ".join(parts))
    if row["notes"]:
        st.caption(escape_markdown(row["notes"]))


def _table(frame: pd.DataFrame, runs: list[ShownRun]) -> None:
    """The results as a pandas table, with CSV and JSON downloads."""
    st.subheader("Results")
    visible = frame.drop(columns=["kind"])
    st.dataframe(
        visible,
        hide_index=True,
        column_config={
            "x": None,
            "median_ms": st.column_config.NumberColumn("median ms", format="%.3f"),
            "p25_ms": st.column_config.NumberColumn("p25 ms", format="%.3f"),
            "p75_ms": st.column_config.NumberColumn("p75 ms", format="%.3f"),
            "samples_per_s": st.column_config.NumberColumn("images/s", format="%.0f"),
            "speedup": st.column_config.NumberColumn("× vs CPU", format="%.2f"),
            "vs_eager": st.column_config.NumberColumn("× vs eager", format="%.2f"),
            "peak_memory_mb": st.column_config.NumberColumn(
                "peak MiB (GPU)", format="%.0f", help="This cell's peak tensor memory on the accelerator."
            ),
            "process_rss_mb": st.column_config.NumberColumn(
                "process peak RSS MiB (CPU)",
                format="%.0f",
                help="CPU cells: the whole process's peak resident memory so far (the server and every "
                "session included). It never goes down, so it is not this cell's own use.",
            ),
        },
        key="bench.table",
    )
    stem = "linecnn-bench-" + "-".join(_file_name(run) for run in runs)
    buttons = st.container(horizontal=True)
    buttons.download_button(
        "Download CSV",
        visible.to_csv(index=False),
        file_name=f"{stem}.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",
    )
    for run in runs:  # one file per run: each is the CLI's format, and imports on another machine
        buttons.download_button(
            f"Download JSON of run {run.name}",
            json.dumps(run.document, indent=1),
            file_name=f"linecnn-bench-{_file_name(run)}.json",
            mime="application/json",
            icon=":material/data_object:",
            on_click="ignore",
            help="The CLI's format: import it on another machine's Benchmark page.",
        )


def _file_name(run: ShownRun) -> str:
    """A run's name for a file name: '7', or 'unsaved-1' for a run held in memory."""
    return run.name.removeprefix("#").replace(" ", "-")


def render_environment(runs: list[ShownRun]) -> None:
    """The machine and software behind each shown run (every value escaped: it may come from a file)."""
    with st.expander("Environment of each run"):
        for run in runs:
            env = run.document.get("env") or {}

            def value(key: str, missing: str = "?", env: dict = env) -> str:
                return escape_markdown(env.get(key) or missing)

            gpus = [
                f"{escape_markdown(d.get('name') or '?')} ({format_bytes(d.get('memory_bytes'))})"
                for d in env.get("devices") or []
                if d.get("kind") != "cpu"
            ]
            st.markdown(
                f"**Run {escape_markdown(run.name)}** ({run.source}) · {value('date')}  \n"
                f"CPU {value('cpu_model')}, {value('cpu_count')} logical CPUs, "
                f"torch uses {value('torch_threads')} threads · GPU {', '.join(gpus) or 'none'}  \n"
                f"PyTorch {value('torch_version')} · CUDA {value('cuda_version', 'none')} · "
                f"cuDNN {value('cudnn_version', 'n/a')} · Python {value('python_version')}"
            )


def render_history() -> None:
    """Pick stored runs to compare, import a JSON made by the CLI on another machine, delete a run."""
    st.subheader("History")
    store = history()
    try:
        summaries: dict[int, RunSummary] = {r.id: r for r in store.runs()}
    except ValueError as error:
        st.error(
            f"{escape_markdown(error)} Set LINECNN_DATA_DIR to a writable folder to keep runs; "
            "benchmarks still run and show their results from memory.",
            icon=":material/error:",
        )
        return
    _import(store)
    if not summaries:
        st.caption(f"No runs yet. They are kept in {escape_markdown(store.path)}.")
        return
    st.session_state[SHOWN] = [i for i in st.session_state.get(SHOWN, []) if i in summaries]
    st.multiselect(
        "Runs shown above (pick several to compare machines or days)",
        options=list(summaries),
        format_func=lambda i: f"{summaries[i].label} · {summaries[i].machine}",
        key=SHOWN,
        persist_state="session",
    )
    count = f"{len(summaries)} run" + ("s" if len(summaries) > 1 else "")
    st.caption(f"{count} in {escape_markdown(store.path)} (set LINECNN_DATA_DIR to keep them elsewhere).")
    _delete_control(store, summaries)


def _import(store: History) -> None:
    """The upload of a CLI JSON: stored and shown, or refused with the reason."""
    upload = st.file_uploader(
        "Import a benchmark JSON (from `python -m linecnn bench --json --out FILE` on another machine)",
        type=["json"],
        key="bench.upload",
        max_upload_size=MAX_FILE_BYTES // 2**20,
    )
    if upload is None or upload.file_id in st.session_state.setdefault(IMPORTED, []):
        return
    st.session_state[IMPORTED].append(upload.file_id)
    try:
        if upload.size > MAX_FILE_BYTES:  # the browser enforces the limit too; a script client may not
            raise ValueError(
                f"This file is {upload.size / 2**20:.1f} MB, larger than the "
                f"{MAX_FILE_BYTES / 2**20:g} MB a benchmark JSON may be."
            )
        run_id = store.import_json(upload.getvalue())
    except ValueError as error:
        st.error(escape_markdown(error), icon=":material/error:")
    else:
        st.session_state[SHOWN] = list(dict.fromkeys([*st.session_state.get(SHOWN, []), run_id]))
        st.rerun()


def _delete_control(store: History, summaries: dict[int, RunSummary]) -> None:
    """Delete one run from the history, for every viewer of this server, after a confirmation."""
    with st.expander("Delete a run", icon=":material/delete:"):
        doomed = st.selectbox(
            "Run to delete",
            options=list(summaries),
            index=None,
            format_func=lambda i: f"{summaries[i].label} · {summaries[i].machine}",
            key=DELETE + ".run",
        )
        sure = st.checkbox(
            "Yes, delete it from this server's history, for every viewer", key=DELETE + ".sure"
        )
        st.button(
            "Delete run",
            icon=":material/delete:",
            disabled=doomed is None or not sure,
            key=DELETE,
            on_click=_delete,
            args=(store, doomed),
        )


def _delete(store: History, run_id: int) -> None:
    """The Delete button's callback: forget the run, take it off screen, reset the control."""
    try:
        store.delete(run_id)
    except ValueError as error:
        st.session_state[MESSAGE] = ("error", escape_markdown(error))
    else:
        st.session_state[MESSAGE] = ("info", f"Run #{run_id} was deleted from the history.")
    st.session_state[SHOWN] = [i for i in st.session_state.get(SHOWN, []) if i != run_id]
    st.session_state[DELETE + ".run"] = None
    st.session_state[DELETE + ".sure"] = False
