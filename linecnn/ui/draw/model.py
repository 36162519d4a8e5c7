"""The Draw page's model picker and the default model every session shares."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import streamlit as st

from linecnn.draw.default_weights import load_default_model
from linecnn.draw.predict import DEFAULT_CONFIG, train_default_model
from linecnn.train.lines import EXACT_LINE_MODES
from linecnn.train.model import LineCNN
from linecnn.ui import notice, state
from linecnn.ui.draw import GONE, MODEL, SEEN
from linecnn.ui.format import device_short, device_text, escape_markdown
from linecnn.ui.i18n import count, number, percent, reword_choice, t
from linecnn.ui.whole_name import PHONE_CHARS_UNCLEARABLE, show_whole_name


@dataclass(frozen=True)
class ModelChoice:
    """The model the page classifies with, and how to describe it."""

    model: LineCNN
    title: str  # e.g. "Run 2 · cpu · 120 ep" or "Default model", in the session's language
    detail: str  # one sentence on how it was trained
    data_mode: str  # a key of DATA_MODES ("lesson", "varied", ...): what it learned from

    @property
    def exact_lines_only(self) -> bool:
        """True when the model learned from the lesson's exact lines alone (lesson or noisy data)."""
        return self.data_mode in EXACT_LINE_MODES


DEFAULT = "default"  # the picker's value for the default model; a run's value is its number

# Set once the default model exists: its training spinner, which speaks the session's language
# and so cannot be cache_resource's fixed text, is shown only before that.
_DEFAULT_READY = threading.Event()


@st.cache_resource(show_spinner=False)
def _shipped_default_model() -> LineCNN | None:
    return load_default_model()


@st.cache_resource(show_spinner=False)
def _trained_default_model() -> LineCNN:
    return train_default_model("cpu")


def default_model() -> LineCNN:
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
        # A restored run trained on another machine: only its device key is known, not that machine's
        # device name, so it is named by the key rather than by this server's device of that key.
        device=device_short(record.device) if record.restored_from else device_text(record.device),
    )


def _no_run_yet() -> str:
    """Why the default model is used: no run yet, or the first one is still under way on Train."""
    under_way = _under_way()
    # A student who has just pressed Start must not be told to go and train a model.
    return t("draw.using_default_run_under_way", **under_way) if under_way else t("draw.using_default")


def _under_way() -> dict[str, str]:
    """Where the run in progress on the Train page stands ({done}, {epochs}); empty when there is none."""
    trainer = state.live_trainer()
    if trainer is None:
        return {}
    return {"done": number(len(trainer.history)), "epochs": number(trainer.config.train.epochs)}


def _option(run: state.RunRecord) -> str:
    """A run as the picker lists it: its Train-page label and its validation accuracy."""
    accuracy = percent(run.history[-1].val_acc, digits=1)
    return f"{run.label} · {t('train.table.val_acc')} {accuracy}"


def _settle_choice(runs: list[state.RunRecord]) -> None:
    """Set the picker before it is drawn: the last run until another model is picked (a new run takes the
    place of the last one where that was the pick); a picked run that is gone falls back, said in words."""
    numbers = [run.number for run in runs]
    newest = numbers[-1] if numbers else None
    seen, chosen = st.session_state.get(SEEN), st.session_state.get(MODEL)
    if newest != seen:
        st.session_state.pop(GONE, None)  # a sentence about an older fallback would name the wrong model
    if chosen != DEFAULT and chosen not in numbers:
        if isinstance(chosen, int):  # cleared on the Train page, or dropped past MAX_RUNS
            notice.keep(GONE, notice.said("info", _gone_sentence, chosen))
        chosen = newest
    elif chosen == seen:
        chosen = newest
    if chosen is None:
        st.session_state.pop(MODEL, None)
    elif chosen != st.session_state.get(MODEL):
        st.session_state[MODEL] = chosen
    st.session_state[SEEN] = newest


def _gone_sentence(number: int) -> str:
    """Why the picked run is no longer used, and what is used instead."""
    instead = t("draw.instead_last" if state.runs() else "draw.instead_default")
    return t("draw.run_gone", run=t("train.run", number=number), instead=instead)


def _picked() -> None:
    """Callback of the picker: the reader's own pick replaces any sentence about a fallback."""
    st.session_state.pop(GONE, None)


def pick_model() -> ModelChoice:
    """The picker: any finished run of this tab (newest first; the last one unless another is picked),
    or the shared default model."""
    runs = state.runs()
    _settle_choice(runs)
    choice = st.session_state.get(MODEL, DEFAULT)
    if runs:
        labels = {run.number: _option(run) for run in reversed(runs)} | {DEFAULT: t("draw.default_model")}
        reword_choice(MODEL)  # its options are worded: after a language switch the value is sent again
        choice = st.selectbox(
            t("draw.model"),
            list(labels),
            format_func=lambda value: labels.get(value, str(value)),
            key=MODEL,
            persist_state="session",
            on_change=_picked,
            help=t("draw.model_help"),
            placeholder=t("common.choose_one"),
        )
        show_whole_name(labels.get(choice), PHONE_CHARS_UNCLEARABLE)  # a run is always picked
        under_way = _under_way()
        if under_way:
            st.caption(t("draw.run_under_way", **under_way))
    notice.show(GONE, icon=":material/history:")
    if not runs:
        st.caption(_no_run_yet())
    run = next((run for run in runs if run.number == choice), None)
    if run is not None:
        return ModelChoice(run.model, run.label, _describe_config(run), run.config.data.mode)
    c = DEFAULT_CONFIG
    assert c.train.batch_size is not None  # the default model's recipe trains in mini-batches
    detail = t(
        "draw.default_detail",
        data=t(f"draw.strokes.{c.data.mode}"),
        per_class=number(c.data.per_class),
        epochs=number(c.train.epochs),
        batch=number(c.train.batch_size),
    )
    return ModelChoice(default_model(), t("draw.default_model"), detail, c.data.mode)
