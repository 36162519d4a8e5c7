"""A page's address typed in lowercase (``/train``) opens that page, as ``/Train`` does.

Streamlit names a page's address after its file, case and all (pages/1_Train.py is ``/Train``), and
an address it does not know runs Home under an English "Page not found" box. People type the
addresses from a slide in lowercase, so pages/ holds one small file per page named in lowercase
(pages/train.py is ``/train``) that only calls :func:`open_page`. Their links are never drawn: the
sidebar draws its own (linecnn.ui.sidebar.PAGES).
"""

from __future__ import annotations

import streamlit as st


def open_page(script: str) -> None:
    """Switch to ``script`` (relative to app.py), keeping the address's query parameters (``?lang=es``)."""
    st.switch_page(script, query_params=st.query_params.to_dict())
