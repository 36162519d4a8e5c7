"""The Train page's run settings: the widgets, their caps, and the RunConfig they describe.

Every default comes from ``RunConfig()``, so the page opens on the lesson's own run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import streamlit as st

from linecnn.train.config import RunConfig, TrainLimits
from linecnn.train.lines import DATA_MODES
from linecnn.ui import i18n, state
from linecnn.ui.bounds import Bounds, problems, problems_text
from linecnn.ui.i18n import duration, t
from linecnn.ui.number_boxes import count_box, decimal_box
from linecnn.ui.streamlit_private import DeltaGenerator

# Widget keys; values persist for the whole session so settings survive page switches.
EPOCHS, LR, PER_CLASS, BATCH, WIDTH, SEED, MODE = (
    f"train.{name}" for name in ("epochs", "lr", "per_class", "batch", "width", "seed", "mode")
)

DEFAULT = RunConfig()  # the lesson's run: where every widget starts
# Caps for the page; the core allows more, but a class shares one server.
MAX_EPOCHS_UI = 5_000
MAX_PER_CLASS_UI = 20_000
MAX_SEED_UI = 2**31 - 1  # the page offers 32-bit seeds; the core takes up to config.MAX_SEED
BATCH_CHOICES = ("full", 8, 16, 32, 64, 128, 256, 512, 1024)
WIDTH_CHOICES = (1, 2, 4, 8, 16)
# The number boxes' ranges, checked by the page (linecnn.ui.bounds): key -> (its label's key, bounds).
# Every box here is a text box (linecnn.ui.number_boxes), which writes and reads numbers the reader's
# way ('0,01', '20.000' in Spanish); each keeps its number under its key all the same.
BOUNDED = {
    EPOCHS: ("train.settings.epochs", Bounds(1, MAX_EPOCHS_UI)),
    LR: ("train.settings.lr", Bounds(0.0001, 1.0, digits=4)),
    PER_CLASS: ("train.settings.per_class", Bounds(1, MAX_PER_CLASS_UI)),
    SEED: ("train.settings.seed", Bounds(0, MAX_SEED_UI)),
}


def config_controls(locked: bool) -> list[str]:
    """The run settings, starting at the lesson's; locked while a run is in progress.

    Returns what is wrong with the numbers typed, also shown in the box; empty when all fit."""
    with st.container(border=True, key="train-settings"):  # layout.py keeps its padding small
        _size_controls(st.columns(4), locked)
        _model_controls(st.columns([1, 1, 2]), locked)
        found = [] if locked else range_problems()
        if found:
            st.error(problems_text(found), icon=":material/error:")
    return found


def range_problems() -> list[str]:
    """What is wrong with the numbers in the boxes now, one sentence each (callbacks may ask too)."""
    get = st.session_state.get
    return problems(
        (t(label), get(key), bounds) for key, (label, bounds) in BOUNDED.items() if key in st.session_state
    )


def _size_controls(columns: Sequence[DeltaGenerator], locked: bool) -> None:
    """Epochs, learning rate, images per class and batch size."""
    count_box(columns[0], t("train.settings.epochs"), DEFAULT.train.epochs, EPOCHS, disabled=locked)
    decimal_box(columns[1], t("train.settings.lr"), DEFAULT.train.lr, LR, disabled=locked)
    count_box(
        columns[2],
        t("train.settings.per_class"),
        DEFAULT.data.per_class,
        PER_CLASS,
        disabled=locked,
        help=t("train.settings.per_class_help", val=DEFAULT.data.val_per_class),
    )
    i18n.reword_choice(BATCH)  # 'full' is worded, so a language switch must send it again
    columns[3].selectbox(
        t("train.settings.batch"),
        BATCH_CHOICES,
        index=BATCH_CHOICES.index(batch_choice(DEFAULT)),
        format_func=batch_text,
        key=BATCH,
        persist_state="session",
        disabled=locked,
        help=t("train.settings.batch_help"),
        placeholder=t("common.choose_one"),
    )


def _model_controls(columns: Sequence[DeltaGenerator], locked: bool) -> None:
    """Width, seed and data mode."""
    columns[0].select_slider(
        t("train.settings.width"),
        WIDTH_CHOICES,
        value=DEFAULT.model.width,
        key=WIDTH,
        persist_state="session",
        disabled=locked,
        help=t("train.settings.width_help"),
    )
    count_box(columns[1], t("train.settings.seed"), DEFAULT.seed, SEED, disabled=locked)
    columns[2].segmented_control(
        t("train.settings.data"),
        list(DATA_MODES),  # each named train.mode.<key>
        default=DEFAULT.data.mode,
        required=True,
        format_func=lambda mode: t(f"train.mode.{mode}"),
        key=MODE,
        persist_state="session",
        disabled=locked,
        help=t("train.settings.data_help"),
    )


def batch_choice(config: RunConfig) -> int | Literal["full"]:
    """The batch widget's choice for ``config``: its batch size, or 'full' for the whole set."""
    return config.train.batch_size or "full"


def batch_text(size: int | Literal["full"]) -> str:
    """A batch size choice as shown: a number, or 'full' in the language."""
    return t("train.batch_full") if size == "full" else i18n.number(size)


def limits_note(limits: TrainLimits) -> None:
    """Say, behind a button, what a run may use on this server and how a host changes it.

    Behind a button, not above the charts: four lines there would push the live charts below a
    laptop screen's fold."""
    seconds = (
        t("train.limits.no_time_cap")
        if limits.max_seconds is None
        else t("train.limits.time_cap", time=duration(limits.max_seconds))
    )
    popover = st.popover(t("train.limits.button"), icon=":material/info:", width="stretch")
    popover.markdown(
        t(
            "train.limits.caption",
            seconds=seconds,
            image_epochs=i18n.number(limits.max_image_epochs),
            memory=i18n.size(limits.max_bytes),
            seconds_env=state.MAX_SECONDS_ENV,
            image_epochs_env=state.MAX_IMAGE_EPOCHS_ENV,
            bytes_env=state.MAX_BYTES_ENV,
        )
    )


def planned_epochs() -> int:
    """Epochs currently set in the controls (the lesson's while the box holds no number it accepts)."""
    value = st.session_state.get(EPOCHS, DEFAULT.train.epochs)
    _, bounds = BOUNDED[EPOCHS]
    return round(value) if bounds.problem("", value) is None else DEFAULT.train.epochs


def config_from_widgets() -> RunConfig:
    """Build the RunConfig the controls describe (raises ValueError on bad values)."""
    get = st.session_state.get
    batch = get(BATCH, batch_choice(DEFAULT))
    return RunConfig.from_flat(
        epochs=round(get(EPOCHS, DEFAULT.train.epochs)),
        lr=float(get(LR, DEFAULT.train.lr)),
        per_class=round(get(PER_CLASS, DEFAULT.data.per_class)),
        batch_size=None if batch == "full" else int(batch),
        width=int(get(WIDTH, DEFAULT.model.width)),
        seed=int(get(SEED, DEFAULT.seed)),
        data_mode=get(MODE) or DEFAULT.data.mode,
    )
