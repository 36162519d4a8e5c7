"""The data-parallel factor's settings form: device, rank counts, timing and the problem."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import streamlit as st

from linecnn.bench.config import BenchConfig
from linecnn.bench.factors import BATCH_SIZES
from linecnn.bench.plan import Caps
from linecnn.device import cuda_available
from linecnn.parallel.config import RanksConfig, max_ranks
from linecnn.train.config import MAX_WIDTH
from linecnn.train.limits import step_memory_bytes
from linecnn.ui.bounds import Bounds, problems, problems_text
from linecnn.ui.i18n import duration, number, reword_choice, size, t
from linecnn.ui.number_boxes import count_field
from linecnn.ui.streamlit_private import DeltaGenerator

RANK_CHOICES = (1, 2, 4, 8, 16, 32, 64)  # offered up to what this machine can run
DEFAULTS = RanksConfig()  # the widgets' starting values
FORM = "ddp.settings"  # key of the settings form, whose Run starts the series


def form(caps: Caps, busy: bool) -> tuple[bool, Callable[[], RanksConfig], list[int]]:
    """The settings form: whether Run was pressed with every number in range (else it says which is not),
    a config builder (it may raise) and the rank counts.

    ``busy``: this session's series is still running, so Run is disabled.
    """
    checks: list = []  # (label, value, bounds) of every number box
    with st.form(FORM, border=True, enter_to_submit=False):  # Enter takes a number, runs nothing
        kind, counts, warmup, repeats = _run_inputs(checks)
        per_class, batch, width, threads = _problem_inputs(caps, checks)
        cap = t("ddp.no_cap") if caps.max_seconds is None else duration(caps.max_seconds)
        key = "ddp.caps" if caps.own_image_cap else "ddp.caps_all_sizes"
        st.caption(t(key, images=number(caps.max_images), cap=cap))
        submitted = st.form_submit_button(t("ddp.run"), type="primary", icon=":material/lan:", disabled=busy)

    found = problems(checks) if submitted else []
    if found:  # a number out of its range: say so, and Run does nothing
        st.error(problems_text(found), icon=":material/error:")

    def config() -> RanksConfig:
        # The caller runs it only when no box has a problem, and an empty box is one: all hold numbers.
        if per_class is None or width is None or warmup is None or repeats is None:
            raise ValueError(problems_text(problems(checks)))
        problem = BenchConfig.from_flat(
            per_class=int(per_class),
            batch_size=None if batch == "full" else int(batch),
            width=int(width),
            warmup=int(warmup),
            repeats=int(repeats),
        )
        made = RanksConfig(problem, device=kind, threads=None if threads == "auto" else int(threads))
        _check_memory(made, caps)
        return made

    return submitted and not found, config, sorted(counts)


def _bounded(column: DeltaGenerator, name: str, bounds: Bounds, default: int, checks: list) -> int | None:
    """A whole-number box labelled ddp.<name>, its range the page's to check: it goes to ``checks``."""
    label = t(f"ddp.{name}")
    value = count_field(column, label, default, f"ddp.{name}")
    checks.append((label, value, bounds))
    return value


def _run_inputs(checks: list) -> tuple[str, list[int], int | None, int | None]:
    """The first row: which device, which rank counts, and the warm-up and timed epochs."""
    kinds = {"cpu": t("ddp.device_cpu")}
    if cuda_available():
        kinds["cuda"] = t("ddp.device_cuda")
    top = st.columns([2, 2, 1, 1])
    reword_choice("ddp.device")
    kind = top[0].selectbox(
        t("ddp.device"),
        list(kinds),
        format_func=kinds.__getitem__,
        key="ddp.device",
        placeholder=t("common.choose_one"),
    )
    limit = max(1, max_ranks(kind))
    options = [n for n in RANK_CHOICES if n <= limit]
    counts = top[1].multiselect(
        t("ddp.ranks"),
        options,
        default=options[:2],
        key="ddp.ranks",
        help=t("ddp.ranks_help", limit=limit),
        placeholder=t("common.choose_many"),
    )
    warmup = _bounded(top[2], "warmup", Bounds(1, 20), DEFAULTS.bench.warmup, checks)
    repeats = _bounded(top[3], "repeats", Bounds(1, 100), DEFAULTS.bench.repeats, checks)
    return kind, counts, warmup, repeats


def _problem_inputs(
    caps: Caps, checks: list
) -> tuple[int | None, int | Literal["full"], int | None, int | Literal["auto"]]:
    """The second row: images per class, batch size, model width and CPU threads per process."""
    held = st.columns(4)
    per_class = _bounded(
        held[0], "per_class", Bounds(1, caps.max_images // 3), DEFAULTS.bench.run.data.per_class, checks
    )
    for key in ("ddp.batch", "ddp.threads"):
        reword_choice(key)
    batches: list[int | Literal["full"]] = ["full", *BATCH_SIZES]
    batch = held[1].selectbox(
        t("ddp.batch"),
        batches,
        format_func=lambda v: t("ddp.full_batch") if v == "full" else number(v),
        key="ddp.batch",
        placeholder=t("common.choose_one"),
    )
    width = _bounded(held[2], "width", Bounds(1, MAX_WIDTH), DEFAULTS.bench.run.model.width, checks)
    thread_choices: list[int | Literal["auto"]] = ["auto", *range(1, 17)]
    threads = held[3].selectbox(
        t("ddp.threads"),
        thread_choices,
        format_func=lambda v: t("ddp.threads_auto") if v == "auto" else str(v),
        key="ddp.threads",
        help=t("ddp.threads_help"),
        placeholder=t("common.choose_one"),
    )
    return per_class, batch, width, threads


def _check_memory(config: RanksConfig, caps: Caps) -> None:
    """ValueError with a sentence when one step's activations exceed this server's allowance."""
    needed = step_memory_bytes(config.bench.run.model, config.step_size)
    if caps.max_step_bytes is not None and needed > caps.max_step_bytes:
        raise ValueError(t("ddp.too_big", needed=size(needed), allowed=size(caps.max_step_bytes)))
