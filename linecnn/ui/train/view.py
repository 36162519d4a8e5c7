"""Widgets and renderers of the Train page; the page itself only wires them together."""

from __future__ import annotations

import time
from collections.abc import Sequence

import streamlit as st
import torch

from linecnn.bench import is_out_of_memory
from linecnn.config import RunConfig, TrainLimits
from linecnn.device import describe
from linecnn.sharing import gpu_shared
from linecnn.train import EpochRecord, Trainer, check_limits
from linecnn.ui import i18n, state
from linecnn.ui.format import format_bytes
from linecnn.ui.i18n import say, t
from linecnn.ui.train import charts, sharing

# Widget keys; values persist for the whole session so settings survive page switches.
EPOCHS, LR, PER_CLASS, BATCH, WIDTH, SEED, MODE = (
    f"train.{name}" for name in ("epochs", "lr", "per_class", "batch", "width", "seed", "mode")
)
FLASH = "train.flash"  # a message from a button callback, shown once

# Caps for the page; the core allows more, but a class shares one server.
MAX_EPOCHS_UI = 5_000
MAX_PER_CLASS_UI = 20_000
BATCH_CHOICES = ("full", 8, 16, 32, 64, 128, 256, 512, 1024)
WIDTH_CHOICES = (1, 2, 4, 8, 16)
MODES = ("lesson", "varied")  # names: train.mode.<key>
VAL_PER_CLASS = 60  # the seed's validation size


def config_controls(locked: bool) -> None:
    """The run settings, with the seed's defaults; locked while a run is in progress."""
    with st.container(border=True):
        top = st.columns(4)
        whole_number_input(
            top[0], t("train.settings.epochs"), MAX_EPOCHS_UI, 120, key=EPOCHS, disabled=locked
        )
        top[1].number_input(
            t("train.settings.lr"),
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
            t("train.settings.per_class"),
            MAX_PER_CLASS_UI,
            120,
            key=PER_CLASS,
            disabled=locked,
            help=t("train.settings.per_class_help", val=VAL_PER_CLASS),
        )
        top[3].selectbox(
            t("train.settings.batch"),
            BATCH_CHOICES,
            format_func=batch_text,
            key=BATCH,
            persist_state="session",
            disabled=locked,
            help=t("train.settings.batch_help"),
        )
        bottom = st.columns([1, 1, 2])
        bottom[0].select_slider(
            t("train.settings.width"),
            WIDTH_CHOICES,
            value=1,
            key=WIDTH,
            persist_state="session",
            disabled=locked,
            help=t("train.settings.width_help"),
        )
        bottom[1].number_input(
            t("train.settings.seed"), 0, 2**31 - 1, 24, key=SEED, persist_state="session", disabled=locked
        )
        bottom[2].segmented_control(
            t("train.settings.data"),
            MODES,
            default="lesson",
            required=True,
            format_func=lambda mode: t(f"train.mode.{mode}"),
            key=MODE,
            persist_state="session",
            disabled=locked,
            help=t("train.settings.data_help"),
        )


def batch_text(size: int | str) -> str:
    """A batch size choice as shown: a number, or 'full' in the language."""
    return t("train.batch_full") if size == "full" else i18n.number(size)


def seconds_text(seconds: float) -> str:
    """Seconds as '850 ms', '12.3 s' or '4 min 05 s', with the language's decimal mark."""
    if seconds < 1:
        return f"{i18n.number(seconds * 1000)} ms"
    if seconds < 60:
        return f"{i18n.number(seconds, 1)} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes} min {rest:02d} s"


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
        t("train.limits.no_time_cap")
        if limits.max_seconds is None
        else t("train.limits.time_cap", time=seconds_text(limits.max_seconds))
    )
    st.caption(
        t(
            "train.limits.caption",
            seconds=seconds,
            image_epochs=i18n.number(limits.max_image_epochs),
            memory=format_bytes(limits.max_bytes).replace(".", i18n.number(0.5, 1)[1]),
            seconds_env=state.MAX_SECONDS_ENV,
            image_epochs_env=state.MAX_IMAGE_EPOCHS_ENV,
            bytes_env=state.MAX_BYTES_ENV,
        )
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
        _flash("error", say(error))
    except RuntimeError as error:  # e.g. the GPU ran out of memory while placing the data
        _flash("error", t("train.flash.could_not_start", device=device, error=error))
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
    limit = (
        t("train.flash.cap_per_run", time=seconds_text(cap)) if cap is not None else t("train.flash.its_cap")
    )
    return t(
        "train.flash.time_cap",
        limit=limit,
        done=i18n.number(len(record.history)),
        epochs=i18n.number(record.config.train.epochs),
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
        t(
            "train.flash.out_of_memory",
            device=describe(trainer.device),
            epoch=i18n.number(trainer.epoch + 1),
            done=i18n.number(trainer.epoch),
        ),
    )


def _stop() -> None:
    """Callback: end the live run (or take it out of the training queue), keeping its last whole epoch."""
    live = state.live_trainer()
    if live is not None:
        sharing.leave_queue(live)
    record = state.finish_run()
    if record is None:
        _flash("info", t("train.flash.nothing_to_keep"))


def run_buttons(device: torch.device) -> None:
    """Start, Pause/Resume, Step and Stop, enabled according to the live run."""
    live, paused = state.live_trainer(), state.is_paused()
    columns = st.columns([1, 1, 1, 1, 3])
    columns[0].button(
        t("train.buttons.start"),
        type="primary",
        icon=":material/play_arrow:",
        on_click=_start,
        args=(str(device),),
        disabled=live is not None,
        width="stretch",
    )
    if live is not None and paused:
        columns[1].button(
            t("train.buttons.resume"),
            icon=":material/resume:",
            on_click=state.set_paused,
            args=(False,),
            width="stretch",
        )
    else:
        columns[1].button(
            t("train.buttons.pause"),
            icon=":material/pause:",
            on_click=state.set_paused,
            args=(True,),
            disabled=live is None,
            width="stretch",
        )
    columns[2].button(
        t("train.buttons.step"),
        icon=":material/skip_next:",
        on_click=_step,
        args=(str(device),),
        disabled=live is not None and not paused,
        width="stretch",
        help=t("train.buttons.step_help"),
    )
    columns[3].button(
        t("train.buttons.stop"),
        icon=":material/stop:",
        on_click=_stop,
        disabled=live is None,
        width="stretch",
        help=t("train.buttons.stop_help"),
    )
    if live is not None:
        status = "paused" if paused else "training"
        columns[4].caption(t(f"train.buttons.{status}", device=describe(live.device)))


class LiveCharts:
    """Progress bar plus loss and accuracy charts, redrawn in place while a run streams.

    Each chart redraw remounts it in the browser, which then competes with training for
    the CPU; so the cheap progress bar updates every PROGRESS_SECONDS and the charts only
    every CHART_SECONDS. Nothing is redrawn in the last PROGRESS_SECONDS of a run: the final
    draw follows at once, and a browser still busy with a redraw would only show the final
    metrics later.
    """

    PROGRESS_SECONDS = 0.25
    CHART_SECONDS = 0.5
    # Live redraws plot at most this many epochs per line: building a Plotly figure costs time in
    # proportion to its points (~120 ms for 5,000 epochs, every redraw, on the training thread).
    # The final draw plots every epoch.
    LIVE_POINTS = 500

    def __init__(
        self, progress, loss_slot, accuracy_slot, style: charts.ChartStyle = charts.DEFAULT_STYLE
    ) -> None:
        self.progress, self.loss_slot, self.accuracy_slot = progress, loss_slot, accuracy_slot
        self.style = style
        self.draws = 0  # each redraw needs a fresh key, or Streamlit sees a duplicate element
        self.progress_at = self.charts_at = time.monotonic()

    def show(self, history: Sequence[EpochRecord], epochs: int, live: Trainer | None) -> None:
        """Draw everything now: a live run (with ETA), the last finished run, or nothing yet."""
        self._progress(history, epochs, live)
        self._charts(history, epochs, None)

    def update(self, history: Sequence[EpochRecord], epochs: int, live: Trainer) -> None:
        """Redraw what is due during a run; call it after every epoch."""
        if seconds_left(history, epochs) < self.PROGRESS_SECONDS:
            return
        now = time.monotonic()
        if now - self.charts_at >= self.CHART_SECONDS:
            self._charts(history, epochs, self.LIVE_POINTS)
        if now - self.progress_at >= self.PROGRESS_SECONDS:
            self._progress(history, epochs, live)

    def _progress(self, history: Sequence[EpochRecord], epochs: int, live: Trainer | None) -> None:
        self.progress_at = time.monotonic()
        fraction = min(len(history) / max(epochs, 1), 1.0)
        self.progress.progress(fraction, text=progress_text(history, epochs, live))

    def _charts(self, history: Sequence[EpochRecord], epochs: int, points: int | None) -> None:
        self.charts_at = time.monotonic()
        self.draws += 1
        loss = charts.loss_figure(history, epochs, self.style, points)
        self.loss_slot.plotly_chart(loss, key=f"train.loss.{self.draws}")
        accuracy = charts.accuracy_figure(history, epochs, self.style, points)
        self.accuracy_slot.plotly_chart(accuracy, key=f"train.acc.{self.draws}")


def progress_text(history: Sequence[EpochRecord], epochs: int, live: Trainer | None) -> str:
    """'Epoch 40 / 120 · 0.2 s elapsed · ETA 0.4 s' for a live run; a short status otherwise."""
    if not history:
        return t("train.progress.idle") if live is None else t("train.progress.starting")
    done = history[-1].epoch  # a run restored without its curves keeps only its last epoch
    elapsed = seconds_text(history[-1].elapsed_seconds)
    if live is None:
        return t("train.progress.finished", done=i18n.number(done), time=elapsed, device=history[-1].device)
    eta = seconds_text(seconds_left(history, epochs))
    paused = t("train.progress.paused") if state.is_paused() else ""
    return t("train.progress.live", done=done, epochs=epochs, time=elapsed, eta=eta, paused=paused)


def seconds_left(history: Sequence[EpochRecord], epochs: int) -> float:
    """Training seconds still to go at the pace so far (infinite before the first epoch)."""
    if not history:
        return float("inf")
    return history[-1].elapsed_seconds / len(history) * max(epochs - len(history), 0)
