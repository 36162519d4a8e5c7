"""Tables whose numbers sort by value while each cell shows the reader's text."""

from streamlit import dataframe_util
from streamlit.elements.lib.pandas_styler_utils import marshall_styler
from streamlit.proto.ArrowData_pb2 import ArrowData

from linecnn.ui.sortable import Shown, sortable_table


def shown(rows) -> tuple[list[dict], list[dict]]:
    """The values a table sorts by and the texts Streamlit sends for it, row by row."""
    proto = ArrowData()
    styler = sortable_table(rows)
    marshall_styler(proto, styler, "test")
    texts = dataframe_util.convert_arrow_bytes_to_pandas_df(proto.styler.display_values)
    return styler.data.to_dict("records"), texts.to_dict("records")


def test_numbers_stay_numbers_and_show_the_readers_text():
    """'0,01' and '5E-8' sort as 0.01 and 5e-8; a missing value shows its dash; text stays as it is."""
    values, texts = shown(
        [
            {"run": 1, "lr": Shown(0.01, "0,01"), "ms": Shown(None, "-"), "data": "rectas"},
            {"run": 2, "lr": Shown(5e-8, "5E-8"), "ms": Shown(1234.5, "1.234,5"), "data": "a mano"},
        ]
    )
    assert [row["lr"] for row in values] == [0.01, 5e-8]
    assert values[1]["ms"] == 1234.5
    assert [(row["lr"], row["ms"], row["data"]) for row in texts] == [
        ("0,01", "-", "rectas"),
        ("5E-8", "1.234,5", "a mano"),
    ]


def test_one_value_shown_two_ways_keeps_each_cells_text():
    """Two runs stopped at epoch 3 of different plans show '3/120' and '3/50', and sort as 3."""
    values, texts = shown(
        [{"epochs": Shown(3, "3/120")}, {"epochs": Shown(3, "3/50")}, {"epochs": Shown(9, "9/9")}]
    )
    assert [row["epochs"] for row in values] == [3, 3, 9]
    assert [row["epochs"] for row in texts] == ["3/120", "3/50", "9/9"]
