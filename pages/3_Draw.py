"""Draw: a line on a canvas, reduced to the 8x8 image the CNN reads, classified live.

The prediction runs whenever the canvas sends a new drawing, i.e. when the pen lifts:
one forward pass of this small CNN is quicker than any click, so a Predict button would only add one.
"""

import streamlit as st

from linecnn.ui import restore
from linecnn.ui.draw import canvas, maps, model, verdict
from linecnn.ui.follow import follow_runs
from linecnn.ui.i18n import t
from linecnn.ui.sidebar import setup_page

# Fixed-width panels in a wrapping row: side by side on a laptop, stacked on a narrow screen.
PANEL_PX = (285, 285, 290)  # drawing, what the model sees, prediction: 892 px with gaps (layout.py)
FOLLOW_SECONDS = 10  # long enough for a loaded class server to send a stroke's verdict

device = setup_page("draw")
st.title(t("draw.title"))
st.markdown(t("draw.intro"))
with st.container(horizontal=True, vertical_alignment="bottom", gap="large", key="draw-choices"):
    mode = canvas.pick_input()
    with st.container(width="stretch"):  # the rest of the row: a run's name in the picker is long
        choice = model.pick_model()
# Always one element here, shown or empty: a hint appearing or vanishing with the model choice
# would shift the canvas below to a new place in the page, remounting it blank.
hint = st.empty()
if choice.exact_lines_only:
    names = {"mode": t("train.mode.varied"), "setting": t("train.settings.data")}
    hint.info(t("draw.lesson_hint", **names), icon=":material/lightbulb:")

with st.container(horizontal=True, gap="small", key="draw-panels"):
    with st.container(width=PANEL_PX[0]):
        drawing = canvas.drawing(mode)
    with st.container(width=PANEL_PX[1], key="draw-seen"):
        verdict.show_seen(drawing, mode)
    with st.container(width=PANEL_PX[2], key="draw-prediction"):
        prediction = verdict.classify(drawing, mode, choice, device)
        restore.draw_uploader()

if prediction is not None:
    maps.show_feature_maps(prediction)

canvas.park_canvas_toolbar()
# A phone's canvas, or a hint above it on a laptop, leaves the verdict under the screen's edge: after a
# stroke the verdict comes into view, scrolled no further than it takes, so the canvas stays in sight.
follow_runs(
    "draw", "canvas.upper-canvas", ".st-key-draw-verdict", FOLLOW_SECONDS, press="stroke", block="nearest"
)
