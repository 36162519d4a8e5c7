"""Train: the CNN learns on the sidebar's device while loss and accuracy stream in."""

import streamlit as st

from linecnn.ui import restore, state
from linecnn.ui.follow import follow_runs
from linecnn.ui.i18n import t
from linecnn.ui.sidebar import setup_page
from linecnn.ui.train import buttons, controls, history, live
from linecnn.ui.train.summary import summary

SUMMARY_SECONDS = 5  # the summary stays at the top while the charts redraw for the last time

device = setup_page("train")
st.title(t("train.title"))
st.caption(t("train.intro"))

trainer = state.live_trainer()
problems = controls.config_controls(locked=trainer is not None)
button_row = buttons.run_buttons(device, refused=bool(problems))
buttons.show_flash()

trainer, latest = state.live_trainer(), state.latest_run()
shown = trainer.history if trainer else (latest.history if latest else ())
planned = trainer or latest
epochs = planned.config.train.epochs if planned else controls.planned_epochs()
# Progress and charts right under the buttons, their options under them: in view on a laptop screen.
progress = st.empty()
# Each chart's place: a container of an ended run's chart over the live run's (see train/place.py).
loss_column, acc_column = st.columns(2)
loss_stack, acc_stack = (
    loss_column.container(key="train-charts-loss"),
    acc_column.container(key="train-charts-acc"),
)
style, aside = history.chart_options()
with aside:
    controls.limits_note(state.server_limits())
live_charts = live.LiveCharts(progress, loss_stack, acc_stack, style)
live_charts.show(
    shown, epochs, trainer, out_of_time=trainer is None and latest is not None and latest.out_of_time
)
with st.container(key="train-summary"):
    summary_slot = st.empty()  # filled at the end of a run before the charts' final redraw
# The summary starts about a screen below the buttons on a laptop: when a run ends it is brought to the top.
# On a phone the run's charts, brought into view by Start, stay there: its reader scrolls down anyway.
follow_runs(  # after Start only: a Step or a Stop is pressed by a reader who is at the buttons already
    "train-end",
    '.st-key-train-buttons [data-testid="stColumn"]:first-child',
    ".st-key-train-summary",
    SUMMARY_SECONDS,
    laptop_only=True,
    when="filled",
)

if trainer is not None and not trainer.paused and not trainer.ended:
    live.train_live(trainer, live_charts, summary_slot, epochs, button_row)  # draws only between epochs

if trainer is None and latest is not None:
    with summary_slot.container():
        summary(latest)

history.history_section(style)
restore.train_section()
