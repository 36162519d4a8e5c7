"""The number boxes: numbers written and read the reader's way, '0,01' and '20.000' on a Spanish page."""

import pytest
from streamlit.testing.v1 import AppTest

from linecnn.ui.format import decimal_text
from linecnn.ui.number_boxes import read_count, read_decimal


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

    from linecnn.ui.number_boxes import count_box, decimal_box

    st.session_state.setdefault("language", "es")  # i18n.LANGUAGE: a Spanish page until the test switches
    decimal_box(st, "lr", 0.01, "rate")
    count_box(st, "images", 20_000, "images")


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


@pytest.mark.parametrize(
    ("text", "language", "value"),
    [("20.000", "es", 20000.0), ("1.000", "es", 1000.0), ("1,5", "es", 1.5), ("20 000", "es", 20000.0)]
    + [("20,000", "en", 20000.0), ("1.5", "en", 1.5), ("2e3", "en", 2000.0), ("2e3", "es", 2000.0)]
    + [("", "es", None), ("abc", "en", None), ("inf", "es", None), (None, "en", None)],
)
def test_a_count_is_read_with_the_languages_thousands_separator(text, language, value):
    """'20.000' is twenty thousand on a Spanish page and '20,000' on an English one; a non-number is None."""
    assert read_count(text, language) == value


def test_the_count_box_writes_and_reads_thousands_the_readers_way():
    """Spanish shows '20.000'; '1.000' typed is a thousand, '2,5' rounds to 3; English reads '12,000';
    text that is no number leaves the number None and the text as typed."""
    at = AppTest.from_function(_page).run()
    assert at.text_input(key="images.text").value == "20.000" and at.session_state["images"] == 20_000
    at.text_input(key="images.text").input("1.000").run()
    assert at.session_state["images"] == 1000
    at.text_input(key="images.text").input("2,5").run()
    assert at.session_state["images"] == 3 and at.text_input(key="images.text").value == "3"
    at.session_state["language"] = "en"
    at.text_input(key="images.text").input("12,000").run()
    assert at.session_state["images"] == 12_000 and at.text_input(key="images.text").value == "12,000"
    at.text_input(key="images.text").input("many").run()
    assert at.session_state["images"] is None and at.text_input(key="images.text").value == "many"


def _form_page() -> None:
    import streamlit as st

    from linecnn.ui.number_boxes import count_field

    st.session_state.setdefault("language", "es")  # i18n.LANGUAGE: a Spanish page until the test switches
    with st.form("settings"):
        count_field(st, "images", 120, "images")
        st.form_submit_button("Run")


def test_a_count_field_in_a_form_reads_thousands_and_follows_a_language_switch():
    """In a form (no callbacks): '2,5' sent shows the 3 it runs with; '10.000' sent on a Spanish page is ten
    thousand; after a switch to English the text reads '10,000', not ten; text that is no number is None."""
    at = AppTest.from_function(_form_page).run()
    assert at.text_input(key="images.text").value == "120" and at.session_state["images"] == 120
    at.text_input(key="images.text").input("2,5")
    at.button[0].click().run()
    assert at.session_state["images"] == 3 and at.text_input(key="images.text").value == "3"  # as run
    at.text_input(key="images.text").input("10.000")
    at.button[0].click().run()
    assert at.session_state["images"] == 10_000
    at.session_state["language"] = "en"
    at.run()
    assert at.text_input(key="images.text").value == "10,000" and at.session_state["images"] == 10_000
    at.text_input(key="images.text").input("lots")
    at.button[0].click().run()
    assert at.session_state["images"] is None
