"""The Train page's run settings: the widgets, their caps, and the RunConfig they describe.

Every default comes from ``RunConfig()``, so the page opens on the lesson's own run.
"""

from __future__ import annotations

import streamlit as st

from linecnn.train.config import RunConfig, TrainLimits
from linecnn.train.lines import DATA_MODES
from linecnn.ui import i18n, state
from linecnn.ui.i18n import duration, t

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


def config_controls(locked: bool) -> None:
    """The run settings, starting at the lesson's; locked while a run is in progress."""
    with st.container(border=True):
        _size_controls(st.columns(4), locked)
        _model_controls(st.columns([1, 1, 2]), locked)


def _size_controls(columns: list, locked: bool) -> None:
    """Epochs, learning rate, images per class and batch size."""
    whole_number_input(
        columns[0], t("train.settings.epochs"), MAX_EPOCHS_UI, DEFAULT.train.epochs, EPOCHS, disabled=locked
    )
    columns[1].number_input(
        t("train.settings.lr"),
        0.0001,
        1.0,
        DEFAULT.train.lr,
        step=0.001,
        format="%.4f",
        key=LR,
        persist_state="session",
        disabled=locked,
    )
    whole_number_input(
        columns[2],
        t("train.settings.per_class"),
        MAX_PER_CLASS_UI,
        DEFAULT.data.per_class,
        PER_CLASS,
        disabled=locked,
        help=t("train.settings.per_class_help", val=DEFAULT.data.val_per_class),
    )
    columns[3].selectbox(
        t("train.settings.batch"),
        BATCH_CHOICES,
        index=BATCH_CHOICES.index(batch_choice(DEFAULT)),
        format_func=batch_text,
        key=BATCH,
        persist_state="session",
        disabled=locked,
        help=t("train.settings.batch_help"),
    )


def _model_controls(columns: list, locked: bool) -> None:
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
    columns[1].number_input(
        t("train.settings.seed"),
        0,
        MAX_SEED_UI,
        DEFAULT.seed,
        key=SEED,
        persist_state="session",
        disabled=locked,
    )
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


def batch_choice(config: RunConfig) -> int | str:
    """The batch widget's choice for ``config``: its batch size, or 'full' for the whole set."""
    return config.train.batch_size or "full"


def batch_text(size: int | str) -> str:
    """A batch size choice as shown: a number, or 'full' in the language."""
    return t("train.batch_full") if size == "full" else i18n.number(size)


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
        else t("train.limits.time_cap", time=duration(limits.max_seconds))
    )
    st.caption(
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
    """Epochs currently set in the controls."""
    return round(st.session_state.get(EPOCHS, DEFAULT.train.epochs))


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
