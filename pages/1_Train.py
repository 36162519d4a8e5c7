"""Train (being built)."""

import streamlit as st

from linecnn.ui import setup_page

device = setup_page("Train", ":material/model_training:")
st.title("Train")
