"""Benchmark: training epochs timed on every device side by side, and the size where the GPU starts to win."""

import streamlit as st

from linecnn.ui.agree import show_on_bench
from linecnn.ui.bench import state
from linecnn.ui.bench.data_parallel.section import render as render_ranks
from linecnn.ui.bench.data_parallel.section import running as ranks_running
from linecnn.ui.bench.history.board import render_board
from linecnn.ui.bench.history.section import render_history
from linecnn.ui.bench.inside_step.section import render as render_inside
from linecnn.ui.bench.results.section import render_results
from linecnn.ui.bench.sweep import running
from linecnn.ui.bench.sweep.form import render_form, start_sweep
from linecnn.ui.bench.where_time_goes.section import reference_runs, render_references
from linecnn.ui.i18n import t
from linecnn.ui.roles import reserved_notice
from linecnn.ui.sidebar import setup_bench_page

setup_bench_page("benchmark")
running.finish_job()
state.init_shown()

st.title(t("bench.title"))
st.markdown(t("bench.intro"))
reserved_notice()

caps = state.server_caps()
sweep = render_form(caps)
# What Run benchmark brings about, kept together: its refusal or end message, the progress, the results.
# Pressing it scrolls this to the top of the screen (running.follow_run).
with st.container(key=running.RUN_KEY):
    state.show_message()
    if sweep is not None:
        start_sweep(sweep, caps)
    running.render_job()
    results = st.container()  # filled last, so it shows the references and history picks of this run
st.divider()
render_references()
stored = render_history()
render_board(stored)  # every device measured here or imported, side by side: read-only for everyone
with results:
    shown = state.shown_runs()
    render_results(shown + reference_runs())
    show_on_bench(shown)  # the session's last Train run beside the cell of its settings

st.divider()
render_inside(caps, busy=running.running() or ranks_running())  # torch.profiler's view of one step

st.divider()
render_ranks(caps)  # the Processes / GPUs factor: data-parallel runs through torchrun
