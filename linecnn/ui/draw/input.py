"""The Draw page's browser-side inputs: the 8x8 cell grid and the canvas's Clear button.

Both act in the browser at once. A click that had to wait for a rerun would race the next
click or stroke: a grid rebuilt by the rerun of one click drops the click that landed meanwhile.
Clear presses the canvas's own reset, which goes back to the drawing the canvas started from;
a canvas started from a kept drawing empties only when the rerun that Clear asks for redraws it
from the server, which wipes whatever is on it. Until then Clear covers the canvas with a blank
sheet that takes the strokes, and draws them on the canvas once it is empty (see canvas-clear.js).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from linecnn.train.lines import SIZE
from linecnn.ui.i18n import DEFAULT, t, translate
from linecnn.ui.web import asset, fill

GRID_KEY = "draw.grid"  # the cell grid's widget; its value is {"cells": 64 booleans, row by row}
CLEAR_KEY = "draw.canvas_clear"  # the canvas's Clear button
RESET_LABEL = "builtin.reset"  # the canvas toolbar's reset button's label, in the catalogs

# Shared look of the two components: Streamlit's secondary button, from its theme variables.
_BUTTON_CSS = asset("clear-button.css")
# Its label comes with the data of each render, so it follows the language toggle.
_CLEAR_HTML = asset("clear-button.html")

_GRID_CSS = _BUTTON_CSS + asset("cell-grid.css")
# The grid lives in the browser: a click flips its cell there and sends the whole grid, so
# every click counts whatever the server is doing. Data from Python sets a new grid's first cells
# only; its words (data.text) are set again on every render, so they follow the language.
_GRID_JS = fill("cell-grid.js", clear_html=_CLEAR_HTML)
# Clear presses the canvas's own reset (its toolbar's bin) in the browser; see the module's docstring.
_CLEAR_JS = asset("canvas-clear.js")

_grid = st.components.v2.component(
    "linecnn_cell_grid",
    html=asset("cell-grid.html"),
    css=_GRID_CSS,
    js=_GRID_JS,
)
_canvas_clear = st.components.v2.component(
    "linecnn_canvas_clear", html=_CLEAR_HTML, css=_BUTTON_CSS, js=_CLEAR_JS
)


def cell_grid(initial: list[bool]) -> list[bool]:
    """The clickable 8x8 grid, starting from ``initial``; returns its 64 cells, row by row."""
    text = {"grid": t("draw.grid_label"), "cell": t("draw.cell_label"), "clear": t("draw.clear")}
    result = _grid(
        data={"cells": initial, "text": text},
        key=GRID_KEY,
        default={"cells": initial},
        on_cells_change=lambda: None,
        width="content",
        height="content",
    )
    cells = result.get("cells") or initial
    return [bool(cell) for cell in cells][: SIZE * SIZE]


def canvas_clear_button(on_reset: Callable[[], None], ink: str, brush: int) -> None:
    """A Clear button that empties the page's canvas in the browser; ``on_reset`` runs after each reset,
    and the canvas's pen (``ink``, ``brush``) draws the strokes made while the canvas waits to empty."""
    resets = sorted({translate(DEFAULT, RESET_LABEL), t(RESET_LABEL)})
    data = {"label": t("draw.clear"), "resets": resets, "pen": {"ink": ink, "brush": brush}}
    _canvas_clear(key=CLEAR_KEY, data=data, on_reset_change=on_reset, width="content", height="content")
