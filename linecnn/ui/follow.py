"""Pressing a run's button brings the run into view, and keeps it there while it draws.

On a phone the Train page's screen ends at its buttons: the progress line and the charts a run draws
come under them, out of sight, and the tap seemed to do nothing. On a laptop the Benchmark page's form
fills the screen: its run's progress and results start about a screen below Run benchmark, and a
student saw only a greyed button. After a press on one of a page's trigger buttons this scrolls the
page's target (a row or a container) to the top of the screen, and puts it back there whenever the page
changes height (a busy server draws seconds later; a message may appear above), until the reader
scrolls, touches or clicks the page or presses a key, or the follow's time is up.
"""

from __future__ import annotations

import streamlit as st

from linecnn.ui.web import asset

# Each page registers its follow (``data``) on every run; the listeners are set up once a tab.
_JS = asset("run-follower.js")
_follower = st.components.v2.component("linecnn_run_follower", js=_JS)


def follow_runs(name: str, trigger: str, target: str, seconds: float, phone_only: bool = False) -> None:
    """Mount, once a tab, the listener that brings ``target`` to the top when ``trigger`` is pressed.

    ``trigger``: a CSS selector of the buttons (or of an element around them) that start a run;
    ``target``: the CSS selector of what is brought to the top and kept there for ``seconds``;
    ``phone_only``: only on a screen narrower than 768 px (a laptop already shows what follows).
    The element this mounts is hidden by layout.css (class ``st-key-follow-<name>``).
    """
    data = {"name": name, "trigger": trigger, "target": target, "seconds": seconds, "phone": phone_only}
    _follower(key=f"follow-{name}", data=data)
