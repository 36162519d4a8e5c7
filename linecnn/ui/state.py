"""Every ``st.session_state`` key the app shares across pages, with typed accessors.

Keeping them here avoids session-state flags scattered across pages.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from linecnn.classroom.settings import env_number, env_uncapped
from linecnn.train.config import DEFAULT_MAX_SECONDS, RunConfig, TrainLimits
from linecnn.train.model import LineCNN
from linecnn.train.trainer import EpochRecord, Trainer
from linecnn.ui.format import device_short
from linecnn.ui.i18n import t

DEVICE = "device"  # key of the sidebar's device radio: "cpu", "cuda:0", "mps"
LIVE = "train.live"  # the Trainer of the run in progress (running or paused), if any
RUNS = "train.runs"  # list[RunRecord] of finished or stopped runs, oldest first
RUN_COUNT = "train.run_count"  # runs filed so far in this session; numbers never repeat
DROPPED = "train.dropped"  # how many older runs fell off the history past MAX_RUNS (the page says so)

MAX_RUNS = 20  # older runs drop off the session history beyond this
# A host's limits on each Train-page run (defaults: TrainLimits'); see server_limits.
MAX_SECONDS_ENV = "LINECNN_TRAIN_MAX_SECONDS"  # training seconds per run; "inf" or "none" for no cap
MAX_IMAGE_EPOCHS_ENV = "LINECNN_TRAIN_MAX_IMAGE_EPOCHS"  # epochs x training images per run
MAX_BYTES_ENV = "LINECNN_TRAIN_MAX_BYTES"  # memory per run: data set + model + one step's activations
MIN_IMAGE_EPOCHS = 3  # a cap below one epoch of the smallest data set would refuse every run
MIN_BYTES = 8 << 20  # nor would a memory cap below what the lesson's own run needs (~5 MiB)


@dataclass(frozen=True, eq=False)
class RunRecord:
    """A finished (or stopped) training run: its config, device, curves and model."""

    number: int  # 1, 2, 3 ... in the order runs ended in this session
    config: RunConfig
    device: str  # where it trained, e.g. "cpu" or "cuda:0"
    history: tuple[EpochRecord, ...]
    confusion: list[list[int]]  # validation [true][predicted] at the end
    model: LineCNN  # final weights, kept on the CPU; move a copy where you need it
    threads: int | None = None  # CPU threads it trained on; None for GPUs
    out_of_time: bool = False  # True when the server's time cap ended it
    waited_seconds: float = 0.0  # seconds it waited between epochs while a benchmark timed the machine
    restored_from: str | None = None  # the file it was restored from; None when trained in this session

    @property
    def epochs_done(self) -> int:
        """Epochs the model was trained for (a run restored without its curves keeps only the last)."""
        return self.history[-1].epoch if self.history else 0

    @property
    def stopped(self) -> bool:
        """True when the run ended before its planned epochs."""
        return self.epochs_done < self.config.train.epochs

    @property
    def label(self) -> str:
        """Short name for pickers and legends, e.g. 'Run 2 · CUDA:0 · 120 ep'."""
        end = t("train.label.stopped" if self.stopped else "train.label.epochs", epochs=self.epochs_done)
        parts = [t("train.run", number=self.number), device_short(self.device), end]
        return " · ".join(parts + ([t("train.label.restored")] if self.restored_from else []))


def server_limits() -> TrainLimits:
    """This server's limits on a run, from the environment where the host set them.

    A value that is not a number, or is too small to train anything, falls back to the default
    with a warning in the server's log; a time cap of "inf" or "none" means no time cap.
    """
    default = TrainLimits()
    capped = not env_uncapped(MAX_SECONDS_ENV)
    seconds = env_number(MAX_SECONDS_ENV, DEFAULT_MAX_SECONDS, 0.001, uncappable=True) if capped else None
    return TrainLimits(
        max_seconds=seconds,
        max_image_epochs=int(env_number(MAX_IMAGE_EPOCHS_ENV, default.max_image_epochs, MIN_IMAGE_EPOCHS)),
        max_bytes=int(env_number(MAX_BYTES_ENV, default.max_bytes, MIN_BYTES)),
    )


def _file_if_finished() -> None:
    """File a live run that has ended: a click or page switch can land before the page files it."""
    trainer = st.session_state.get(LIVE)
    if trainer is not None and trainer.ended:
        finish_run(trainer)


def live_trainer() -> Trainer | None:
    """The run in progress (running or paused), if any."""
    _file_if_finished()
    return st.session_state.get(LIVE)


def is_paused() -> bool:
    """True while the live run is paused."""
    trainer = st.session_state.get(LIVE)
    return trainer is not None and trainer.paused


def runs() -> list[RunRecord]:
    """Finished and stopped runs of this session, oldest first."""
    _file_if_finished()
    return st.session_state.setdefault(RUNS, [])


def start_run(config: RunConfig, device: str, limits: TrainLimits, paused: bool = False) -> Trainer:
    """Create the live run (data and model on ``device``), capped at the limits' training time."""
    trainer = Trainer(config, device, max_seconds=limits.max_seconds)
    if paused:
        trainer.pause()
    st.session_state[LIVE] = trainer
    return trainer


def set_paused(paused: bool) -> None:
    """Pause the live run (waiting for its epoch in flight to end) or let it resume."""
    trainer = st.session_state.get(LIVE)
    if trainer is None:
        return
    if paused:
        trainer.pause()
    else:
        trainer.resume()


def finish_run(trainer: Trainer | None = None) -> RunRecord | None:
    """Stop ``trainer`` (default: the live run), file a copy of its whole epochs and return it.

    A run is filed once: when an older script thread and a newer one both try, the second gets
    None, as it does for a run that never finished an epoch.
    """
    held: Trainer | None = st.session_state.get(LIVE)
    trainer = trainer or held
    if trainer is None:
        return None
    snapshot = trainer.stop()
    live: Trainer | None = st.session_state.get(LIVE)  # read again: stop() waited for the epoch in flight
    if live is trainer:
        st.session_state.pop(LIVE, None)
    if snapshot is None:
        return None
    history = runs()
    st.session_state[RUN_COUNT] = st.session_state.get(RUN_COUNT, 0) + 1
    record = RunRecord(
        number=st.session_state[RUN_COUNT],
        config=trainer.config,
        device=str(trainer.device),
        history=snapshot.history,
        confusion=snapshot.confusion,
        model=snapshot.model,
        threads=snapshot.cpu_threads,
        out_of_time=snapshot.out_of_time,
        waited_seconds=snapshot.waited_seconds,
    )
    history.append(record)
    _keep_newest(history)
    return record


def latest_run() -> RunRecord | None:
    """The most recent finished or stopped run: the Draw page's default model."""
    history = runs()
    return history[-1] if history else None


def file_run(record: RunRecord) -> RunRecord:
    """File a run made elsewhere (e.g. restored from files) under the next run number; return it."""
    history = runs()
    st.session_state[RUN_COUNT] = st.session_state.get(RUN_COUNT, 0) + 1
    filed = replace(record, number=st.session_state[RUN_COUNT])
    history.append(filed)
    _keep_newest(history)
    return filed


def _keep_newest(history: list[RunRecord]) -> None:
    """Drop the oldest runs past MAX_RUNS, counting them: a run must not vanish with nothing said."""
    dropped = len(history) - MAX_RUNS
    if dropped > 0:
        del history[:dropped]
        st.session_state[DROPPED] = st.session_state.get(DROPPED, 0) + dropped


def dropped_runs() -> int:
    """How many older runs this session's history has dropped past MAX_RUNS since it was last cleared."""
    return st.session_state.get(DROPPED, 0)


def clear_runs() -> None:
    """Forget the finished runs (the live run, if any, is kept) and the count of dropped ones."""
    runs().clear()
    st.session_state.pop(DROPPED, None)
