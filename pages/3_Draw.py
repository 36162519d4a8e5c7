"""Draw: a line on a canvas, reduced to the 8x8 image the CNN reads, classified live.

The prediction runs whenever the canvas sends a new drawing, i.e. when the pen lifts:
inference takes about a millisecond, so a Predict button would only add a click.
"""

import streamlit as st
from streamlit_drawable_canvas import st_canvas

from linecnn.data import CLASS_NAMES, SIZE
from linecnn.device import describe
from linecnn.predict import predict
from linecnn.preprocess import Drawing, from_cells, preprocess
from linecnn.ui import draw, setup_page
from linecnn.ui.draw_charts import INK, feature_maps_figure, input_figure, probability_figure

CHART_CONFIG = {"displayModeBar": False}
LOW_CONFIDENCE = 0.6  # below this the page says the model is unsure
# The verdict in large type; the test ids let browser tests read it.
VERDICT_HTML = (
    "<div data-testid='draw-prediction' style='font-size:2.2rem;font-weight:600;line-height:1.2'>{name}</div>"
    "<div data-testid='draw-confidence' style='color:#52606d'>{confidence:.0%} {sure}</div>"
)

device = setup_page("Draw", ":material/draw:")
st.title("Draw")
st.markdown(
    "Draw **one straight line**: vertical, horizontal or diagonal. "
    "When you lift the pen, the drawing is shrunk to the 8×8 image the network reads and classified."
)
settings_model, settings_input = st.columns([3, 1.2], gap="medium", vertical_alignment="bottom")
with settings_model:
    choice = draw.pick_model()
with settings_input:
    mode = st.segmented_control(
        "Input",
        ["canvas", "cells"],
        format_func={"canvas": "Draw freely", "cells": "Click cells"}.__getitem__,
        default="canvas",
        required=True,
        key=draw.MODE,
        help="Draw with the mouse or a finger, or click the cells of the lesson's 8×8 grid.",
    )
if choice.data_mode == "seed":
    st.info(
        "This run learned from the lesson's exact lines only (full-length, one pixel wide, never at the "
        "edges), so it misreads many hand-drawn strokes. Train on *varied* data to fix that.",
        icon=":material/lightbulb:",
    )

left, middle, right = st.columns([1.15, 1.1, 1.2], gap="medium")

with left:
    st.subheader("Your line")
    if mode == "cells":
        grid = draw.cells()
        for row in range(SIZE):
            with st.container(horizontal=True, gap=None):
                for col in range(SIZE):
                    index = row * SIZE + col
                    st.button(
                        " ",
                        key=f"draw.cell.{index}",
                        type="primary" if grid[index] else "secondary",
                        on_click=draw.toggle_cell,
                        args=(index,),
                    )
        drawing = from_cells(draw.cells_image())
        st.button("Clear", icon=":material/ink_eraser:", on_click=draw.clear_canvas, key="draw.clear")
    else:
        # The canvas's own toolbar (undo, redo, reset) appears above it on hover.
        result = st_canvas(
            stroke_width=st.session_state.get(draw.BRUSH, draw.DEFAULT_BRUSH),
            stroke_color=INK,
            background_color="#ffffff",
            width=draw.CANVAS_PX,
            height=draw.CANVAS_PX,
            drawing_mode="freedraw",
            return_image_data=True,
            key=draw.canvas_key(),
        )
        pixels = result.image_data
        drawing = preprocess(pixels) if pixels is not None else Drawing.blank()
        st.segmented_control(
            "Brush width",
            draw.BRUSHES,
            format_func=lambda px: f"{px} px",
            default=draw.DEFAULT_BRUSH,
            required=True,
            key=draw.BRUSH,
            help="The canvas is 280 px wide, so each of the 8×8 cells is 35 px.",
        )
        st.button("Clear", icon=":material/ink_eraser:", on_click=draw.clear_canvas, key="draw.clear")

with middle:
    st.subheader("What the model sees")
    st.plotly_chart(input_figure(drawing.image), config=CHART_CONFIG, width="content", key="draw.input")
    st.caption(
        "Each cell is the average ink of a 35×35-pixel block of the canvas, scaled so the darkest "
        "cell is 1: these 64 numbers are all the network gets."
    )

with right:
    st.subheader("Prediction")
    if drawing.empty:
        st.warning(
            "The canvas is empty. Draw a line with the mouse or a finger to see what the model thinks.",
            icon=":material/draw:",
        )
        prediction = None
    else:
        try:
            prediction = predict(choice.model, drawing.image, device)
        except (RuntimeError, ValueError) as error:  # e.g. a GPU out of memory: say so, no traceback
            st.error(f"The prediction failed on {describe(device)}: {error}", icon=":material/error:")
            prediction = None
    if prediction is not None:
        if drawing.problem:
            st.warning(drawing.problem, icon=":material/info:")
        sure = "unsure" if prediction.confidence < LOW_CONFIDENCE else "sure"
        verdict = VERDICT_HTML.format(name=prediction.name, confidence=prediction.confidence, sure=sure)
        st.markdown(verdict, unsafe_allow_html=True)
        st.plotly_chart(
            probability_figure(prediction.probabilities), config=CHART_CONFIG, key="draw.probabilities"
        )
        st.caption(
            f"Ran on **{describe(prediction.device)}** in {prediction.seconds * 1000:.2f} ms, "
            f"with `model.eval()` and `torch.inference_mode()`."
        )
    st.caption(f"**{choice.title}.** {choice.detail}")

if prediction is not None:
    st.divider()
    st.subheader("Inside the network")
    first, second = st.columns([1, 2], gap="large")
    with first:
        conv1 = prediction.conv1
        st.markdown(f"**conv1**: {len(conv1)} feature maps, 8×8")
        st.plotly_chart(
            feature_maps_figure(conv1, columns=4), config=CHART_CONFIG, width="content", key="draw.conv1"
        )
    with second:
        conv2 = prediction.conv2
        st.markdown(f"**conv2**: {len(conv2)} feature maps, 4×4")
        st.plotly_chart(
            feature_maps_figure(conv2, columns=8, map_px=52),
            config=CHART_CONFIG,
            width="content",
            key="draw.conv2",
        )
    st.caption(
        "Each small square is one filter's response (after ReLU) to your drawing: bright where the "
        "3×3 pattern it learned, such as a vertical or a slanted edge, appears. conv2 looks at conv1's "
        "maps pooled to 4×4 and combines them; the last layers turn its pooled maps into the "
        f"{len(CLASS_NAMES)} probabilities above. Yellow is a strong response, dark is none; "
        "one colour scale per layer."
    )

draw.park_canvas_toolbar()
