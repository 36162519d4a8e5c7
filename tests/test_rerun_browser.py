"""What a script run draws just before st.rerun reaches the browser when the run waits for the server to
take it (``sent_to_browser``), as the Train page's summary does; without the wait, the rerun discards it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import StreamlitServer, headings_and_ends, websocket_frames

pytestmark = pytest.mark.browser

# The first run holds the server's event loop busy until the rerun has started (a run that waits: for
# 0.3 s), as a loaded server's can be: the heading it draws and the rerun's start then wait in line on
# that loop, and that start clears the queue before the loop gets to send the heading, unless the run
# waited for it.
APP = """
import threading

import streamlit as st

from linecnn.ui.streamlit_private import script_session, sent_to_browser

if "rerun_started" not in st.session_state:
    st.session_state.rerun_started = started = threading.Event()
    script_session()._event_loop.call_soon_threadsafe(started.wait, 3.0)
    st.header("Drawn before the rerun")
    if st.query_params.get("wait") == "yes":
        threading.Timer(0.3, started.set).start()  # no rerun starts while this run waits: the loop goes free
        st.session_state.sent = sent_to_browser(timeout=30)
    st.rerun()
st.session_state.rerun_started.set()
st.write(f"sent: {st.session_state.get('sent')}")
"""


@pytest.fixture(scope="module")
def rerun_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamlitServer]:
    """A server of the app above."""
    app_dir = tmp_path_factory.mktemp("rerun-app")
    (app_dir / "app.py").write_text(APP)
    server = StreamlitServer(app_dir=Path(app_dir)).start()
    yield server
    server.stop()


@pytest.mark.parametrize(
    ("wait", "reaches_the_page", "says"), [("yes", True, "sent: True"), ("no", False, "sent: None")]
)
def test_what_a_run_drew_before_its_rerun_reaches_the_page_when_it_waits(
    rerun_server, page, wait, reaches_the_page, says
):
    """Waited for, the heading reaches the page before the run ends; not waited for, the rerun discards it."""
    with websocket_frames(page) as frames:
        page.goto(f"{rerun_server.url}/?wait={wait}")
        page.get_by_text(says).wait_for()
    events = headings_and_ends(frames)
    assert events[: 1 + reaches_the_page] == (["heading", "ended"] if reaches_the_page else ["ended"])
