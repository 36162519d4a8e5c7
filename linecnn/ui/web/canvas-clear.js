/*
 * about: Clear presses the canvas's own reset, and covers the canvas until the server's redraw empties it
 * pages: Draw
 * relies-on: text ^Reset canvas & history$
 * relies-on: selector .upper-canvas
 * relies-on: selector .dc-canvas.lower-canvas
 * relies-on: variable --st-border-color
 */
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
