"""The Benchmark page's results: device cards, where the time goes, the sweep chart, the table."""

from __future__ import annotations

import streamlit as st

from linecnn.bench.factors import FACTORS, SINGLE
from linecnn.ui.bench.results.cards import device_columns, pick_x, render_absent_cuda
from linecnn.ui.bench.results.charts import sweep_figure
from linecnn.ui.bench.results.compare import baseline_series, crossings, incomparable, unmatched
from linecnn.ui.bench.results.data import ShownRun, results_frame
from linecnn.ui.bench.results.table import render_environment, render_table
from linecnn.ui.bench.where_time_goes.section import render_where_time_goes
from linecnn.ui.bench.words import factor_title, factor_words, waits_text, x_text
from linecnn.ui.chart import show_chart
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import t


def render_results(runs: list[ShownRun]) -> None:
    """Everything measured in ``runs``, or what to do when nothing is shown yet."""
    if not runs:
        st.info(t("bench.results.empty"), icon=":material/speed:")
        render_absent_cuda()
        return
    frame = results_frame(runs)
    factor = frame["factor"].iat[0] if len(frame) else SINGLE.name
    group = frame[frame["factor"] == factor]
    timed = group[group["ok"]]
    found = crossings(frame, factor)

    st.subheader(t("bench.results.side_by_side"))
    st.caption(t("bench.results.epoch_only"))
    for series, how in incomparable(frame, factor).items():
        st.warning(
            t(
                "bench.results.incomparable",
                series=escape_markdown(series),
                base=escape_markdown(baseline_series(timed)),
                how=escape_markdown(how),
            ),
            icon=":material/compare_arrows:",
        )
    _unmatched(frame, factor, timed)
    _other_factors(runs, factor)
    x = pick_x(timed, factor, key="bench.at." + "-".join(str(run.id) for run in runs))
    device_columns(group, timed, x)
    waits = waits_text(list(group["result"]))
    if waits:
        st.caption(waits)
    render_where_time_goes(timed, factor, runs)
    if len(timed["x"].unique()) > 1 or FACTORS[factor].values:
        _sweep_chart(timed, group, factor, found)
    if len(frame["factor"].unique()) > 1:
        st.caption(t("bench.results.several_factors"))
    render_table(frame, runs)
    render_environment(runs)


def _unmatched(frame, factor: str, timed) -> None:  # noqa: ANN001 - frames
    """Say which cells of a series have no counterpart in the baseline CPU line, and the reverse."""
    for series, (only_here, only_base) in unmatched(frame, factor).items():
        sizes = lambda xs: ", ".join(x_text(factor, x, exact=True) for x in xs) or "-"  # noqa: E731
        text = t(
            "bench.results.unmatched",
            series=escape_markdown(series),
            base=escape_markdown(baseline_series(timed)),
            here=sizes(only_here),
            there=sizes(only_base),
        )
        st.info(text, icon=":material/compare_arrows:")


def _other_factors(runs: list[ShownRun], factor: str) -> None:
    """Name each shown run that sweeps another factor: it is in the table only, not in the cards or charts."""
    for run in runs:
        if run.document.factor.name != factor:
            text = t(
                "bench.results.other_factor",
                run=escape_markdown(run.name),
                its=factor_words(run.document.factor.name, "sweep"),
                shown=factor_words(factor, "sweep"),
            )
            st.warning(text, icon=":material/compare_arrows:")


def _sweep_chart(timed, group, factor: str, found: dict) -> None:  # noqa: ANN001 - frames
    """Time per epoch against the swept factor, with each accelerator's crossover verdict."""
    st.subheader(t("bench.results.chart_title", factor=factor_title(factor).lower()))
    for series, crossing in found.items():
        icon = ":material/rocket_launch:" if crossing.kind in ("crosses", "always") else ":material/info:"
        st.success(
            t(
                "bench.results.verdict",
                verdict=escape_markdown(crossing.verdict),
                series=escape_markdown(series),
                base=escape_markdown(baseline_series(group)),
            ),
            icon=icon,
        )
    if not found and not (timed["kind"] != "cpu").any():
        st.caption(t("bench.results.cpu_only"))
    alt = t("chart.sweep", factor=factor_title(factor).lower())
    show_chart(sweep_figure(timed, factor, found), "bench.sweep_chart", alt)
    st.caption(t("bench.results.chart_caption"))
