"""A run whose browser went away while it trained: paused, its training slot given back, and why, on return.

A browser that froze, slept or closed stops answering the server's WebSocket pings
(``server.websocketPingInterval``); Streamlit then drops the connection and stops the session's
script run, whose way out of ``sharing.training_turn`` gives the slot back to the next in line. Left
as it was, the run would train again the moment the browser came back, with no word of what
happened: it is paused instead, with a sentence for the student and a line in the server's log. The
sentence stays while the run stays paused (a returning browser's page may rerun more than once). Which
runs wait so is kept here, not in the session's state: a stopped script run's every write to
``st.session_state`` is a yield point that raises StopException again.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable

import streamlit as st

from linecnn.train.trainer import Trainer
from linecnn.ui import i18n
from linecnn.ui.i18n import t
from linecnn.ui.presence import session_connected

_LOG = logging.getLogger(__name__)

_AWAY: weakref.WeakSet[Trainer] = weakref.WeakSet()  # runs paused because their browser went away
GONE_WAIT_SECONDS = 1.0  # how long Streamlit may take, after stopping the run, to list the session as gone
POLL_SECONDS = 0.05


def browser_gone(
    connected: Callable[[], bool | None] = session_connected,
    wait: float = GONE_WAIT_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> bool:
    """True when this session's browser has gone; Streamlit stops the run first and forgets the
    session a moment later, so a connected session is asked again for up to ``wait`` s."""
    deadline = clock() + wait
    while (state := connected()) is not False:
        if state is None or clock() >= deadline:
            return False
        time.sleep(POLL_SECONDS)
    return True


def pause_for_absence(trainer: Trainer) -> None:
    """Pause ``trainer`` and note why, for its student's return; log what happened."""
    trainer.pause()
    _AWAY.add(trainer)
    _LOG.warning(
        "A Train run's browser stopped answering after %d of %d epochs: the run was paused, and its "
        "training slot (or its place in the queue) went to the next run in line.",
        trainer.epoch,
        trainer.config.train.epochs,
    )


def show_note(live: Trainer | None) -> None:
    """While ``live`` stays paused for its browser's absence, say so; once it goes on, forget it."""
    if live is None or live not in _AWAY:
        return
    if not live.paused:
        _AWAY.discard(live)
        return
    done, epochs = i18n.number(live.epoch), i18n.number(live.config.train.epochs)
    st.info(t("train.flash.browser_gone", done=done, epochs=epochs), icon=":material/info:")
