"""The Draw page's middle and right panels: the 8x8 image the model sees, and what it says."""

from __future__ import annotations

import streamlit as st
import torch

from linecnn.device import describe
from linecnn.draw.predict import Prediction, predict
from linecnn.draw.preprocess import Drawing
from linecnn.train.data import CLASS_NAMES
from linecnn.ui.draw.charts import CHART_CONFIG, input_figure, probability_figure
from linecnn.ui.draw.model import ModelChoice
from linecnn.ui.i18n import decimal_mark, number, percent, plotly_separators, say, t

LOW_CONFIDENCE = 0.6  # below this the page says the model is unsure
# The verdict; the test ids let the browser tests read it.
VERDICT_HTML = (
    "<div style='color:#52606d'>{lead}</div>"
    "<div data-testid='draw-prediction' style='font-size:{size};font-weight:600;line-height:1.2'>{name}</div>"
    "<div data-testid='draw-confidence' style='color:#52606d'>{confidence}</div>"
)


def show_seen(drawing: Drawing, mode: str) -> None:
    """The drawing as the model's 8x8 input, each cell with its value."""
    st.subheader(t("draw.model_sees"))
    figure = input_figure(drawing.image, hover=t("draw.hover_cell"), decimal=decimal_mark())
    st.plotly_chart(figure, config=CHART_CONFIG, width="content", key="draw.input")
    st.caption(t("draw.sees_cells" if mode == "cells" else "draw.sees_canvas"))


def classify(drawing: Drawing, mode: str, choice: ModelChoice, device: torch.device) -> Prediction | None:
    """The prediction panel: a warning for an empty input, else the model's verdict; returns it."""
    st.subheader(t("draw.prediction"))
    prediction = None
    if drawing.empty:
        st.warning(t("draw.empty_cells" if mode == "cells" else "draw.empty_canvas"), icon=":material/draw:")
    else:
        try:
            prediction = predict(choice.model, drawing.image, device)
        except (RuntimeError, ValueError) as error:  # e.g. a GPU out of memory: say so, no traceback
            st.error(t("draw.failed", device=describe(device), error=say(error)), icon=":material/error:")
        else:
            show_prediction(drawing, prediction)
    st.caption(t("draw.model_caption", title=choice.title, detail=choice.detail))
    return prediction


def show_prediction(drawing: Drawing, prediction: Prediction) -> None:
    """The class, how sure the model is, the probability bars and where it ran."""
    if drawing.problem:
        st.warning(say(drawing.problem), icon=":material/info:")
    sure = "draw.unsure" if prediction.confidence < LOW_CONFIDENCE else "draw.sure"
    lead, size = (t("draw.forced_guess"), "1.5rem") if drawing.problem else ("", "2.2rem")
    confidence = t(sure, percent=percent(prediction.confidence))
    verdict = VERDICT_HTML.format(
        lead=lead, size=size, name=class_name(prediction.name), confidence=confidence
    )
    st.markdown(verdict, unsafe_allow_html=True)
    figure = probability_figure(
        prediction.probabilities,
        names=[class_name(name) for name in CLASS_NAMES],
        texts=[percent(p) for p in prediction.probabilities],
        axis_title=t("draw.probability"),
        separators=plotly_separators(),
    )
    st.plotly_chart(figure, config=CHART_CONFIG, key="draw.probabilities")
    if drawing.problem:
        st.caption(t("draw.softmax"))
    ms = number(prediction.seconds * 1000, 2)
    st.caption(t("draw.ran_on", device=describe(prediction.device), ms=ms))


def class_name(name: str) -> str:
    """A class ('vertical', ...) in the session's language."""
    return t(f"draw.class.{name}")
