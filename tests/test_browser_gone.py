"""A browser that stops answering while its run trains: Streamlit stops the session's script run, the
run's training slot goes to the next in line, and the run waits paused with a sentence for its return."""

from __future__ import annotations

import threading

import streamlit as st
from streamlit.runtime.scriptrunner import StopException

from linecnn.classroom.line import WaitingLine
from linecnn.ui.train import away

JOIN = 10.0  # seconds a test waits for a thread it expects to finish; a hang fails instead of blocking


def test_a_script_run_stopped_for_a_gone_browser_gives_its_training_slot_to_the_next_run():
    """Streamlit's stop lands inside the run's slot as StopException; leaving the slot on it lets the
    run waiting behind take the slot at once."""
    queue = WaitingLine(slots=1)
    holding, leave, started = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        try:
            with queue.hold("first"):
                holding.set()
                leave.wait(JOIN)
                raise StopException()
        except StopException:
            pass

    def second() -> None:
        with queue.hold("second", poll=0.01):
            started.set()

    threads = [threading.Thread(target=first, daemon=True), threading.Thread(target=second, daemon=True)]
    threads[0].start()
    assert holding.wait(JOIN)
    threads[1].start()
    assert not started.wait(0.1)  # it waits while the first run holds the only slot
    leave.set()
    assert started.wait(JOIN)
    for thread in threads:
        thread.join(JOIN)
    assert queue.held == 0


def test_a_gone_browser_is_told_apart_from_a_click_by_asking_the_server_for_a_moment():
    """The server forgets a session just after stopping its run: asked again, it says the browser left;
    a session still connected (a click's new run) is not called gone; outside a server nothing is."""
    answers = iter([True, True, False])
    assert away.browser_gone(lambda: next(answers), wait=JOIN)
    assert not away.browser_gone(lambda: True, wait=0.1)
    assert not away.browser_gone(lambda: None, wait=JOIN)


def test_the_train_page_pauses_a_run_whose_browser_left_and_says_why_on_its_return(monkeypatch):
    """Stopped mid-run with its browser gone, the run is paused with its epochs, holds no slot, and the
    page's next runs (the browser back) show the sentence and a paused run, not a run training again."""
    from linecnn.ui.train import live as live_view
    from linecnn.ui.train import sharing as page_sharing
    from tests.helpers import app_test
    from tests.test_pages import TRAIN, click

    def streamlit_stops_the_run() -> None:
        st.stop()  # as a dropped connection does: every later st.* call, session_state writes too, raises

    queue = WaitingLine(slots=1)
    monkeypatch.setattr(page_sharing, "training_queue", lambda device: queue)
    monkeypatch.setattr(away, "browser_gone", lambda: True)
    monkeypatch.setattr(live_view, "answer_clicks", streamlit_stops_the_run)
    at = app_test(TRAIN)
    at.text_input(key="train.epochs.text").input("50")
    at.run()
    click(at, "Start")
    trainer = at.session_state["train.live"]
    assert trainer.paused and trainer.epoch == 1 and queue.held == 0
    for _return in range(2):  # a returning browser's page may rerun more than once: the sentence stays
        at.run()
        assert not at.exception
        said = [info.value for info in at.info if info.value.startswith("Your browser stopped answering")]
        assert len(said) == 1 and "after 1 of 50 epochs" in said[0]
    assert at.session_state["train.live"] is trainer and trainer.paused
