"""Optional sign-in for hosted classes: Streamlit's OIDC login, active only when secrets have [auth]."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn
from urllib.parse import SplitResult, urlsplit

import streamlit as st

from linecnn.classroom.roles import email_matches
from linecnn.ui.builtin_texts import say_builtin_texts
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import say, t
from linecnn.ui.page_language import mark_page_language
from linecnn.ui.streamlit_private import StreamlitAuthError

# Keys of [auth] (or of one [auth.<name>] table) that make up one OIDC provider.
PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")
DEFAULT_PORTS = {"http": 80, "https": 443}


def auth_configured() -> bool:
    """True when the host's secrets have an [auth] section, so every page asks for a sign-in."""
    return st.secrets.load_if_toml_exists() and "auth" in st.secrets


def provider_names(auth: Mapping[str, Any]) -> list[str | None]:
    """The providers [auth] configures: None for the keys at its top level, else each [auth.<name>]."""
    names: list[str | None] = [None] if any(key in auth for key in PROVIDER_KEYS) else []
    names += [name for name, value in auth.items() if isinstance(value, Mapping) and "client_id" in value]
    return names or [None]


def email_allowed(email: object, allowed: Iterable[str]) -> bool:
    """True when the allow-list is empty or names this address or its domain ("school.edu", "@school.edu")."""
    allowed = list(allowed)
    return not allowed or email_matches(email, allowed)


def user_allowed(user: Mapping[str, Any], allowed: Iterable[str]) -> bool:
    """The allow-list check on a signed-in user; an address the provider marks unverified never passes."""
    allowed = list(allowed)
    if not allowed:
        return True
    return user.get("email_verified") is not False and email_allowed(user.get("email"), allowed)


def allowed_emails() -> list[str]:
    """The allow-list `[linecnn] allowed_emails` from secrets (a list or one string); empty allows all."""
    value = st.secrets.get("linecnn", {}).get("allowed_emails", [])
    # Anything but a list counts as one entry, so a mistyped setting lets nobody in rather than everyone.
    return [str(entry) for entry in value] if isinstance(value, list) else [str(value)]


def display_name(user: Mapping[str, Any]) -> str:
    """What the sidebar calls the user: the name the provider gives, else the e-mail, else the subject."""
    for key in ("name", "email", "sub"):
        if user.get(key):
            return str(user[key])
    return t("auth.signed_in")


def require_login() -> None:
    """Stop the page at a sign-in screen until a permitted user is signed in; does nothing without [auth]."""
    if not auth_configured():
        return
    user = st.user.to_dict()
    if not user.get("is_logged_in"):
        sign_in_screen()
        _stop_in_language()
    if not user_allowed(user, allowed_emails()):
        not_allowed_screen(user)
        _stop_in_language()
    with st.sidebar:
        st.markdown(t("auth.signed_in_as", name=escape_markdown(display_name(user))))
        log_out_button()
        st.divider()


def _stop_in_language() -> NoReturn:
    """End a screen drawn before the sidebar, which is where a page says its language: say it here."""
    # Without them a Spanish sign-in screen keeps Streamlit's English skip link and is tagged
    # lang="en", so a screen reader reads its Spanish with English sounds.
    say_builtin_texts()
    mark_page_language()
    st.stop()


def sign_in_address(here: str | None, redirect_uri: object) -> str | None:
    """Where sign-in works when this page was opened elsewhere, else None.

    The provider sends the browser back to ``redirect_uri``, and the sign-in cookie belongs to that
    address alone: a page opened as http://localhost:8501 while the redirect names 127.0.0.1 would
    come back signed out. Scheme, host and port must match; the path does not matter.
    """
    if not here or not isinstance(redirect_uri, str) or not redirect_uri:
        return None
    page, back = urlsplit(here), urlsplit(redirect_uri)
    if not back.scheme or not back.netloc:
        return None
    return None if _origin(page) == _origin(back) else f"{back.scheme}://{back.netloc}/"


def _origin(url: SplitResult) -> tuple[str, str, int | None]:
    """A URL's scheme, host and port, the port written or the scheme's own (https://x is https://x:443)."""
    return url.scheme.lower(), (url.hostname or "").lower(), url.port or DEFAULT_PORTS.get(url.scheme.lower())


def page_address() -> str | None:
    """The address the browser opened this page at, as it typed it (None outside a browser)."""
    try:
        return st.context.url
    except (AttributeError, RuntimeError):
        return None


def sign_in_screen() -> None:
    """The only thing a visitor sees before signing in: what this is and a Log in button per provider.

    Opened at another address than the one sign-in returns to, it says so and links there instead:
    a sign-in from here would come back signed out, with no word of why.
    """
    st.header(t("auth.sign_in_title"))
    st.markdown(t("auth.sign_in_text"))
    there = sign_in_address(page_address(), st.secrets["auth"].get("redirect_uri"))
    if there is not None:
        # As code, so that it is copied as it reads (no escapes); the address is the host's own setting.
        shown = f"`{there}`" if "`" not in there else escape_markdown(there)
        st.warning(t("auth.other_address", address=shown), icon=":material/link:")
        label = t("auth.open_there", address=escape_markdown(there))
        st.link_button(label, there, type="primary", icon=":material/open_in_new:")
        return
    for name in provider_names(st.secrets["auth"]):
        provider = None if name is None else name.replace("-", " ").title()
        label = t("auth.log_in") if provider is None else t("auth.log_in_with", provider=provider)
        if st.button(label, key=f"auth_login_{name or 'default'}", type="primary", icon=":material/login:"):
            log_in(name)


def log_in(provider: str | None) -> None:
    """Send the browser to the provider; a broken [auth] section becomes a message, not a traceback."""
    try:
        st.login(provider)
    except StreamlitAuthError as error:
        st.error(t("auth.broken", error=say(error)), icon=":material/error:")


def not_allowed_screen(user: Mapping[str, Any]) -> None:
    """Tell a signed-in user outside the allow-list why they cannot go on, and let them switch accounts."""
    st.header(t("auth.no_access"))
    email = escape_markdown(user.get("email") or t("auth.no_email"))
    st.error(t("auth.not_allowed", email=email), icon=":material/block:")
    log_out_button()


def log_out_button() -> None:
    """A Log out button that ends the Streamlit session and the provider's one, where it supports that."""
    if st.button(t("auth.log_out"), key="auth_logout", icon=":material/logout:"):
        st.logout()
