"""The Benchmark page's class controls, for whom the host allows: reserve the benchmark, clear the history."""

from __future__ import annotations

import streamlit as st

from linecnn.bench.store import History
from linecnn.classroom import reservation
from linecnn.classroom.reservation import MAX_MINUTES
from linecnn.classroom.roles import Rights
from linecnn.ui import notice
from linecnn.ui.bench.state import MESSAGE, SHOWN, history_problem
from linecnn.ui.bounds import Bounds
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import count as counted
from linecnn.ui.i18n import current, t
from linecnn.ui.number_boxes import TEXT, count_box, read_count, whole
from linecnn.ui.roles import until_text
from linecnn.ui.streamlit_private import DeltaGenerator

RESERVE = "bench.reserve"  # keys of the reservation's controls: its minutes, Reserve, Release
CLEAR = "bench.clear"  # keys of the clear control: the confirmation, the button
# The class controls' expander: keyed, so it stays open when the reservation's notice appears above it.
CLASS_TOOLS = "bench.class"
LESSON_MINUTES = 45  # the reservation a teacher is offered first: one lesson
MINUTES = Bounds(1, MAX_MINUTES)  # the reservations the Minutes box accepts


def render_teacher_tools(store: History, session: Rights) -> None:
    """The class controls this session may use, in one expander; nothing when it may use none."""
    if not (session.reserve or session.clear):
        return
    with st.expander(t("bench.class.title"), icon=":material/admin_panel_settings:", key=CLASS_TOOLS) as box:
        if session.reserve:
            _reserve_control(box, session)
        if session.clear:
            _clear_control(store)


def _reserve_control(box: DeltaGenerator, session: Rights) -> None:
    """Reserve the benchmark for some minutes (students' Run is refused meanwhile), or end a reservation."""
    st.markdown(t("bench.reserve.what"))
    held = reservation.current()
    if held is not None:
        st.caption(t("bench.reserve.held", teacher=escape_markdown(held.by), until=until_text(held)))
    # The page's own number box, checked by the page (ui.bounds): a box Streamlit refuses still shows
    # the refused number while Reserve would take the last one it accepted.
    count_box(box, t("bench.reserve.minutes"), LESSON_MINUTES, RESERVE + ".minutes")
    problem = MINUTES.problem(t("bench.reserve.minutes"), _minutes())
    if problem is not None:
        st.error(problem, icon=":material/error:")
    # One under the other: side by side, a phone's narrow column cuts the second label short.
    st.button(
        t("bench.reserve.button"),
        key=RESERVE,
        icon=":material/lock_clock:",
        disabled=problem is not None,
        on_click=_reserve,
        args=(session.name or session.user,),
    )
    st.button(
        t("bench.reserve.release"),
        key=RESERVE + ".release",
        icon=":material/lock_open:",
        disabled=held is None,
        on_click=_release,
    )


def _minutes() -> int | None:
    """The whole minutes the Minutes box holds now, as typed in the page's language; None if no number."""
    value = read_count(st.session_state.get(TEXT.format(RESERVE + ".minutes")), current())
    return None if value is None else whole(value)


def _reserve(by: str) -> None:
    """The Reserve button's callback: hold the benchmark for the minutes chosen and say until when."""
    # Read from the box's text here, not bound when drawn: a value typed just before the click counts.
    minutes = _minutes()
    if minutes is None or MINUTES.problem("", minutes) is not None:
        return  # the box says what is wrong, and Reserve is disabled until it is fixed
    held = reservation.reserve(by, minutes)
    notice.keep(MESSAGE, lambda: ("info", t("bench.reserve.done", until=until_text(held))))


def _release() -> None:
    """The Release button's callback: students may run again now."""
    reservation.release()
    notice.keep(MESSAGE, notice.said("info", t, "bench.reserve.released"))


def _clear_control(store: History) -> None:
    """Delete every run of this server's history, after a confirmation."""
    sure = st.checkbox(t("bench.clear.sure"), key=CLEAR + ".sure")
    st.button(
        t("bench.clear.button"),
        key=CLEAR,
        icon=":material/delete_sweep:",
        disabled=not sure,
        on_click=_clear,
        args=(store,),
    )


def _clear(store: History) -> None:
    """The Clear button's callback: forget every run, take them off screen, reset the confirmation."""
    try:
        count = store.clear()
    except ValueError as error:
        notice.keep(MESSAGE, notice.said("error", history_problem, error))
    else:
        notice.keep(MESSAGE, lambda: ("info", t("bench.clear.done", count=counted(count))))
        st.session_state[SHOWN] = []
    st.session_state[CLEAR + ".sure"] = False
