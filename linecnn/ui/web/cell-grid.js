/*
 * about: the Draw page's 8x8 grid of cells, flipped in the browser; clear_html is clear-button.html
 * pages: Draw
 */
const grids = new WeakMap();

function label(grid, text) {
  grid.box.setAttribute("aria-label", text.grid);
  grid.buttons.forEach((button, index) => {
    const place = { row: Math.floor(index / 8) + 1, column: (index % 8) + 1 };
    button.setAttribute("aria-label", text.cell.replace(/\{(row|column)\}/g, (_, name) => place[name]));
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
  grid.element.insertAdjacentHTML("beforeend", {{clear_html}});
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
