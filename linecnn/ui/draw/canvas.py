"""The Draw page's drawing panel: the input picker, the canvas with its brush, and the cell grid.

``streamlit_drawable_canvas`` can only be imported inside a running app, so the canvas
is imported where it is drawn, never when this module loads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st
import torch

from linecnn.draw.preprocess import Drawing, from_cells, preprocess
from linecnn.train.lines import SIZE
from linecnn.ui.draw import BRUSH, CANVAS, CELLS, KEPT, MODE, SEED
from linecnn.ui.draw.charts import INK
from linecnn.ui.draw.input import canvas_clear_button, cell_grid
from linecnn.ui.i18n import t
from linecnn.ui.web import asset

CANVAS_PX = 280  # canvas side: 35 px per cell of the 8x8 input
BRUSHES = (8, 16, 24, 36)  # brush widths in px: a fine pen (a quarter of a cell) to a marker (a cell)
DEFAULT_BRUSH = 24


@dataclass(frozen=True)
class Kept:
    """A canvas drawing kept for the next canvas: Fabric's JSON to redraw it, and what the model sees."""

    fabric: dict[str, Any]
    drawing: Drawing


def pick_input() -> str:
    """The canvas-or-cells switch; returns "canvas" or "cells"."""
    return st.segmented_control(
        t("draw.input"),
        ["canvas", "cells"],
        format_func=lambda mode: t(f"draw.input_{mode}"),
        default="canvas",
        required=True,
        key=MODE,
        persist_state="session",
        help=t("draw.input_help"),
    )


def drawing(mode: str) -> Drawing:
    """The panel's heading and the input ``mode`` picks; returns what was drawn."""
    st.subheader(t("draw.your_line"))
    return cell_drawing() if mode == "cells" else canvas_drawing()


def canvas_drawing() -> Drawing:
    """The free-drawing canvas with its brush picker and Clear; returns what was drawn."""
    from streamlit_drawable_canvas import st_canvas  # loads only inside a running app (see above)

    seed = canvas_seed()
    result = st_canvas(
        initial_drawing=seed.fabric if seed else None,
        stroke_width=st.session_state.get(BRUSH, DEFAULT_BRUSH),
        stroke_color=INK,
        background_color="#ffffff",
        width=CANVAS_PX,
        height=CANVAS_PX,
        drawing_mode="freedraw",
        return_image_data=True,
        key=CANVAS,
    )
    # Below the canvas: above it is where its undo/redo toolbar stays (see park_canvas_toolbar).
    st.caption(t("draw.canvas_caption"))
    brush = st.segmented_control(
        t("draw.brush"),
        BRUSHES,
        format_func=lambda px: t("draw.pixels", px=px),
        default=DEFAULT_BRUSH,
        required=True,
        key=BRUSH,
        persist_state="session",
        help=t("draw.brush_help"),
    )
    canvas_clear_button(on_reset=forget_drawing, ink=INK, brush=brush)
    return keep_drawing(result.image_data, result.json_data, seed)


# The canvas forgets its drawing whenever Streamlit draws it anew: back from another page or from
# the cell grid. It is started from the last drawing kept instead, and keeps starting from that one
# while it stays on screen, since a new initial drawing would redraw it and wipe the stroke in hand.
def canvas_seed() -> Kept | None:
    """The drawing the canvas starts from: the last one kept if the canvas is new, else the same as before."""
    if CANVAS not in st.session_state:
        st.session_state[SEED] = st.session_state.get(KEPT)
    return st.session_state.get(SEED)


def keep_drawing(pixels: Any, fabric: dict[str, Any] | None, seed: Kept | None) -> Drawing:
    """What the model sees of the canvas's ``pixels``, kept with its Fabric JSON for the next canvas."""
    if pixels is None:  # nothing sent since the canvas appeared: it shows its seed
        return seed.drawing if seed else Drawing.blank()
    drawing = preprocess(pixels)
    st.session_state[KEPT] = None if drawing.empty or fabric is None else Kept(fabric, drawing)
    return drawing


def forget_drawing() -> None:
    """On reset (Clear or the toolbar's bin): the canvas starts over from empty, and so does the next one.

    The canvas's reset goes back to the drawing it started from: a canvas started from a kept
    drawing empties only when its seed is taken away here, which redraws it once, from the server
    (Clear's blank sheet covers it until then, see input).
    """
    st.session_state[SEED] = st.session_state[KEPT] = None


def cell_drawing() -> Drawing:
    """The lesson's 8x8 grid of cells to click; returns the painted grid."""
    st.caption(t("draw.cells_caption"))
    grid = cell_grid(cells())
    return from_cells(keep_cells(grid))


def cells() -> list[bool]:
    """The cell grid as last sent, 64 booleans row by row."""
    return st.session_state.setdefault(CELLS, [False] * (SIZE * SIZE))


def keep_cells(grid: list[bool]) -> torch.Tensor:
    """Remember the grid (a grid shown again starts from it) and return it as an (8, 8) image."""
    st.session_state[CELLS] = grid
    return torch.tensor(grid, dtype=torch.float32).view(SIZE, SIZE)


# The canvas's hover toolbar (undo, redo, reset) waits invisibly over the top-right corner of
# the drawing area and slides up only after the pointer has hovered there a moment, so a
# finger tap or a quick stroke starting in that corner hits the toolbar and draws nothing, and a
# touch screen, which has no hover, never shows undo at all. This script parks it above the
# canvas for good, always visible; only its card takes clicks.
_TOOLBAR_JS = asset("canvas-toolbar.js")
_toolbar_fix = st.components.v2.component("linecnn_canvas_toolbar_fix", js=_TOOLBAR_JS)


def park_canvas_toolbar() -> None:
    """Keep the canvas toolbar above the canvas, never over the drawing area (see above)."""
    _toolbar_fix(key="draw.toolbar_fix")
