"""Draw: a line on a canvas, reduced to the 8x8 image the CNN reads, classified live.

The prediction runs whenever the canvas sends a new drawing, i.e. when the pen lifts:
inference takes about a millisecond, so a Predict button would only add a click.
"""

import streamlit as st
from streamlit_drawable_canvas import st_canvas

from linecnn.device import describe
from linecnn.predict import Prediction, predict
from linecnn.preprocess import Drawing, from_cells, preprocess
from linecnn.ui import draw, draw_input, restore, setup_page
from linecnn.ui.draw_charts import INK, feature_maps_figure, input_figure, probability_figure

CHART_CONFIG = {"displayModeBar": False}
LOW_CONFIDENCE = 0.6  # below this the page says the model is unsure
# Fixed-width panels in a wrapping row: side by side on a laptop, stacked on a narrow screen.
PANEL_PX = (285, 285, 310)  # drawing, what the model sees, prediction: 912 px with gaps
# The verdict; the test ids let the browser tests read it.
VERDICT_HTML = (
    "<div style='color:#52606d'>{lead}</div>"
    "<div data-testid='draw-prediction' style='font-size:{size};font-weight:600;line-height:1.2'>{name}</div>"
    "<div data-testid='draw-confidence' style='color:#52606d'>{confidence:.0%} {sure}</div>"
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
    st.caption("The model answers when you lift the pen. Undo and redo appear above the canvas on hover.")
    st.segmented_control(
        "Brush width",
        draw.BRUSHES,
        format_func=lambda px: f"{px} px",
        default=draw.DEFAULT_BRUSH,
        required=True,
        key=draw.BRUSH,
        persist_state="session",
        help="The canvas is 280 px wide, so each of the 8×8 cells is 35 px.",
    )
    draw_input.canvas_clear_button()
    pixels = result.image_data
    return preprocess(pixels) if pixels is not None else Drawing.blank()


def cell_drawing() -> Drawing:
    """The lesson's 8x8 grid of cells to click; returns the painted grid."""
    st.caption("Click cells to paint them, as in the lesson's grid. Click again to erase.")
    grid = draw_input.cell_grid(draw.cells())
    return from_cells(draw.keep_cells(grid))


def show_prediction(drawing: Drawing, prediction: Prediction) -> None:
    """The class, how sure the model is, the probability bars and where it ran."""
    if drawing.problem:
        st.warning(drawing.problem, icon=":material/info:")
    sure = "unsure" if prediction.confidence < LOW_CONFIDENCE else "sure"
    lead, size = ("The model's forced guess", "1.5rem") if drawing.problem else ("", "2.2rem")
    verdict = VERDICT_HTML.format(
        lead=lead, size=size, name=prediction.name, confidence=prediction.confidence, sure=sure
    )
    st.markdown(verdict, unsafe_allow_html=True)
    st.plotly_chart(
        probability_figure(prediction.probabilities), config=CHART_CONFIG, key="draw.probabilities"
    )
    if drawing.problem:
        st.caption(
            "Softmax always shares 100 % among the three classes, so even a drawing unlike any "
            "line gets a confident-looking answer. The network cannot say *none of these*."
        )
    st.caption(
        f"Ran on **{describe(prediction.device)}**: one forward pass in {prediction.seconds * 1000:.2f} ms, "
        f"with `model.eval()` and `torch.inference_mode()`."
    )


MAX_CONV1_MAPS, MAX_CONV2_MAPS = 16, 32  # a width-2 model shows all; wider ones their most active


def maps_title(count: int, limit: int) -> str:
    """'8 feature maps', or 'the 16 most active of 128 feature maps' for wide models."""
    return f"{count} feature maps" if count <= limit else f"the {limit} most active of {count} feature maps"


def show_feature_maps(prediction: Prediction) -> None:
    """The conv1 and conv2 activations as small heatmaps, with a caption saying what they are."""
    st.subheader("Inside the network")
    conv1, conv2 = prediction.conv1, prediction.conv2
    with st.container(horizontal=True, gap="large"):
        with st.container(width="content"):
            st.markdown(f"**conv1**: {maps_title(len(conv1), MAX_CONV1_MAPS)}, 8×8")
            figure = feature_maps_figure(conv1, columns=4, limit=MAX_CONV1_MAPS)
            st.plotly_chart(figure, config=CHART_CONFIG, width="content", key="draw.conv1")
        with st.container(width="content"):
            st.markdown(f"**conv2**: {maps_title(len(conv2), MAX_CONV2_MAPS)}, 4×4")
            figure = feature_maps_figure(conv2, columns=8, map_px=52, limit=MAX_CONV2_MAPS)
            st.plotly_chart(figure, config=CHART_CONFIG, width="content", key="draw.conv2")
    st.caption(
        "Each small square is one filter's response (after ReLU) to your drawing: bright where the "
        "3×3 pattern it learned, such as a vertical or a slanted edge, appears. conv2 looks at conv1's "
        "maps pooled to 4×4 and combines them; the last layers turn its pooled maps into the three "
        "probabilities above. Yellow is a strong response, dark is none; one colour scale per layer."
    )


device = setup_page("draw", ":material/draw:")
st.title("Draw")
st.markdown(
    "Draw **one straight line**: vertical, horizontal or diagonal. "
    "When you lift the pen, the drawing is shrunk to the 8×8 image the network reads and classified."
)
with st.container(horizontal=True, vertical_alignment="bottom", gap="large"):
    mode = st.segmented_control(
        "Input",
        ["canvas", "cells"],
        format_func={"canvas": "Draw freely", "cells": "Click cells"}.__getitem__,
        default="canvas",
        required=True,
        key=draw.MODE,
        persist_state="session",
        help="Draw with the mouse or a finger, or click the cells of the lesson's 8×8 grid.",
    )
    with st.container(width="content"):
        choice = draw.pick_model()
# Always one element here, shown or empty: a hint appearing or vanishing with the model choice
# would shift the canvas below to a new place in the page, remounting it blank.
hint = st.empty()
if not restore.show_message(hint) and choice.data_mode == "lesson":
    hint.info(
        "This run learned from the lesson's exact lines only (full-length, one pixel wide, never at the "
        "edges), so it misreads many hand-drawn strokes. Train on *varied* data to fix that.",
        icon=":material/lightbulb:",
    )

prediction = None
with st.container(horizontal=True, gap="small", key="draw-panels"):
    with st.container(width=PANEL_PX[0]):
        st.subheader("Your line")
        drawing = cell_drawing() if mode == "cells" else canvas_drawing()
    with st.container(width=PANEL_PX[1], key="draw-seen"):
        st.subheader("What the model sees")
        st.plotly_chart(input_figure(drawing.image), config=CHART_CONFIG, width="content", key="draw.input")
        st.caption(
            "A painted cell is 1 and the others 0: these 64 numbers are all the network gets."
            if mode == "cells"
            else "Each cell is the average ink of a 35×35-pixel block of the canvas, scaled so the darkest "
            "cell is 1: these 64 numbers are all the network gets."
        )
    with st.container(width=PANEL_PX[2], key="draw-prediction"):
        st.subheader("Prediction")
        if drawing.empty:
            empty = (
                "The grid is empty. Click cells to paint a line"
                if mode == "cells"
                else "The canvas is empty. Draw a line with the mouse or a finger"
            )
            st.warning(f"{empty} to see what the model thinks.", icon=":material/draw:")
        else:
            try:
                prediction = predict(choice.model, drawing.image, device)
            except (RuntimeError, ValueError) as error:  # e.g. a GPU out of memory: say so, no traceback
                st.error(f"The prediction failed on {describe(device)}: {error}", icon=":material/error:")
            else:
                show_prediction(drawing, prediction)
        st.caption(f"**{choice.title}.** {choice.detail}")
        restore.draw_uploader()

if prediction is not None:
    st.divider()
    show_feature_maps(prediction)

draw.park_canvas_toolbar()
