"""The Benchmark page's sweep form: what to sweep, the settings held fixed, the faster paths, Run benchmark.

The form turns the widgets' values into a typed ``SweepRequest``; a press of Run benchmark drops the
last run's message, so a refusal (a reservation, a plan the server refuses) is the only answer shown.
"""

from __future__ import annotations

from typing import Literal

import streamlit as st

from linecnn.bench.config import AMP_MODES, BenchConfig
from linecnn.bench.factors import BATCH_SIZES, FACTORS, Factor
from linecnn.bench.plan import Caps, SweepRequest
from linecnn.device import cuda_available, cuda_unavailable_reason, list_devices
from linecnn.train.config import DEFAULT_FLAT, MAX_EXTRA_CONVS, MAX_WIDTH
from linecnn.ui.bench.fair import queue_text, share_text
from linecnn.ui.bench.state import MESSAGE, REQUEST
from linecnn.ui.bench.sweep import running
from linecnn.ui.bench.words import factor_title, x_text
from linecnn.ui.bounds import Bounds, problems, problems_text
from linecnn.ui.i18n import duration, number, reword_choice, say, size, t
from linecnn.ui.number_boxes import count_field
from linecnn.ui.roles import reserved_refusal, session_rights
from linecnn.ui.streamlit_private import DeltaGenerator

DEFAULTS = BenchConfig()  # the form's starting timing options, as the CLI's
LESSON = DEFAULT_FLAT  # the form's starting cell: RunConfig()'s flat values, the lesson's


def up_to_choices(factor: Factor, caps: Caps) -> tuple[list[int], int]:
    """The values the 'up to' box offers for ``factor`` (those within the image cap) and its default."""
    options = [value for value in factor.values if factor.apply(DEFAULTS, value).images <= caps.max_images]
    return options, factor.up_to or factor.values[-1]


def render_form(caps: Caps) -> SweepRequest | None:
    """The factor switch and the settings form; the request once Run benchmark is pressed, else None."""
    name = st.segmented_control(
        t("bench.form.factor"),
        list(FACTORS),
        format_func=factor_title,
        default="data",
        required=True,
        key="bench.factor",
        persist_state="session",
    )
    factor = FACTORS[name]
    checks: list = []  # (label, value, bounds) of every number box in use
    # Enter in a box only takes its number, as on the Train page: a student who presses it to confirm a
    # warm-up count must not start a benchmark (minutes of the session's hourly share).
    with st.form(running.FORM, border=True, enter_to_submit=False):
        devices, up_to, runs = _sweep_settings(factor, caps, checks)
        held = _held_settings(factor, caps, checks)
        st.markdown(t("bench.form.faster"))
        no_cuda = not cuda_available()
        faster, compare = _faster_paths(no_cuda)
        st.caption(_notes(caps, no_cuda, faster["compile"]))
        submitted = st.form_submit_button(
            t("bench.form.run"), type="primary", icon=":material/play_arrow:", disabled=running.running()
        )
    if submitted:  # the last run's message would read as this press's answer, above a refusal below it
        st.session_state.pop(MESSAGE, None)
    found = problems(checks)
    if found:  # a number out of its range: nothing to run, nor to show as the CUDA card's command
        if submitted:
            st.error(problems_text(found), icon=":material/error:")
        return None
    base = BenchConfig.from_flat(**_whole(held), **_whole(runs), **faster)
    request = SweepRequest(base, factor, tuple(devices), up_to, compare)
    st.session_state[REQUEST] = request  # the CUDA card's command times exactly this sweep
    return request if submitted else None


def start_sweep(request: SweepRequest, caps: Caps) -> None:
    """Plan the sweep and start it; a plan the server refuses, or a reservation, says why on screen."""
    refusal = reserved_refusal()  # while a teacher holds the benchmark, only teachers may run it
    if refusal is not None:
        st.error(refusal, icon=":material/lock_clock:")
        return
    session = session_rights()
    try:
        running.start_benchmark(request.plan(caps), caps, owner=(session.user, session.name))
    except ValueError as error:
        st.error(say(error), icon=":material/error:")
        return
    # The form above was drawn before the run began, its Run button still enabled; until the page's
    # next full run (only the progress redraws itself) it would offer a second run that is refused.
    st.rerun()


def _whole(values: dict) -> dict:
    """The form's counts as ints (number boxes give floats), other values as they are."""
    return {name: int(value) if isinstance(value, float) else value for name, value in values.items()}


def _sweep_settings(factor: Factor, caps: Caps, checks: list) -> tuple[list[str], float | None, dict]:
    """The form's top row: devices, how far to sweep, warm-up and timed epochs."""
    devices = {info.key: info.label for info in list_devices()}
    top = st.columns([2, 2, 1, 1])
    chosen = top[0].multiselect(
        t("bench.form.devices"),
        list(devices),
        default=list(devices),
        format_func=devices.__getitem__,
        key="bench.devices",
        placeholder=t("common.choose_many"),
    )
    up_to = None
    if factor.values:
        options, default = up_to_choices(factor, caps)
        reword_choice(f"bench.up_to.{factor.name}")
        up_to = top[1].selectbox(
            t("bench.form.up_to", factor=factor_title(factor.name).lower()),
            options,
            index=options.index(default) if default in options else len(options) - 1,
            format_func=lambda v: x_text(factor.name, v, exact=True),
            key=f"bench.up_to.{factor.name}",
            persist_state="session",
            placeholder=t("common.choose_one"),
        )
    runs = {
        "warmup": _count(top[2], "warmup", Bounds(1, 20), DEFAULTS.warmup, checks),
        "repeats": _count(top[3], "repeats", Bounds(1, 100), DEFAULTS.repeats, checks),
    }
    return chosen, up_to, runs


def _held_settings(factor: Factor, caps: Caps, checks: list) -> dict:
    """The settings held fixed while another is swept (the swept one's widget, by its column, is disabled)."""
    held = st.columns(4)
    most, swept = caps.max_images // 3, factor.column
    reword_choice("bench.batch")
    per_class = _count(
        held[0], "per_class", Bounds(1, most), LESSON["per_class"], checks, disabled=swept == "images"
    )
    choices: list[int | Literal["full"]] = ["full", *BATCH_SIZES]
    batch = held[1].selectbox(
        t("bench.form.batch"),
        choices,
        format_func=lambda v: t("bench.form.full") if v == "full" else number(v),
        key="bench.batch",
        disabled=swept == "batch",
        persist_state="session",
        help=t("bench.form.batch_help"),
        placeholder=t("common.choose_one"),
    )
    return {
        "per_class": per_class,
        "batch_size": None if batch == "full" else int(batch),
        "width": _count(
            held[2], "width", Bounds(1, MAX_WIDTH), LESSON["width"], checks, disabled=swept == "width"
        ),
        "extra_convs": _count(
            held[3],
            "extra",
            Bounds(0, MAX_EXTRA_CONVS),
            LESSON["extra_convs"],
            checks,
            disabled=swept == "conv_layers",
        ),
    }


def _count(
    column: DeltaGenerator, name: str, bounds: Bounds, default: int, checks: list, disabled: bool = False
) -> int | None:
    """A whole-number box named bench.<name>, its label and help from bench.form.<name>, kept per session.

    Its range is the page's to check: a box in use adds (label, value, bounds) to ``checks``."""
    label = t(f"bench.form.{name}")
    help_text = t(f"bench.form.{name}_help")
    value = count_field(column, label, default, f"bench.{name}", disabled=disabled, help=help_text)
    if not disabled:
        checks.append((label, value, bounds))
    return value


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
        placeholder=t("common.choose_one"),
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
    key = "bench.form.caps" if caps.own_image_cap else "bench.form.caps_all_sizes"
    notes.append(t(key, images=number(caps.max_images), bytes=size(caps.max_step_bytes), time=time_cap))
    notes.append(share_text())
    queue = queue_text()
    if queue is not None:
        notes.append(queue)
    return " ".join(notes)
