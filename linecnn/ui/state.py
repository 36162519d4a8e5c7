"""Every ``st.session_state`` key the app shares across pages, with typed accessors.

Keeping them here avoids session-state flags scattered across pages.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

import streamlit as st
from torch import nn

from linecnn.config import RunConfig
from linecnn.train import EpochRecord, Trainer, cpu_threads_for

DEVICE = "device"  # key of the sidebar's device radio: "cpu", "cuda:0", "mps"
LIVE = "train.live"  # the Trainer of the run in progress (running or paused), if any
PAUSED = "train.paused"  # True while the live run is paused
RUNS = "train.runs"  # list[RunRecord] of finished or stopped runs, oldest first
RUN_COUNT = "train.run_count"  # runs filed so far in this session; numbers never repeat

MAX_RUNS = 20  # older runs drop off the session history beyond this
# A host whose students' browsers run elsewhere (a GPU cloud machine with many cores) can give
# Train-page runs more CPU threads than the default policy, which assumes a browser on the same cores.
TRAIN_THREADS_ENV = "LINECNN_TRAIN_THREADS"


@dataclass(frozen=True, eq=False)
class RunRecord:
    """A finished (or stopped) training run: its config, device, curves and model."""

    number: int  # 1, 2, 3 ... in the order runs ended in this session
    config: RunConfig
    device: str  # where it trained, e.g. "cpu" or "cuda:0"
    history: tuple[EpochRecord, ...]
    confusion: list[list[int]]  # validation [true][predicted] at the end
    model: nn.Module  # final weights, kept on the CPU; move a copy where you need it
    threads: int | None = None  # CPU threads it trained on; None for GPUs
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
        """Short name for pickers and legends, e.g. 'Run 2 · cuda:0 · 120 ep'."""
        end = f"stopped at {self.epochs_done}" if self.stopped else f"{self.epochs_done} ep"
        return f"Run {self.number} · {self.device} · {end}" + (" · restored" if self.restored_from else "")


def training_threads(config: RunConfig) -> int | None:
    """CPU threads a Train-page run of ``config`` uses: $LINECNN_TRAIN_THREADS when the host set
    a whole number of at least 1, else ``train.cpu_threads_for`` (None means torch's default)."""
    value = os.environ.get(TRAIN_THREADS_ENV, "").strip()
    if value.isdigit() and int(value) >= 1:
        return int(value)
    return cpu_threads_for(config)


def _file_if_finished() -> None:
    """File a live run whose last epoch is done: a click or page switch can land in between."""
    trainer = st.session_state.get(LIVE)
    if trainer is not None and trainer.done:
        finish_run()


def live_trainer() -> Trainer | None:
    """The run in progress (running or paused), if any."""
    _file_if_finished()
    return st.session_state.get(LIVE)


def is_paused() -> bool:
    """True while the live run is paused."""
    return bool(st.session_state.get(PAUSED, False))


def runs() -> list[RunRecord]:
    """Finished and stopped runs of this session, oldest first."""
    _file_if_finished()
    return st.session_state.setdefault(RUNS, [])


def start_run(config: RunConfig, device: str) -> Trainer:
    """Create the live run (data and model on ``device``) and mark it running."""
    trainer = Trainer(config, device)
    st.session_state[LIVE] = trainer
    st.session_state[PAUSED] = False
    return trainer


def set_paused(paused: bool) -> None:
    """Pause or resume the live run."""
    st.session_state[PAUSED] = paused


def finish_run() -> RunRecord | None:
    """Move the live run into the history (keeping its last whole epoch) and return it."""
    trainer = st.session_state.pop(LIVE, None)
    st.session_state[PAUSED] = False
    if trainer is None or not trainer.history:
        return None
    history = runs()
    st.session_state[RUN_COUNT] = st.session_state.get(RUN_COUNT, 0) + 1
    record = RunRecord(
        number=st.session_state[RUN_COUNT],
        config=trainer.config,
        device=str(trainer.device),
        history=tuple(trainer.history),
        confusion=trainer.confusion_matrix(),
        model=trainer.model.to("cpu").eval(),
        threads=trainer.cpu_threads,
    )
    history.append(record)
    del history[:-MAX_RUNS]
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
    del history[:-MAX_RUNS]
    return filed
