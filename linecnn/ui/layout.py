"""Layout rules shared by every page, so each is usable from a phone to a classroom projector.

Streamlit stacks columns only below 640 px; between that and a laptop screen it squeezes
them until button and metric labels are cut to a letter. These rules let rows of columns
wrap instead, and on a phone close the sidebar once a page link in it has been followed.
"""

from __future__ import annotations

import streamlit as st

# Plotly's config for every chart: no toolbar. It covers the legends and titles of the small figures
# the pages draw, none of which needs zoom or pan.
CHART_CONFIG = {"displayModeBar": False}

# A column never gets narrower than what its content needs to read whole; a row that cannot
# give every column that much wraps. Columns holding charts or columns of their own need most.
_CSS = """<style>
/* Less empty space above the title (Streamlit leaves 6rem; its header is 3.75rem tall): on a laptop
   screen the Train page's live charts then fit above the fold. */
[data-testid="stMainBlockContainer"] { padding-top: 4rem; }
/* The restart watcher (restart.py) draws nothing: hidden, it leaves no gap above the title. */
.st-key-restart-watch, [class*="st-key-follow-"], [class*="st-key-focus-keeper-"] { display: none; }
/* A press on a run's button scrolls the run to the top (follow.py): Train's buttons on a phone, the
   Benchmark's progress and results; this keeps them under Streamlit's 3.75rem header. */
.st-key-train-buttons, .st-key-bench-run { scroll-margin-top: 4rem; }
.st-key-train-settings { padding-top: 0.75rem; padding-bottom: 0.75rem; gap: 0.75rem; }
[data-testid="stHorizontalBlock"] { flex-wrap: wrap; }
[data-testid="stColumn"] { min-width: min(100%, 7rem); }
[data-testid="stColumn"]:has([data-testid="stCheckbox"]) { min-width: min(100%, 18rem); }
[data-testid="stColumn"]:has([data-testid="stButtonGroup"]) { min-width: min(100%, 17rem); }
/* A segmented control wider than its column wraps onto a second line, instead of hiding its last
   options behind a scroll that shows no scrollbar (Spanish labels on a phone or a half-width window). */
[data-testid="stButtonGroup"] > div:has(> button) { flex-wrap: wrap; row-gap: 0.25rem; }
[data-testid="stColumn"]:has([data-testid="stMultiSelect"]) { min-width: min(100%, 14rem); }
/* Benchmark History: a picked run's chip shows its whole name, wrapped, not cut after its date (runs
   of one day differ in their machine and owner, named last), and the box grows instead of scrolling. */
.st-key-bench-shown [data-tag] { height: auto; }
.st-key-bench-shown [data-tag] > span { white-space: normal; overflow-wrap: anywhere; }
.st-key-bench-shown [role="group"]:has([data-testid="stMultiSelectTagsContainer"]) { max-height: none; }
/* A metric's label does not wrap: "Exactitud de entrenamiento" needs 10.5rem (before the rule below,
   which a column holding a whole row of metrics keeps). */
[data-testid="stColumn"]:has([data-testid="stMetric"]) { min-width: min(100%, 10.5rem); }
[data-testid="stColumn"]:has(.stPlotlyChart, [data-testid="stHorizontalBlock"]) {
  min-width: min(100%, 18rem);
}
/* A table or a code block beside other text gets a phone's whole width (Home's two columns). */
[data-testid="stColumn"]:has([data-testid="stDataFrame"], [data-testid="stCode"]) {
  min-width: min(100%, 20rem);
}
/* Captions carry much of what a page explains (what a chart shows, what a number means). Streamlit
   fades them to 60 % of the text colour: 4.0:1 on this paper (3.9:1 in the sidebar), under the 4.5:1
   small text needs and too pale for a classroom projector. At 75 % they stay quieter than body text, at
   6.4:1 (6.1:1); being a share of the theme's own text colour, it holds on a dark theme too. */
[data-testid="stCaptionContainer"] { opacity: 0.75; }
/* Keyboard focus shows on the sidebar's page links: Streamlit draws no ring there, and the current
   page's grey highlight looks the same focused or not, so a student tabbing could not tell which link
   Enter would follow. Drawn inside the link, where the sidebar cannot clip it. */
[data-testid="stPageLink"] a:focus-visible { outline: 2px solid #2f6690; outline-offset: -2px; }
@media (max-width: 1100px) {
  [data-testid="stMainBlockContainer"] { padding-left: 1.5rem; padding-right: 1.5rem; }
  section[data-testid="stSidebar"][data-collapsed="false"] { width: 15rem !important; min-width: 15rem; }
}
/* Draw: the input and model choices keep their large gap side by side, but wrapped onto two lines
   (narrower screens) they are one ordinary gap apart, not a 4rem empty band. */
[data-testid="stHorizontalBlock"].st-key-draw-choices { row-gap: 1rem; }
/* Draw: when its three panels (892 px) cannot share a row, the prediction moves next to the canvas,
   narrowed to what is left beside it, and what the model sees goes under both; on a phone, where
   nothing fits beside the canvas, the prediction comes right under it. */
.st-key-draw-panels { container-type: inline-size; }
@container (max-width: 891px) {
  [data-testid="stLayoutWrapper"]:has(> .st-key-draw-prediction) {
    order: 1; flex: 1 1 12rem !important; width: auto !important; min-width: 12rem; max-width: 100%;
  }
  .st-key-draw-prediction { width: 100% !important; }
  [data-testid="stLayoutWrapper"]:has(> .st-key-draw-seen) { order: 2; }
}
</style>"""

# On a phone the sidebar covers the page, and Streamlit leaves it open after a page link in it
# is followed: the new page would sit hidden under it. Close it when such a link is clicked.
_SIDEBAR_JS = """
export default function () {
  if (window.linecnnSidebarCloser) return;
  window.linecnnSidebarCloser = true;
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest('[data-testid="stSidebar"] a');
    if (!link || !window.matchMedia("(max-width: 767px)").matches) return;
    const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (close) close.click();
  });
}
"""
_sidebar_closer = st.components.v2.component("linecnn_sidebar_closer", js=_SIDEBAR_JS)


def apply_layout() -> None:
    """Add the shared layout rules to the page and the phone sidebar closer to the sidebar."""
    st.html(_CSS)
    with st.sidebar:
        _sidebar_closer(key="layout.sidebar_closer")
