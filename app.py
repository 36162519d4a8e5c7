"""Home: what the dashboard is for, and what hardware this server has."""

import streamlit as st

from linecnn.device import PORTABLE_PATTERN, describe, environment
from linecnn.ui.format import version_code
from linecnn.ui.i18n import count, say, size, t
from linecnn.ui.sidebar import PAGES, page_link, setup_page

device = setup_page("home")

st.title("linecnn")
st.markdown(t("home.intro"))

env = environment()
left, right = st.columns([3, 2], gap="large")
with left:
    st.subheader(t("home.machine"))
    rows = [
        {
            t("home.column_device"): info.key,
            t("home.column_name"): info.name,
            t("home.column_memory"): size(info.memory_bytes),
        }
        for info in env.devices
    ]
    st.dataframe(rows, hide_index=True, width="stretch")
    threads = count(env.torch_threads)
    cpu = t("home.cpu_facts", model=env.cpu_model, count=count(env.cpu_count), threads=threads)
    facts = {
        # Versions as code: names, shown as the build reports them in either language.
        "PyTorch": version_code(env.torch_version),
        t("home.cuda_runtime"): (
            version_code(env.cuda_version) if env.cuda_version else t("home.no_cuda_build")
        ),
        "cuDNN": version_code(env.cudnn_version) if env.cudnn_version else t("home.not_applicable"),
        "CPU": cpu,
        "Python": t("home.python_on", version=version_code(env.python_version), platform=env.platform),
    }
    st.markdown("\n".join(f"- **{name}**: {value}" for name, value in facts.items()))
    if env.cuda_note:
        st.info(t("home.cuda_note", reason=say(env.cuda_note)), icon=":material/info:")

with right:
    st.subheader(t("home.pick_once"))
    st.markdown(t("home.pattern"))
    # Wrapped at spaces, so a laptop shows the whole line without scrolling sideways; no name is split.
    st.code(PORTABLE_PATTERN, language="python", wrap_lines=True)
    st.markdown(t("home.selected", device=describe(device)))
    st.caption(t("home.same_device"))

st.divider()
st.subheader(t("home.next"))
# Two cards a row: four in one row leave a projector's 800 px too little for each page's name.
for row in range(1, len(PAGES), 2):
    for column, (path, name, icon) in zip(st.columns(2), PAGES[row : row + 2], strict=False):
        with column:
            page_link(path, name, icon)
            st.caption(t(f"home.{name}"))
