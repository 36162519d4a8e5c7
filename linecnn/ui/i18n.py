"""The page's language (English or Spanish): which one is shown, its strings and its number format.

Strings live in ``linecnn/ui/locales/<language>/<area>.toml``, one file per page or part of the app,
so the two languages can be compared key by key. ``t("train.start")`` looks up the key ``start`` in
``train.toml`` of the language in use. Numbers go through :func:`number` and :func:`percent`, which
write them the language's way (``1,234.5`` in English, ``1.234,5`` in Spanish). Sentences of the
core (``linecnn.errors.Message``) are shown with :func:`say`; their English is the core's own table,
so only Spanish has an ``errors.toml``.
"""

from __future__ import annotations

import math
import tomllib
from decimal import InvalidOperation
from functools import cache
from pathlib import Path

import streamlit as st
from babel import Locale
from babel.numbers import (
    format_decimal,
    format_percent,
    format_scientific,
    get_decimal_symbol,
    get_group_symbol,
)

from linecnn.errors import Clause, Figure, Message, Size
from linecnn.sentences import ENGLISH
from linecnn.ui.format import escape_markdown, format_bytes, format_seconds

LANGUAGES = {"en": "English", "es": "Español"}  # code -> its name in itself, for the toggle
DEFAULT = "en"  # for a browser whose language is neither
LANGUAGE = "language"  # session key of the session's language, 'en' or 'es'
_TOGGLE = "language.toggle"  # the sidebar toggle's widget: shows LANGUAGE, and sets it when clicked
_FROM_LINK = "language.from_link"  # the ?lang= value already applied, so a toggle can override it
_WORDED_IN = "{}.worded_in"  # session key of the language a keyed choice box last showed its option in
_LOCALES = Path(__file__).parent / "locales"
MAX_FOREIGN = 600  # characters of an error without a sentence of ours (torch's, say) shown on a page


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
    strings = {f"errors.{key}": text for key, text in ENGLISH.items()} if language == "en" else {}
    for path in sorted((_LOCALES / language).glob("*.toml")):
        strings.update(_flatten(tomllib.loads(path.read_text(encoding="utf-8")), path.stem))
    return strings


def language_code(text: str | None) -> str:
    """The language part of a code as people write it: 'es' from 'es-MX', 'ES' or ' es_MX '."""
    return (text or "").strip().replace("_", "-").split("-")[0].lower()


def from_locale(locale: str | None) -> str:
    """The language to start in for a browser locale such as 'es-MX'."""
    code = language_code(locale)
    return code if code in LANGUAGES else DEFAULT


def current() -> str:
    """The language of this session: 'en' or 'es'."""
    language = st.session_state.get(LANGUAGE)
    return language if language in LANGUAGES else DEFAULT


def init_language() -> None:
    """Settle the session's language: a new ``?lang=`` link first, then the toggle, then the browser."""
    link = language_code(st.query_params.get("lang"))  # a teacher may type ?lang=ES on the projector
    if link in LANGUAGES and link != st.session_state.get(_FROM_LINK):
        st.session_state[LANGUAGE] = link
        st.session_state[_FROM_LINK] = link
    elif LANGUAGE not in st.session_state:
        st.session_state[LANGUAGE] = from_locale(st.context.locale)


def language_toggle() -> None:
    """The sidebar's language switch; the address bar's ?lang= follows it so links keep it.

    The language lives in its own session key, not in the widget's: a widget's value starts over
    on a page that has not drawn it yet, and the language must survive every page switch.
    """
    st.session_state[_TOGGLE] = current()
    st.segmented_control(
        t("sidebar.language"),
        list(LANGUAGES),
        format_func=LANGUAGES.__getitem__,
        key=_TOGGLE,
        required=True,
        on_change=_toggled,
    )
    st.query_params["lang"] = st.session_state[_FROM_LINK] = current()


def _toggled() -> None:
    st.session_state[LANGUAGE] = st.session_state[_TOGGLE]


def reword_choice(key: str) -> None:
    """Call before drawing the keyed select box ``key``: after a language switch its value is sent again.

    The browser keeps a select box's chosen option in the words it was first shown in ('full' on a
    Spanish page) until the server sends the value itself, which a write to its key does.
    """
    worded_in = _WORDED_IN.format(key)
    if key in st.session_state and st.session_state.get(worded_in, current()) != current():
        st.session_state[key] = st.session_state[key]
    st.session_state[worded_in] = current()


def t(key: str, **values: object) -> str:
    """The string ``key`` in the session's language, with ``{name}`` fields filled from ``values``."""
    return translate(current(), key, **values)


def translate(language: str, key: str, **values: object) -> str:
    """The string ``key`` in ``language``; English when that language lacks it (a test flags that)."""
    text = catalog(language).get(key)
    if text is None:
        text = catalog(DEFAULT)[key]  # an unknown key is a programming error: KeyError
    return text.format(**values) if values else text


def say(text: object, language: str | None = None) -> str:
    """A core sentence (a ``Message``, or a ValueError carrying one) in the session's language, as Markdown.

    Its quoted fields are escaped, so a value taken from a file shows as the text it is. Any other
    text or error (torch's own, say, which has no translation) is escaped and shown as it is.
    """
    if isinstance(text, BaseException) and len(text.args) == 1:
        text = text.args[0]
    if not isinstance(text, Message):
        return escape_markdown(text, MAX_FOREIGN)
    language = language or current()
    values = {name: _value(value, language) for name, value in text.values.items()}
    return translate(language, f"errors.{text.key}", **values)


def _value(value: object, language: str) -> str:
    """A field of a core sentence, written the language's way (see ``linecnn.errors.english_value``)."""
    if isinstance(value, Message):
        return say(value, language).rstrip(".") if isinstance(value, Clause) else say(value, language)
    if isinstance(value, Figure):
        return escape_markdown(value.replace(".", get_decimal_symbol(language)))
    if isinstance(value, Size):
        return format_bytes(value.byte_count, language)
    if isinstance(value, tuple):
        return ", ".join(_value(item, language) for item in value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return escape_markdown(value)
    return _number(value, 0 if isinstance(value, int) else 1, language)


def size(count: int | None) -> str:
    """Bytes as '24,0 GiB' in the language's way; 'unknown' in the language for None."""
    return t("common.unknown") if count is None else format_bytes(count, current())


def duration(seconds: float) -> str:
    """Seconds as '850 ms', '12,3 s' or '4 min 05 s', with the language's decimal mark."""
    return format_seconds(seconds, current())


class Count:
    """A count filled into a catalog string: ``{n}`` writes it, ``{n:run|runs}`` the noun that agrees with it.

    The spec after the colon is the singular, a bar, then the plural, so each language's catalog
    says '1 run' and '2 runs' ('1 ejecución', '2 ejecuciones') itself. An unknown count (None)
    is written '?' and takes the plural.
    """

    def __init__(self, value: int | None, language: str) -> None:
        self.value, self.language = value, language

    def __format__(self, spec: str) -> str:
        if not spec:
            return "?" if self.value is None else _number(self.value, 0, self.language)
        one, bar, other = spec.partition("|")
        if not bar:
            raise ValueError(f"A count's spec is 'singular|plural', not {spec!r}.")
        return one if self.value == 1 else other


def count(value: int | None) -> Count:
    """``value`` for a catalog string that writes a count and the noun agreeing with it (see ``Count``)."""
    return Count(value, current())


def number(value: float, digits: int = 0, language: str | None = None) -> str:
    """``value`` with ``digits`` decimals and the separators of ``language`` (default: the session's)."""
    return _number(value, digits, language or current())


def _number(value: float, digits: int, language: str) -> str:
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    value = value + 0.0 if value == 0 else value  # -0 (typed '-0', or '0' after it) is written '0'
    try:
        return format_decimal(value, format=pattern, locale=language)
    except InvalidOperation:  # past Decimal's 28 digits, e.g. '1e30' typed in a box: written '1E30'
        return format_scientific(value, format="0.###E0", locale=language)


SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def scientific(value: float, digits: int = 3) -> str:
    """A tiny or huge ``value`` as '5.894 × 10⁻⁸' ('5,894 × 10⁻⁸'), the way the charts' log axes write
    powers of ten; ``digits`` significant digits, trailing zeros dropped; zero is '0'."""
    if value == 0 or not math.isfinite(value):
        return number(value)
    exponent = math.floor(math.log10(abs(value)))
    mantissa = round(value / 10.0**exponent, digits - 1)
    if abs(mantissa) >= 10:  # 9.9996 rounded up to 10.0: one more power of ten
        mantissa, exponent = mantissa / 10, exponent + 1
    text = format_decimal(mantissa, "0." + "#" * (digits - 1), locale=current())
    return f"{text} × 10{str(exponent).translate(SUPERSCRIPTS)}"


def percent(fraction: float, digits: int = 0) -> str:
    """``fraction`` (0.953) as a percentage in the language's way: '95.3%', or '95,3 %' as the RAE writes it.

    The sign's spacing is the locale's, as the pages' prose writes it, but a plain space: the locale's
    no-break space is not printable text, which ``escape_markdown`` shows as '\\xa0' in a run's name.
    """
    language = current()
    pattern = Locale.parse(language).percent_formats[None].pattern
    pattern = pattern.replace("#,##0", "#,##0" + ("." + "0" * digits if digits > 0 else ""), 1)
    written = format_percent(fraction, format=pattern, locale=language)
    return written.replace("\u00a0", " ")


def decimal_mark() -> str:
    """The language's decimal mark: '.' in English, ',' in Spanish."""
    return get_decimal_symbol(current())


def plotly_separators() -> str:
    """Plotly's ``layout.separators`` for the language: its decimal mark, then its thousands separator."""
    return decimal_mark() + get_group_symbol(current())
