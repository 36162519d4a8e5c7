"""The data-parallel factor's settings form: device, rank counts, timing and the problem."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from linecnn.bench.config import BenchConfig
from linecnn.bench.factors import BATCH_SIZES
from linecnn.bench.plan import Caps
from linecnn.device import cuda_available
from linecnn.parallel.config import RanksConfig, max_ranks
from linecnn.train.config import MAX_WIDTH
from linecnn.train.limits import step_memory_bytes
from linecnn.ui.i18n import duration, number, size, t

RANK_CHOICES = (1, 2, 4, 8, 16, 32, 64)  # offered up to what this machine can run
DEFAULTS = RanksConfig()  # the widgets' starting values


def form(caps: Caps, busy: bool) -> tuple[bool, Callable[[], RanksConfig], list[int]]:
    """The settings form: whether Run was pressed, a config builder (it may raise) and the rank counts.

    ``busy``: this session's series is still running, so Run is disabled.
    """
    with st.form("ddp.settings", border=True):
        kind, counts, warmup, repeats = _run_inputs()
        per_class, batch, width, threads = _problem_inputs(caps)
        cap = t("ddp.no_cap") if caps.max_seconds is None else duration(caps.max_seconds)
        st.caption(t("ddp.caps", images=number(caps.max_images), cap=cap))
        submitted = st.form_submit_button(t("ddp.run"), type="primary", icon=":material/lan:", disabled=busy)

    def config() -> RanksConfig:
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

    return submitted, config, sorted(counts)


def _run_inputs() -> tuple[str, list[int], int, int]:
    """The first row: which device, which rank counts, and the warm-up and timed epochs."""
    kinds = {"cpu": t("ddp.device_cpu")}
    if cuda_available():
        kinds["cuda"] = t("ddp.device_cuda")
    top = st.columns([2, 2, 1, 1])
    kind = top[0].selectbox(t("ddp.device"), list(kinds), format_func=kinds.get, key="ddp.device")
    limit = max(1, max_ranks(kind))
    options = [n for n in RANK_CHOICES if n <= limit]
    counts = top[1].multiselect(
        t("ddp.ranks"), options, default=options[:2], key="ddp.ranks", help=t("ddp.ranks_help", limit=limit)
    )
    warmup = top[2].number_input(t("ddp.warmup"), 1, 20, DEFAULTS.bench.warmup, key="ddp.warmup")
    repeats = top[3].number_input(t("ddp.repeats"), 1, 100, DEFAULTS.bench.repeats, key="ddp.repeats")
    return kind, counts, warmup, repeats


def _problem_inputs(caps: Caps) -> tuple[int, int | str, int, int | str]:
    """The second row: images per class, batch size, model width and CPU threads per process."""
    held = st.columns(4)
    per_class = held[0].number_input(
        t("ddp.per_class"), 1, caps.max_images // 3, DEFAULTS.bench.run.data.per_class, key="ddp.per_class"
    )
    batch = held[1].selectbox(
        t("ddp.batch"),
        ["full", *BATCH_SIZES],
        format_func=lambda v: t("ddp.full_batch") if v == "full" else number(v),
        key="ddp.batch",
    )
    width = held[2].number_input(
        t("ddp.width"), 1, MAX_WIDTH, DEFAULTS.bench.run.model.width, key="ddp.width"
    )
    threads = held[3].selectbox(
        t("ddp.threads"),
        ["auto", *range(1, 17)],
        format_func=lambda v: t("ddp.threads_auto") if v == "auto" else str(v),
        key="ddp.threads",
        help=t("ddp.threads_help"),
    )
    return per_class, batch, width, threads


def _check_memory(config: RanksConfig, caps: Caps) -> None:
    """ValueError with a sentence when one step's activations exceed this server's allowance."""
    needed = step_memory_bytes(config.bench.run.model, config.step_size)
    if needed > caps.max_step_bytes:
        raise ValueError(t("ddp.too_big", needed=size(needed), allowed=size(caps.max_step_bytes)))
