"""How every chart of the app is drawn: no toolbar, and axis text a classroom projector keeps readable.

Streamlit's chart theme writes axis numbers and titles at 12 and 14 px in a pale grey (#808495,
3.6:1 against the app's paper, under the 4.5:1 small text needs), which a projector washes out
for the back of a room. Every chart goes through :func:`show_chart`, which writes them larger and,
on a light theme, in a slate with 8.5:1; a dark theme keeps Streamlit's own light grey, which reads well.
Its hover boxes have the same pale grey at 12 px on white; they get dark text at the axis size
on white inside a visible border, readable on a light or a dark page alike.
Plotly draws a chart as pictures without names, which a screen reader announces as "image" and
nothing more, so each chart is given a sentence saying what it shows (``chart.toml``).
"""

from __future__ import annotations

import re
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from linecnn.ui.layout import CHART_CONFIG

AXIS_INK = "#3e4c59"  # axis numbers and titles on a light theme: 8.5:1 on the paper #fbfbfa
TICK_PX = 14  # axis numbers (Streamlit's theme: 12)
AXIS_TITLE_PX = 15  # axis titles (Streamlit's theme: 14)
LEGEND_PX = 13  # legend entries (Streamlit's theme: 12)
HOVER_PAPER = "#ffffff"  # hover boxes: a white card on either theme
HOVER_INK = "#1f2933"  # hover text: 15:1 on white
HOVER_BORDER = AXIS_INK  # a border that sets the card apart from the white chart behind it
_AXIS = re.compile(r"[xy]axis\d*")  # a cartesian axis in a figure's layout: xaxis, yaxis2, ...


def readable(figure: go.Figure, dark: bool = False) -> go.Figure:
    """``figure`` with axis text, legend and hover boxes at projector sizes (dark: theme axis colours).

    Written into the figure's dict, not validated again: ``figure`` was validated when it was built,
    and what this adds is fixed. Plotly's update_* calls cost tens of milliseconds a figure, and
    validating the whole dict again (Streamlit's template included) about 5 ms, which a live chart
    pays between two epochs on every redraw."""
    ink = {} if dark else {"color": AXIS_INK}
    spec = figure.to_dict()
    layout = spec.setdefault("layout", {})
    for name in {"xaxis", "yaxis", *(key for key in layout if _AXIS.fullmatch(key))}:
        axis = layout.setdefault(name, {})
        axis["tickfont"] = axis.get("tickfont", {}) | {"size": TICK_PX, **ink}
        title = axis.get("title", {})
        title = {"text": title} if isinstance(title, str) else title
        axis["title"] = title | {"font": title.get("font", {}) | {"size": AXIS_TITLE_PX, **ink}}
    legend = layout.get("legend", {})
    layout["legend"] = legend | {"font": legend.get("font", {}) | {"size": LEGEND_PX}}
    hover = layout.get("hoverlabel", {})
    hover_font = hover.get("font", {}) | {"color": HOVER_INK, "size": TICK_PX}
    layout["hoverlabel"] = hover | {"bgcolor": HOVER_PAPER, "bordercolor": HOVER_BORDER, "font": hover_font}
    return go.Figure(spec, _validate=False)


def show_chart(figure: go.Figure, key: str, alt: str, where: Any = st, **options: Any) -> Any:
    """Draw ``figure`` in ``where`` (the page, a column, an st.empty slot) the app's way; ``alt``,
    what it shows in the page's language, is the chart's name for a screen reader. Returns the chart's
    slot: a later chart drawn there replaces it."""
    dark = st.context.theme.type == "dark"
    return where.plotly_chart(readable(figure, dark), config=CHART_CONFIG, key=key, alt=alt, **options)
