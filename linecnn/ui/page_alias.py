"""A lowercase page address (pages/train.py is ``/train``) sends the browser on to the page itself."""

from __future__ import annotations

import streamlit as st


def open_page(script: str) -> None:
    """Switch to ``script`` (relative to app.py), keeping the address's query parameters (``?lang=es``)."""
    st.switch_page(script, query_params=st.query_params.to_dict())
