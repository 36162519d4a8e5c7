"""The Draw page's model picker and the default model every session shares."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import streamlit as st
from torch import nn

from linecnn.draw.default_weights import load_default_model
from linecnn.draw.predict import DEFAULT_CONFIG, train_default_model
from linecnn.train.lines import EXACT_LINE_MODES
from linecnn.ui import state
from linecnn.ui.draw import MODEL
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import count, number, t


@dataclass(frozen=True)
class ModelChoice:
    """The model the page classifies with, and how to describe it."""

    model: nn.Module
    title: str  # e.g. "Run 2 · cpu · 120 ep" or "Default model", in the session's language
    detail: str  # one sentence on how it was trained
    data_mode: str  # a key of DATA_MODES ("lesson", "varied", ...): what it learned from

    @property
    def exact_lines_only(self) -> bool:
        """True when the model learned from the lesson's exact lines alone (lesson or noisy data)."""
        return self.data_mode in EXACT_LINE_MODES


# Set once the default model exists: its training spinner, which speaks the session's language
# and so cannot be cache_resource's fixed text, is shown only before that.
_DEFAULT_READY = threading.Event()


@st.cache_resource(show_spinner=False)
def _shipped_default_model() -> nn.Module | None:
    return load_default_model()


@st.cache_resource(show_spinner=False)
def _trained_default_model() -> nn.Module:
    return train_default_model("cpu")


def default_model() -> nn.Module:
    """The default model, read from the package (trained once per server only if its file cannot be
    read) and shared read-only by every session."""
    shipped = _shipped_default_model()
    if shipped is not None:
        return shipped
    if _DEFAULT_READY.is_set():
        return _trained_default_model()
    with st.spinner(t("draw.training_default")):
        model = _trained_default_model()
    _DEFAULT_READY.set()
    return model


def _describe_config(record: state.RunRecord) -> str:
    """One sentence on how a session run was trained."""
    c = record.config
    if record.restored_from:
        origin = t("draw.restored_from", file=escape_markdown(record.restored_from))
    else:
        origin = t("draw.trained_here")
    return t(
        "draw.run_detail",
        origin=origin,
        data=t(f"draw.data.{c.data.mode}"),
        per_class=count(c.data.per_class),
        epochs=count(record.epochs_done),
        device=record.device,
    )


def _no_run_yet() -> str:
    """Why the default model is used: no run yet, or the first one is still under way on Train."""
    trainer = state.live_trainer()
    if trainer is None:
        return t("draw.using_default")
    # A student who has just pressed Start must not be told to go and train a model.
    return t(
        "draw.using_default_run_under_way",
        done=number(len(trainer.history)),
        epochs=number(trainer.config.train.epochs),
    )


def pick_model() -> ModelChoice:
    """The picker: the session's last run when there is one, or the shared default model."""
    run = state.latest_run()
    if run is None:
        choice = "default"
        st.caption(_no_run_yet())
    else:
        labels = {"run": t("draw.your_run", label=run.label), "default": t("draw.default_model")}
        choice = st.radio(
            t("draw.model"),
            list(labels),
            format_func=labels.__getitem__,
            key=MODEL,
            horizontal=True,
            persist_state="session",
            help=t("draw.model_help"),
        )
    if choice == "run" and run is not None:
        return ModelChoice(run.model, run.label, _describe_config(run), run.config.data.mode)
    c = DEFAULT_CONFIG
    detail = t(
        "draw.default_detail",
        data=t(f"draw.strokes.{c.data.mode}"),
        per_class=number(c.data.per_class),
        epochs=number(c.train.epochs),
        batch=number(c.train.batch_size),
    )
    return ModelChoice(default_model(), t("draw.default_model"), detail, c.data.mode)
