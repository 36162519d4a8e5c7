"""Widgets and renderers of the Train page; the page itself only wires them together."""

from __future__ import annotations

import time
from collections.abc import Sequence

import streamlit as st
import torch

from linecnn.bench import is_out_of_memory
from linecnn.config import RunConfig, TrainLimits
from linecnn.data import CLASS_NAMES
from linecnn.device import describe
from linecnn.sharing import gpu_shared
from linecnn.train import EpochRecord, Trainer, check_limits, diagnose, weights_fingerprint
from linecnn.ui import charts, sharing, state
from linecnn.ui.format import format_bytes, format_seconds

# Widget keys; values persist for the whole session so settings survive page switches.
EPOCHS, LR, PER_CLASS, BATCH, WIDTH, SEED, MODE = (
    f"train.{name}" for name in ("epochs", "lr", "per_class", "batch", "width", "seed", "mode")
)
FLASH = "train.flash"  # a message from a button callback, shown once
METRIC, X_AXIS = "train.overlay_metric", "train.overlay_x"

# Caps for the page; the core allows more, but a class shares one server.
MAX_EPOCHS_UI = 5_000
MAX_PER_CLASS_UI = 20_000
BATCH_CHOICES = ("full", 8, 16, 32, 64, 128, 256, 512, 1024)
WIDTH_CHOICES = (1, 2, 4, 8, 16)
MODE_LABELS = {"lesson": "Lesson's lines", "varied": "Hand-drawn-like"}
VAL_PER_CLASS = 60  # the seed's validation size


def config_controls(locked: bool) -> None:
    """The run settings, with the seed's defaults; locked while a run is in progress."""
    with st.container(border=True):
        top = st.columns(4)
        whole_number_input(top[0], "Epochs", MAX_EPOCHS_UI, 120, key=EPOCHS, disabled=locked)
        top[1].number_input(
            "Learning rate (Adam)",
            0.0001,
            1.0,
            0.01,
            step=0.001,
            format="%.4f",
            key=LR,
            persist_state="session",
            disabled=locked,
        )
        whole_number_input(
            top[2],
            "Images per class",
            MAX_PER_CLASS_UI,
            120,
            key=PER_CLASS,
            disabled=locked,
            help=f"Training images of each class; validation uses {VAL_PER_CLASS} per class.",
        )
        top[3].selectbox(
            "Batch size",
            BATCH_CHOICES,
            key=BATCH,
            persist_state="session",
            disabled=locked,
            help="'full' trains on the whole set at once, as the lesson does.",
        )
        bottom = st.columns([1, 1, 2])
        bottom[0].select_slider(
            "Model width",
            WIDTH_CHOICES,
            value=1,
            key=WIDTH,
            persist_state="session",
            disabled=locked,
            help="Channel multiplier: 1 is the lesson's 8 and 16 filters.",
        )
        bottom[1].number_input("Seed", 0, 2**31 - 1, 24, key=SEED, persist_state="session", disabled=locked)
        bottom[2].segmented_control(
            "Data",
            list(MODE_LABELS),
            default="lesson",
            required=True,
            format_func=MODE_LABELS.get,
            key=MODE,
            persist_state="session",
            disabled=locked,
            help="The lesson's exact lines, or strokes like a hand drawing (any position, tilt, thickness).",
        )
        if locked:
            st.caption("Settings are locked while a run is in progress. Stop it to change them.")


def whole_number_input(column, label: str, high: int, default: int, key: str, **kwargs) -> None:
    """A number input for a count from 1 to ``high``.

    It holds a float: the browser reads an int input with parseInt, so "1e9" would silently
    become 1. As a float, "1e9" is refused by the input's own range check, "2e3" means 2,000,
    and a fraction is rounded to a whole number when it arrives.
    """
    column.number_input(
        label,
        1.0,
        float(high),
        float(default),
        step=10.0,
        format="%.0f",
        key=key,
        persist_state="session",
        on_change=_round_to_whole,
        args=(key,),
        **kwargs,
    )


def _round_to_whole(key: str) -> None:
    """Callback: a count typed with a fraction becomes the nearest whole number (halves up)."""
    value = st.session_state.get(key)
    if value is not None and value != int(value):
        st.session_state[key] = float(int(value + 0.5))


def limits_caption(limits: TrainLimits) -> None:
    """Say what a run may use on this server, and how a host changes it."""
    seconds = (
        "no time cap" if limits.max_seconds is None else f"{format_seconds(limits.max_seconds)} of training"
    )
    st.caption(
        f"Limits per run on this server: {seconds}, {limits.max_image_epochs:,} image-epochs "
        f"(epochs × training images) and {format_bytes(limits.max_bytes)} of memory (images, model and "
        f"one training step). A run over a limit is refused before it starts; one that reaches the "
        f"time cap stops and keeps its epochs. Hosts set them with `{state.MAX_SECONDS_ENV}`, "
        f"`{state.MAX_IMAGE_EPOCHS_ENV}` and `{state.MAX_BYTES_ENV}`."
    )


def planned_epochs() -> int:
    """Epochs currently set in the controls."""
    return round(st.session_state.get(EPOCHS, 120))


def config_from_widgets() -> RunConfig:
    """Build the RunConfig the controls describe (raises ValueError on bad values)."""
    get = st.session_state.get
    batch = get(BATCH, "full")
    return RunConfig.from_flat(
        epochs=round(get(EPOCHS, 120)),
        lr=float(get(LR, 0.01)),
        per_class=round(get(PER_CLASS, 120)),
        val_per_class=VAL_PER_CLASS,
        batch_size=None if batch == "full" else int(batch),
        width=int(get(WIDTH, 1)),
        seed=int(get(SEED, 24)),
        data_mode=get(MODE) or "lesson",
    )


def _flash(kind: str, message: str) -> None:
    """Leave a message for the next render (callbacks cannot place elements themselves)."""
    st.session_state[FLASH] = (kind, message)


def show_flash() -> None:
    """Show, once, the message a button callback left."""
    kind, message = st.session_state.pop(FLASH, (None, None))
    if kind == "error":
        st.error(message, icon=":material/error:")
    elif kind == "info":
        st.info(message, icon=":material/info:")


def _start(device: str, paused: bool = False) -> Trainer | None:
    """Callback: build the run from the controls, on ``device``, unless it is over this server's limits."""
    limits = state.server_limits()
    try:
        config = config_from_widgets()
        check_limits(config, limits, [size for size in BATCH_CHOICES if size != "full"])
        return state.start_run(config, device, limits, paused=paused)
    except ValueError as error:
        _flash("error", str(error))
    except RuntimeError as error:  # e.g. the GPU ran out of memory while placing the data
        _flash("error", f"Could not start training on {device}: {error}")
    return None


def _step(device: str) -> None:
    """Callback: run exactly one epoch (starting a paused run if none is live)."""
    trainer = state.live_trainer() or _start(device, paused=True)
    if trainer is None:
        return
    try:
        with sharing.training_turn(trainer), gpu_shared(trainer.device):
            trainer.step()
    except RuntimeError as error:
        stop_on_error(trainer, error)
        return
    if trainer.ended:
        file_ended_run(trainer)


def file_ended_run(trainer: Trainer) -> state.RunRecord | None:
    """File a run that trained its last epoch or reached the time cap; say so for the time cap."""
    record = state.finish_run(trainer)
    if record is not None and record.out_of_time:
        _flash("info", time_cap_message(record))
    return record


def time_cap_message(record: state.RunRecord) -> str:
    """The sentence shown when the server's time cap ended a run."""
    cap = state.server_limits().max_seconds
    limit = f"{format_seconds(cap)} of training per run" if cap is not None else "its time cap"
    return (
        f"This server allows {limit}, so the run stopped after {len(record.history):,} of "
        f"{record.config.train.epochs:,} epochs; they are kept in the history. For a longer run, "
        "use fewer images, a smaller width or the command line."
    )


def stop_on_error(trainer: Trainer, error: RuntimeError) -> None:
    """End a run the device could not hold any more, keeping its finished epochs, and say so.

    Only out-of-memory is expected mid-run (a GPU shared by a class fills up); anything else
    is a bug and is raised again.
    """
    if not is_out_of_memory(error):
        raise error
    state.finish_run(trainer)
    _flash(
        "error",
        f"{describe(trainer.device)} ran out of memory in epoch {trainer.epoch + 1}, so the run was "
        f"stopped; its {trainer.epoch} finished epochs are kept in the history. Try a smaller batch "
        "size or width, or the CPU.",
    )


def _stop() -> None:
    """Callback: end the live run (or take it out of the training queue), keeping its last whole epoch."""
    live = state.live_trainer()
    if live is not None:
        sharing.leave_queue(live)
    record = state.finish_run()
    if record is None:
        _flash("info", "Stopped before the first epoch finished; there is nothing to keep.")


def run_buttons(device: torch.device) -> None:
    """Start, Pause/Resume, Step and Stop, enabled according to the live run."""
    live, paused = state.live_trainer(), state.is_paused()
    columns = st.columns([1, 1, 1, 1, 3])
    columns[0].button(
        "Start",
        type="primary",
        icon=":material/play_arrow:",
        on_click=_start,
        args=(str(device),),
        disabled=live is not None,
        width="stretch",
    )
    if live is not None and paused:
        columns[1].button(
            "Resume", icon=":material/resume:", on_click=state.set_paused, args=(False,), width="stretch"
        )
    else:
        columns[1].button(
            "Pause",
            icon=":material/pause:",
            on_click=state.set_paused,
            args=(True,),
            disabled=live is None,
            width="stretch",
        )
    columns[2].button(
        "Step",
        icon=":material/skip_next:",
        on_click=_step,
        args=(str(device),),
        disabled=live is not None and not paused,
        width="stretch",
        help="Run one epoch, then wait. Starts a paused run if none is in progress.",
    )
    columns[3].button(
        "Stop",
        icon=":material/stop:",
        on_click=_stop,
        disabled=live is None,
        width="stretch",
        help="End the run now; its curves and the weights of its last whole epoch are kept.",
    )
    if live is not None:
        where = describe(live.device)
        columns[4].caption(f"{'Paused' if paused else 'Training'} on **{where}**.")


class LiveCharts:
    """Progress bar plus loss and accuracy charts, redrawn in place while a run streams.

    Each chart redraw remounts it in the browser, which then competes with training for
    the CPU; so the cheap progress bar updates every PROGRESS_SECONDS and the charts only
    every CHART_SECONDS (DESIGN §4 says at most every ~0.25 s). Nothing is redrawn in the
    last PROGRESS_SECONDS of a run: the final draw follows at once, and a browser still busy
    with a redraw would only show the final metrics later.
    """

    PROGRESS_SECONDS = 0.25
    CHART_SECONDS = 0.5
    # Live redraws plot at most this many epochs per line: building a Plotly figure costs time in
    # proportion to its points (~120 ms for 5,000 epochs, every redraw, on the training thread).
    # The final draw plots every epoch.
    LIVE_POINTS = 500

    def __init__(self, progress, loss_slot, accuracy_slot) -> None:
        self.progress, self.loss_slot, self.accuracy_slot = progress, loss_slot, accuracy_slot
        self.draws = 0  # each redraw needs a fresh key, or Streamlit sees a duplicate element
        self.progress_at = self.charts_at = time.monotonic()

    def show(self, history: Sequence[EpochRecord], epochs: int, live: Trainer | None) -> None:
        """Draw everything now: a live run (with ETA), the last finished run, or nothing yet."""
        self._progress(history, epochs, live)
        self._charts(history, epochs)

    def update(self, history: Sequence[EpochRecord], epochs: int, live: Trainer) -> None:
        """Redraw what is due during a run; call it after every epoch."""
        if seconds_left(history, epochs) < self.PROGRESS_SECONDS:
            return
        now = time.monotonic()
        if now - self.charts_at >= self.CHART_SECONDS:
            self._charts(thinned(history, self.LIVE_POINTS), epochs)
        if now - self.progress_at >= self.PROGRESS_SECONDS:
            self._progress(history, epochs, live)

    def _progress(self, history: Sequence[EpochRecord], epochs: int, live: Trainer | None) -> None:
        self.progress_at = time.monotonic()
        fraction = min(len(history) / max(epochs, 1), 1.0)
        self.progress.progress(fraction, text=progress_text(history, epochs, live))

    def _charts(self, history: Sequence[EpochRecord], epochs: int) -> None:
        self.charts_at = time.monotonic()
        self.draws += 1
        self.loss_slot.plotly_chart(charts.loss_figure(history, epochs), key=f"train.loss.{self.draws}")
        self.accuracy_slot.plotly_chart(
            charts.accuracy_figure(history, epochs), key=f"train.acc.{self.draws}"
        )


def thinned(history: Sequence[EpochRecord], points: int) -> Sequence[EpochRecord]:
    """Every k-th record, the last one always kept, so that at most about ``points`` remain."""
    step = -(-len(history) // points)  # ceiling division
    if step <= 1:
        return history
    kept = list(history[::step])
    return kept if kept[-1] is history[-1] else [*kept, history[-1]]


def progress_text(history: Sequence[EpochRecord], epochs: int, live: Trainer | None) -> str:
    """'Epoch 40 / 120 · 0.2 s elapsed · ETA 0.4 s' for a live run; a short status otherwise."""
    if not history:
        return "Press Start (or Step) to train." if live is None else "Starting…"
    done = history[-1].epoch  # a run restored without its curves keeps only its last epoch
    elapsed = history[-1].elapsed_seconds
    if live is None:
        return f"Finished {done} epochs in {format_seconds(elapsed)} on {history[-1].device}."
    eta = format_seconds(seconds_left(history, epochs))
    paused = " · paused" if state.is_paused() else ""
    return f"Epoch {done} / {epochs} · {format_seconds(elapsed)} elapsed · ETA {eta}{paused}"


def seconds_left(history: Sequence[EpochRecord], epochs: int) -> float:
    """Training seconds still to go at the pace so far (infinite before the first epoch)."""
    if not history:
        return float("inf")
    return history[-1].elapsed_seconds / len(history) * max(epochs - len(history), 0)


def summary(record: state.RunRecord) -> None:
    """Final metrics of a run, then its validation confusion matrix."""
    last = record.history[-1]
    ending = (
        " (stopped at the time cap)" if record.out_of_time else " (stopped early)" if record.stopped else ""
    )
    st.subheader(f"Summary · {record.label}{ending}")
    problem = diagnose(record.history, record.config.train.lr)
    if problem:
        st.warning(problem, icon=":material/warning:")
    left, right = st.columns([3, 2], gap="large")
    with left:
        row = st.columns(3)
        row[0].metric("Validation accuracy", f"{last.val_acc:.1%}")
        row[1].metric("Validation loss", f"{last.val_loss:.4g}")
        row[2].metric("Device", record.device)
        row = st.columns(3)
        row[0].metric("Training accuracy", f"{last.train_acc:.1%}")
        row[1].metric("Training loss", f"{last.train_loss:.4g}")
        row[2].metric("Total time", format_seconds(last.elapsed_seconds))
        ms_per_epoch = 1000 * last.elapsed_seconds / last.epoch
        st.markdown(
            f"**{ms_per_epoch:.2f} ms per epoch** over {last.epoch} epochs on {where(record)}, "
            f"{record.config.data.train_size} training images, batch "
            f"{record.config.train.batch_size or 'full'}. Times include the validation pass."
        )
        st.caption(
            f"Weights fingerprint `{weights_fingerprint(record.model)}`: the weights of epoch "
            f"{last.epoch}, which the Draw page uses while this is your last run."
        )
    with right:
        st.plotly_chart(charts.confusion_figure(record.confusion), key="train.confusion")
        st.caption(f"Rows: true class; columns: predicted ({', '.join(CLASS_NAMES)}).")


def where(record: state.RunRecord) -> str:
    """The device a run used, with its CPU thread count, e.g. 'CPU · AMD EPYC (1 thread)'."""
    if record.threads is None:
        return describe(record.device)
    return f"{describe(record.device)} ({record.threads} thread{'s' if record.threads > 1 else ''})"


def _clear_history() -> None:
    """Callback: forget finished runs (the live run, if any, is kept)."""
    state.runs().clear()


def history_section() -> None:
    """Overlay of the session's runs, by epoch or by training seconds, and a table of them."""
    st.divider()
    st.subheader("Compare runs")
    runs = state.runs()
    if not runs:
        st.info(
            "Finished and stopped runs collect here. Train once on the CPU and once on a GPU "
            "(same seed), then compare them by epoch and by seconds.",
            icon=":material/stacked_line_chart:",
        )
        return
    numbers = [run.number for run in runs]
    by_number = {run.number: run for run in runs}
    controls = st.columns([3, 1, 1])
    chosen = controls[0].multiselect(
        "Runs", numbers, default=numbers[-4:], format_func=lambda n: by_number[n].label
    )
    metric = controls[1].selectbox(
        "Metric", list(charts.METRICS), format_func=charts.METRICS.get, key=METRIC, persist_state="session"
    )
    x_axis = controls[2].segmented_control(
        "X axis",
        list(charts.X_AXES),
        default="epoch",
        required=True,
        format_func=lambda key: "Epoch" if key == "epoch" else "Seconds",
        key=X_AXIS,
        persist_state="session",
    )
    selected = [(by_number[n].label, by_number[n].history) for n in chosen]
    st.plotly_chart(charts.overlay_figure(selected, metric, x_axis or "epoch"), key="train.overlay")
    st.caption(
        "The same seed gives the same images and initial weights on every device, so curves match "
        "by epoch; by seconds you see which device got there first."
    )
    st.dataframe(history_table(runs), hide_index=True, width="stretch")
    st.button("Clear history", icon=":material/delete:", on_click=_clear_history)


def history_table(runs: Sequence[state.RunRecord]) -> list[dict]:
    """One row per run: settings, final metrics and speed."""
    rows = []
    for run in runs:
        last = run.history[-1]
        rows.append(
            {
                "run": run.number,
                "device": run.device if run.threads is None else f"{run.device} ×{run.threads}",
                "epochs": f"{last.epoch}/{run.config.train.epochs}",
                "images": run.config.data.train_size,
                "batch": str(run.config.train.batch_size or "full"),  # one type per column for Arrow
                "width": run.config.model.width,
                "lr": run.config.train.lr,
                "seed": run.config.seed,
                "data": run.config.data.mode,
                "val acc": round(last.val_acc, 4),
                "val loss": float(f"{last.val_loss:.4g}"),
                "seconds": round(last.elapsed_seconds, 3),
                "ms/epoch": round(1000 * last.elapsed_seconds / last.epoch, 2),
            }
        )
    return rows
