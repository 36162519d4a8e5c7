"""The Benchmark page's Streamlit side: session keys, the queued run with progress and cancel, the views.

The timing itself is ``linecnn.sweep``; this module only drives it and draws what it returns.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
import uuid

import pandas as pd
import streamlit as st

from linecnn.bench import BENCH_LOCK, OK
from linecnn.device import cuda_unavailable_reason, list_devices
from linecnn.store import History, RunSummary
from linecnn.sweep import FACTOR_TITLES, MAX_IMAGES, Caps, SweepPlan, format_x, make_document, run_sweep
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
from linecnn.ui.format import format_bytes, format_seconds

_LOG = logging.getLogger(__name__)

SHOWN = "bench.shown"  # ids of the history runs on screen, newest first
RUNNING = "bench.running"  # {"plan", "results", "started"} while a benchmark is in flight in this session
MESSAGE = "bench.message"  # (kind, text) shown once after a run ends or is stopped
IMPORTED = "bench.imported"  # ids of uploaded files already imported, so a rerun does not import again
SESSION = "bench.session"  # a short name for this session in the queue
CANCEL = "bench.cancel"  # key of the Cancel button

MAX_SECONDS_ENV = "LINECNN_BENCH_MAX_SECONDS"  # server cap on one benchmark's wall time (default 300 s)
MAX_IMAGES_ENV = "LINECNN_BENCH_MAX_IMAGES"  # server cap on one cell's training images (default 1 M)
MAX_STEP_BYTES_ENV = "LINECNN_BENCH_MAX_STEP_BYTES"  # server cap on one step's activations (default 1 GiB)
MIN_CAP_IMAGES = 360  # a host's image cap below the seed's 3 x 120 images would leave nothing to time
MIN_CAP_STEP_BYTES = 1 << 20  # nor would a step cap below 1 MiB (the seed's full batch needs ~5 MiB)
MAX_STEP_BYTES = 1 << 30  # as the Train page: a CPU step far above this meets the OOM killer, server and all
WIDE_SPREAD = 1.5  # a cell whose p75 exceeds its p25 by more than this factor was disturbed while timed
SAME_SPEED = 0.05  # speed-ups within 5 % of 1x are shown as "about the same", not as a win or a loss
PROGRESS_SECONDS = 0.15  # progress bar update period; each update is also where a Cancel lands


def history() -> History:
    """The benchmark history (the SQLite file under the data directory)."""
    return History()


def server_caps() -> Caps:
    """This server's limits, from the environment where the host set them.

    A value that is not a number, or is below what the page needs, falls back to the default
    with a warning in the server's log; a time cap of "inf" or "none" means no time cap.
    """

    def number(name: str, default: float, minimum: float) -> float:
        raw = os.environ.get(name, "").strip()
        if not raw:
            return default
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= minimum):
            _LOG.warning(
                "Ignoring %s=%r: it must be a number of at least %g; using %g.", name, raw, minimum, default
            )
            return default
        return value

    no_time_cap = os.environ.get(MAX_SECONDS_ENV, "").strip().lower() in ("inf", "none")
    return Caps(
        max_images=int(number(MAX_IMAGES_ENV, MAX_IMAGES, minimum=MIN_CAP_IMAGES)),
        max_seconds=None if no_time_cap else number(MAX_SECONDS_ENV, 300.0, minimum=0),
        max_step_bytes=int(number(MAX_STEP_BYTES_ENV, MAX_STEP_BYTES, minimum=MIN_CAP_STEP_BYTES)),
    )


def shown_runs() -> list[ShownRun]:
    """The stored runs selected for display; missing ones are dropped, unreadable ones with a warning."""
    store, runs, ids = history(), [], st.session_state.get(SHOWN, [])
    if not ids:
        return []
    try:
        sources = {r.id: r.source for r in store.runs()}
    except ValueError:
        return []  # the history cannot be opened: render_history says why
    for run_id in ids:
        try:
            run = ShownRun(run_id, sources.get(run_id, "page"), store.load(run_id))
        except ValueError:
            continue
        problem = run_problem(run)
        if problem is None:
            runs.append(run)
        else:
            st.warning(f"Run #{run_id} is left out: {problem}", icon=":material/warning:")
    return runs


def show_run(run_id: int, keep_imported: bool = True) -> None:
    """Put a run on screen first; imported runs stay beside it, earlier local runs make room."""
    summaries = {r.id: r for r in history().runs()}
    kept = [
        i
        for i in st.session_state.get(SHOWN, [])
        if i != run_id and keep_imported and i in summaries and summaries[i].source == "import"
    ]
    st.session_state[SHOWN] = [run_id, *kept]


def _save(plan: SweepPlan, results: list[dict]) -> int | None:
    """Store a finished or stopped run and show it; None when nothing was measured or it cannot be saved."""
    if not results:
        return None
    try:
        run_id = history().save(make_document(results, plan), "page")
        show_run(run_id)
    except ValueError as error:
        st.session_state[MESSAGE] = ("warning", f"The benchmark ran but could not be saved: {error}")
        return None
    return run_id


def finish_interrupted() -> None:
    """Save what a run stopped by Cancel (or by leaving the page) had measured, and say so."""
    running = st.session_state.pop(RUNNING, None)
    if running is None:
        return
    results, cells = running["results"], len(running["plan"].cells())
    if not results:
        st.session_state[MESSAGE] = ("info", "Benchmark cancelled before its first cell finished.")
        return
    run_id = _save(running["plan"], results)
    if run_id is not None:  # else _save left its own message
        st.session_state[MESSAGE] = (
            "info",
            f"Benchmark cancelled after {len(results)} of {cells} cells; those are saved as run #{run_id}.",
        )


def show_message() -> None:
    """The one-off message left by the last run."""
    message = st.session_state.pop(MESSAGE, None)
    if message is not None:
        kind, text = message
        {"success": st.success, "warning": st.warning, "error": st.error}.get(kind, st.info)(text)


def run_benchmark(plan: SweepPlan, caps: Caps) -> None:
    """Run ``plan`` under the server-wide lock with a progress bar, a line per cell and a Cancel button.

    No chart is redrawn while cells are timed: drawing one keeps the browser busy for a while,
    and on a small machine it shares the cores being measured (a 10 ms cell read 340 ms).
    """
    who = st.session_state.setdefault(SESSION, uuid.uuid4().hex[:6])
    results: list[dict] = []
    st.session_state[RUNNING] = {"plan": plan, "results": results, "started": time.time()}
    st.button(
        "Cancel", key=CANCEL, icon=":material/stop_circle:", help="Stop after the current training step"
    )
    status = st.empty()
    bar = st.progress(0.0, text="Waiting for the benchmark lock…")
    live = st.empty()

    def queued(holder: str | None, waited: float) -> None:
        status.info(
            f"**Queued.** Another session is running a benchmark (waiting {waited:.0f} s). "
            "Yours starts as soon as it ends: one benchmark at a time keeps the timings honest.",
            icon=":material/hourglass_top:",
        )

    last = {"bar": 0.0}

    def progress(cell) -> None:  # noqa: ANN001 - a sweep.CellProgress
        now = time.monotonic()
        if now - last["bar"] >= PROGRESS_SECONDS or cell.phase == "setup":
            bar.progress(cell.fraction, text=cell.label)
            last["bar"] = now

    started = time.monotonic()
    with BENCH_LOCK.hold(who, on_wait=queued, poll=0.5):
        status.empty()
        for result in run_sweep(plan, caps=caps, progress=progress):
            results.append(result)
            live.caption(cell_line(result, len(results), len(plan.cells())))
    st.session_state.pop(RUNNING, None)
    bar.empty()
    live.empty()
    run_id = _save(plan, results)
    if run_id is None:
        return  # nothing to show; _save left its message
    skipped = sum(r["status"].startswith(("skipped", "stopped")) for r in results)
    oom = sum(r["status"] == "out of memory" for r in results)
    failed = [r["status"] for r in results if r["status"].startswith("failed")]
    took = format_seconds(time.monotonic() - started)
    text = f"Benchmark done in {took}: run #{run_id}, {len(results)} cells."
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
        text += f" {len(failed)} cells failed, the first with {first}."
    if plan.notes:
        kind = "warning"
        text += " " + " ".join(plan.notes)
    if not any(r["status"] == OK for r in results):
        kind = "error" if failed else "warning"
        text += " No cell was timed; the table below says why for each."
    st.session_state[MESSAGE] = (kind, text)


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
            f"**{series}** was timed with other settings than **{baseline_series(timed)}** ({how}), "
            "so no speed-up or crossover is computed between them. Compare runs of the same settings.",
            icon=":material/compare_arrows:",
        )
    x = _pick_x(timed, factor, key="bench.at." + "-".join(str(run.id) for run in runs))
    _device_columns(group, timed, x, factor)

    if len(timed["x"].unique()) > 1 or factor != "none":
        st.subheader(f"Time per epoch against {FACTOR_TITLES[factor].lower()}")
        for series, crossing in found.items():
            icon = ":material/rocket_launch:" if crossing.kind in ("crosses", "always") else ":material/info:"
            st.success(f"**{crossing.verdict}** ({series} against {baseline_series(group)})", icon=icon)
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
    st.markdown(f"**{name}**")
    rows = timed[(timed["series"] == name) & (timed["x"] == x)]
    if rows.empty:
        # Nothing timed here: say what happened to this series' cells at this size, or at all
        # when no cell of the shown runs was timed (then there is no size to pick).
        untimed = group[(group["series"] == name) & ((group["x"] == x) | (x is None))]
        statuses = list(dict.fromkeys(untimed["status"])) or ["not measured at this size"]
        st.warning(f"No timing: {'; '.join(statuses)}.", icon=":material/warning:")
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
        st.markdown(f"**{row['vs_eager']:.2g}×** the speed of plain eager on this device ({row['variant']})")
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
        st.caption(row["notes"])


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
    stem = f"linecnn-bench-{'-'.join(str(r.id) for r in runs)}"
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
            f"Download JSON of run #{run.id}",
            json.dumps(run.document, indent=1),
            file_name=f"linecnn-bench-{run.id}.json",
            mime="application/json",
            icon=":material/data_object:",
            on_click="ignore",
            help="The CLI's format: import it on another machine's Benchmark page.",
        )


def render_environment(runs: list[ShownRun]) -> None:
    """The machine and software behind each shown run."""
    with st.expander("Environment of each run"):
        for run in runs:
            env = run.document.get("env") or {}
            gpus = [
                f"{d.get('name') or '?'} ({format_bytes(d.get('memory_bytes'))})"
                for d in env.get("devices") or []
                if d.get("kind") != "cpu"
            ]
            st.markdown(
                f"**Run #{run.id}** ({run.source}) · {env.get('date', '?')}  \n"
                f"CPU {env.get('cpu_model', '?')}, {env.get('cpu_count', '?')} logical CPUs, "
                f"torch uses {env.get('torch_threads', '?')} threads · GPU {', '.join(gpus) or 'none'}  \n"
                f"PyTorch {env.get('torch_version', '?')} · CUDA {env.get('cuda_version') or 'none'} · "
                f"cuDNN {env.get('cudnn_version') or 'n/a'} · Python {env.get('python_version', '?')}"
            )


def render_history() -> None:
    """Pick stored runs to compare, and import a JSON made by the CLI on another machine."""
    st.subheader("History")
    store = history()
    try:
        summaries: dict[int, RunSummary] = {r.id: r for r in store.runs()}
    except ValueError as error:
        st.error(f"{error} Set LINECNN_DATA_DIR to a writable folder to keep runs.", icon=":material/error:")
        return
    upload = st.file_uploader(
        "Import a benchmark JSON (from `python -m linecnn bench --json --out FILE` on another machine)",
        type=["json"],
        key="bench.upload",
    )
    if upload is not None and upload.file_id not in st.session_state.setdefault(IMPORTED, []):
        st.session_state[IMPORTED].append(upload.file_id)
        try:
            run_id = store.import_json(upload.getvalue())
        except ValueError as error:
            st.error(str(error), icon=":material/error:")
        else:
            st.session_state[SHOWN] = [*st.session_state.get(SHOWN, []), run_id]
            st.session_state[SHOWN] = list(dict.fromkeys(st.session_state[SHOWN]))
            st.rerun()
    if not summaries:
        st.caption(f"No runs yet. They are kept in {store.path}.")
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
    st.caption(f"{count} in {store.path} (set LINECNN_DATA_DIR to keep them elsewhere).")
