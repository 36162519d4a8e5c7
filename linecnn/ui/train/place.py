"""One of the Train page's run charts (loss or accuracy): where it is drawn, so that it never goes blank.

Streamlit mounts a Plotly chart afresh whenever its figure changes, and the new chart shows nothing
until Plotly has drawn it: a second or more on a busy phone. So the place holds two charts, one over
the other (layout.css lays them in one grid cell): the live run's redraws underneath, and on top the
chart of an ended run (or of no run yet). When a run ends its chart is drawn over the live run's last
one, which stays in view until the new chart covers it. The script run after that (the rerun at a
run's end, or the one a Stop click starts) sends that live chart once more: the same figure under the
same key is the same element, which the browser keeps as it is, instead of the removal of a chart that
the ended one may not have covered yet.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import streamlit as st

from linecnn.ui.chart import show_chart

KEPT = "train.live_charts"  # session key: {chart name: (key, figure)} of the live run's last drawn charts


class ChartPlace:
    """A chart's place on the page: a container whose first element is the ended run's chart, the second
    the live run's. Both are made in that order by the place's first draw in a script run."""

    def __init__(self, name: str, stack: Any) -> None:
        self.name = name  # "loss" or "acc": the keys' middle part ("train.loss.3")
        self.stack = stack  # the st.container holding the two charts
        self.ended: Any = None  # the slot of the ended run's chart, once made in this script run
        self.live: Any = None  # the slot of the live run's chart, once made in this script run

    def draw_live(self, figure: go.Figure, key: str, alt: str) -> None:
        """Draw the live run's chart (no ended run's chart over it)."""
        if self.ended is None:
            self.ended = self.stack.empty()
        self.live = show_chart(figure, key, alt, self.stack if self.live is None else self.live)
        st.session_state.setdefault(KEPT, {})[self.name] = (key, figure)

    def draw_ended(self, figure: go.Figure, key: str, alt: str) -> None:
        """Draw the ended run's chart over the live run's (the one this script run drew, or the last
        one an earlier script run drew, sent once more)."""
        self.ended = show_chart(figure, key, alt, self.stack if self.ended is None else self.ended)
        if self.live is not None:
            return  # this script run drew the live chart: it is still there
        kept = st.session_state.get(KEPT, {}).pop(self.name, None)
        if kept is not None:
            self.live = show_chart(kept[1], kept[0], alt, self.stack)
