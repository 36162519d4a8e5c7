"""The Benchmark page's background work, in a thread that never calls Streamlit: sweep, series, profile."""
