"""Tables whose numbers read the reader's way and still sort as numbers when a header is clicked.

A table of numbers already written as text ('1.234,5') sorts as text when a student clicks its
header: '10' before '9', '1.234' before '999'. So the numbers stay numbers underneath, and a pandas
Styler writes each one the language's way on screen (Streamlit shows its text and sorts its values).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler


def sortable(frame: pd.DataFrame, formats: Mapping[str, Callable[[Any], str]], missing: str = "") -> Styler:
    """``frame`` with each column of ``formats`` written by its function, and ``missing`` for no value."""
    numeric = frame.copy()
    for column in formats:
        if column in numeric.columns:
            numeric[column] = pd.to_numeric(numeric[column], errors="coerce")
    chosen = {column: write for column, write in formats.items() if column in numeric.columns}
    return numeric.style.format(chosen, na_rep=missing)


def show_table(table: Styler, missing: str = "", **options: Any) -> None:
    """Draw a ``sortable`` table: ``missing`` where a value is missing (Streamlit would write 'None'),
    and numbers at the left of their columns like the text, so that under a long header a phone's
    first view of a column shows its numbers, not blank-looking cells."""
    numbers = table.data.select_dtypes("number").columns
    config = {column: st.column_config.Column(alignment="left") for column in numbers}
    config |= options.pop("column_config", None) or {}
    st.dataframe(table, column_config=config, placeholder=missing, **options)
