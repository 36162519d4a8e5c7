"""/lesson: the Lesson page's address as people type it (Streamlit's addresses are case-sensitive)."""

from linecnn.ui.page_alias import open_page

open_page("pages/4_Lesson.py")
