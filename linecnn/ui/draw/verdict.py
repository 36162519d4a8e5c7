"""The Draw page's middle and right panels: the 8x8 image the model sees, and what it says."""

from __future__ import annotations

import streamlit as st
import torch

from linecnn.draw.familiar import like_lesson_data
from linecnn.draw.predict import Prediction, predict
from linecnn.draw.preprocess import Drawing
from linecnn.train.data import CLASS_NAMES
from linecnn.ui.chart import show_chart
from linecnn.ui.draw.charts import input_figure, probability_figure
from linecnn.ui.draw.model import ModelChoice
from linecnn.ui.format import device_text
from linecnn.ui.i18n import decimal_mark, number, percent, plotly_separators, say, t
from linecnn.ui.web import asset

LOW_CONFIDENCE = 0.6  # below this the verdict is "not sure", with the class it leans to
# The verdict; the test ids let the browser tests read it. A status: a screen reader says the new verdict
# when a drawing or a pressed cell changes it, where the reader would otherwise hear nothing.
VERDICT_HTML = asset("verdict.html")


def show_seen(drawing: Drawing, mode: str) -> None:
    """The drawing as the model's 8x8 input, each cell with its value."""
    st.subheader(t("draw.model_sees"))
    figure = input_figure(drawing.image, hover=t("draw.hover_cell"), decimal=decimal_mark())
    show_chart(figure, "draw.input", t("chart.input"), width="content")
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
            st.error(t("draw.failed", device=device_text(device), error=say(error)), icon=":material/error:")
        else:
            # A lesson-data (or noisy-data) run has seen only the lesson's 14 exact lines: elsewhere
            # its softmax still says "99 %", which would be a claim the run cannot back.
            familiar = not choice.exact_lines_only or like_lesson_data(drawing.image)
            show_prediction(drawing, prediction, familiar)
    st.caption(t("draw.model_caption", title=choice.title, detail=choice.detail))
    return prediction


def headline(drawing: Drawing, prediction: Prediction, familiar: bool) -> tuple[str, str, str]:
    """(verdict, the line under it, font size): a class, not sure, or not one straight line."""
    percent_text = percent(prediction.confidence)
    if drawing.problem:
        return t("draw.not_a_line"), t("draw.no_class"), "1.6rem"
    if prediction.confidence < LOW_CONFIDENCE:
        leaning = t("draw.leaning", name=class_name(prediction.name), percent=percent_text)
        return t("draw.not_sure"), leaning, "1.6rem"
    if not familiar:
        return class_name(prediction.name), t("draw.unfamiliar_confidence", percent=percent_text), "2.2rem"
    return class_name(prediction.name), t("draw.sure", percent=percent_text), "2.2rem"


def show_prediction(drawing: Drawing, prediction: Prediction, familiar: bool = True) -> None:
    """The verdict, what it rests on, the probability bars and where it ran."""
    if drawing.problem:
        st.warning(say(drawing.problem), icon=":material/info:")
    name, note, size = headline(drawing, prediction, familiar)
    # The verdict and its bars: what the page brings into view after a stroke (3_Draw.py).
    with st.container(key="draw-verdict"):
        st.markdown(VERDICT_HTML.format(size=size, name=name, confidence=note), unsafe_allow_html=True)
        show_probabilities(drawing, prediction, familiar)
    if drawing.problem:
        st.caption(t("draw.softmax"))
    ms = number(prediction.seconds * 1000, 2)
    st.caption(t("draw.ran_on", device=device_text(prediction.device), ms=ms))


def show_probabilities(drawing: Drawing, prediction: Prediction, familiar: bool) -> None:
    """The note under the verdict, if any, and the bars of the three probabilities."""
    if not drawing.problem and not familiar:
        st.warning(t("draw.unfamiliar"), icon=":material/help:")
    if drawing.problem:
        st.markdown(t("draw.forced_guess"))
    figure = probability_figure(
        prediction.probabilities,
        names=[class_name(name) for name in CLASS_NAMES],
        axis_title=t("draw.probability"),
        separators=plotly_separators(),
        percent=percent,
    )
    shares = zip(CLASS_NAMES, prediction.probabilities, strict=True)
    values = ", ".join(f"{class_name(name)} {percent(p)}" for name, p in shares)
    show_chart(figure, "draw.probabilities", t("chart.probabilities", values=values))


def class_name(name: str) -> str:
    """A class ('vertical', ...) in the session's language."""
    return t(f"draw.class.{name}")
