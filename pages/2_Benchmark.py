"""Benchmark: training epochs timed on every device side by side, and the size where the GPU starts to win."""

import streamlit as st

from linecnn.ui.bench import state, sweep_view
from linecnn.ui.bench.controls import render_form, start_sweep
from linecnn.ui.bench.explain import reference_runs, render_references
from linecnn.ui.bench.history import render_history
from linecnn.ui.bench.ranks import render as render_ranks
from linecnn.ui.bench.results import render_results
from linecnn.ui.i18n import t
from linecnn.ui.sidebar import setup_bench_page

setup_bench_page("benchmark")
sweep_view.finish_job()
state.init_shown()

st.title(t("bench.title"))
st.markdown(t("bench.intro"))

caps = state.server_caps()
sweep = render_form(caps)
state.show_message()
if sweep is not None:
    start_sweep(sweep, caps)
sweep_view.render_job()

results = st.container()  # filled last, so it shows the references and history picks of this run
st.divider()
render_references()
render_history()
with results:
    render_results(state.shown_runs() + reference_runs())

st.divider()
render_ranks(caps)  # the Processes / GPUs factor: data-parallel runs through torchrun
