"""Home: what the dashboard is for, and what hardware this server has."""

import streamlit as st

from linecnn.device import PORTABLE_PATTERN, describe, environment
from linecnn.ui import setup_page
from linecnn.ui.format import format_bytes

device = setup_page("home", ":material/home:")

st.title("linecnn")
st.markdown(
    "A tiny convolutional network learns to tell **vertical**, **horizontal** and **diagonal** "
    "lines apart in 8×8 images, on the CPU or a GPU. "
    "A GPU speeds up big models, big data and big batches, but on a problem this small "
    "its launch and transfer overheads can make it no faster at all. Measure it yourself here."
)

env = environment()
left, right = st.columns([3, 2], gap="large")
with left:
    st.subheader("This machine")
    rows = [
        {"device": info.key, "name": info.name, "memory": format_bytes(info.memory_bytes)}
        for info in env.devices
    ]
    st.dataframe(rows, hide_index=True, width="stretch")
    facts = {
        "PyTorch": env.torch_version,
        "CUDA runtime": env.cuda_version or "none (CPU-only build)",
        "cuDNN": str(env.cudnn_version) if env.cudnn_version else "n/a",
        "CPU": f"{env.cpu_model}, {env.cpu_count} logical CPUs, torch uses {env.torch_threads} threads",
        "Python": f"{env.python_version} on {env.platform}",
    }
    st.markdown("\n".join(f"- **{name}**: {value}" for name, value in facts.items()))
    if env.cuda_note:
        st.info(f"CUDA is not offered here: {env.cuda_note}", icon=":material/info:")

with right:
    st.subheader("Pick the device once")
    st.markdown("The lesson's portable pattern: decide once, then move the model and every tensor there.")
    st.code(PORTABLE_PATTERN, language="python", wrap_lines=True)
    st.markdown(
        f"The sidebar toggle plays that role for the whole dashboard. Selected now: **{describe(device)}**."
    )
    st.caption("Model and data must live on the same device; a model on the GPU fed CPU tensors fails.")

st.divider()
st.subheader("Where to next")
train, bench, draw = st.columns(3)
with train:
    st.page_link("pages/1_Train.py", label="Train", icon=":material/model_training:")
    st.caption("Train the CNN with live loss and accuracy curves, then overlay a CPU run and a GPU run.")
with bench:
    st.page_link("pages/2_Benchmark.py", label="Benchmark", icon=":material/speed:")
    st.caption("Time training epochs on each device side by side and find where the GPU starts to win.")
with draw:
    st.page_link("pages/3_Draw.py", label="Draw", icon=":material/draw:")
    st.caption("Draw a line with the mouse and watch the model classify it, filter by filter.")
