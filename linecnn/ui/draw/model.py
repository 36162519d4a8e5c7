"""The Draw page's session keys, its shared default model, and the model picker.

The canvas widget itself is created in the page: ``streamlit_drawable_canvas`` can only
be imported inside a running app.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import streamlit as st
import torch
from torch import nn

from linecnn.data import SIZE
from linecnn.predict import DEFAULT_CONFIG, train_default_model
from linecnn.ui import state
from linecnn.ui.i18n import number, t

CANVAS = "draw.canvas"  # the canvas widget; one key for good, so reruns never remount it
MODEL = "draw.model"  # "run" (the session's last trained run) or "default"
MODE = "draw.mode"  # "canvas" or "cells"
BRUSH = "draw.brush"  # brush width in canvas pixels
CELLS = "draw.cells"  # the cell grid: 64 booleans, row by row

CANVAS_PX = 280  # canvas side: 35 px per cell of the 8x8 input
BRUSHES = (8, 16, 24, 36)  # brush widths in px: a fine pen (a quarter of a cell) to a marker (a cell)
DEFAULT_BRUSH = 24


@dataclass(frozen=True)
class ModelChoice:
    """The model the page classifies with, and how to describe it."""

    model: nn.Module
    title: str  # e.g. "Run 2 · cpu · 120 ep" or "Default model", in the session's language
    detail: str  # one sentence on how it was trained
    data_mode: str  # "lesson" or "varied": what it learned from


# The canvas's hover toolbar (undo, redo, reset) waits invisibly over the top-right corner of
# the drawing area and slides up only after the pointer has hovered there a moment, so a
# finger tap or a quick stroke starting in that corner hit the toolbar and drew nothing.
# This script parks it above the canvas for good; only its visible card takes clicks.
_TOOLBAR_JS = """
export default function () {
  const css = ".dc-toolbar { top: -2.9rem !important; pointer-events: none; }"
    + " .dc-toolbar-card { pointer-events: auto; }";
  const watched = new WeakSet();
  let frame = 0;
  const observer = new MutationObserver(() => {
    frame = frame || requestAnimationFrame(() => { frame = 0; patch(); });
  });
  // The canvas builds its toolbar inside its own shadow root, after the host appears:
  // watch each shadow root too, and add the style once the toolbar is there.
  const patch = () => {
    for (const host of document.querySelectorAll("div")) {
      const root = host.shadowRoot;
      if (!root) continue;
      if (!watched.has(root)) {
        watched.add(root);
        observer.observe(root, { childList: true, subtree: true });
      }
      if (root.querySelector(".dc-toolbar") && !root.getElementById("linecnn-toolbar")) {
        const style = document.createElement("style");
        style.id = "linecnn-toolbar";
        style.textContent = css;
        root.appendChild(style);
      }
    }
  };
  observer.observe(document.body, { childList: true, subtree: true });
  patch();
  return () => { observer.disconnect(); cancelAnimationFrame(frame); };
}
"""
_toolbar_fix = st.components.v2.component("linecnn_canvas_toolbar_fix", js=_TOOLBAR_JS)


def park_canvas_toolbar() -> None:
    """Keep the canvas toolbar above the canvas, never over the drawing area (see above)."""
    _toolbar_fix(key="draw.toolbar_fix")


# Set once the default model exists: its training spinner, which speaks the session's language
# and so cannot be cache_resource's fixed text, is shown only before that.
_DEFAULT_READY = threading.Event()


@st.cache_resource(show_spinner=False)
def _trained_default_model() -> nn.Module:
    return train_default_model("cpu")


def default_model() -> nn.Module:
    """The default model, trained once per server and shared read-only by every session."""
    if _DEFAULT_READY.is_set():
        return _trained_default_model()
    with st.spinner(t("draw.training_default")):
        model = _trained_default_model()
    _DEFAULT_READY.set()
    return model


def cells() -> list[bool]:
    """The cell grid as last sent, 64 booleans row by row."""
    return st.session_state.setdefault(CELLS, [False] * (SIZE * SIZE))


def keep_cells(grid: list[bool]) -> torch.Tensor:
    """Remember the grid (it seeds the grid when it is shown again) and return it as an (8, 8) image."""
    st.session_state[CELLS] = grid
    return torch.tensor(grid, dtype=torch.float32).view(SIZE, SIZE)


def _describe_config(record: state.RunRecord) -> str:
    """One sentence on how a session run was trained."""
    c = record.config
    origin = (
        t("draw.restored_from", file=record.restored_from) if record.restored_from else t("draw.trained_here")
    )
    return t(
        "draw.run_detail",
        origin=origin,
        data=t(f"draw.data.{c.data.mode}"),
        per_class=number(c.data.per_class),
        epochs=number(record.epochs_done),
        device=record.device,
    )


def pick_model() -> ModelChoice:
    """The picker: the session's last run when there is one, or the shared default model."""
    run = state.latest_run()
    if run is None:
        choice = "default"
        st.caption(t("draw.using_default"))
    else:
        labels = {"run": t("draw.your_run", label=run.label), "default": t("draw.default_model")}
        choice = st.radio(
            t("draw.model"),
            list(labels),
            format_func=labels.__getitem__,
            key=MODEL,
            horizontal=True,
            persist_state="session",
            help=t("draw.model_help"),
        )
    if choice == "run" and run is not None:
        return ModelChoice(run.model, run.label, _describe_config(run), run.config.data.mode)
    c = DEFAULT_CONFIG
    detail = t(
        "draw.default_detail",
        data=t(f"draw.strokes.{c.data.mode}"),
        per_class=number(c.data.per_class),
        epochs=number(c.train.epochs),
        batch=number(c.train.batch_size),
    )
    return ModelChoice(default_model(), t("draw.default_model"), detail, c.data.mode)
