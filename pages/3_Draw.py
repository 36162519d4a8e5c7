"""Draw: a canvas downsampled to 8x8 and classified (being built, see issue 3)."""

import streamlit as st

from linecnn.ui import setup_page

device = setup_page("Draw", ":material/draw:")
st.title("Draw")
st.info(
    "This page will let you draw a line with the mouse, show the 8×8 image the model sees, "
    "and classify it as vertical, horizontal or diagonal.",
    icon=":material/construction:",
)
