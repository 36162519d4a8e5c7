"""Tables whose numbers read the reader's way and still sort as numbers when a header is clicked.

A table of numbers already written as text ('1.234,5') sorts as text when a student clicks its
header: '10' before '9', '1.234' before '999'. So the numbers stay numbers underneath, and a pandas
Styler writes each one the language's way on screen (Streamlit shows its text and sorts its values).

A screen reader hears a table's values, not its text: the table the grid keeps for it beside the
drawn cells holds each value as JavaScript writes it ('5.3867360000197095'). So each value beneath
is the number its text shows ('5.39', or 98.8 for '98.8 %'), and the page's script
(``linecnn.ui.builtin_texts``) writes it with the language's marks ('5,39').
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import streamlit as st
from babel.numbers import NumberFormatError, parse_decimal
from pandas.io.formats.style import Styler

from linecnn.ui.i18n import current


def sortable(frame: pd.DataFrame, formats: Mapping[str, Callable[[Any], str]], missing: str = "") -> Styler:
    """``frame`` with each column of ``formats`` written by its function, and ``missing`` for no value."""
    numeric = frame.copy()
    texts: dict[str, Callable[[float], str]] = {}
    language = current()
    for column, write in formats.items():
        if column not in numeric.columns:
            continue
        values = pd.to_numeric(numeric[column], errors="coerce").dropna()
        shown = values.map(write)  # each cell written once: a results table has thousands
        beneath = [_shown_number(text, value, language) for text, value in zip(shown, values, strict=True)]
        numeric[column] = pd.Series(beneath, index=values.index, dtype=float).reindex(numeric.index)
        # Each text is found by the number beneath it: a percentage's is no longer the fraction it writes.
        texts[column] = dict(zip(beneath, shown, strict=True)).__getitem__
    return numeric.style.format(texts, na_rep=missing)


def _shown_number(text: str, value: float, language: str) -> float:
    """The number ``text`` shows for ``value`` (5.39 for '5.39'; 98.8 for '98.8 %', where the fraction
    0.988 would be heard as 'zero point nine eight eight' and 1 as 'one', not a hundred percent);
    ``value`` itself when the text is not a plain number ('1E30')."""
    try:
        number = text.strip().removesuffix("%").rstrip()  # a percentage's number, without its sign
        return float(parse_decimal(number, locale=language, strict=True))
    except (NumberFormatError, ValueError):
        return value


def show_table(table: Styler, missing: str = "", **options: Any) -> None:
    """Draw a ``sortable`` table: ``missing`` where a value is missing (Streamlit would write 'None'),
    and numbers at the left of their columns like the text, so that under a long header a phone's
    first view of a column shows its numbers, not blank-looking cells."""
    numbers = table.data.select_dtypes("number").columns
    config = {column: st.column_config.Column(alignment="left") for column in numbers}
    config |= options.pop("column_config", None) or {}
    st.dataframe(table, column_config=config, placeholder=missing, **options)
