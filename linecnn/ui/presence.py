"""Whether a session's browser is still connected, asked of the web server from any thread.

The Train page asks it of its own script run (``train.away``); a benchmark's background thread asks it
about the session that started it (``bench.job_view``), which the thread cannot look up itself: only a
script run knows its session.
"""

from __future__ import annotations

from functools import partial

from linecnn.jobs.absence import Connected
from linecnn.ui.streamlit_private import get_script_run_ctx, runtime


def connection() -> Connected:
    """A callable, usable from any thread, that says whether this script run's session is connected:
    True while its browser is, False once it is gone; None outside a server."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return partial(_connected, None if ctx is None else ctx.session_id)


def session_connected() -> bool | None:
    """True while this session's browser is connected, False once it is gone; None outside a server."""
    return connection()()


def _connected(session_id: str | None) -> bool | None:
    """Whether the server lists ``session_id`` as connected; None without a session or a server."""
    if session_id is None or not runtime.exists():
        return None
    return runtime.get_instance().is_active_session(session_id)
