"""The Streamlit adapter: shared sidebar, session keys and chart builders.

This is the only package that imports Streamlit; pages call it, the core never does.
"""

# pandas is imported here, before any page runs, because Plotly does not import it: it looks for
# it in sys.modules. A page importing pandas in one session while another session's live chart
# is built would hand Plotly a half-initialised module (AttributeError: ... no attribute
# 'Series'), killing that session's training run. Every page imports this package first.
import pandas  # noqa: F401
