"""A tab that comes back to a restarted server says so: its runs, and any benchmark running, are gone.

After a server restart Streamlit reconnects the open tab to a fresh session and redraws the page
empty, without a word. Each server process draws a random id once; the tab keeps the last id it saw
in the browser's ``sessionStorage`` (one per tab, kept across reloads and reconnections, gone with
the tab) and reports the one before when they differ. A fresh tab has none yet, and a reload on the
same server finds the same id: neither says anything, and no reload is ever called a restart (the
Train page's intro already says that a reload starts afresh).
"""

from __future__ import annotations

import secrets

import streamlit as st

from linecnn.ui.auth import auth_configured
from linecnn.ui.i18n import t
from linecnn.ui.web import asset

BOOT = secrets.token_hex(8)  # this server process's id, drawn when the first page imports this module
WATCH = "restart.watch"  # key of the component that reports the id the tab saw before this server's
NOTICE = "restart.notice"  # session key: True while the notice is up (until the reader puts it away)
NOTED = "restart.noted"  # session key: the earlier id already noticed, so one restart is said once

# A trigger, not a state value: Streamlit hands a reconnected session the tab's old widget states,
# and a stale report must not be taken for a new restart.
_JS = asset("restart-watch.js")
_watch = st.components.v2.component("linecnn_restart_watch", js=_JS)


def watch_restart() -> None:
    """Ask the tab which server it last reached; one other than this one raises the notice, once."""
    previous = _watch(key=WATCH, data={"boot": BOOT}, on_previous_change=lambda: None).get("previous")
    if not isinstance(previous, str) or previous in ("", BOOT) or previous == st.session_state.get(NOTED):
        return
    st.session_state[NOTED] = previous
    st.session_state[NOTICE] = True


def show_restart_notice() -> None:
    """The notice, in the reader's language, with a button that puts it away."""
    if not st.session_state.get(NOTICE):
        return
    with st.container(key="restart-notice"):
        said = t("sidebar.restarted")
        if auth_configured():  # only signed-in teachers reserve the benchmark
            said += " " + t("sidebar.restarted_reservation")
        st.warning(said, icon=":material/restart_alt:")
        st.button(t("sidebar.restarted_ok"), key="restart.dismiss", on_click=_dismiss)


def _dismiss() -> None:
    """The button's callback: the notice goes, on this page and the others."""
    st.session_state[NOTICE] = False
