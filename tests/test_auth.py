"""The optional sign-in gate: no gate without [auth]; with it, a sign-in screen, then the page."""

from __future__ import annotations

import pytest

from linecnn.ui.auth import display_name, email_allowed, provider_names, sign_in_address, user_allowed
from tests.helpers import ROOT

AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "a-long-random-string-for-signing-cookies",
    "client_id": "linecnn",
    "client_secret": "secret",
    "server_metadata_url": "https://issuer.example/.well-known/openid-configuration",
}
ADA = {"is_logged_in": True, "name": "Ada Lovelace", "email": "ada@school.edu", "email_verified": True}


def home(secrets: dict | None = None, user: dict | None = None):
    """Home in AppTest with these secrets and this st.user, run once."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    if secrets is not None:
        at.secrets = secrets
    if user is not None:
        at.user = user
    return at.run()


def labels(elements) -> list[str]:
    return [element.label for element in elements]


def test_without_an_auth_section_there_is_no_gate():
    at = home()
    assert not at.exception
    assert "Log in" not in labels(at.button) and "Log out" not in labels(at.button)
    assert [element.value for element in at.title] == ["linecnn"]
    assert len(at.sidebar.radio) == 1, "the device toggle is drawn"


def test_with_auth_a_visitor_sees_only_the_sign_in_screen():
    at = home({"auth": AUTH}, {})
    assert not at.exception
    assert labels(at.button) == ["Log in"]
    assert [element.value for element in at.header] == ["Sign in to linecnn"]
    assert not at.title and not at.sidebar.radio, "nothing of the page is drawn before sign-in"


@pytest.mark.parametrize("page_path", ["pages/1_Train.py", "pages/2_Benchmark.py", "pages/3_Draw.py"])
def test_every_other_page_is_behind_the_same_gate(page_path):
    at = home({"auth": AUTH}, {})
    at.switch_page(page_path).run()
    assert not at.exception
    assert labels(at.button) == ["Log in"]
    assert [element.value for element in at.header] == ["Sign in to linecnn"]
    assert not at.title and not at.sidebar.radio


def test_a_login_that_streamlit_refuses_shows_a_message_not_a_traceback():
    # AppTest's secrets do not reach st.login's own check, so st.login refuses here as it does on a
    # server whose [auth] section is incomplete.
    at = home({"auth": AUTH}, {})
    at.button(key="auth_login_default").click().run()
    assert not at.exception
    assert at.error[0].value.startswith("Sign-in is not set up correctly on this server:")


def test_named_providers_get_one_button_each():
    auth = {"redirect_uri": AUTH["redirect_uri"], "cookie_secret": AUTH["cookie_secret"]}
    auth["google"] = {key: AUTH[key] for key in ("client_id", "client_secret", "server_metadata_url")}
    auth["microsoft"] = dict(auth["google"])
    at = home({"auth": auth}, {})
    assert labels(at.button) == ["Log in with Google", "Log in with Microsoft"]


def test_a_signed_in_user_gets_the_page_with_name_and_log_out():
    at = home({"auth": AUTH}, ADA)
    assert not at.exception
    assert [element.value for element in at.title] == ["linecnn"]
    assert "Signed in as **Ada Lovelace**" in [element.value for element in at.sidebar.markdown]
    assert "Log out" in labels(at.sidebar.button)


def test_a_name_from_the_provider_is_shown_as_text_not_markdown():
    """A display name like '[click](http://evil)' or '<img>' reaches the sidebar escaped."""
    at = home({"auth": AUTH}, {**ADA, "name": "[click](http://evil.example) <img src=x>"})
    shown = next(e.value for e in at.sidebar.markdown if e.value.startswith("Signed in as"))
    assert "\\[click\\]" in shown and "\\<img" in shown and "](http" not in shown


def test_log_out_signs_the_user_out():
    at = home({"auth": AUTH}, ADA)
    at.sidebar.button(key="auth_logout").click().run()
    assert at.user["is_logged_in"] is False


def test_the_allow_list_keeps_other_accounts_out_with_a_message():
    secrets = {"auth": AUTH, "linecnn": {"allowed_emails": ["school.edu"]}}
    outsider = {**ADA, "name": "Eve", "email": "eve@gmail.com"}
    at = home(secrets, outsider)
    assert not at.exception
    assert not at.title, "the page stays hidden"
    assert ", which is not on this class's list" in at.error[0].value
    plain = at.error[0].value.replace("\u2060", "").replace("\\", "")  # as the reader sees it
    assert plain.startswith("You are signed in as eve@gmail.com")
    assert labels(at.button) == ["Log out"]

    at = home(secrets, ADA)
    assert [element.value for element in at.title] == ["linecnn"]


@pytest.mark.parametrize(
    ("email", "allowed", "expected"),
    [
        ("ada@school.edu", [], True),
        ("ada@school.edu", ["school.edu"], True),
        ("Ada@School.EDU", ["@school.edu"], True),
        ("ada@school.edu", ["ada@school.edu"], True),
        ("ada@evil-school.edu", ["school.edu"], False),
        ("ada@school.edu.evil.com", ["school.edu"], False),
        ("ada@mail.school.edu", ["school.edu"], False),
        ("bob@school.edu", ["ada@school.edu"], False),
        (None, ["school.edu"], False),
        ("not-an-address", ["school.edu"], False),
        ("ada@school.edu", [""], False),
    ],
)
def test_email_allowed(email, allowed, expected):
    assert email_allowed(email, allowed) is expected


def test_an_unverified_address_never_passes_an_allow_list():
    assert not user_allowed({"email": "ada@school.edu", "email_verified": False}, ["school.edu"])
    assert user_allowed({"email": "ada@school.edu"}, ["school.edu"]), "providers that omit the claim"
    assert user_allowed({"email_verified": False}, []), "no allow-list, no check"


def test_provider_names_and_display_name():
    assert provider_names(AUTH) == [None]
    named = {"redirect_uri": "x", "google": {"client_id": "g"}, "client_kwargs": {"prompt": "login"}}
    assert provider_names(named) == ["google"]
    assert display_name({"email": "ada@school.edu"}) == "ada@school.edu"
    assert display_name({"sub": "1234"}) == "1234"


@pytest.mark.parametrize(
    ("here", "redirect", "expected"),
    [
        ("http://localhost:8501/", "http://127.0.0.1:8501/oauth2callback", "http://127.0.0.1:8501/"),
        ("http://127.0.0.1:8501/Train", "http://127.0.0.1:8501/oauth2callback", None),
        ("https://LINECNN.school.edu/", "https://linecnn.school.edu:443/oauth2callback", None),
        ("http://linecnn.school.edu/", "https://linecnn.school.edu/oauth2callback", "https://linecnn.school.edu/"),
        ("http://127.0.0.1:8502/", "http://127.0.0.1:8501/oauth2callback", "http://127.0.0.1:8501/"),
        (None, "http://127.0.0.1:8501/oauth2callback", None),
        ("http://localhost:8501/", None, None),
    ],
)
def test_sign_in_is_offered_only_at_the_address_it_returns_to(here, redirect, expected):
    """Scheme, host and port of the page against the redirect: the sign-in cookie is kept only there."""
    assert sign_in_address(here, redirect) == expected


def test_a_page_opened_at_another_address_links_to_the_one_sign_in_returns_to(monkeypatch):
    """Opened as localhost while sign-in returns to 127.0.0.1: a sentence and a link there, no Log in
    button whose sign-in would come back signed out without a word."""
    monkeypatch.setattr("linecnn.ui.auth.page_address", lambda: "http://localhost:8501/")
    at = home({"auth": {**AUTH, "redirect_uri": "http://127.0.0.1:8501/oauth2callback"}}, {})
    assert not at.exception
    assert "Log in" not in labels(at.button)
    assert any("returns to `http://127.0.0.1:8501/`" in w.value for w in at.warning), at.warning
    assert [b.proto.url for b in at.get("link_button")] == ["http://127.0.0.1:8501/"]
