"""linecnn: a tiny CNN on 8x8 line images, trained and timed on any device.

The core (everything outside ``linecnn.ui``) never imports Streamlit.
"""

__version__ = "0.1.0"
