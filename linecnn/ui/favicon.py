"""The pages' favicon, drawn here and served by this server, so a page never fetches an icon elsewhere.

Streamlit turns a ``:material/...:`` page icon into an address on an outside font server; an
image passed as the page icon is served from the app's own origin instead.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from PIL import Image

CELLS = 8  # the lesson's images are 8x8
CELL_PX = 8  # each cell drawn as 8x8 pixels: a 64x64 icon
INK = (49, 51, 63)  # Streamlit's text colour, dark on white


@cache
def favicon() -> Image.Image:
    """A diagonal line on the lesson's 8x8 grid, as a 64x64 RGB picture (Streamlit takes no array here)."""
    side = CELLS * CELL_PX
    image = np.full((side, side, 3), 255, dtype=np.uint8)
    for cell in range(1, CELLS - 1):  # the lesson's lines stay off the edges
        rows = slice(cell * CELL_PX, (cell + 1) * CELL_PX)
        columns = slice((CELLS - 1 - cell) * CELL_PX, (CELLS - cell) * CELL_PX)
        image[rows, columns] = INK
    return Image.fromarray(image)
