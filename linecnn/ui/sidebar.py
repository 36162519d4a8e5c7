"""The frame every page shares: page config, navigation and the device toggle."""

from __future__ import annotations

import streamlit as st
import torch

from linecnn.device import cuda_unavailable_reason, list_devices, resolve
from linecnn.ui import state
from linecnn.ui.auth import require_login
from linecnn.ui.layout import apply_layout

# (script path, label, icon). Paths are relative to app.py, as st.page_link wants them.
PAGES = (
    ("app.py", "Home", ":material/home:"),
    ("pages/1_Train.py", "Train", ":material/model_training:"),
    ("pages/2_Benchmark.py", "Benchmark", ":material/speed:"),
    ("pages/3_Draw.py", "Draw", ":material/draw:"),
)


def setup_page(title: str, icon: str) -> torch.device:
    """Configure the page, draw the shared sidebar, and return the chosen device."""
    st.set_page_config(page_title=f"{title} · linecnn", page_icon=icon, layout="wide")
    require_login()
    with st.sidebar:
        st.markdown("**linecnn** · a tiny CNN on any device")
        for path, label, page_icon in PAGES:
            st.page_link(path, label=label, icon=page_icon)
        st.divider()
        device = device_toggle()
    apply_layout()
    return device


def device_toggle() -> torch.device:
    """Radio of the devices present here; the choice is kept for the whole session."""
    devices = {info.key: info for info in list_devices()}
    default = str(resolve("auto"))
    choice = st.radio(
        "Device",
        list(devices),
        index=list(devices).index(default),
        format_func=lambda key: devices[key].label,
        key=state.DEVICE,
        persist_state="session",
        help="Where the model and every tensor live. Training, benchmarks and predictions use it.",
    )
    reason = cuda_unavailable_reason()
    if reason:
        st.caption(f"CUDA is not offered: {reason}")
    return torch.device(choice)
