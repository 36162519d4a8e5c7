"""The Streamlit adapter: shared sidebar, session keys and chart builders.

This is the only package that imports Streamlit; pages call it, the core never does.
"""

from linecnn.ui.sidebar import setup_page

__all__ = ["setup_page"]
