"""Benchmark: training epochs timed on every device side by side, and the size where the GPU starts to win."""

import streamlit as st

from linecnn.bench import AMP_MODES, BenchConfig
from linecnn.device import cuda_available, cuda_unavailable_reason, list_devices
from linecnn.sweep import (
    BATCH_SIZES,
    DATA_PER_CLASS,
    EXTRA_CONVS,
    FACTOR_TITLES,
    FACTORS,
    WIDTHS,
    format_x,
    plan_sweep,
)
from linecnn.ui import bench as ui
from linecnn.ui import setup_page
from linecnn.ui.bench_ranks import render as render_ranks
from linecnn.ui.format import format_bytes, format_seconds

device = setup_page("benchmark", ":material/speed:")
ui.finish_job()

st.title("Benchmark")
st.markdown(
    "How long does one training epoch take on each device, and **when does the GPU start to win?** "
    "Each cell times whole training epochs of the real model on freshly generated lines: warm-up first, "
    "the device synchronised before every clock read, the median of several epochs reported with its spread. "
    "One-time costs (CUDA context, cuDNN autotune, compilation, the first epoch) are measured apart."
)

caps = ui.server_caps()
devices = {info.key: info.label for info in list_devices()}
factor = st.segmented_control(
    "Sweep one factor (the others stay at the values below)",
    FACTORS,
    format_func=FACTOR_TITLES.get,
    default="data",
    required=True,
    key="bench.factor",
    persist_state="session",
)
UP_TO = {
    "data": ([3 * n for n in DATA_PER_CLASS if 3 * n <= caps.max_images], 36_000),
    "batch": (list(BATCH_SIZES), BATCH_SIZES[-1]),
    "width": (list(WIDTHS), WIDTHS[-1]),
    "conv": ([2 + n for n in EXTRA_CONVS], 2 + EXTRA_CONVS[-1]),
}

with st.form("bench.settings", border=True):
    top = st.columns([2, 2, 1, 1])
    chosen = top[0].multiselect(
        "Devices", list(devices), default=list(devices), format_func=devices.get, key="bench.devices"
    )
    up_to = None
    if factor in UP_TO:
        options, default = UP_TO[factor]
        up_to = top[1].selectbox(
            f"Sweep {FACTOR_TITLES[factor].lower()} up to",
            options,
            index=options.index(default) if default in options else len(options) - 1,
            format_func=lambda v: format_x(factor, v, exact=True),
            key=f"bench.up_to.{factor}",
            persist_state="session",
        )
    warmup = top[2].number_input("Warm-up epochs", 1, 20, 2, key="bench.warmup", persist_state="session")
    repeats = top[3].number_input("Timed epochs", 1, 100, 5, key="bench.repeats", persist_state="session")

    held = st.columns(4)
    per_class = held[0].number_input(
        "Images per class",
        1,
        caps.max_images // 3,
        120,
        key="bench.per_class",
        disabled=factor == "data",
        persist_state="session",
        help="The seed uses 120 per class (360 images).",
    )
    batch = held[1].selectbox(
        "Batch size",
        ["full", *BATCH_SIZES],
        key="bench.batch",
        disabled=factor == "batch",
        persist_state="session",
        help="'full' is the whole set per step, as in the seed; above 4,096 images it is cut into steps "
        "of 4,096 so memory stays bounded.",
    )
    width = held[2].number_input(
        "Model width", 1, 64, 1, key="bench.width", disabled=factor == "width", persist_state="session"
    )
    extra = held[3].number_input(
        "Extra conv layers", 0, 16, 0, key="bench.extra", disabled=factor == "conv", persist_state="session"
    )

    st.markdown("**Faster paths**: each is timed beside plain eager (fp32, NCHW, no compilation).")
    fast = st.columns(5)
    no_cuda = not cuda_available()
    amp = fast[0].selectbox(
        "AMP", AMP_MODES, key="bench.amp", disabled=no_cuda, help="Autocast to bf16 or fp16 (CUDA only)."
    )
    channels_last = fast[1].toggle(
        "channels_last", key="bench.channels_last", help="NHWC layout (CPU, CUDA)."
    )
    compile_model = fast[2].toggle(
        "torch.compile", key="bench.compile", help="Compile time is reported apart."
    )
    cuda_graphs = fast[3].toggle(
        "CUDA graphs", key="bench.graphs", disabled=no_cuda, help="torch.compile mode 'reduce-overhead'."
    )
    compare = fast[4].toggle("Also time eager", value=True, key="bench.compare")
    notes = []
    if no_cuda:
        notes.append(f"AMP and CUDA graphs need CUDA, which is not here: {cuda_unavailable_reason()[:-1]}")
    if compile_model:
        notes.append("torch.compile compiles every cell anew: tens of seconds per cell on a small CPU")
    time_cap = (
        "has no time cap"
        if caps.max_seconds is None
        else f"stops a benchmark after {format_seconds(caps.max_seconds)}"
    )
    notes.append(
        f"this server leaves out cells above {caps.max_images:,} images or whose training step would "
        f"keep more than {format_bytes(caps.max_step_bytes)} of activations, and {time_cap}"
    )
    st.caption(". ".join(note[0].upper() + note[1:] for note in notes) + ".")
    submitted = st.form_submit_button(
        "Run benchmark", type="primary", icon=":material/play_arrow:", disabled=ui.running()
    )

ui.show_message()
if submitted:
    try:
        base = BenchConfig(
            per_class=int(per_class),
            batch_size=None if batch == "full" else int(batch),
            width=int(width),
            extra_convs=int(extra),
            warmup=int(warmup),
            repeats=int(repeats),
            amp="off" if no_cuda else amp,
            channels_last=channels_last,
            compile=compile_model,
            cuda_graphs=cuda_graphs and not no_cuda,
        )
        plan = plan_sweep(base, factor, chosen, up_to=up_to, caps=caps, compare_eager=compare)
        ui.start_benchmark(plan, caps)
    except ValueError as error:
        st.error(str(error), icon=":material/error:")
ui.render_job()

runs = ui.shown_runs()
results = st.container()
st.divider()
ui.render_history()
with results:
    if runs:
        ui.render_results(runs)
        ui.render_environment(runs)
    else:
        st.info(
            "No results yet: press **Run benchmark**, or import a JSON made by the CLI on another machine "
            "below.",
            icon=":material/speed:",
        )
        ui.render_absent_cuda()

st.divider()
render_ranks(caps)  # the Processes / GPUs factor: data-parallel runs through torchrun
