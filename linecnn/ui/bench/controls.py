"""The Benchmark page's sweep form: what to sweep, the settings held fixed, the faster paths, Run benchmark.

The form only gathers the widgets' values; ``start_sweep`` turns them into a plan after the last
run's message is shown, so a refused plan reads below that message.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from linecnn.bench.config import AMP_MODES, BenchConfig
from linecnn.bench.document import FACTORS
from linecnn.bench.plan import BATCH_SIZES, DATA_PER_CLASS, EXTRA_CONVS, WIDTHS, Caps, plan_sweep
from linecnn.device import cuda_available, cuda_unavailable_reason, list_devices
from linecnn.train.config import DEFAULT_FLAT, MAX_EXTRA_CONVS, MAX_WIDTH
from linecnn.ui.bench import sweep_view
from linecnn.ui.bench.words import factor_title, x_text
from linecnn.ui.i18n import duration, number, say, size, t

DEFAULTS = BenchConfig()  # the form's starting timing options, as the CLI's
LESSON = DEFAULT_FLAT  # the form's starting cell: RunConfig()'s flat values, the lesson's


@dataclass(frozen=True)
class Sweep:
    """What the form held when Run benchmark was pressed."""

    factor: str  # the factor swept: 'data', 'batch', 'width', 'conv' or 'none'
    devices: list[str]  # the devices to time, by key
    up_to: float | None  # the largest swept value, None for a factor without one
    compare: bool  # also time the eager path beside the faster paths
    settings: dict  # BenchConfig's keyword arguments, from the widgets


def up_to_choices(caps: Caps) -> dict[str, tuple[list, float]]:
    """Per factor with a size: the values the 'up to' box offers and its default."""
    return {
        "data": ([3 * n for n in DATA_PER_CLASS if 3 * n <= caps.max_images], 36_000),
        "batch": (list(BATCH_SIZES), BATCH_SIZES[-1]),
        "width": (list(WIDTHS), WIDTHS[-1]),
        "conv": ([2 + n for n in EXTRA_CONVS], 2 + EXTRA_CONVS[-1]),
    }


def render_form(caps: Caps) -> Sweep | None:
    """The factor switch and the settings form; the Sweep once Run benchmark is pressed, else None."""
    factor = st.segmented_control(
        t("bench.form.factor"),
        FACTORS,
        format_func=factor_title,
        default="data",
        required=True,
        key="bench.factor",
        persist_state="session",
    )
    with st.form("bench.settings", border=True):
        devices, up_to, runs = _sweep_settings(factor, caps)
        held = _held_settings(factor, caps)
        st.markdown(t("bench.form.faster"))
        no_cuda = not cuda_available()
        faster, compare = _faster_paths(no_cuda)
        st.caption(_notes(caps, no_cuda, faster["compile"]))
        submitted = st.form_submit_button(
            t("bench.form.run"), type="primary", icon=":material/play_arrow:", disabled=sweep_view.running()
        )
    if not submitted:
        return None
    return Sweep(factor, devices, up_to, compare, {**held, **runs, **faster})


def start_sweep(sweep: Sweep, caps: Caps) -> None:
    """Plan the sweep and start it; a plan the server refuses says why on screen."""
    try:
        plan = plan_sweep(
            BenchConfig.from_flat(**sweep.settings),
            sweep.factor,
            sweep.devices,
            up_to=sweep.up_to,
            caps=caps,
            compare_eager=sweep.compare,
        )
        sweep_view.start_benchmark(plan, caps)
    except ValueError as error:
        st.error(str(error), icon=":material/error:")


def _sweep_settings(factor: str, caps: Caps) -> tuple[list[str], float | None, dict]:
    """The form's top row: devices, how far to sweep, warm-up and timed epochs."""
    devices = {info.key: info.label for info in list_devices()}
    top = st.columns([2, 2, 1, 1])
    chosen = top[0].multiselect(
        t("bench.form.devices"),
        list(devices),
        default=list(devices),
        format_func=devices.get,
        key="bench.devices",
    )
    up_to = None
    choices = up_to_choices(caps)
    if factor in choices:
        options, default = choices[factor]
        up_to = top[1].selectbox(
            t("bench.form.up_to", factor=factor_title(factor).lower()),
            options,
            index=options.index(default) if default in options else len(options) - 1,
            format_func=lambda v: x_text(factor, v, exact=True),
            key=f"bench.up_to.{factor}",
            persist_state="session",
        )
    runs = {
        "warmup": _count(top[2], "warmup", 1, 20, DEFAULTS.warmup),
        "repeats": _count(top[3], "repeats", 1, 100, DEFAULTS.repeats),
    }
    return chosen, up_to, runs


def _held_settings(factor: str, caps: Caps) -> dict:
    """The settings held fixed while another is swept (the swept one's widget is disabled)."""
    held = st.columns(4)
    most = caps.max_images // 3
    per_class = _count(held[0], "per_class", 1, most, LESSON["per_class"], disabled=factor == "data")
    batch = held[1].selectbox(
        t("bench.form.batch"),
        ["full", *BATCH_SIZES],
        format_func=lambda v: t("bench.form.full") if v == "full" else number(v),
        key="bench.batch",
        disabled=factor == "batch",
        persist_state="session",
        help=t("bench.form.batch_help"),
    )
    return {
        "per_class": per_class,
        "batch_size": None if batch == "full" else int(batch),
        "width": _count(held[2], "width", 1, MAX_WIDTH, LESSON["width"], disabled=factor == "width"),
        "extra_convs": _count(
            held[3], "extra", 0, MAX_EXTRA_CONVS, LESSON["extra_convs"], disabled=factor == "conv"
        ),
    }


def _count(
    column: DeltaGenerator, name: str, low: int, high: int, default: int, disabled: bool = False
) -> int:
    """A whole-number box named bench.<name>, its label and help from bench.form.<name>, kept per session."""
    value = column.number_input(
        t(f"bench.form.{name}"),
        low,
        high,
        default,
        key=f"bench.{name}",
        disabled=disabled,
        persist_state="session",
        help=t(f"bench.form.{name}_help"),
    )
    return int(value)


def _faster_paths(no_cuda: bool) -> tuple[dict, bool]:
    """Mixed precision and the faster-path switches; the CUDA-only ones are off without CUDA."""
    amp_column, toggles = st.columns([1, 3])
    fast = toggles.columns(2)  # two toggles a row: their plain-language labels stay whole
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
    faster = {
        "amp": "off" if no_cuda else amp,
        "channels_last": channels_last,
        "compile": compile_model,
        "cuda_graphs": cuda_graphs and not no_cuda,
    }
    return faster, compare


def _notes(caps: Caps, no_cuda: bool, compile_model: bool) -> str:
    """The caption under the switches: why CUDA is off, compile's first-run cost, this server's caps."""
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
        t("bench.form.caps", images=number(caps.max_images), bytes=size(caps.max_step_bytes), time=time_cap)
    )
    return " ".join(notes)
