"""The Draw page's browser-side inputs: the 8x8 cell grid and the canvas's Clear button.

Both act in the browser at once. A click that had to wait for a rerun would race the next
click or stroke: a grid rebuilt by the rerun of one click drops the click that landed meanwhile.
Clear presses the canvas's own reset, which goes back to the drawing the canvas started from;
a canvas started from a kept drawing empties only when the rerun that Clear asks for redraws it
from the server, which wipes whatever is on it. Until then Clear covers the canvas with a blank
sheet that takes the strokes, and draws them on the canvas once it is empty (see _CLEAR_JS).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import streamlit as st

from linecnn.train.lines import SIZE
from linecnn.ui.i18n import DEFAULT, t, translate

GRID_KEY = "draw.grid"  # the cell grid's widget; its value is {"cells": 64 booleans, row by row}
CLEAR_KEY = "draw.canvas_clear"  # the canvas's Clear button
RESET_LABEL = "builtin.reset"  # the canvas toolbar's reset button's label, in the catalogs

# Shared look of the two components: Streamlit's secondary button, from its theme variables.
_BUTTON_CSS = """
.clear {
  display: inline-flex; align-items: center; gap: 0.5rem; margin-top: 0.75rem;
  min-height: 2.5rem; padding: 0.25rem 0.75rem; font: inherit; cursor: pointer;
  color: var(--st-text-color, #31333f); background: var(--st-background-color, #fff);
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2));
  border-radius: var(--st-button-radius, 0.5rem);
}
.clear:hover { border-color: var(--st-primary-color, #ff4b4b); color: var(--st-primary-color, #ff4b4b); }
.clear svg { width: 1.1rem; height: 1.1rem; }
"""
_ERASER_SVG = (
    '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">'
    '<path d="M7 21h10"/><path d="M5 15l9-9 5 5-9 9H8z"/><path d="M9 10l5 5"/></svg>'
)
# Its label comes with the data of each render, so it follows the language toggle.
_CLEAR_HTML = f'<button type="button" class="clear">{_ERASER_SVG}<span></span></button>'

_GRID_CSS = (
    _BUTTON_CSS
    + """
.cells { display: grid; grid-template-columns: repeat(8, 32px); gap: 2px; }
.cell {
  width: 32px; height: 32px; padding: 0; border-radius: 3px; cursor: pointer;
  background: var(--st-secondary-background-color, #f0f2f6);
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2));
}
.cell[aria-pressed="true"] { background: var(--st-primary-color, #ff4b4b); border-color: transparent; }
"""
)
# The grid lives in the browser: a click flips its cell there and sends the whole grid, so
# every click counts whatever the server is doing. Data from Python sets a new grid's first cells
# only; its words (data.text) are set again on every render, so they follow the language.
_GRID_JS = """
const grids = new WeakMap();

function label(grid, text) {
  grid.box.setAttribute("aria-label", text.grid);
  grid.buttons.forEach((button, index) => {
    const place = { row: Math.floor(index / 8) + 1, column: (index % 8) + 1 };
    button.setAttribute("aria-label", text.cell.replace(/\\{(row|column)\\}/g, (_, name) => place[name]));
  });
  grid.element.querySelector(".clear span").textContent = text.clear;
}

function build(root, cells) {
  const grid = { send: () => {}, element: document.createElement("div") };
  const box = document.createElement("div");
  box.className = "cells";
  box.setAttribute("role", "group");
  const buttons = cells.map((on, index) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cell";
    button.setAttribute("aria-pressed", String(on));
    button.addEventListener("click", () => {
      cells[index] = !cells[index];
      button.setAttribute("aria-pressed", String(cells[index]));
      grid.send("cells", [...cells]);
    });
    box.appendChild(button);
    return button;
  });
  grid.element.appendChild(box);
  grid.element.insertAdjacentHTML("beforeend", CLEAR_HTML);
  grid.element.querySelector(".clear").addEventListener("click", () => {
    cells.fill(false);
    buttons.forEach((button) => button.setAttribute("aria-pressed", "false"));
    grid.send("cells", [...cells]);
  });
  grid.box = box;
  grid.buttons = buttons;
  return grid;
}

export default function ({ data, parentElement, setStateValue }) {
  let grid = grids.get(parentElement);
  if (!grid) {
    grid = build(parentElement, data.cells.map(Boolean));
    grids.set(parentElement, grid);
  }
  const root = parentElement.querySelector(".grid-root");
  if (!root.contains(grid.element)) root.appendChild(grid.element);
  label(grid, data.text);
  grid.send = setStateValue;
}
"""
# Clear presses the canvas's own reset (its toolbar's bin) in the browser; see the module's docstring.
_CLEAR_JS = """
// The canvas's own reset button, found by its label: the canvas's English, or the reader's language
// once the widgets' translator (builtin_texts) has rewritten it.
function resetCanvases(labels) {
  for (const host of document.querySelectorAll("div")) {
    if (!host.shadowRoot) continue;
    for (const reset of host.shadowRoot.querySelectorAll("button[aria-label]")) {
      if (labels.includes(reset.getAttribute("aria-label"))) reset.click();
    }
  }
}

// True while the canvas's render layer holds a stroke (dark ink on its white).
function inked(canvas) {
  const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] > 0 && pixels[i] < 128) return true;
  return false;
}

// Draws a stroke taken by the sheet on the canvas, as the mouse would have.
function replay(top, points) {
  const box = top.getBoundingClientRect();
  const send = (type, [x, y]) => top.dispatchEvent(new MouseEvent(type, {
    bubbles: true, composed: true, cancelable: true, button: 0, buttons: type === "mouseup" ? 0 : 1,
    clientX: box.left + x, clientY: box.top + y,
  }));
  send("mousedown", points[0]);
  points.forEach((point) => send("mousemove", point));
  send("mouseup", points[points.length - 1]);
}

// One stroke a task: the canvas files a stroke in its undo history after the task that drew it.
function replayAll(top, strokes) {
  if (!strokes.length) return;
  replay(top, strokes.shift());
  setTimeout(() => replayAll(top, strokes));
}

// A blank sheet over the canvas (in its shadow root) from the reset until the canvas is empty:
// it hides the drawing the reset went back to, and keeps each stroke drawn meanwhile to replay it.
function cover(root, pen) {
  const top = root.querySelector(".upper-canvas");
  const drawn = root.querySelector(".dc-canvas.lower-canvas");
  if (!top || !drawn || root.querySelector(".linecnn-sheet")) return;
  const sheet = Object.assign(document.createElement("canvas"), { width: top.width, height: top.height });
  sheet.className = "linecnn-sheet";
  sheet.style.cssText = `position: absolute; left: 0; top: 0; z-index: 11; width: ${top.style.width};`
    + ` height: ${top.style.height}; background: #fff; touch-action: none; cursor: crosshair;`
    + " outline: 1px solid var(--st-border-color, lightgrey); outline-offset: -1px;";  // the canvas's look
  top.after(sheet);
  const ink = Object.assign(sheet.getContext("2d"),
    { strokeStyle: pen.ink, lineWidth: pen.brush, lineCap: "round", lineJoin: "round" });
  const strokes = [];
  let stroke = null;
  sheet.addEventListener("pointerdown", (event) => {
    sheet.setPointerCapture(event.pointerId);
    stroke = [[event.offsetX, event.offsetY]];
    strokes.push(stroke);
    ink.beginPath();
    ink.moveTo(event.offsetX, event.offsetY);
  });
  sheet.addEventListener("pointermove", (event) => {
    if (!stroke) return;
    stroke.push([event.offsetX, event.offsetY]);
    ink.lineTo(event.offsetX, event.offsetY);
    ink.stroke();
  });
  for (const type of ["pointerup", "pointercancel"]) sheet.addEventListener(type, () => { stroke = null; });
  const lift = () => {
    if (!drawn.isConnected) return sheet.remove();  // the canvas is gone: nothing to wait for
    if (stroke || inked(drawn)) return requestAnimationFrame(lift);
    sheet.remove();
    replayAll(top, strokes);
  };
  requestAnimationFrame(lift);
}

// Every reset, Clear's or the toolbar's own, covers its canvas and is told to Python: a canvas
// started from a kept drawing resets to that drawing, and only Python can take it away.
function reportResets(button) {
  const watch = (event) => {
    if (!button.isConnected) return document.removeEventListener("click", watch, true);
    const reset = event.composedPath().find((node) => node instanceof HTMLButtonElement
      && button.resetLabels.includes(node.getAttribute("aria-label")));
    if (!reset) return;
    cover(reset.getRootNode(), button.pen);
    button.report("reset", true);
  };
  document.addEventListener("click", watch, true);
}

export default function ({ data, parentElement, setTriggerValue }) {
  const button = parentElement.querySelector(".clear");
  button.querySelector("span").textContent = data.label;
  button.resetLabels = data.resets;  // renewed on every render, so a language switch is followed
  button.pen = data.pen;
  button.report = setTriggerValue;
  if (button.dataset.wired) return;
  button.dataset.wired = "yes";
  button.addEventListener("click", () => resetCanvases(button.resetLabels));
  reportResets(button);
}
"""

_grid = st.components.v2.component(
    "linecnn_cell_grid",
    html='<div class="grid-root"></div>',
    css=_GRID_CSS,
    js=_GRID_JS.replace("CLEAR_HTML", json.dumps(_CLEAR_HTML)),
)
_canvas_clear = st.components.v2.component(
    "linecnn_canvas_clear", html=_CLEAR_HTML, css=_BUTTON_CSS, js=_CLEAR_JS
)


def cell_grid(initial: list[bool]) -> list[bool]:
    """The clickable 8x8 grid, starting from ``initial``; returns its 64 cells, row by row."""
    text = {"grid": t("draw.grid_label"), "cell": t("draw.cell_label"), "clear": t("draw.clear")}
    result = _grid(
        data={"cells": initial, "text": text},
        key=GRID_KEY,
        default={"cells": initial},
        on_cells_change=lambda: None,
        width="content",
        height="content",
    )
    cells = result.get("cells") or initial
    return [bool(cell) for cell in cells][: SIZE * SIZE]


def canvas_clear_button(on_reset: Callable[[], None], ink: str, brush: int) -> None:
    """A Clear button that empties the page's canvas in the browser; ``on_reset`` runs after each reset,
    and the canvas's pen (``ink``, ``brush``) draws the strokes made while the canvas waits to empty."""
    resets = sorted({translate(DEFAULT, RESET_LABEL), t(RESET_LABEL)})
    data = {"label": t("draw.clear"), "resets": resets, "pen": {"ink": ink, "brush": brush}}
    _canvas_clear(key=CLEAR_KEY, data=data, on_reset_change=on_reset, width="content", height="content")
