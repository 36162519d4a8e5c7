"""A link to a section (``/Lesson#move``) lands on that section even when the sidebar adds ``?lang=``.

Streamlit writes a changed query string to the address without its ``#anchor``, and that happens
before the section's heading is drawn, so the browser scrolls nowhere. The first address the tab
opened is still known to the browser (its navigation entry): once the heading exists, the anchor is
put back in the address (a copied link keeps both) and the heading is scrolled into view.
"""

from __future__ import annotations

import streamlit as st

from linecnn.ui.web import asset

_JS = asset("anchor-keeper.js")
_anchor_keeper = st.components.v2.component("linecnn_anchor_keeper", js=_JS)


def keep_anchor() -> None:
    """Put the tab's first ``#anchor`` back once its heading is drawn, and scroll to it (once a tab)."""
    _anchor_keeper(key="anchor.keeper")
