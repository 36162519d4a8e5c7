"""The Draw page's look inside the model: the conv1 and conv2 feature maps of the last prediction."""

from __future__ import annotations

import streamlit as st

from linecnn.draw.predict import Prediction
from linecnn.ui.chart import show_chart
from linecnn.ui.draw.charts import feature_maps_figure
from linecnn.ui.i18n import number, t

MAX_CONV1_MAPS, MAX_CONV2_MAPS = 16, 32  # a width-2 model shows all; wider ones their most active


def maps_title(count: int, limit: int) -> str:
    """'8 feature maps', or 'the 16 most active of 128 feature maps' for wide models."""
    if count <= limit:
        return t("draw.maps_all", count=number(count))
    return t("draw.maps_some", limit=number(limit), count=number(count))


def show_feature_maps(prediction: Prediction) -> None:
    """The conv1 and conv2 activations as small heatmaps, with a caption saying what they are."""
    st.divider()
    st.subheader(t("draw.inside"))
    conv1, conv2 = prediction.conv1, prediction.conv2
    with st.container(horizontal=True, gap="large"):
        with st.container(width="content"):
            st.markdown(f"**conv1**: {maps_title(len(conv1), MAX_CONV1_MAPS)}, 8×8")
            figure = feature_maps_figure(conv1, columns=4, limit=MAX_CONV1_MAPS, hover=t("draw.hover_filter"))
            show_chart(figure, "draw.conv1", t("chart.conv1"), width="content")
        with st.container(width="content"):
            st.markdown(f"**conv2**: {maps_title(len(conv2), MAX_CONV2_MAPS)}, 4×4")
            figure = feature_maps_figure(
                conv2, columns=8, map_px=52, limit=MAX_CONV2_MAPS, hover=t("draw.hover_filter")
            )
            show_chart(figure, "draw.conv2", t("chart.conv2"), width="content")
    st.caption(t("draw.maps_caption"))
