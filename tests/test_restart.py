"""AppTest: a tab that last reached another server process is told its runs are gone; others are not."""

import pytest

from linecnn.ui.i18n import LANGUAGE
from linecnn.ui.restart import BOOT, NOTICE, WATCH
from tests.helpers import app_test


def _frame_part():
    """The part of the shared frame under test: the tab's report, then the notice."""
    from linecnn.ui.restart import show_restart_notice, watch_restart

    watch_restart()
    show_restart_notice()


def _page(previous: str | None):
    """An AppTest of the frame's part whose tab reports ``previous`` as the server it last reached."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_frame_part)
    if previous is not None:
        at.session_state[WATCH] = {"previous": previous}
    return at.run()


def test_a_tab_back_from_another_server_process_is_told_once_until_put_away():
    """Another boot id raises the notice; Got it puts it away, and the same report does not raise it again."""
    at = _page("0123456789abcdef")
    assert not at.exception
    [warning] = at.warning
    assert "The server restarted since this tab last reached it" in warning.value
    assert "Save and restore" in warning.value
    # A restart also ends a teacher's reservation: said, or students could benchmark during the demo.
    assert "a teacher's reservation of the benchmark are gone" in warning.value
    at.button(key="restart.dismiss").click().run()
    assert not at.warning and not at.session_state[NOTICE]
    at.run()  # the tab's report of that restart, heard again, is the restart already said
    assert not at.warning


@pytest.mark.parametrize("previous", [None, "", BOOT], ids=["new tab", "empty", "same server"])
def test_a_new_tab_or_a_reload_on_the_same_server_says_nothing(previous):
    """No id (a new tab) or this server's own id (a reload, a page switch) claims no restart."""
    at = _page(previous)
    assert not at.exception and not at.warning and not at.button


def test_every_page_frame_says_it_in_the_readers_language():
    """The shared frame listens for the report and shows the notice above a page, here Home in Spanish."""
    at = app_test()
    at.session_state[LANGUAGE] = "es"
    at.session_state[WATCH] = {"previous": "0123456789abcdef"}
    at.run()
    assert not at.exception
    assert any("El servidor se ha reiniciado" in warning.value for warning in at.warning)
    assert at.button(key="restart.dismiss").label == "Entendido"
