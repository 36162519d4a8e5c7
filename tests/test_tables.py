"""Sortable tables: numbers stay numbers beneath the text, sit at the left, and a gap reads as asked."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from tests.helpers import shown


def _page() -> None:
    import pandas as pd

    from linecnn.ui.tables import show_table, sortable

    frame = pd.DataFrame({"run": ["#1", "#2", "#3"], "ms": [2.5, 1234.5, None]})
    show_table(sortable(frame, {"ms": lambda v: f"{v:,.1f}".replace(",", " ")}, "-"), "-", hide_index=True)


def test_a_sortable_table_keeps_numbers_beneath_and_writes_them_and_its_gaps_as_asked():
    """Beneath: numbers (a header click sorts by size); on screen: the given writing, '-' for a gap,
    and the numbers at the left like the text, never under a long header's far end."""
    at = AppTest.from_function(_page).run()
    table = at.dataframe[0]
    assert table.value["ms"].dtype.kind == "f"
    assert list(shown(table)["ms"]) == ["2.5", "1 234.5", "-"]
    assert table.proto.placeholder == "-"
    assert json.loads(table.proto.columns)["ms"]["alignment"] == "left"
