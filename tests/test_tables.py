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
    at = AppTest.from_function(_page, default_timeout=30).run()
    table = at.dataframe[0]
    assert table.value["ms"].dtype.kind == "f"
    assert list(shown(table)["ms"]) == ["2.5", "1 234.5", "-"]
    assert table.proto.placeholder == "-"
    assert json.loads(table.proto.columns)["ms"]["alignment"] == "left"


def _spanish_page() -> None:
    from functools import partial

    import pandas as pd

    from linecnn.ui.bench.words import significant
    from linecnn.ui.i18n import number, percent
    from linecnn.ui.tables import show_table, sortable

    frame = pd.DataFrame(
        {"ms": [5.3867360000197095, 0.41234], "rate": [66830.82296936082, 7.5], "acc": [1.0, 0.98765]}
    )
    show_table(
        sortable(frame, {"ms": significant, "rate": number, "acc": partial(percent, digits=1)}),
        hide_index=True,
    )


def test_the_value_beneath_a_cell_is_the_number_its_text_shows():
    """A screen reader hears the value beneath a cell: it is '5.39' where the eye reads '5,39', not 5.3867…;
    and 98.8 where the eye reads '98,8 %', not the fraction 0.98765 (1 for 100 %)."""
    at = AppTest.from_function(_spanish_page, default_timeout=30)
    at.session_state["language"] = "es"
    at.run()
    table = at.dataframe[0]
    assert list(shown(table)["ms"]) == ["5,39", "0,412"] and list(shown(table)["rate"]) == ["66.831", "8"]
    assert list(table.value["ms"]) == [5.39, 0.412] and list(table.value["rate"]) == [66831, 8]
    assert list(shown(table)["acc"]) == ["100,0 %", "98,8 %"] and list(table.value["acc"]) == [100.0, 98.8]
