"""Benchmark: CPU and CUDA epoch times side by side (being built, see issue 4)."""

import streamlit as st

from linecnn.ui import setup_page

device = setup_page("Benchmark", ":material/speed:")
st.title("Benchmark")
st.info(
    "This page will time whole training epochs on every device side by side, sweep data size, "
    "batch, width and convolution work, and mark where the GPU starts to win.",
    icon=":material/construction:",
)
