"""A box for a number with decimals, written and read the reader's way: '0,01' in Spanish.

Streamlit's number box writes its value with printf, a decimal point in every language, so a
Spanish page showed the learning rate as '0.0100'. This box is a text box: it shows the value
with the language's decimal mark and reads either mark back (its numbers are small, never with
thousands separators, so '0.05' and '0,05' both mean five hundredths; '1e-3' reads too). The
number lives in a session key of its own, which the page checks against its Bounds like any
number box (``linecnn.ui.bounds``); text that is no number leaves it None, reported as empty.
"""

from __future__ import annotations

import math

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from linecnn.ui.format import decimal_text
from linecnn.ui.i18n import current

TEXT, LANGUAGE = "{}.text", "{}.language"  # the text widget's key and the language it was written in


def read_decimal(text: str | None) -> float | None:
    """The number in ``text``, typed with either decimal mark ('0,05', '0.05', '5e-2'); None if none."""
    cleaned = (text or "").strip().replace(" ", "").replace(",", ".")
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def decimal_box(column: DeltaGenerator, label: str, default: float, key: str, **kwargs: object) -> None:
    """A text box for the number in session key ``key`` (``default`` at first), in the reader's way.

    The text is written again from the number when the language changes, or when the number was
    set elsewhere; text the reader typed that is no number stays, for them to fix."""
    state = st.session_state
    value = state.setdefault(key, default)
    text, language = TEXT.format(key), LANGUAGE.format(key)
    stale = read_decimal(state.get(text)) != value or state.get(language) != current()
    if value is not None and stale:
        state[text] = decimal_text(value, current())
    state[language] = current()
    column.text_input(label, key=text, on_change=_typed, args=(key,), persist_state="session", **kwargs)


def _typed(key: str) -> None:
    """Callback: the number typed becomes the key's value, and the text is written back the reader's way."""
    text = TEXT.format(key)
    value = read_decimal(st.session_state.get(text))
    st.session_state[key] = value
    if value is not None:
        st.session_state[text] = decimal_text(value, current())
