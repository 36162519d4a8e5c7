"""Keyboard focus stays with a run's buttons when the page disables or removes the one that had it.

Pressing Start (Train) or Run benchmark disables that very button on the next rerun, and a run's end
takes away Cancel or disables Pause. The browser then drops the focus to the page itself: a screen
reader says nothing, or reads the page from the top, and the next Tab may begin at the top of the page,
far from the run. A group names, most wanted first, the buttons that act on one run; when the focused
button of a group is disabled or removed, the first enabled button of its group gets the focus (Pause
while a run trains, Start once it ends; Cancel while a benchmark runs, Run benchmark after). The page does not
scroll to it, so a reader who scrolled to the charts stays there. Focus moved by the reader (a Tab, a
click elsewhere) is left alone.
"""

from __future__ import annotations

import re

import streamlit as st

from linecnn.ui.web import asset

_JS = asset("focus-keeper.js")
_keeper = st.components.v2.component("linecnn_focus_keeper", js=_JS)
_NOT_IN_CLASS = re.compile(r"[^a-zA-Z0-9_-]")  # what Streamlit writes as '-' in an element's st-key- class


def key_selector(key: str) -> str:
    """The CSS selector of the element Streamlit draws for the widget or container ``key``."""
    return ".st-key-" + _NOT_IN_CLASS.sub("-", key.strip())


def submit_selector(form_key: str) -> str:
    """The CSS selector of the submit button of the form ``form_key`` (its key ends with its label)."""
    return f'[class*="st-key-FormSubmitter-{_NOT_IN_CLASS.sub("-", form_key.strip())}-"] button'


def keep_focus(name: str, groups: list[list[str]]) -> None:
    """Mount, once a tab, the script that moves a lost focus to the first enabled button of its group.

    ``groups``: each a list of CSS selectors of buttons, most wanted first (see the module's docstring).
    """
    _keeper(key=f"focus-keeper-{name}", data={"name": name, "groups": groups})
