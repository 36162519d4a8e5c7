"""Tables whose numbers sort as numbers and read the reader's way.

A number put in a table as text ('1.234,5', '95,3 %') sorts as text when the reader clicks its
header: '10' before '9', '5E-8' after '0,01'. Here each number stays a number, so a header click
sorts by value, and a pandas Styler gives the cell the text it shows. Streamlit's own column
formats cannot do this: its 'localized' format follows the browser's locale, not the page's
language, and its printf formats always write a decimal point.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
from pandas.io.formats.style import Styler


@dataclass(frozen=True)
class Shown:
    """A table cell that sorts by a number and shows a text for it."""

    value: float | None  # what a click on the header sorts by; None when there is no number
    text: str  # what the cell shows: the number the reader's way, '-', or a word such as 'full'


def sortable_table(rows: Sequence[Mapping[str, object]]) -> Styler:
    """``rows`` as one table: a Shown cell sorts by its value and shows its text; others show as they are."""
    values = pd.DataFrame([{name: _value(cell) for name, cell in row.items()} for row in rows])
    styler = values.style
    for name in values.columns:
        cells = [row.get(name) for row in rows]
        if any(isinstance(cell, Shown) for cell in cells):
            _show_texts(styler, name, [_as_shown(cell) for cell in cells])
    return styler


def _value(cell: object) -> object:
    return cell.value if isinstance(cell, Shown) else cell


def _as_shown(cell: object) -> Shown:
    """A cell of a column of Shown cells; a plain one shows as Python writes it ('' for None)."""
    if isinstance(cell, Shown):
        return cell
    return Shown(None, "") if cell is None else Shown(float(cell), str(cell))  # type: ignore[arg-type]


def _key(value: object) -> float | None:
    """A cell's value as a dictionary key: a missing one (None, NaN) is None; 3 and 3.0 are one key."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)  # type: ignore[arg-type]


def _show_texts(styler: Styler, name: str, cells: list[Shown]) -> None:
    """Make column ``name`` show each cell's text: by value when each value has one text, else per cell."""
    by_value: dict[float | None, set[str]] = {}
    for cell in cells:
        by_value.setdefault(_key(cell.value), set()).add(cell.text)
    if all(len(texts) == 1 for texts in by_value.values()):
        lookup = {key: texts.pop() for key, texts in by_value.items()}
        styler.format(lambda value: lookup[_key(value)], subset=[name])
        return
    # One value shown two ways ('3/120' and '3/50' epochs): one format per cell, slower but rare.
    for position, cell in enumerate(cells):
        styler.format(lambda _, text=cell.text: text, subset=pd.IndexSlice[[position], [name]])
