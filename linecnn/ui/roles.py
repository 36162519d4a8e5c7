"""This session's rights on a shared server (``classroom.roles``); the benchmark's reservation in words."""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import streamlit as st

from linecnn.classroom import reservation
from linecnn.classroom.reservation import Reservation
from linecnn.classroom.roles import Rights, Role, RoleSettings, benchmark_refusal, rights, start_up_line
from linecnn.ui.auth import auth_configured
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import t

# The hosting profile is the config that hides tracebacks from everyone: a server shared with a class.
HOSTING_MARK = ("client.showErrorDetails", "none")


def role_settings() -> RoleSettings:
    """The host's settings about roles; the hosting profile makes this a class server by default."""
    option, value = HOSTING_MARK
    return RoleSettings.from_env(profile_hosted=str(st.get_option(option)).lower() == value)


def roles_start_up_line() -> str:
    """The start-up log's sentence on who may delete, clear and reserve on this server."""
    return start_up_line(auth_configured(), role_settings())


def session_rights() -> Rights:
    """What this session may do: from the signed-in user when sign-in is on, else from the host's settings."""
    settings = role_settings()
    if not auth_configured():
        return rights(None, settings)
    user = st.user.to_dict()
    if not user.get("is_logged_in"):
        return Rights(Role.STUDENT, sees_all=False)  # never drawn: the sign-in screen stops the page first
    return rights(user, settings)


def until_text(held: Reservation) -> str:
    """When a reservation ends: '15:05 (14:05 UTC)' in the browser's own time zone, else '14:05 UTC'.

    A class reads the clock on its wall: a bare UTC time is an hour or more off in most of the world.
    """
    utc = held.until.strftime("%H:%M UTC")
    zone = browser_zone()
    local = held.until.astimezone(zone) if zone is not None else None
    if local is None or local.utcoffset() == held.until.utcoffset():
        return utc
    return f"{local:%H:%M} ({utc})"


def browser_zone() -> ZoneInfo | None:
    """The time zone the reader's browser reports, or None when it reports none this server knows."""
    try:
        name = st.context.timezone
        return ZoneInfo(name) if name else None
    except (ValueError, ZoneInfoNotFoundError):  # an odd name from the browser: say UTC
        return None


def reserved_refusal() -> str | None:
    """Why this session may not benchmark now (a teacher reserved it, until when), or None when it may."""
    held = benchmark_refusal(session_rights(), reservation.current())
    if held is None:
        return None
    return t("bench.reserve.refused", teacher=escape_markdown(held.by), until=until_text(held))


def reserved_stop_text(held: Reservation) -> str:
    """Why a student's queued run left the line: a teacher reserved the benchmark while it waited."""
    return t("bench.reserve.stopped", teacher=escape_markdown(held.by), until=until_text(held))


def reserved_notice() -> None:
    """A line above the benchmark's forms while a teacher holds it, so nobody presses Run in vain."""
    held = reservation.current()
    if held is not None:
        words = {"teacher": escape_markdown(held.by), "until": until_text(held)}
        st.info(t("bench.reserve.notice", **words), icon=":material/lock_clock:")
