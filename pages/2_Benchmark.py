"""Benchmark: training epochs timed on every device side by side, and the size where the GPU starts to win."""

import streamlit as st

from linecnn.bench import AMP_MODES, BenchConfig
from linecnn.device import cuda_available, cuda_unavailable_reason, list_devices
from linecnn.sweep import BATCH_SIZES, DATA_PER_CLASS, EXTRA_CONVS, FACTORS, WIDTHS, plan_sweep
from linecnn.ui import setup_page
from linecnn.ui.bench import job as ui
from linecnn.ui.bench.explain import reference_runs, render_references
from linecnn.ui.bench.history import render_history
from linecnn.ui.bench.results import render_results
from linecnn.ui.bench.words import factor_title, x_text
from linecnn.ui.bench_ranks import render as render_ranks
from linecnn.ui.i18n import duration, number, say, size, t

device = setup_page("benchmark", ":material/speed:")
ui.finish_job()
ui.init_shown()

st.title(t("bench.title"))
st.markdown(t("bench.intro"))

caps = ui.server_caps()
devices = {info.key: info.label for info in list_devices()}
factor = st.segmented_control(
    t("bench.form.factor"),
    FACTORS,
    format_func=factor_title,
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
        t("bench.form.devices"),
        list(devices),
        default=list(devices),
        format_func=devices.get,
        key="bench.devices",
    )
    up_to = None
    if factor in UP_TO:
        options, default = UP_TO[factor]
        up_to = top[1].selectbox(
            t("bench.form.up_to", factor=factor_title(factor).lower()),
            options,
            index=options.index(default) if default in options else len(options) - 1,
            format_func=lambda v: x_text(factor, v, exact=True),
            key=f"bench.up_to.{factor}",
            persist_state="session",
        )
    warmup = top[2].number_input(
        t("bench.form.warmup"),
        1,
        20,
        2,
        key="bench.warmup",
        persist_state="session",
        help=t("bench.form.warmup_help"),
    )
    repeats = top[3].number_input(
        t("bench.form.repeats"),
        1,
        100,
        5,
        key="bench.repeats",
        persist_state="session",
        help=t("bench.form.repeats_help"),
    )

    held = st.columns(4)
    per_class = held[0].number_input(
        t("bench.form.per_class"),
        1,
        caps.max_images // 3,
        120,
        key="bench.per_class",
        disabled=factor == "data",
        persist_state="session",
        help=t("bench.form.per_class_help"),
    )
    batch = held[1].selectbox(
        t("bench.form.batch"),
        ["full", *BATCH_SIZES],
        format_func=lambda v: t("bench.form.full") if v == "full" else number(v),
        key="bench.batch",
        disabled=factor == "batch",
        persist_state="session",
        help=t("bench.form.batch_help"),
    )
    width = held[2].number_input(
        t("bench.form.width"),
        1,
        64,
        1,
        key="bench.width",
        disabled=factor == "width",
        persist_state="session",
        help=t("bench.form.width_help"),
    )
    extra = held[3].number_input(
        t("bench.form.extra"),
        0,
        16,
        0,
        key="bench.extra",
        disabled=factor == "conv",
        persist_state="session",
        help=t("bench.form.extra_help"),
    )

    st.markdown(t("bench.form.faster"))
    amp_column, toggles = st.columns([1, 3])
    fast = toggles.columns(2)  # two toggles a row: their plain-language labels stay whole
    no_cuda = not cuda_available()
    amp = amp_column.selectbox(
        t("bench.form.amp"),
        AMP_MODES,
        format_func=lambda v: t("bench.form.amp_off") if v == "off" else v,
        key="bench.amp",
        disabled=no_cuda,
        help=t("bench.form.amp_help"),
    )
    channels_last = fast[0].toggle(
        t("bench.form.channels_last"), key="bench.channels_last", help=t("bench.form.channels_last_help")
    )
    compile_model = fast[1].toggle(
        t("bench.form.compile"), key="bench.compile", help=t("bench.form.compile_help")
    )
    cuda_graphs = fast[0].toggle(
        t("bench.form.graphs"), key="bench.graphs", disabled=no_cuda, help=t("bench.form.graphs_help")
    )
    compare = fast[1].toggle(
        t("bench.form.compare"), value=True, key="bench.compare", help=t("bench.form.compare_help")
    )
    notes = []
    if no_cuda:
        notes.append(t("bench.form.no_cuda", reason=say(cuda_unavailable_reason())))
    if compile_model:
        notes.append(t("bench.form.compile_slow"))
    time_cap = (
        t("bench.form.no_time_cap")
        if caps.max_seconds is None
        else t("bench.form.time_cap", seconds=duration(caps.max_seconds))
    )
    notes.append(
        t(
            "bench.form.caps",
            images=number(caps.max_images),
            bytes=size(caps.max_step_bytes),
            time=time_cap,
        )
    )
    st.caption(" ".join(notes))
    submitted = st.form_submit_button(
        t("bench.form.run"), type="primary", icon=":material/play_arrow:", disabled=ui.running()
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

results = st.container()
st.divider()
render_references()
render_history()
with results:
    render_results(ui.shown_runs() + reference_runs())

st.divider()
render_ranks(caps)  # the Processes / GPUs factor: data-parallel runs through torchrun
