"""Lesson: the GPU lesson section by section, each snippet run for real on the sidebar's device."""

import streamlit as st

from linecnn.device import describe
from linecnn.lesson.snippets import SECTIONS
from linecnn.ui.i18n import t
from linecnn.ui.lesson import sections
from linecnn.ui.sidebar import setup_page

device = setup_page("lesson")
st.title(t("lesson.title"))
st.markdown(t("lesson.intro", device=describe(device)))
sections.contents()

for section in SECTIONS:
    sections.show_section(section, device)

sections.recap()
