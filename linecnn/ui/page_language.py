"""The page's own language tag (``<html lang>``) set to the language the page is written in.

Streamlit's page says ``lang="en"`` whatever it shows. A screen reader picks its voice and its
pronunciation from that tag: a Spanish page tagged English is read aloud with English sounds, hard
to follow for the student who relies on it. Hyphenation and the browser's spell check follow the tag too.
"""

from __future__ import annotations

import streamlit as st

from linecnn.ui.i18n import current
from linecnn.ui.web import asset

# Runs again with the new language on every rerun, so a switch in the sidebar is followed at once.
_JS = asset("page-language.js")
_page_language = st.components.v2.component("linecnn_page_language", js=_JS)


def mark_page_language() -> None:
    """Tag the page with the session's language ('en' or 'es'), for screen readers and the browser."""
    _page_language(key="page_language", data={"lang": current()})
