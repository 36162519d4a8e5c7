"""Pressing a run's button brings the run into view, and keeps it there while it draws.

On a phone the Train page's screen ends at its buttons: the progress line and the charts a run draws
come under them, out of sight, and the tap would seem to do nothing. On a laptop the Benchmark page's
form fills the screen: its run's progress and results start about a screen below Run benchmark, where
a student would see only a greyed button. At the end of a Train run its summary starts a screen below
the charts, where a student would not know to look. On Draw a stroke's verdict may lie under the screen's
edge (a phone, or a hint above the canvas). After a press on one of a page's trigger buttons (or a stroke in
its trigger) this scrolls the page's target (a row or a container) into view, and puts it back there
whenever the page changes height (a busy server draws seconds later; a message may appear above),
until the reader scrolls, touches or clicks the page or presses a key, or the follow's time is up.
"""

from __future__ import annotations

from typing import Literal

import streamlit as st

from linecnn.ui.web import asset

# Each page registers its follow (``data``) on every run; the listeners are set up once a tab.
_JS = asset("run-follower.js")
_follower = st.components.v2.component("linecnn_run_follower", js=_JS)


def follow_runs(
    name: str,
    trigger: str,
    target: str,
    seconds: float,
    phone_only: bool = False,
    laptop_only: bool = False,
    press: Literal["button", "stroke"] = "button",
    block: Literal["start", "nearest"] = "start",
    when: Literal["pressed", "filled"] = "pressed",
) -> None:
    """Mount, once a tab, the listener that brings ``target`` into view when ``trigger`` is pressed.

    ``trigger``: a CSS selector of the buttons (or of an element around them) that start a run;
    ``target``: the CSS selector of what is brought into view and kept there for ``seconds``;
    ``phone_only``: only on a screen narrower than 768 px (a laptop already shows what follows);
    ``laptop_only``: only on a screen 768 px wide or more (a phone's reader scrolls down anyway);
    ``press``: "button", a click on a button in ``trigger``, or "stroke", a pen lifted in it;
    ``block``: "start", the target to the top, or "nearest", scrolled only as far as it takes to show
    it whole (what is above it, such as the canvas just drawn on, stays as much as it can);
    ``when``: "pressed", at the press, or "filled", once the target, after the press, has been empty and
    shows something again (a run's summary, when the run ends minutes later), reader's scrolls or not.
    The element this mounts is hidden by layout.css (class ``st-key-follow-<name>``).
    """
    data = {
        "name": name,
        "trigger": trigger,
        "target": target,
        "seconds": seconds,
        "phone": phone_only,
        "laptop": laptop_only,
        "press": press,
        "block": block,
        "when": when,
    }
    _follower(key=f"follow-{name}", data=data)
