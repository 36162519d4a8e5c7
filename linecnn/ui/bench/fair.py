"""Whether this session may benchmark now, its share of the server's benchmark time, and the queue in words.

``may_benchmark`` is the one question every benchmark start asks (``job_view.start_job``): a host's
other rules about who may benchmark (a teacher reserving it, say) belong there too.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

import streamlit as st

from linecnn.bench.plan import Caps
from linecnn.classroom.allowance import LEDGER, MIN_RUN_SECONDS, Allowance
from linecnn.classroom.bench_turns import BENCH_TURNS
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import duration, number, t
from linecnn.ui.roles import reserved_refusal, session_rights

SESSION = "bench.session"  # a short name for this session in the benchmark queue
_SHOWN_AS: dict[str, str] = {}  # signed-in queue names (e-mail) -> how the class sees that person


def session_name() -> str:
    """Who this session is in the benchmark queue and its share: the signed-in user, else a short random name.

    Signed in, every tab of one student is the same person, so a new tab brings no fresh share, and the
    queue shows their name (never their e-mail); without sign-in each session draws a name on first use.
    """
    rights = session_rights()
    if rights.user:
        _SHOWN_AS[rights.user] = rights.name or rights.user
        return rights.user
    return st.session_state.setdefault(SESSION, uuid.uuid4().hex[:6])


def may_benchmark() -> str | None:
    """None when this session may start a benchmark now; else why not, in the reader's language."""
    reserved = reserved_refusal()  # a teacher holds the benchmark: teachers only
    if reserved is not None:
        return reserved
    allowance = Allowance.from_env()
    left = LEDGER.left(session_name(), allowance)
    # left is None exactly when the allowance has no cap (allowance.seconds is None)
    if left is None or allowance.seconds is None or left >= MIN_RUN_SECONDS:
        return None
    return t(
        "bench.fair.used_up",
        share=duration(allowance.seconds),
        window=_window(allowance.window),
        wait=duration(LEDGER.ready_in(session_name(), allowance)),
    )


def session_caps(caps: Caps) -> Caps:
    """The server's caps with the time cap cut to what this session has left of its share."""
    left = LEDGER.left(session_name(), Allowance.from_env())
    if left is None or (caps.max_seconds is not None and caps.max_seconds <= left):
        return caps
    return replace(caps, max_seconds=left)


def share_text() -> str:
    """The form's note on this session's share: how much per window, how much is left."""
    allowance = Allowance.from_env()
    left = LEDGER.left(session_name(), allowance)
    if left is None or allowance.seconds is None:  # either says the allowance has no cap
        return t("bench.fair.no_share")
    return t(
        "bench.fair.share_user" if session_rights().user else "bench.fair.share",
        share=duration(allowance.seconds),
        window=_window(allowance.window),
        left=duration(left),
    )


def _window(seconds: float) -> str:
    """The share's window: 'hour', '2 hours', or a duration when not whole hours."""
    hours = seconds / 3600
    if hours == 1:
        return t("bench.fair.hour")
    return t("bench.fair.hours", n=number(hours)) if hours.is_integer() else duration(seconds)


def queue_text() -> str | None:
    """Who runs the benchmark now and who waits, each with their time; None when nobody does."""
    holders, waiting = BENCH_TURNS.holders(), BENCH_TURNS.waiters()
    if not holders and not waiting:
        return None
    me = session_name()

    def name(who: str) -> str:
        return t("bench.fair.you") if who == me else escape_markdown(_SHOWN_AS.get(who, who))

    running = ", ".join(f"{name(h.who)} ({duration(h.seconds)})" for h in holders) or t("bench.fair.nobody")
    queued = ", ".join(f"{name(w.who)} ({duration(w.seconds)})" for w in waiting) or t("bench.fair.nobody")
    return t("bench.fair.queue", running=running, waiting=queued)
