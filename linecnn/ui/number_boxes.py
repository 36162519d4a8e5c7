"""Boxes for numbers written and read the reader's way: '0,01' and '20.000' in Spanish.

Streamlit's number box writes its value with printf (a decimal point in every language: a Spanish
page would show the learning rate as '0.0100') and the browser reads what is typed with a decimal
point too ('20.000' typed on a Spanish page, twenty thousand, would arrive as 20). These boxes
are text boxes that write the number in the language's way and read it back the same way.

- ``decimal_box``, for small numbers with decimals (the learning rate): never written with
  thousands separators, so '0.05' and '0,05' both mean five hundredths; '1e-3' reads too.
- ``count_box``, for whole numbers (epochs, images, a seed): written with the language's thousands
  separator and read with it ('20.000' is twenty thousand in Spanish, '20,000' in English); '2e3'
  reads too, and a fraction becomes the nearest whole number. ``count_field`` is the same inside a
  form, where a box takes no callback.

The number lives in a session key of its own, which the page checks against its Bounds like any
number box (``linecnn.ui.bounds``); text that is no number leaves it None, reported as empty.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple, TypedDict, Unpack

import streamlit as st
from babel.numbers import NumberFormatError, parse_decimal

from linecnn.ui.format import decimal_text
from linecnn.ui.i18n import current, number
from linecnn.ui.streamlit_private import DeltaGenerator

TEXT, LANGUAGE = "{}.text", "{}.language"  # the text widget's key and the language it was written in
SPACES = str.maketrans("", "", " \u00a0\u202f")  # spaces, also the no-break ones some write thousands with


def read_decimal(text: str | None) -> float | None:
    """The number in ``text``, typed with either decimal mark ('0,05', '0.05', '5e-2'); None if none."""
    cleaned = (text or "").translate(SPACES).replace(",", ".")
    return _finite(cleaned)


def read_count(text: str | None, language: str) -> float | None:
    """The number in ``text`` as ``language`` writes it ('20.000' or '1,5' in Spanish), or as Python
    does ('2e3', '1.5'); None if none. Not rounded: a fraction is the caller's to round."""
    cleaned = (text or "").translate(SPACES)
    try:
        value = float(parse_decimal(cleaned, locale=language, strict=True))
    except (NumberFormatError, ValueError):
        return _finite(cleaned)
    return value if math.isfinite(value) else None


def _finite(text: str) -> float | None:
    """``float(text)`` when it is a finite number, else None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


class BoxOptions(TypedDict, total=False):
    """What a caller may pass on to a box's ``text_input``, besides its label, key and callback."""

    disabled: bool
    help: str | None


def whole(value: float) -> int:
    """The nearest whole number, halves up: 2.5 -> 3, -0.5 -> 0."""
    return math.floor(value + 0.5)


def decimal_box(
    column: DeltaGenerator, label: str, default: float, key: str, **kwargs: Unpack[BoxOptions]
) -> None:
    """A text box for the number with decimals in session key ``key`` (``default`` at first)."""
    _text_box(column, label, default, key, _Way(lambda v: decimal_text(v, current()), read_decimal), kwargs)


def count_box(
    column: DeltaGenerator, label: str, default: int, key: str, **kwargs: Unpack[BoxOptions]
) -> None:
    """A text box for the whole number in session key ``key`` (``default`` at first)."""
    _text_box(column, label, default, key, _Way(number, _read_whole), kwargs)


def count_field(
    column: DeltaGenerator, label: str, default: int, key: str, **kwargs: Unpack[BoxOptions]
) -> int | None:
    """``count_box`` for inside a form, where a box takes no callback: returns the whole number its text
    holds at this run (None when none), kept under ``key`` too. The text sent is written again the page's
    way before the box is drawn (after a language switch, or '1,5' sent: '2'); text being typed in the
    browser is not the server's until the form is sent, so it is never overwritten."""
    state = st.session_state
    text, language = TEXT.format(key), LANGUAGE.format(key)
    if state.get(text) is None:
        state[text] = number(default)
    else:  # what was sent, read in the words it was typed in, is written again in the page's own way
        value = read_count(state[text], state.get(language, current()))
        if value is not None:
            state[text] = number(whole(value))  # '2e3', '1,5': the box shows the count the run uses
    state[language] = current()
    state[key] = _read_whole(column.text_input(label, key=text, persist_state="session", **kwargs))
    return state[key]


def _read_whole(text: str | None) -> int | None:
    """A count typed in the reader's language, rounded to a whole number; None if no number."""
    value = read_count(text, current())
    return None if value is None else whole(value)


class _Way(NamedTuple):
    """How a box writes its number as text and reads text back as a number."""

    write: Callable[[float], str]
    read: Callable[[str | None], float | None]


def _text_box(
    column: DeltaGenerator, label: str, default: float, key: str, way: _Way, kwargs: BoxOptions
) -> None:
    """The text box for session key ``key``: written again from the number when the language changes,
    or when the number was set elsewhere; text the reader typed that is no number stays, to fix."""
    state = st.session_state
    value = state.setdefault(key, default)
    text, language = TEXT.format(key), LANGUAGE.format(key)
    stale = way.read(state.get(text)) != value or state.get(language) != current()
    if value is not None and stale:
        state[text] = way.write(value)
    state[language] = current()
    column.text_input(label, key=text, on_change=_typed, args=(key, way), persist_state="session", **kwargs)


def _typed(key: str, way: _Way) -> None:
    """Callback: the number typed becomes the key's value, and the text is written back the reader's way."""
    text = TEXT.format(key)
    value = way.read(st.session_state.get(text))
    st.session_state[key] = value
    if value is not None:
        st.session_state[text] = way.write(value)
