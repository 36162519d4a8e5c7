"""The Lesson page's snippets: the code as it runs, a Run button and the code's real output."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st
import torch
from babel.numbers import format_decimal

from linecnn.device import list_devices
from linecnn.lesson.run import Outcome, run
from linecnn.lesson.snippets import Snippet
from linecnn.ui.format import decimal_text, device_text
from linecnn.ui.i18n import current, duration, t

RESULTS = "lesson.results"  # session key of {snippet key: its last Outcome}
PENDING = "lesson.pending"  # session key of the snippets whose Run was clicked and that have not run yet


def css_key(snippet: Snippet) -> str:
    """The snippet's key as a CSS class fragment (containers get the class st-key-<key>)."""
    return snippet.key.replace(".", "-")


def show_snippet(snippet: Snippet, device: torch.device, run_label: str) -> None:
    """The code as it runs, then its Run button called ``run_label`` (or why it cannot run here) and the
    last real output."""
    code = snippet.text(current())
    # A plain dict, taken before the run: a Run clicked in another section while this one runs
    # interrupts this script at its next Streamlit call, and storing the outcome through
    # st.session_state would be such a call, so the outcome would be lost.
    results = st.session_state.setdefault(RESULTS, {})
    # The click is noted by the button's callback, before the script starts: a second Run clicked
    # before the script reaches this one would otherwise rerun it without this click, losing it.
    pending = st.session_state.setdefault(PENDING, set())
    st.code(code, language="python")
    with st.container(key=f"lesson-output-{css_key(snippet)}"):
        if snippet.needs_accelerator and device.type == "cpu":
            show_not_run()
        else:
            st.button(
                run_label,
                key=f"lesson.run.{snippet.key}",
                icon=":material/play_arrow:",
                help=t("lesson.run_help", device=device_text(device)),
                on_click=pending.add,
                args=(snippet.key,),
            )
            if snippet.key in pending:
                with st.spinner(t("lesson.running", device=device_text(device))):
                    outcome = run(code, device, printed_number(current()))
                    pending.discard(snippet.key)
                    results[snippet.key] = outcome
        outcome = results.get(snippet.key)
        if outcome is not None:
            show_outcome(snippet, outcome)


def printed_number(language: str) -> Callable[[float], str]:
    """How a snippet's ``print`` writes a number in ``language``, as the pages do: '10.000' and '0,6931'."""

    def write(value: float) -> str:
        if isinstance(value, int):
            return format_decimal(value, format="#,##0", locale=language)
        return decimal_text(value, language)

    return write


def show_not_run() -> None:
    """Why the mistake needs a GPU, and what it does there, clearly marked as not run on this machine."""
    has_gpu = any(info.kind != "cpu" for info in list_devices())
    why = t("lesson.mismatch.pick_gpu" if has_gpu else "lesson.mismatch.no_gpu")
    st.warning(f"{why}\n\n{t('lesson.mismatch.would_happen')}", icon=":material/block:")


def show_outcome(snippet: Snippet, outcome: Outcome) -> None:
    """The real output of the last run: what it printed, or the error it raised."""
    where = {"device": device_text(outcome.device), "time": duration(outcome.seconds)}
    if outcome.error is None:
        if snippet.expects_error:
            st.warning(t("lesson.no_error", **where), icon=":material/help:")
        st.caption(t("lesson.ran", **where))
        st.code(outcome.output or t("lesson.no_output"), language="text")
    elif snippet.expects_error:
        st.error(t("lesson.real_error", **where), icon=":material/error:")
        st.code(outcome.error, language="text")
    else:
        st.error(t("lesson.failed", **where), icon=":material/error:")
        st.code(outcome.error, language="text")
