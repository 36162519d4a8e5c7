"""The Draw page's browser-side inputs: the 8x8 cell grid and the canvas's Clear button.

Both keep their state in the browser and act there at once. A click that had to wait for
a rerun would race the next click or stroke: a grid rebuilt by the rerun of one click
drops the click that landed meanwhile, and a canvas remounted by a server-side Clear
wipes the stroke begun meanwhile.
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
# Clear presses the canvas's own reset (its toolbar's bin) in the browser: the canvas empties
# at once and sends its empty drawing, with no remount that could swallow the next stroke.
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

// Every reset, Clear's or the toolbar's own, is told to Python: a canvas started from a kept drawing
// resets to that drawing, and only Python can take it away.
function reportResets(button) {
  const watch = (event) => {
    if (!button.isConnected) return document.removeEventListener("click", watch, true);
    const isReset = (node) => node instanceof HTMLButtonElement
      && button.resetLabels.includes(node.getAttribute("aria-label"));
    if (event.composedPath().some(isReset)) button.report("reset", true);
  };
  document.addEventListener("click", watch, true);
}

export default function ({ data, parentElement, setTriggerValue }) {
  const button = parentElement.querySelector(".clear");
  button.querySelector("span").textContent = data.label;
  button.resetLabels = data.resets;  // renewed on every render, so a language switch is followed
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


def canvas_clear_button(on_reset: Callable[[], None]) -> None:
    """A Clear button that empties the page's canvas in the browser; ``on_reset`` runs after each reset."""
    resets = sorted({translate(DEFAULT, RESET_LABEL), t(RESET_LABEL)})
    data = {"label": t("draw.clear"), "resets": resets}
    _canvas_clear(key=CLEAR_KEY, data=data, on_reset_change=on_reset, width="content", height="content")
