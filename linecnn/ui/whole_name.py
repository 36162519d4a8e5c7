"""The whole name of a picked option, under its picker, when a phone's closed picker cuts it.

A closed choice box shows its option on one line, cut with no way to read the rest (its text is an
input's value, which cannot wrap), so on a 390 px phone two runs named alike from the start read the
same. A name longer than such a box shows is written out under it.
"""

from __future__ import annotations

import streamlit as st

from linecnn.ui.format import escape_markdown

# Characters a closed choice box shows whole on a 390 px phone: 42 beside its clear button (Benchmark's
# delete picker: "#2 · 2026-06-02 14:01 · variando datos · d"), about 54 without one (Draw's model
# picker). A little under each: a name said twice is better than one cut and never said.
PHONE_CHARS = 40
PHONE_CHARS_UNCLEARABLE = 52


def show_whole_name(name: str | None, fits: int = PHONE_CHARS) -> None:
    """Write ``name`` under the picker above when it is longer than the ``fits`` characters a phone's
    closed picker shows."""
    if name and len(name) > fits:
        st.caption(escape_markdown(name, limit=len(name)))
