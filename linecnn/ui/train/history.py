"""The Train page's chart options and its "Compare runs" section: overlay, warning, table and CSV."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache, partial

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from linecnn.ui import state
from linecnn.ui.chart import show_chart
from linecnn.ui.i18n import count, current, number, percent, t
from linecnn.ui.spreadsheet import runs_csv
from linecnn.ui.streamlit_private import DeltaGenerator
from linecnn.ui.tables import show_table, sortable
from linecnn.ui.train import charts
from linecnn.ui.train.compare import legend_labels, significant, val_set_warning
from linecnn.ui.train.controls import batch_choice, batch_text

# Widget keys; the values persist for the whole session, across pages.
SMOOTHING, LOG_LOSS = "train.smoothing", "train.log_loss"
METRIC, X_AXIS, CHOSEN = "train.overlay_metric", "train.overlay_x", "train.overlay_runs"
SEEN = "train.overlay_seen"  # the newest run number the run picker has offered: newer runs join the picks
PICKED = "train.overlay_picked"  # True once the reader has changed the run picker
MAX_SMOOTHING = 0.99  # TensorBoard's slider stops short of 1, where the curve would never move
# The slider's stops, 0 to MAX_SMOOTHING by 0.01: a select slider, so its value is written the
# language's way ('0,50'), where a plain slider only takes a printf format ('0.50').
SMOOTHING_STOPS = tuple(round(step / 100, 2) for step in range(round(MAX_SMOOTHING * 100) + 1))
OVERLAID_BY_DEFAULT = 4  # the most recent runs overlaid until the user picks


@cache
def smoothing_labels(language: str) -> dict[float, str]:
    """Each smoothing stop written in ``language`` ('0,50' in Spanish), made once: the slider writes every
    stop twice on every script run of the page, the one that starts a run included."""
    return {weight: number(weight, 2, language) for weight in SMOOTHING_STOPS}


def chart_options() -> tuple[charts.ChartStyle, DeltaGenerator]:
    """Smoothing and the loss scale, for the live charts and the overlay alike; and the row's free end."""
    columns = st.columns([3, 2, 2], vertical_alignment="bottom")
    smoothing = columns[0].select_slider(
        t("train.options.smoothing"),
        SMOOTHING_STOPS,
        value=charts.DEFAULT_STYLE.smoothing,
        format_func=smoothing_labels(current()).__getitem__,
        key=SMOOTHING,
        persist_state="session",
        help=t("train.options.smoothing_help"),
    )
    log_loss = columns[1].toggle(
        t("train.options.log"),
        value=charts.DEFAULT_STYLE.log_loss,
        key=LOG_LOSS,
        persist_state="session",
        help=t("train.options.log_help"),
    )
    return charts.ChartStyle(smoothing=smoothing, log_loss=log_loss), columns[2]


def _clear_history() -> None:
    """Callback: forget finished runs (the live run, if any, is kept); the run picker starts afresh."""
    state.clear_runs()
    st.session_state.pop(PICKED, None)


def _picked() -> None:
    """Callback of the run picker: from now on it keeps the reader's picks instead of the newest runs."""
    st.session_state[PICKED] = True


def history_section(style: charts.ChartStyle) -> None:
    """Overlay of the session's runs, by epoch or by training seconds, a table of them and their CSV."""
    st.divider()
    st.subheader(t("train.history.title"))
    runs = state.runs()
    if not runs:
        st.info(t("train.history.empty"), icon=":material/stacked_line_chart:")
        return
    selected, metric, x_axis = _overlay_controls(runs)
    warning = val_set_warning(selected) if metric.startswith("val_") else None
    if warning:
        st.warning(warning, icon=":material/warning:")
    lines = list(zip(legend_labels(selected), (run.history for run in selected), strict=True))
    # A run keeps its line's colour and dash whichever others are shown.
    figure = charts.overlay_figure(lines, metric, x_axis, style, [run.number - 1 for run in selected])
    said = {"metric": t(f"train.metric.{metric}").lower(), "axis": t(f"train.history.x_{x_axis}").lower()}
    alt = t("chart.overlay", count=count(len(selected)), **said)
    show_chart(figure, "train.overlay", alt)
    st.caption(t("train.history.caption"))
    show_table(history_table(runs), hide_index=True, width="stretch")
    if state.dropped_runs():
        st.caption(t("train.history.dropped", count=count(state.dropped_runs()), kept=number(state.MAX_RUNS)))
    _history_buttons(selected, len(runs))


def _keep_picks(numbers: Sequence[int]) -> None:
    """Set the run picker: the newest runs until the reader picks; then their picks that still exist,
    with every run newer than the picker had shown. The picks outlive a visit to another page."""
    if st.session_state.get(PICKED):
        picked, seen = st.session_state.get(CHOSEN, []), st.session_state.get(SEEN, max(numbers))
        st.session_state[CHOSEN] = [n for n in numbers if n in picked or n > seen]
    else:
        st.session_state[CHOSEN] = list(numbers[-OVERLAID_BY_DEFAULT:])
    st.session_state[SEEN] = max(numbers)


def _overlay_controls(runs: Sequence[state.RunRecord]) -> tuple[list[state.RunRecord], str, str]:
    """The runs to overlay (in run order), the metric and the x axis, as the user picked them."""
    by_number = {run.number: run for run in runs}
    _keep_picks(list(by_number))
    controls = st.columns([3, 1, 1])
    chosen = controls[0].multiselect(
        t("train.history.runs"),
        list(by_number),
        format_func=lambda n: by_number[n].label,
        key=CHOSEN,
        persist_state="session",
        on_change=_picked,
        placeholder=t("common.choose_many"),
    )
    metric = controls[1].selectbox(
        t("train.history.metric"),
        charts.METRICS,
        format_func=lambda key: t(f"train.metric.{key}"),
        key=METRIC,
        persist_state="session",
        placeholder=t("common.choose_one"),
    )
    x_axis = controls[2].segmented_control(
        t("train.history.x_axis"),
        charts.X_AXES,
        default="epoch",
        required=True,
        format_func=lambda key: t(f"train.history.x_{key}"),
        key=X_AXIS,
        persist_state="session",
    )
    return [run for run in runs if run.number in chosen], metric, x_axis or "epoch"


def _history_buttons(selected: Sequence[state.RunRecord], kept: int) -> None:
    """Download the overlaid runs as one CSV, or clear the ``kept`` runs after a second click."""
    with st.container(horizontal=True, gap="small"):
        st.download_button(
            t("train.history.download"),
            partial(runs_csv, selected, current()),
            file_name="linecnn-runs.csv",
            mime="text/csv",
            icon=":material/download:",
            on_click="ignore",  # a download needs no rerun (one would redraw every chart)
            disabled=not selected,
            help=t("train.history.download_help"),
        )
        # Clearing forgets every run of the tab with nothing to undo it, so it takes a second click.
        with st.popover(t("train.history.clear"), icon=":material/delete:"):
            st.markdown(t("train.history.clear_sure", count=count(kept)))
            st.button(t("train.history.clear_confirm"), icon=":material/delete:", on_click=_clear_history)


def history_table(runs: Sequence[state.RunRecord]) -> Styler:
    """One row per run: settings, final metrics and speed, under the language's column names.

    Numbers stay numbers, so a click on a header sorts the runs by them; a Styler writes them the
    language's way (Streamlit would write 0.01, 5e-8 and an accuracy of 1 the English way on a
    Spanish page). Text columns hold one type each, for Arrow.
    """
    rows = []
    for run in runs:
        last = run.history[-1]
        rows.append(
            {
                "run": run.number,
                "device": run.device if run.threads is None else f"{run.device} ×{run.threads}",
                "epochs": f"{last.epoch}/{run.config.train.epochs}",
                "images": run.config.data.train_size,
                "batch": batch_text(batch_choice(run.config)),
                "width": run.config.model.width,
                "lr": run.config.train.lr,
                "seed": run.config.seed,
                "data": t(f"train.mode.{run.config.data.mode}"),
                "val_acc": last.val_acc,
                "val_loss": last.val_loss,
                "seconds": last.elapsed_seconds,
                "ms_per_epoch": 1000 * last.elapsed_seconds / last.epoch,
            }
        )
    formats: dict[str, Callable[[float], str]] = {
        "images": number,
        "lr": partial(significant, digits=4),
        "val_acc": partial(percent, digits=1),
        "val_loss": partial(significant, digits=4),
        "seconds": partial(number, digits=2),
        "ms_per_epoch": partial(number, digits=2),
    }
    names = {key: t(f"train.table.{key}") for key in rows[0]} if rows else {}
    frame = pd.DataFrame(rows).rename(columns=names)
    return sortable(frame, {names.get(key, key): write for key, write in formats.items()})
