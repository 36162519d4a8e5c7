"""The learning-rate box: its number written and read the reader's way, '0,01' on a Spanish page."""

import pytest
from streamlit.testing.v1 import AppTest

from linecnn.ui.decimal_box import read_decimal
from linecnn.ui.format import decimal_text


@pytest.mark.parametrize(
    ("value", "english", "spanish"),
    [(0.01, "0.01", "0,01"), (0.0005, "0.0005", "0,0005"), (1.0, "1", "1")]
    + [(5e-8, "0.00000005", "0,00000005")],
)
def test_a_value_is_written_with_every_digit_and_the_languages_mark(value, english, spanish):
    """Shortest digits, no trailing zeros, the language's decimal mark; the text reads back as the value."""
    assert (decimal_text(value, "en"), decimal_text(value, "es")) == (english, spanish)
    assert read_decimal(english) == read_decimal(spanish) == value


@pytest.mark.parametrize("value", [1e9, 1.5e30, 1e300, -1e300])
def test_a_huge_number_typed_is_written_back_without_a_traceback(value):
    """'1e9' typed has more digits than Decimal's 28 with every decimal: written '1E9', read back."""
    for language in ("en", "es"):
        assert read_decimal(decimal_text(value, language)) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [("0,05", 0.05), ("0.05", 0.05), (" 0,0100 ", 0.01), ("1e-3", 0.001), ("5", 5.0), ("-1", -1.0)]
    + [("", None), ("abc", None), ("0,0,1", None), ("nan", None), ("inf", None), (None, None)],
)
def test_either_decimal_mark_is_read_and_no_number_is_none(text, value):
    """A value out of range still reads (the page's bounds say why it is refused); a non-number is None."""
    assert read_decimal(text) == value


def _page() -> None:
    import streamlit as st

    from linecnn.ui.decimal_box import decimal_box

    st.session_state.setdefault("language", "es")  # i18n.LANGUAGE: a Spanish page until the test switches
    decimal_box(st, "lr", 0.01, "rate")


def test_the_box_shows_the_readers_way_and_keeps_the_number_typed():
    """Spanish shows '0,01'; '0.05' typed becomes 0.05 written '0,05'; a switch to English writes '0.05';
    text that is no number leaves the number None and the text as typed."""
    at = AppTest.from_function(_page).run()
    box = at.text_input(key="rate.text")
    assert box.value == "0,01" and at.session_state["rate"] == 0.01
    box.input("0.05").run()
    assert at.text_input(key="rate.text").value == "0,05" and at.session_state["rate"] == 0.05
    at.session_state["language"] = "en"
    at.run()
    assert at.text_input(key="rate.text").value == "0.05"
    at.text_input(key="rate.text").input("fast").run()
    assert at.session_state["rate"] is None and at.text_input(key="rate.text").value == "fast"
