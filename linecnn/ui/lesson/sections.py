"""The Lesson page's outline: the contents, each section's heading, text and link, and the recap."""

from __future__ import annotations

import streamlit as st
import torch

from linecnn.lesson.snippets import SECTIONS, Section, Snippet
from linecnn.ui.i18n import t
from linecnn.ui.lesson.snippets import show_snippet

# Where the app puts each section's idea to work: (page script, its name in sidebar.toml, icon).
LINKS = {
    "device": ("app.py", "home", ":material/home:"),
    "detect": ("app.py", "home", ":material/home:"),
    "move": ("pages/1_Train.py", "train", ":material/model_training:"),
    "mismatch": ("pages/3_Draw.py", "draw", ":material/draw:"),
    "evaluate": ("pages/1_Train.py", "train", ":material/model_training:"),
    "portable": ("pages/1_Train.py", "train", ":material/model_training:"),
    "speed": ("pages/2_Benchmark.py", "benchmark", ":material/speed:"),
}


def contents() -> None:
    """The sections as links to their headings."""
    lines = [f"{index}. [{t(f'lesson.{s.key}.title')}](#{s.key})" for index, s in enumerate(SECTIONS, 1)]
    st.markdown(f"**{t('lesson.contents')}**\n\n" + "\n".join(lines))


def show_section(section: Section, device: torch.device) -> None:
    """One section: its heading and text, each snippet with Run and output, and the page that shows it."""
    with st.container(key=f"lesson-{section.key}"):
        st.header(t(f"lesson.{section.key}.title"), anchor=section.key, divider="gray")
        st.markdown(t(f"lesson.{section.key}.text"))
        for snippet in section.snippets:
            if len(section.snippets) > 1:
                st.markdown(f"**{t(f'lesson.{snippet.key}')}**")
            show_snippet(snippet, device, run_label(section, snippet))
        path, page, icon = LINKS[section.key]
        st.page_link(path, label=t("lesson.see", page=t(f"sidebar.page.{page}")), icon=icon)
        st.caption(t(f"lesson.{section.key}.link"))


def run_label(section: Section, snippet: Snippet) -> str:
    """A Run button's name: its section's number, and which snippet in a section of two, e.g. 'Run section
    4: the fix'. A screen reader lists a page's buttons by name; seven called 'Run' would be one blur."""
    number = SECTIONS.index(section) + 1  # as the contents list numbers it
    if len(section.snippets) == 1:
        return t("lesson.run", number=number)
    return t("lesson.run_part", number=number, part=t(f"lesson.{snippet.key}_part"))


def recap() -> None:
    """The lesson's closing: what to remember and the usual mistakes."""
    st.header(t("lesson.recap.title"), anchor="recap", divider="gray")
    # Keyed for the layout's rule that stacks the two lists on a phone (layout.css).
    remember, mistakes = st.container(key="lesson-recap").columns(2, gap="large")
    remember.markdown(t("lesson.recap.remember"))
    mistakes.markdown(t("lesson.recap.mistakes"))
