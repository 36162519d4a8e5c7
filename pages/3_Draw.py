"""Draw: a line on a canvas, reduced to the 8x8 image the CNN reads, classified live.

The prediction runs whenever the canvas sends a new drawing, i.e. when the pen lifts:
inference takes about a millisecond, so a Predict button would only add a click.
"""

import streamlit as st
from streamlit_drawable_canvas import st_canvas

from linecnn.data import CLASS_NAMES
from linecnn.device import describe
from linecnn.predict import Prediction, predict
from linecnn.preprocess import Drawing, from_cells, preprocess
from linecnn.ui import restore, setup_page
from linecnn.ui.draw import input as draw_input
from linecnn.ui.draw import model as draw
from linecnn.ui.draw.charts import INK, feature_maps_figure, input_figure, probability_figure
from linecnn.ui.i18n import decimal_mark, number, percent, plotly_separators, say, t

CHART_CONFIG = {"displayModeBar": False}
LOW_CONFIDENCE = 0.6  # below this the page says the model is unsure
# Fixed-width panels in a wrapping row: side by side on a laptop, stacked on a narrow screen.
PANEL_PX = (285, 285, 310)  # drawing, what the model sees, prediction: 912 px with gaps
# The verdict; the test ids let the browser tests read it.
VERDICT_HTML = (
    "<div style='color:#52606d'>{lead}</div>"
    "<div data-testid='draw-prediction' style='font-size:{size};font-weight:600;line-height:1.2'>{name}</div>"
    "<div data-testid='draw-confidence' style='color:#52606d'>{confidence}</div>"
)


def canvas_drawing() -> Drawing:
    """The free-drawing canvas with its brush picker and Clear; returns what was drawn."""
    result = st_canvas(
        stroke_width=st.session_state.get(draw.BRUSH, draw.DEFAULT_BRUSH),
        stroke_color=INK,
        background_color="#ffffff",
        width=draw.CANVAS_PX,
        height=draw.CANVAS_PX,
        drawing_mode="freedraw",
        return_image_data=True,
        key=draw.CANVAS,
    )
    # Below the canvas: above it is where its undo/redo toolbar shows on hover.
    st.caption(t("draw.canvas_caption"))
    st.segmented_control(
        t("draw.brush"),
        draw.BRUSHES,
        format_func=lambda px: t("draw.pixels", px=px),
        default=draw.DEFAULT_BRUSH,
        required=True,
        key=draw.BRUSH,
        persist_state="session",
        help=t("draw.brush_help"),
    )
    draw_input.canvas_clear_button()
    pixels = result.image_data
    return preprocess(pixels) if pixels is not None else Drawing.blank()


def cell_drawing() -> Drawing:
    """The lesson's 8x8 grid of cells to click; returns the painted grid."""
    st.caption(t("draw.cells_caption"))
    grid = draw_input.cell_grid(draw.cells())
    return from_cells(draw.keep_cells(grid))


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


MAX_CONV1_MAPS, MAX_CONV2_MAPS = 16, 32  # a width-2 model shows all; wider ones their most active


def maps_title(count: int, limit: int) -> str:
    """'8 feature maps', or 'the 16 most active of 128 feature maps' for wide models."""
    if count <= limit:
        return t("draw.maps_all", count=number(count))
    return t("draw.maps_some", limit=number(limit), count=number(count))


def show_feature_maps(prediction: Prediction) -> None:
    """The conv1 and conv2 activations as small heatmaps, with a caption saying what they are."""
    st.subheader(t("draw.inside"))
    conv1, conv2 = prediction.conv1, prediction.conv2
    with st.container(horizontal=True, gap="large"):
        with st.container(width="content"):
            st.markdown(f"**conv1**: {maps_title(len(conv1), MAX_CONV1_MAPS)}, 8×8")
            figure = feature_maps_figure(conv1, columns=4, limit=MAX_CONV1_MAPS, hover=t("draw.hover_filter"))
            st.plotly_chart(figure, config=CHART_CONFIG, width="content", key="draw.conv1")
        with st.container(width="content"):
            st.markdown(f"**conv2**: {maps_title(len(conv2), MAX_CONV2_MAPS)}, 4×4")
            figure = feature_maps_figure(
                conv2, columns=8, map_px=52, limit=MAX_CONV2_MAPS, hover=t("draw.hover_filter")
            )
            st.plotly_chart(figure, config=CHART_CONFIG, width="content", key="draw.conv2")
    st.caption(t("draw.maps_caption"))


device = setup_page("draw", ":material/draw:")
st.title(t("draw.title"))
st.markdown(t("draw.intro"))
with st.container(horizontal=True, vertical_alignment="bottom", gap="large"):
    mode = st.segmented_control(
        t("draw.input"),
        ["canvas", "cells"],
        format_func=lambda mode: t(f"draw.input_{mode}"),
        default="canvas",
        required=True,
        key=draw.MODE,
        persist_state="session",
        help=t("draw.input_help"),
    )
    with st.container(width="content"):
        choice = draw.pick_model()
# Always one element here, shown or empty: a hint appearing or vanishing with the model choice
# would shift the canvas below to a new place in the page, remounting it blank.
hint = st.empty()
if not restore.show_message(hint) and choice.data_mode == "lesson":
    hint.info(t("draw.seed_hint"), icon=":material/lightbulb:")

prediction = None
with st.container(horizontal=True, gap="small", key="draw-panels"):
    with st.container(width=PANEL_PX[0]):
        st.subheader(t("draw.your_line"))
        drawing = cell_drawing() if mode == "cells" else canvas_drawing()
    with st.container(width=PANEL_PX[1], key="draw-seen"):
        st.subheader(t("draw.model_sees"))
        figure = input_figure(drawing.image, hover=t("draw.hover_cell"), decimal=decimal_mark())
        st.plotly_chart(figure, config=CHART_CONFIG, width="content", key="draw.input")
        st.caption(t("draw.sees_cells" if mode == "cells" else "draw.sees_canvas"))
    with st.container(width=PANEL_PX[2], key="draw-prediction"):
        st.subheader(t("draw.prediction"))
        if drawing.empty:
            st.warning(
                t("draw.empty_cells" if mode == "cells" else "draw.empty_canvas"), icon=":material/draw:"
            )
        else:
            try:
                prediction = predict(choice.model, drawing.image, device)
            except (RuntimeError, ValueError) as error:  # e.g. a GPU out of memory: say so, no traceback
                st.error(t("draw.failed", device=describe(device), error=say(error)), icon=":material/error:")
            else:
                show_prediction(drawing, prediction)
        st.caption(t("draw.model_caption", title=choice.title, detail=choice.detail))
        restore.draw_uploader()

if prediction is not None:
    st.divider()
    show_feature_maps(prediction)

draw.park_canvas_toolbar()
