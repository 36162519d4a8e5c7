"""AppTest: a tab that last reached another server process is told its runs are gone; others are not."""

import pytest

from linecnn.ui.i18n import LANGUAGE
from linecnn.ui.restart import BOOT, NOTICE, WATCH
from tests.helpers import app_test
from tests.test_auth import AUTH


def _frame_part():
    """The part of the shared frame under test: the tab's report, then the notice."""
    from linecnn.ui.restart import show_restart_notice, watch_restart

    watch_restart()
    show_restart_notice()


def _page(previous: str | None, sign_in: bool = False):
    """An AppTest of the frame's part whose tab reports ``previous`` as the server it last reached
    (``sign_in``: on a server whose secrets configure it)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_frame_part)
    if sign_in:
        at.secrets = {"auth": AUTH}
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
    # Without sign-in nobody can reserve the benchmark: a reservation is not mentioned.
    assert "reservation" not in warning.value
    at.button(key="restart.dismiss").click().run()
    assert not at.warning and not at.session_state[NOTICE]
    at.run()  # the tab's report of that restart, heard again, is the restart already said
    assert not at.warning


def test_with_sign_in_the_notice_says_a_teachers_reservation_is_gone_too():
    """Signed-in teachers reserve the benchmark, and a restart ends that: said, or students could run
    benchmarks during the teacher's demo."""
    [warning] = _page("0123456789abcdef", sign_in=True).warning
    assert "A teacher's reservation of the benchmark is gone too" in warning.value


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
