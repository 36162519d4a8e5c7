"""'Where the time goes': the measured epochs split into fixed per-step costs and work that grows with size.

Every number on it comes from the sweep on screen (``linecnn.bench.costfit``); the paragraph on GPUs is
words only, and GPU figures appear only when a measured GPU line (a run, an import, a bundled
reference) is on screen.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from linecnn.bench.costfit import CostFit, fit_costs
from linecnn.bench.factors import FACTORS
from linecnn.bench.reference.load import load_references
from linecnn.ui.bench.results.charts import fit_figure
from linecnn.ui.bench.results.data import ShownRun
from linecnn.ui.bench.where_time_goes.repeat import offer_repeat
from linecnn.ui.bench.words import factor_title, ms_text, x_text
from linecnn.ui.chart import show_chart
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import count, number, percent, t

ROUGH_FIT = 0.25  # a line more than 25 % from some measured point is called rough on screen, shares unbolded
# Above 50 % the line misses some measured epoch by half its time or more. Its two parts are fitted to
# the same points, so each can then be off by as much as the smaller part weighs: a split such as
# "100 % fixed, 0.00 µs per image" would be the noise speaking. The page then gives no shares at all.
# A loaded machine's default sweep still fits within it, rough (docs/measurements.md has the figures).
NOISY_FIT = 0.5
EXACT_FIT = 0.005  # two sizes and a line of two costs through both: the fit's closeness proves nothing
REFERENCES = "bench.references"  # session key of the toggle that shows the bundled reference GPU series


def fits(timed: pd.DataFrame) -> dict[str, CostFit]:
    """One fit per series of the shown 'ok' cells that has epochs of at least two sizes."""
    found = {}
    for series, rows in timed.groupby("series", sort=False):
        try:
            found[series] = fit_costs(rows["steps"], rows["images"], rows["median_ms"])
        except ValueError:
            continue
    return found


def render_where_time_goes(timed: pd.DataFrame, factor: str, runs: list[ShownRun]) -> None:
    """Each series' split (or why it is too noisy to split), the chart of the fits, the GPU paragraph."""
    st.subheader(t("bench.explain.title"))
    found = fits(timed) if FACTORS[factor].fits_costs else {}
    if not found:
        st.info(t("bench.explain.needs_sizes"), icon=":material/info:")
        return
    st.markdown(t("bench.explain.intro"))
    split = {}
    for series, fit in found.items():
        rows = timed[timed["series"] == series]
        if fit.max_error > NOISY_FIT:
            _too_noisy(series, fit, rows, runs)
        else:
            split[series] = fit
            st.markdown(_series_text(series, fit, rows, factor))
    if split:
        chart = fit_figure(timed[timed["series"].isin(list(split))], split, factor)
        show_chart(chart, "bench.fit_chart", t("chart.fit", factor=factor_title(factor).lower()))
        st.caption(t("bench.explain.chart_caption"))
    st.markdown(t("bench.explain.gpu"))


def _too_noisy(series: str, fit: CostFit, rows: pd.DataFrame, runs: list[ShownRun]) -> None:
    """Say plainly that this series cannot be split, and offer to time its doubtful cells again."""
    disturbed = int(rows["result"].map(lambda result: bool(result.disturbed)).sum())
    text = t(
        "bench.explain.too_noisy",
        series=escape_markdown(series),
        error=percent(fit.max_error),
        bound=percent(NOISY_FIT),
        points=fit.points,
    )
    if disturbed:
        text += " " + t("bench.explain.disturbed", disturbed=disturbed, points=fit.points)
    st.warning(text, icon=":material/ssid_chart:")
    offer_repeat(series, rows, runs)


def share_text(fraction: float, rough: bool) -> str:
    """A share of an epoch in words: '12%' ('el 12 %'), 'about 12%' when ``rough``, and 'under 1%'
    for a share above zero that rounds to 0%, which 'about 0%' would have called nothing."""
    if fraction > 0 and percent(fraction) == percent(0):
        return t("bench.explain.share_under", one=percent(0.01))
    return t("bench.explain.share_about" if rough else "bench.explain.share", share=percent(fraction))


def balance_text(images: float) -> str:
    """Where both parts weigh the same: 'at about 200 images per step', and 'at under 1 image per step'
    for a balance above zero that rounds to 0, which 'about 0 images' would have called nothing."""
    if round(images) == 0:
        return t("bench.explain.balance_under", one=count(1))
    return t("bench.explain.balance", images=count(round(images)))


def _series_text(series: str, fit: CostFit, rows: pd.DataFrame, factor: str) -> str:
    """The plain-words split for one series, from its smallest to its largest measured epoch.

    Figures are bold only when the fit is close and no cell of the series was disturbed; otherwise
    the sentence says why the split is rough (the fit's distance, or the disturbed cells) before it
    gives any share.
    """
    rows = rows.sort_values("x")
    small, large = rows.iloc[0], rows.iloc[-1]
    disturbed = int(rows["result"].map(lambda result: bool(result.disturbed)).sum())
    close = fit.max_error <= ROUGH_FIT
    # A close line over disturbed cells is rough for the cells' sake: saying it "misses by 0.0 %" would
    # give the fit as the reason.
    key = "series" if close and not disturbed else "series_disturbed" if close else "series_rough"
    text = t(
        f"bench.explain.{key}",
        disturbed=disturbed,
        series=escape_markdown(series),
        error=percent(fit.max_error, 1),
        points=fit.points,
        step=ms_text(fit.per_step_ms),
        image=_microseconds(fit.per_image_ms),
        small=x_text(factor, small["x"], exact=True),
        small_steps=number(small["steps"]),
        small_share=share_text(fit.fixed_share(small["steps"], small["images"]), rough=key != "series"),
        large=x_text(factor, large["x"], exact=True),
        large_steps=number(large["steps"]),
        large_share=share_text(fit.fixed_share(large["steps"], large["images"]), rough=key != "series"),
    )
    if fit.balance_images:  # none without a cost per image, nor without a fixed one to balance it
        text += " " + balance_text(fit.balance_images)
    if key == "series":
        text += " " + t("bench.explain.quality", error=percent(fit.max_error, 1), points=fit.points)
    if fit.points == 2 and fit.max_error < EXACT_FIT:
        text += " " + t("bench.explain.two_points")
    return text


def _microseconds(ms: float) -> str:
    """A per-image cost: '1.3 µs' (or ms when that large)."""
    return ms_text(ms) if ms >= 1 else f"{number(ms * 1000, 2 if ms < 0.01 else 1)} µs"


def reference_runs() -> list[ShownRun]:
    """The bundled reference GPU series, when the page's toggle shows them."""
    if not st.session_state.get(REFERENCES, True):
        return []
    references, _ = load_references()
    return [
        ShownRun(-(100 + index), "reference", reference.document, title=reference.gpu)
        for index, reference in enumerate(references)
    ]


def render_references() -> None:
    """Which reference GPU series are bundled (with their environment), or plainly that none is."""
    references, problems = load_references()
    if not references:
        st.caption(t("bench.reference.none"))
    else:
        st.toggle(
            t("bench.reference.toggle"), value=True, key=REFERENCES, help=t("bench.reference.toggle_help")
        )
        for reference in references:
            st.caption(
                t(
                    "bench.reference.line",
                    gpu=escape_markdown(reference.gpu),
                    torch=escape_markdown(reference.torch_version),
                    cuda=escape_markdown(reference.cuda_version),
                    date=escape_markdown(reference.date[:10]),
                    name=escape_markdown(reference.name),
                )
            )
    for problem in problems:
        st.warning(t("bench.reference.problem", problem=escape_markdown(problem)), icon=":material/warning:")
