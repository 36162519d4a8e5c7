"""Streamlit's private APIs, used here and nowhere else: each with why, and what breaks without it.

Streamlit documents none of these and may move or drop any in a release. Other modules import them
from here only (tests/test_structure.py checks it), so an upgrade that removes one fails this module's
import, in every test that loads a page, instead of one page at run time. One is a behaviour, not
a name: a read of st.session_state is a yield point (:func:`yield_point`).

- ``StopException``: raised at a yield point when a click starts a new script run or the browser
  leaves; the Train page's loop (train/live.py) catches it to pause a run whose browser went away.
  Without it, such a run trains on, unasked, when its browser comes back.
- ``get_script_run_ctx`` and ``runtime``: the running script's session, and whether its browser is
  still connected (presence.py). Without them, a stopped run cannot tell a click from a browser
  that left, no Train run is paused for its student's absence, and a benchmark whose tab was closed
  or reloaded holds the server's benchmark turn to its end.
- ``is_host_allowed``: the check Streamlit's WebSocket makes against server.allowedHosts; the hosting
  gate (hosts.py) answers a page request under a refused name with the same verdict. Without it, a
  browser under a refused name shows Streamlit's grey skeleton for ever, not the page naming the setting.
- ``config``: ``set_option`` for a server option and ``on_config_parsed`` (st.set_option takes client
  options only), so hosts.py keeps the loopback names allowed across config re-reads. Without it, a
  hosted server stops answering 127.0.0.1 after its config file changes.
- ``script_session`` and ``sent_to_browser``: the running script's session, and a wait until the web
  server has taken what the script run drew, through the session's event loop and message queue
  (``Runtime._session_mgr``, ``AppSession._event_loop`` and ``_browser_queue``). ``st.rerun``
  discards what is still queued, so a Train run's summary, drawn just before its rerun, would
  otherwise reach the page only after the rerun has sent the whole page again. Without it, the
  summary shows late in some runs (behind the whole page), never lost.
- ``DeltaGenerator``, ``UploadedFile``: types for annotations, of what st.columns and
  st.file_uploader return. ``StreamlitAuthError``: what st.login raises when a provider's settings
  are wrong; auth.py says so on screen. Without them: annotations, and a traceback instead of that line.
"""

from __future__ import annotations

import threading
import time

import streamlit as st
from streamlit import config as config
from streamlit import runtime as runtime
from streamlit.delta_generator import DeltaGenerator as DeltaGenerator
from streamlit.errors import StreamlitAuthError as StreamlitAuthError
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
from streamlit.runtime.runtime import Runtime
from streamlit.runtime.scriptrunner import StopException as StopException
from streamlit.runtime.scriptrunner import get_script_run_ctx as get_script_run_ctx
from streamlit.runtime.session_manager import SessionManager
from streamlit.runtime.uploaded_file_manager import UploadedFile as UploadedFile
from streamlit.web.server.starlette.starlette_websocket import is_host_allowed as is_host_allowed

# script_session and sent_to_browser read attributes that these classes set in __init__ (``co_names``
# lists every attribute name the function's code uses) and call two methods: an upgrade that renames
# one fails here, at import, not at the end of every Train run.
for _owner, _attribute in (
    (Runtime, "_session_mgr"),
    (AppSession, "_event_loop"),
    (AppSession, "_browser_queue"),
):
    if _attribute not in _owner.__init__.__code__.co_names:
        raise ImportError(f"Streamlit's {_owner.__name__} no longer sets {_attribute}: see sent_to_browser")
for _class, _method in ((SessionManager, "get_active_session_info"), (ForwardMsgQueue, "is_empty")):
    if not hasattr(_class, _method):
        raise ImportError(f"Streamlit's {_class.__name__} no longer has {_method}: see sent_to_browser")


def yield_point() -> None:
    """Let a click made meanwhile take over now: reading st.session_state is a yield point that draws nothing.

    Streamlit ends a script run for a click only at such a point (a behaviour it does not document).
    Without it, Stop and Pause wait for the Train page's next chart redraw, dozens of short epochs later.
    """
    _ = "linecnn.yield" in st.session_state


def script_session() -> AppSession | None:
    """The running script's session while its browser is connected; None outside a web server (AppTest's
    stand-in runtime included) or once the browser has gone."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or not runtime.exists():
        return None
    sessions = getattr(runtime.get_instance(), "_session_mgr", None)  # None: AppTest's stand-in runtime
    info = None if sessions is None else sessions.get_active_session_info(ctx.session_id)
    return None if info is None else info.session


def sent_to_browser(timeout: float = 1.0) -> bool:
    """Wait until the web server has taken every message this script run has drawn, for at most ``timeout`` s.

    True once it has; False outside a server, once the browser has gone, or when the server has not got
    to them in time (the messages then go out when it does, unless a rerun starts first and discards them).
    """
    session = script_session()
    if session is None:
        return False
    # A script run's messages reach the session's queue through its event loop, in order: once a
    # callback scheduled now has run, they are all queued, and an empty queue means they were taken.
    queued = threading.Event()
    try:
        session._event_loop.call_soon_threadsafe(queued.set)
    except RuntimeError:  # the server is shutting down: its loop is closed
        return False
    deadline = time.monotonic() + timeout
    if not queued.wait(timeout):
        return False
    while not session._browser_queue.is_empty():
        if time.monotonic() > deadline or script_session() is None:
            return False  # too late, or the browser left: a gone session's queue is never sent
        time.sleep(0.001)  # a sleep releases Python's lock, which the server's event loop needs to send
    return True
