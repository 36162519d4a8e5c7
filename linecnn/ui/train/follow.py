"""On a phone, pressing Start or Step brings the run into view.

A phone's screen ends at the Train page's buttons: the progress line and the charts a run draws come
under them, out of sight, and the tap seemed to do nothing. After a tap on one of the run buttons this
scrolls their row to the top of the screen, with the progress and the loss chart under it and Pause and
Stop still in reach, and keeps it there while the run's first redraws change the page, until the reader
scrolls or touches the screen. A laptop screen already shows the charts under the buttons, so it is left
alone.
"""

from __future__ import annotations

import streamlit as st

from linecnn.ui.web import asset

BUTTONS_KEY = "train-buttons"  # the row of Start, Pause, Step and Stop: its element's class is st-key-<key>

_JS = asset("run-follower.js")
_follower = st.components.v2.component("linecnn_run_follower", js=_JS)


def follow_runs() -> None:
    """Mount, once a tab, the listener that scrolls a phone to the run when Start or Step is pressed."""
    _follower(key="train-follow")
