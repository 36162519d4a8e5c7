"""The Lesson page's views: each section's text, its code, a Run button and the code's real output."""

from __future__ import annotations

import streamlit as st
import torch

from linecnn.device import describe, list_devices
from linecnn.lesson import SECTIONS, Outcome, Section, Snippet, run
from linecnn.ui.i18n import current, number, t

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
RESULT = "lesson.result.{}"  # session key of a snippet's last Outcome, formatted with its key


def css_key(snippet: Snippet) -> str:
    """The snippet's key as a CSS class fragment (containers get the class st-key-<key>)."""
    return snippet.key.replace(".", "-")


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
            show_snippet(snippet, device)
        path, page, icon = LINKS[section.key]
        st.page_link(path, label=t("lesson.see", page=t(f"sidebar.page.{page}")), icon=icon)
        st.caption(t(f"lesson.{section.key}.link"))


def show_snippet(snippet: Snippet, device: torch.device) -> None:
    """The code as it runs, then a Run button (or why it cannot run here) and the last real output."""
    code = snippet.text(current())
    st.code(code, language="python")
    with st.container(key=f"lesson-output-{css_key(snippet)}"):
        if snippet.needs_accelerator and device.type == "cpu":
            show_not_run()
        elif st.button(
            t("lesson.run"),
            key=f"lesson.run.{snippet.key}",
            icon=":material/play_arrow:",
            help=t("lesson.run_help", device=describe(device)),
        ):
            with st.spinner(t("lesson.running", device=describe(device))):
                st.session_state[RESULT.format(snippet.key)] = run(code, device)
        outcome = st.session_state.get(RESULT.format(snippet.key))
        if outcome is not None:
            show_outcome(snippet, outcome)


def show_not_run() -> None:
    """Why the mistake needs a GPU, and what it does there, clearly marked as not run on this machine."""
    has_gpu = any(info.kind != "cpu" for info in list_devices())
    why = t("lesson.mismatch.pick_gpu" if has_gpu else "lesson.mismatch.no_gpu")
    st.warning(f"{why}\n\n{t('lesson.mismatch.would_happen')}", icon=":material/block:")


def show_outcome(snippet: Snippet, outcome: Outcome) -> None:
    """The real output of the last run: what it printed, or the error it raised."""
    where = {"device": describe(outcome.device), "ms": number(outcome.seconds * 1000)}
    if outcome.error is None:
        if snippet.expects_error:
            st.warning(t("lesson.no_error", **where), icon=":material/help:")
        st.caption(t("lesson.ran", **where))
        st.code(outcome.output or t("lesson.no_output"), language="text")
    elif snippet.expects_error:
        st.error(t("lesson.real_error", **where), icon=":material/error:")
        st.code(outcome.error, language="text", wrap_lines=True)
    else:
        st.error(t("lesson.failed", **where), icon=":material/error:")
        st.code(outcome.error, language="text", wrap_lines=True)


def recap() -> None:
    """The lesson's closing: what to remember and the usual mistakes."""
    st.header(t("lesson.recap.title"), anchor="recap", divider="gray")
    remember, mistakes = st.columns(2, gap="large")
    remember.markdown(t("lesson.recap.remember"))
    mistakes.markdown(t("lesson.recap.mistakes"))
