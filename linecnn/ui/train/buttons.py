"""Start, Pause/Resume, Step and Stop, their callbacks, and the messages they leave for the page."""

from __future__ import annotations

import streamlit as st
import torch

from linecnn.bench.cell import is_out_of_memory
from linecnn.classroom.line import Wait
from linecnn.classroom.sharing import machine_turn
from linecnn.train.limits import check_limits
from linecnn.train.trainer import Trainer
from linecnn.ui import i18n, state
from linecnn.ui.bounds import problems_text
from linecnn.ui.focus import keep_focus, key_selector
from linecnn.ui.follow import follow_runs
from linecnn.ui.format import device_short, device_text
from linecnn.ui.i18n import duration, say, t
from linecnn.ui.streamlit_private import DeltaGenerator
from linecnn.ui.train import away, sharing
from linecnn.ui.train.controls import BATCH_CHOICES, config_from_widgets, range_problems

FLASH = "train.flash"  # a message from a button callback, shown once

BUTTONS_KEY = "train-buttons"  # the row of Start, Pause, Step and Stop: its element's class is st-key-<key>
# A phone's screen ends at the buttons: a tap on one brings the row to the top, with what the run draws.
FOLLOW_SECONDS = 20  # long enough for a loaded class server to draw a run's first epoch


def _flash(kind: str, message: str) -> None:
    """Leave a message for the next render (callbacks cannot place elements themselves)."""
    st.session_state[FLASH] = (kind, message)


def show_flash() -> None:
    """Show, once, the message a button callback left; and why the live run waits, if its browser left."""
    kind, message = st.session_state.pop(FLASH, (None, None))
    if kind == "error":
        st.error(message, icon=":material/error:")
    elif kind == "info":
        st.info(message, icon=":material/info:")
    away.show_note(state.live_trainer())


def _start(device: str, paused: bool = False) -> Trainer | None:
    """Callback: build the run from the controls, on ``device``, unless it is over this server's limits."""
    limits = state.server_limits()
    found = range_problems()  # the button may have been drawn before a box changed
    if found:
        _flash("error", problems_text(found))
        return None
    try:
        config = config_from_widgets()
        check_limits(config, limits, [size for size in BATCH_CHOICES if isinstance(size, int)])  # not "full"
        return state.start_run(config, device, limits, paused=paused)
    except ValueError as error:
        _flash("error", say(error))
    except RuntimeError as error:  # e.g. the GPU ran out of memory while placing the data
        _flash("error", t("train.flash.could_not_start", device=device_text(device), error=say(error)))
    return None


def _start_clicked(device: str) -> None:
    """Callback of the Start button: ``_start``, its trainer left to the session state."""
    _start(device)


def _step(device: str) -> None:
    """Callback: run exactly one epoch (starting a paused run if none is live)."""
    trainer = state.live_trainer() or _start(device, paused=True)
    if trainer is None:
        return
    try:
        with (
            sharing.training_turn(trainer) as lease,
            machine_turn(trainer.device, sharing.ticket(trainer), lease.beat) as turn,
        ):
            trainer.step()
        trainer.waited(turn.waited)
    except RuntimeError as error:
        stop_on_error(trainer, error)
        return
    if trainer.ended:
        file_ended_run(trainer)


def _stop() -> None:
    """Callback: end the live run (or take it out of the training queue), keeping its last whole epoch."""
    live = state.live_trainer()
    queued = live is not None and sharing.waiting(live)
    if live is not None:
        sharing.leave_queue(live)
    record = state.finish_run()
    if record is None:  # a run that never had its turn did not "stop before its first epoch": it left
        _flash("info", t("train.flash.left_queue" if queued else "train.flash.nothing_to_keep"))


def file_ended_run(trainer: Trainer) -> state.RunRecord | None:
    """File a run that trained its last epoch or reached the time cap; say so for the time cap."""
    record = state.finish_run(trainer)
    if record is not None and record.out_of_time:
        _flash("info", time_cap_message(record))
    return record


def time_cap_message(record: state.RunRecord) -> str:
    """The sentence shown when the server's time cap ended a run."""
    cap = state.server_limits().max_seconds
    limit = t("train.flash.cap_per_run", time=duration(cap)) if cap is not None else t("train.flash.its_cap")
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
            device=device_text(trainer.device),
            epoch=i18n.number(trainer.epoch + 1),
            done=i18n.number(trainer.epoch),
        ),
    )


def stop_slot_lost(trainer: Trainer, stop: Exception) -> None:
    """End a run whose training slot went to the next in line (it made no progress), keeping its epochs."""
    state.finish_run(trainer)
    _flash("error", say(stop))


def run_buttons(device: torch.device, refused: bool = False) -> RunRow:
    """Start, Pause/Resume, Step and Stop, enabled according to the live run; gives the parts that follow it.

    ``refused``: a setting holds a number the page does not accept, so nothing may start. The line
    beside the buttons says whether the live run trains or waits for its turn, and Pause is disabled
    while it waits; ``RunRow.turn`` redraws both as that changes."""
    live, paused = state.live_trainer(), state.is_paused()
    row = key_selector(BUTTONS_KEY)
    follow_runs("train", row, row, FOLLOW_SECONDS, phone_only=True)
    keep_focus("train", [[f"{key_selector(BUTTONS_KEY)} button"]])  # Start when nothing runs, else Pause
    columns = st.container(key=BUTTONS_KEY).columns([1, 1, 1, 1, 3])
    columns[0].button(
        t("train.buttons.start"),
        type="primary",
        icon=":material/play_arrow:",
        on_click=_start_clicked,
        args=(str(device),),
        disabled=live is not None or refused,
        width="stretch",
    )
    pause = columns[1].empty()
    waiting = live is not None and not paused and sharing.waiting(live)  # a rerun keeps the run's place
    _pause_button(pause, live, paused, waiting)
    columns[2].button(
        t("train.buttons.step"),
        icon=":material/skip_next:",
        on_click=_step,
        args=(str(device),),
        disabled=(live is not None and not paused) or (live is None and refused),
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
    caption = columns[4].empty()
    if live is not None:
        short = device_short(live.device)
        caption.caption(t("train.buttons.paused", device=short) if paused else _turn_text(waiting, short))
    return RunRow(caption, pause, live, waiting)


class RunRow:
    """The parts of the button row that follow the live run into the training queue and out of it."""

    def __init__(
        self, caption: DeltaGenerator, pause: DeltaGenerator, live: Trainer | None, waiting: bool
    ) -> None:
        self.caption, self.pause, self.live = caption, pause, live
        self.waiting = waiting  # as Pause was last drawn: disabled while the run waits for its turn
        self.redraws = 0  # Pause redrawn in one script run needs a key of its own each time

    def turn(self, wait: Wait | None) -> None:
        """Say beside the buttons and on Pause that the live run waits (``wait``: its place) or trains (None).

        Redrawn only when that changes: the place itself is the progress bar's to say."""
        waiting = wait is not None
        if self.live is None or waiting == self.waiting:
            return
        self.waiting, self.redraws = waiting, self.redraws + 1
        self.caption.caption(_turn_text(waiting, device_short(self.live.device)))
        _pause_button(self.pause, self.live, False, waiting, key=f"train-pause-{self.redraws}")


def _turn_text(waiting: bool, device: str) -> str:
    """The line beside the buttons for a live run that waits for its turn or trains."""
    return t("sharing.waiting" if waiting else "train.buttons.training", device=device)


def _pause_button(
    column, live: Trainer | None, paused: bool, waiting: bool = False, key: str | None = None
) -> None:
    """Resume for a paused run; otherwise Pause, disabled when nothing is live or while the run waits."""
    resume = live is not None and paused
    column.button(
        t("train.buttons.resume" if resume else "train.buttons.pause"),
        key=key,
        icon=":material/resume:" if resume else ":material/pause:",
        on_click=state.set_paused,
        args=(not resume,),
        disabled=live is None or waiting,
        width="stretch",
        help=t("train.buttons.pause_waiting_help") if waiting else None,
    )
