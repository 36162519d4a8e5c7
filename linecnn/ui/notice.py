"""A message that outlives the rerun that made it, worded again on every rerun in the reader's language.

A page keeps what it has to say (a benchmark's end, a deletion, a refusal) across reruns. Kept as
finished text, it would stay in the language of the moment it was made after the reader switches;
kept as a function that words it, it follows the switch.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

Notice = Callable[[], tuple[str, str]]  # returns (kind: "success", "info", "warning" or "error"; Markdown)


def said(kind: str, word: Callable[..., str], *args: object, **fields: object) -> Notice:
    """A notice of ``kind`` worded as ``word(*args, **fields)`` at each showing: said("info", t, key)."""
    return lambda: (kind, word(*args, **fields))


def keep(key: str, notice: Notice) -> None:
    """Keep ``notice`` under ``key`` until it is replaced or dropped."""
    st.session_state[key] = notice


def show(key: str, icon: str | None = None, error_icon: str | None = None) -> None:
    """Show the notice under ``key``, if any, with the Streamlit element of its kind (and ``error_icon``,
    when given, on an error)."""
    notice = st.session_state.get(key)
    if notice is not None:
        show_notice(notice, icon, error_icon)


def show_notice(notice: Notice, icon: str | None = None, error_icon: str | None = None) -> None:
    """Show ``notice`` now, worded in the reader's language, with the element of its kind."""
    kind, text = notice()
    icon = error_icon if kind == "error" and error_icon is not None else icon
    {"success": st.success, "warning": st.warning, "error": st.error}.get(kind, st.info)(text, icon=icon)
