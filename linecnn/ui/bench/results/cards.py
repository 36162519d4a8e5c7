"""The Benchmark page's device cards: one per series at the size picked, with its time and comparison.

A card compares its series with the baseline CPU line (``compare.baseline_series``). An
accelerator reads "speed-up vs CPU"; another CPU line (another run, day or faster path on a CPU)
is compared with the baseline by name, so two runs of one CPU never read "CPU faster than CPU".
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from linecnn.bench.command import cli_line
from linecnn.device import cuda_unavailable_reason, list_devices
from linecnn.ui.bench.results.compare import baseline_series
from linecnn.ui.bench.state import REQUEST, server_caps
from linecnn.ui.bench.words import ms_text, notes_text, ratio_text, status_text, x_text
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import number, say, t

SAME_SPEED = 0.05  # speed-ups within 5 % of 1x are shown as "about the same", not as a win or a loss


def pick_x(timed: pd.DataFrame, factor: str, key: str) -> float | None:
    """The cell the device cards compare: by default the largest the CPU baseline measured."""
    values = sorted(timed["x"].unique())
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    base = timed[timed["series"] == baseline_series(timed)]["x"]
    return st.select_slider(
        t("bench.cards.compare_at"),
        options=values,
        value=base.max() if len(base) else values[-1],
        format_func=lambda v: x_text(factor, v, exact=True),
        key=key,  # one per set of runs shown: a new set starts at its own default
    )


def cuda_absent_text() -> str | None:
    """What the CUDA card says when this machine has no CUDA, or None when it has."""
    reason = cuda_unavailable_reason()
    if reason is None:
        return None
    return t("bench.cards.no_cuda", reason=say(reason))


def render_absent_cuda() -> None:
    """Say plainly, before any run, that there is no CUDA card to fill on this machine."""
    text = cuda_absent_text()
    if text is not None:
        with st.container(border=True):
            _absent_card(text)


def _absent_card(text: str) -> None:
    """The CUDA card without CUDA: why, and the one command that times the form's sweep on a GPU machine."""
    st.markdown("**CUDA**")
    st.info(text, icon=":material/block:")
    request = st.session_state.get(REQUEST)
    if request is not None:
        st.code(cli_line(request, server_caps()), language="bash", wrap_lines=True)
        st.caption(t("bench.cards.command_caption"))


def device_columns(group: pd.DataFrame, timed: pd.DataFrame, x: float | None) -> None:
    """One card per series at the chosen cell; a CUDA card that says plainly when CUDA is absent."""
    series = list(dict.fromkeys(group["series"]))
    absent = None if (group["kind"] == "cuda").any() else cuda_absent_text()
    if not series:
        series = [info.label for info in list_devices()]
    names = series + ([None] if absent else [])
    columns = st.columns(max(1, min(3, len(names))))  # 4 across cut the numbers short
    for index, name in enumerate(names):
        with columns[index % len(columns)].container(border=True):
            if name is not None:
                _card(name, group, timed, x)
            elif absent is not None:  # the absent card is listed only when there is its text
                _absent_card(absent)


def _card(name: str, group: pd.DataFrame, timed: pd.DataFrame, x: float | None) -> None:
    """Median ms/epoch with its spread, images/s, the comparison and the one-time costs."""
    st.markdown(f"**{escape_markdown(name)}**")
    rows = timed[(timed["series"] == name) & (timed["x"] == x)]
    if rows.empty:
        # Nothing timed here: say what happened to this series' cells at this size, or at all
        # when no cell of the shown runs was timed (then there is no size to pick).
        untimed = group[(group["series"] == name) & ((group["x"] == x) | (x is None))]
        statuses = list(dict.fromkeys(status_text(result) for result in untimed["result"]))
        statuses = statuses or [t("bench.cards.not_here")]
        st.warning(
            t("bench.cards.no_timing", why=escape_markdown("; ".join(statuses))), icon=":material/warning:"
        )
        return
    row = rows.iloc[0]
    left, right = st.columns(2)
    left.metric(t("bench.cards.median"), ms_text(row["median_ms"]))
    _comparison(right, row, baseline_series(group), lone=group["series"].nunique() == 1)
    if not pd.isna(row["vs_eager"]):
        st.markdown(
            t(
                "bench.cards.vs_eager",
                ratio=ratio_text(row["vs_eager"]),
                variant=escape_markdown(row["variant"]),
            )
        )
    if row["disturbed"]:
        st.warning(t("bench.cards.disturbed", reasons=row["disturbed"]), icon=":material/ssid_chart:")
    st.markdown(_spread_text(row))
    st.caption(t("bench.cards.one_time", costs=" · ".join(_one_time_costs(name, group, row))))
    if row["notes"]:
        st.caption(notes_text(row["result"]))  # each note said through say(), which escapes it once


def _spread_text(row: pd.Series) -> str:
    """The card's line under its numbers: the spread, images/s and the cell's shape."""
    return t(
        "bench.cards.spread",
        p25=ms_text(row["p25_ms"]),
        p75=ms_text(row["p75_ms"]),
        repeats=row["repeats"],
        rate=number(row["samples_per_s"]),
        images=number(row["images"]),
        batch=number(row["batch"]),
        width=row["width"],
        convs=row["conv_layers"],
    )


def _one_time_costs(name: str, group: pd.DataFrame, row: pd.Series) -> list[str]:
    """'context 120 ms', 'first epoch 9 ms', ...: the costs paid once, for those the cell measured."""
    costs = [
        ("bench.cards.context", group.loc[group["series"] == name, "context_ms"].dropna()),
        ("bench.cards.first_epoch", pd.Series([row["first_epoch_ms"]]).dropna()),
        (
            "bench.cards.autotune" if row["kind"] == "cuda" else "bench.cards.first_steps",
            pd.Series([row["autotune_ms"]]).dropna(),
        ),
        ("bench.cards.compile", pd.Series([row["compile_ms"]]).dropna()),
    ]
    return [f"{t(key)} {ms_text(values.iat[0])}" for key, values in costs if len(values)]


def _comparison(column, row: pd.Series, base: str | None, lone: bool) -> None:  # noqa: ANN001 - a column
    """The card's second number: images/s when alone, else how it compares with the baseline CPU line."""
    speedup = row["speedup"]
    if lone:
        column.metric(t("bench.cards.rate"), number(row["samples_per_s"]))
        return
    is_cpu = row["kind"] == "cpu"
    label = t("bench.cards.vs_base", base=escape_markdown(base)) if is_cpu else t("bench.cards.speedup")
    if row["series"] == base:
        column.metric(t("bench.cards.baseline"), "1×", help=t("bench.cards.baseline_help"))
    elif pd.isna(speedup):
        column.metric(label, t("bench.cards.na"), help=t("bench.cards.na_help"))
    elif abs(speedup - 1) < SAME_SPEED:
        column.metric(
            label, ratio_text(speedup), delta=t("bench.cards.same"), delta_color="off", delta_arrow="off"
        )
    else:
        if speedup >= 1:
            delta = (
                t("bench.cards.faster")
                if not is_cpu
                else t("bench.cards.times_faster", ratio=ratio_text(speedup))
            )
        else:
            slower = ratio_text(1 / speedup)
            delta = (
                t("bench.cards.times_slower", ratio=slower)
                if is_cpu
                else t("bench.cards.cpu_faster", ratio=slower)
            )
        column.metric(
            label,
            ratio_text(speedup),
            delta=delta,
            delta_color="normal" if speedup >= 1 else "inverse",
            delta_arrow="up" if speedup >= 1 else "down",
        )
