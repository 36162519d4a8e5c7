"""Chart text readable from the back of a classroom: axis numbers and titles large and dark enough."""

from __future__ import annotations

import tomllib

import plotly.graph_objects as go

from linecnn.ui.chart import AXIS_TITLE_PX, TICK_PX, readable
from tests.helpers import ROOT
from tests.layout_helpers import contrast, rgb


def test_axis_text_is_large_and_dark_enough_on_the_light_theme():
    """On the app's paper, axis numbers and titles reach 14/15 px and WCAG's 4.5:1 for small text."""
    paper = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]["backgroundColor"]
    figure = go.Figure(go.Scatter(x=[1, 2], y=[3, 4])).update_layout(xaxis_title="x", yaxis_title="y")
    figure = readable(figure)
    for axis in (figure.layout.xaxis, figure.layout.yaxis):
        assert axis.tickfont.size >= 14 and axis.title.font.size >= 15
        assert contrast(rgb(axis.tickfont.color), rgb(paper)) >= 4.5
        assert contrast(rgb(axis.title.font.color), rgb(paper)) >= 4.5


def test_a_dark_theme_keeps_its_own_axis_colour():
    """On a dark theme only the sizes change: a fixed dark slate would vanish on a dark page."""
    figure = readable(go.Figure(go.Bar(x=["a"], y=[1])), dark=True)
    x, y = figure.layout.xaxis, figure.layout.yaxis
    assert x.tickfont.size == TICK_PX and y.title.font.size == AXIS_TITLE_PX
    assert x.tickfont.color is None and y.title.font.color is None


def test_every_chart_of_the_app_is_drawn_through_show_chart():
    """No page draws a Plotly chart itself, so none escapes the readable axis text."""
    sources = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "linecnn" / "ui").rglob("*.py")]
    callers = [
        path.relative_to(ROOT).as_posix()
        for path in sources
        if path.name != "chart.py" and ".plotly_chart(" in path.read_text()
    ]
    assert callers == []


def test_hover_boxes_are_dark_text_on_white_with_a_border_at_the_axis_size():
    """Hover boxes were Streamlit's pale grey 12 px on white; on either theme they now read at 4.5:1."""
    for dark in (False, True):
        label = readable(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), dark=dark).layout.hoverlabel
        assert label.font.size >= TICK_PX
        assert contrast(rgb(label.font.color), rgb(label.bgcolor)) >= 4.5
        assert contrast(rgb(label.bordercolor), rgb(label.bgcolor)) >= 3


def test_readable_trusts_the_figure_it_is_given():
    """The figure was validated when it was built: validating it again cost about 5 ms a chart,
    paid between two epochs on every live redraw. A figure built unchecked passes through unchecked."""
    unchecked = go.Figure({"data": [], "layout": {"unknownkey": 1}}, _validate=False)
    figure = readable(unchecked)
    assert figure.to_dict()["layout"]["unknownkey"] == 1
    assert figure.layout.xaxis.tickfont.size == TICK_PX
