"""Layout rules shared by every page, so each is usable from a phone to a classroom projector.

Streamlit stacks columns only below 640 px; between that and a laptop screen it squeezes
them until button and metric labels are cut to a letter. These rules let rows of columns
wrap instead, and on a phone close the sidebar once a page link in it has been followed.
"""

from __future__ import annotations

import streamlit as st

from linecnn.ui.web import asset

# Plotly's config for every chart: no toolbar. It covers the legends and titles of the small figures
# the pages draw, none of which needs zoom or pan.
CHART_CONFIG = {"displayModeBar": False}

# A column never gets narrower than what its content needs to read whole; a row that cannot
# give every column that much wraps. Columns holding charts or columns of their own need most.
_CSS = f"<style>{asset('layout.css')}</style>"

# On a phone the sidebar covers the page, and Streamlit leaves it open after a page link in it
# is followed: the new page would sit hidden under it. Close it when such a link is clicked.
_SIDEBAR_JS = asset("sidebar-closer.js")
_sidebar_closer = st.components.v2.component("linecnn_sidebar_closer", js=_SIDEBAR_JS)


def apply_layout() -> None:
    """Add the shared layout rules to the page and the phone sidebar closer to the sidebar."""
    st.html(_CSS)
    with st.sidebar:
        _sidebar_closer(key="layout.sidebar_closer")
