"""The page's language (English or Spanish): which one is shown, its strings and its number format.

Strings live in ``linecnn/ui/locales/<language>/<area>.toml``, one file per page or part of the app,
so the two languages can be compared key by key. ``t("train.start")`` looks up the key ``start`` in
``train.toml`` of the language in use. Numbers go through :func:`number` and :func:`percent`, which
write them the language's way (``1,234.5`` in English, ``1.234,5`` in Spanish).
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

import streamlit as st
from babel.numbers import format_decimal, format_percent

LANGUAGES = {"en": "English", "es": "Español"}  # code -> its name in itself, for the toggle
DEFAULT = "en"  # for a browser whose language is neither
LANGUAGE = "language"  # session key of the sidebar's language toggle
_FROM_LINK = "language.from_link"  # the ?lang= value already applied, so a toggle can override it
_LOCALES = Path(__file__).parent / "locales"


def _flatten(table: dict, prefix: str) -> dict[str, str]:
    """Nested TOML tables as one level of dotted keys."""
    flat: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}.{key}"
        flat.update(_flatten(value, name) if isinstance(value, dict) else {name: value})
    return flat


@cache
def catalog(language: str) -> dict[str, str]:
    """Every string of ``language``, keyed by '<area>.<key>'."""
    strings: dict[str, str] = {}
    for path in sorted((_LOCALES / language).glob("*.toml")):
        strings.update(_flatten(tomllib.loads(path.read_text(encoding="utf-8")), path.stem))
    return strings


def from_locale(locale: str | None) -> str:
    """The language to start in for a browser locale such as 'es-MX'."""
    code = (locale or "").replace("_", "-").split("-")[0].lower()
    return code if code in LANGUAGES else DEFAULT


def current() -> str:
    """The language of this session: 'en' or 'es'."""
    language = st.session_state.get(LANGUAGE)
    return language if language in LANGUAGES else DEFAULT


def init_language() -> None:
    """Settle the session's language: a new ``?lang=`` link first, then the toggle, then the browser."""
    link = st.query_params.get("lang")
    if link in LANGUAGES and link != st.session_state.get(_FROM_LINK):
        st.session_state[LANGUAGE] = link
        st.session_state[_FROM_LINK] = link
    elif LANGUAGE not in st.session_state:
        st.session_state[LANGUAGE] = from_locale(st.context.locale)


def language_toggle() -> None:
    """The sidebar's language switch; the address bar's ?lang= follows it so links keep it."""
    # Set through the Session State API first: on a page just switched to, the widget would
    # otherwise start from its own default (no choice, i.e. English) and drop the reader's language.
    st.session_state[LANGUAGE] = current()
    st.segmented_control(
        t("sidebar.language"),
        list(LANGUAGES),
        format_func=LANGUAGES.get,
        key=LANGUAGE,
        persist_state="session",
        required=True,
    )
    st.query_params["lang"] = st.session_state[_FROM_LINK] = current()


def t(key: str, **values: object) -> str:
    """The string ``key`` in the session's language, with ``{name}`` fields filled from ``values``."""
    return translate(current(), key, **values)


def translate(language: str, key: str, **values: object) -> str:
    """The string ``key`` in ``language``; English when that language lacks it (a test flags that)."""
    text = catalog(language).get(key)
    if text is None:
        text = catalog(DEFAULT)[key]  # an unknown key is a programming error: KeyError
    return text.format(**values) if values else text


def number(value: float, digits: int = 0) -> str:
    """``value`` with the language's separators and ``digits`` decimals, e.g. '12.345,7' in Spanish."""
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    return format_decimal(value, format=pattern, locale=current())


def percent(fraction: float, digits: int = 0) -> str:
    """``fraction`` (0.953) as a percentage in the language's way, e.g. '95,3%'."""
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "") + "%"
    return format_percent(fraction, format=pattern, locale=current())
