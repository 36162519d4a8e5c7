"""Train: the CNN learns on the sidebar's device while loss and accuracy stream in."""

import streamlit as st

from linecnn.sharing import Cancelled, sharing_gpu
from linecnn.ui import restore, setup_page, state
from linecnn.ui.i18n import t
from linecnn.ui.train import history, sharing, view
from linecnn.ui.train.summary import summary

device = setup_page("train", ":material/model_training:")
st.title(t("train.title"))
st.caption(t("train.intro"))

live = state.live_trainer()
view.config_controls(locked=live is not None)
view.run_buttons(device)
view.limits_caption(state.server_limits())
view.show_flash()
style = history.chart_options()

live = state.live_trainer()
shown = live.history if live else (state.latest_run().history if state.latest_run() else ())
epochs = live.config.train.epochs if live else (shown[-1].epoch if shown else view.planned_epochs())
progress = st.empty()
loss_slot, acc_slot = (column.empty() for column in st.columns(2))
live_charts = view.LiveCharts(progress, loss_slot, acc_slot, style)
live_charts.show(shown, epochs, live)
summary_slot = st.empty()  # filled at the end of a run before the charts' final redraw

if live is not None and not live.paused and not live.ended:
    try:
        # Waits its turn in the server's training queue (showing its place), then trains.
        with sharing.training_turn(live, progress):
            for _ in sharing_gpu(live.run(), live.device):  # ends early when paused, stopped or taken over
                live_charts.update(live.history, epochs, live)
    except Cancelled:
        pass  # Stop while queued: the newer script run that Stop started draws the page
    except RuntimeError as error:
        view.stop_on_error(live, error)  # out of memory: files the run and leaves a message
        st.rerun()
    record = view.file_ended_run(live) if live.ended else None
    # None: a click paused, stopped or filed the run, and its newer script run draws the page. This
    # stale run just carries on to its next st.* call, which ends it: st.rerun here would restart
    # the newer run, and st.stop, ending a stale run as if finished, reset the settings' values.
    if record is not None:
        # The final metrics go out first: they are small, while the browser spends a while on
        # the Plotly redraws. Then rerun, so the buttons drawn while the run was live turn idle.
        with summary_slot.container():
            summary(record)
        live_charts.show(record.history, epochs, None)
        st.rerun()

if live is None and state.latest_run() is not None:
    with summary_slot.container():
        summary(state.latest_run())

history.history_section(style)
restore.train_section()
