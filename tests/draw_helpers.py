"""Drawing on the Draw page's real canvas with Playwright: strokes, the suite, readers.

Shared by the browser tests and ``scripts/stroke_suite.py``. Coordinates are canvas
pixels (0..280), x to the right and y down; one cell of the 8x8 input is 35 px.
"""

from __future__ import annotations

import base64
import math
import random
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from tests.helpers import wait_for_app

CANVAS = "canvas.upper-canvas"  # Fabric's event layer: mouse drags here draw strokes
DRAWN = "canvas.dc-canvas.lower-canvas"  # Fabric's render layer (not the background layer)
PREDICTION = "[data-testid='draw-prediction']"
CONFIDENCE = "[data-testid='draw-confidence']"
EMPTY_WARNING = "The canvas is empty"
STEPS = 30  # mouse events per segment: a hand's drag sends dozens, not one jump
# True when the render layer holds a dark pixel, i.e. some stroke.
INKED_JS = """canvas => {
  const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i + 3] > 0 && pixels[i] < 128) return true;
  }
  return false;
}"""


@dataclass(frozen=True)
class Stroke:
    """One pen-down-to-pen-up line on the canvas and the class it should get."""

    name: str
    label: str  # "vertical", "horizontal" or "diagonal"
    points: tuple[tuple[float, float], ...]  # canvas pixels, in drawing order
    brush: int = 24  # brush width in px; one of the page's choices


def _transpose(stroke: Stroke) -> Stroke:
    """The same stroke mirrored over the main diagonal: a vertical becomes a horizontal."""
    return Stroke(
        name=stroke.name.replace("v-", "h-"),
        label="horizontal",
        points=tuple((y, x) for x, y in stroke.points),
        brush=stroke.brush,
    )


_VERTICALS = (
    Stroke("v-left-edge", "vertical", ((6, 10), (6, 270)), 16),
    Stroke("v-right-edge", "vertical", ((274, 12), (274, 268)), 24),
    Stroke("v-centre-thin", "vertical", ((140, 15), (140, 265)), 8),
    Stroke("v-col1-top-half", "vertical", ((50, 20), (50, 150)), 24),
    Stroke("v-col6-bottom-half", "vertical", ((225, 130), (225, 265)), 36),
    Stroke("v-short-middle", "vertical", ((100, 95), (100, 190)), 16),
    Stroke("v-tilted-right", "vertical", ((120, 15), (150, 265)), 24),
    Stroke("v-tilted-left", "vertical", ((200, 20), (172, 260)), 16),
    Stroke("v-thick-centre", "vertical", ((160, 30), (160, 250)), 36),
    Stroke("v-wobbly", "vertical", ((80, 20), (85, 90), (77, 170), (83, 260)), 24),
    Stroke("v-drawn-upwards", "vertical", ((245, 260), (245, 40)), 8),
    Stroke("v-short-edge", "vertical", ((10, 160), (10, 270)), 24),
)

SUITE: tuple[Stroke, ...] = (
    *_VERTICALS,
    *(_transpose(stroke) for stroke in _VERTICALS),
    Stroke("d-main-corners", "diagonal", ((10, 10), (270, 270)), 24),
    Stroke("d-anti-corners", "diagonal", ((270, 10), (10, 270)), 24),
    Stroke("d-main-shifted-up", "diagonal", ((80, 10), (270, 200)), 16),
    Stroke("d-main-shifted-down", "diagonal", ((10, 90), (190, 270)), 24),
    Stroke("d-anti-shifted-up", "diagonal", ((190, 10), (10, 190)), 16),
    Stroke("d-anti-shifted-down", "diagonal", ((270, 90), (90, 270)), 36),
    Stroke("d-main-short", "diagonal", ((90, 90), (190, 190)), 24),
    Stroke("d-anti-short", "diagonal", ((200, 60), (90, 170)), 16),
    Stroke("d-main-steep", "diagonal", ((60, 20), (200, 220)), 24),
    Stroke("d-anti-shallow", "diagonal", ((260, 60), (20, 240)), 16),
    Stroke("d-main-thin", "diagonal", ((15, 15), (265, 265)), 8),
    Stroke("d-anti-thick", "diagonal", ((250, 30), (30, 250)), 36),
    Stroke("d-main-drawn-upwards", "diagonal", ((250, 250), (30, 30)), 24),
)


def random_strokes(count: int, seed: int, brushes: tuple[int, ...] = (8, 16, 24, 36)) -> tuple[Stroke, ...]:
    """Strokes unlike the fixed suite: random class, position (edges too), length, brush, lean, wobble.

    Verticals and horizontals lean up to 10 degrees, diagonals run at 45 +- 12 degrees,
    lengths are 90 to 270 px (a quarter to the whole canvas), and half the strokes wobble
    by a few pixels as a hand does.
    """
    rng = random.Random(seed)
    strokes = []
    while len(strokes) < count:
        label = rng.choice(("vertical", "horizontal", "diagonal"))
        if label == "diagonal":
            degrees = rng.choice((45, -45)) + rng.uniform(-12, 12)
        else:
            degrees = (90 if label == "vertical" else 0) + rng.uniform(-10, 10)
        brush, length = rng.choice(brushes), rng.uniform(90, 270)
        dx, dy = math.cos(math.radians(degrees)) * length / 2, math.sin(math.radians(degrees)) * length / 2
        margin = 4 + brush / 4  # the stroke's centre line stays this far inside the canvas
        if 2 * (abs(dx) + margin) > 280 or 2 * (abs(dy) + margin) > 280:
            continue  # too long for the canvas at this angle
        cx = rng.uniform(margin + abs(dx), 280 - margin - abs(dx))
        cy = rng.uniform(margin + abs(dy), 280 - margin - abs(dy))
        start, end = (cx - dx, cy - dy), (cx + dx, cy + dy)
        if rng.random() < 0.5:
            start, end = end, start  # either drawing direction
        wobble = rng.uniform(0, 4) if rng.random() < 0.5 else 0.0
        normal = (-math.sin(math.radians(degrees)), math.cos(math.radians(degrees)))
        points = [start]
        for t in (0.25, 0.5, 0.75):
            offset = wobble * rng.uniform(-1, 1)
            x = start[0] + (end[0] - start[0]) * t + normal[0] * offset
            y = start[1] + (end[1] - start[1]) * t + normal[1] * offset
            points.append((min(max(x, 1), 279), min(max(y, 1), 279)))
        points.append(end)
        name = f"r{len(strokes):02d}-{label[0]}-{degrees:+.0f}deg-{length:.0f}px-{brush}"
        strokes.append(Stroke(name, label, tuple((round(x, 1), round(y, 1)) for x, y in points), brush))
    return tuple(strokes)


def synthetic_canvas(
    *strokes: tuple[tuple[float, float], ...],
    width: float = 24,
    size: int = 280,
    ink: tuple[int, int, int] = (31, 41, 51),
) -> np.ndarray:
    """An (size, size, 4) RGBA canvas like the page's: white, with anti-aliased round-capped strokes.

    Each stroke is a polyline of canvas-pixel points; a pixel's ink is the fraction of it the
    brush covers, so edges are soft as in the browser.
    """
    y, x = np.mgrid[0:size, 0:size] + 0.5  # pixel centres
    cover = np.zeros((size, size))
    for points in strokes:
        for (x0, y0), (x1, y1) in zip(points, points[1:] or points, strict=False):
            dx, dy = x1 - x0, y1 - y0
            t = np.clip(((x - x0) * dx + (y - y0) * dy) / max(dx * dx + dy * dy, 1e-9), 0.0, 1.0)
            distance = np.hypot(x - (x0 + t * dx), y - (y0 + t * dy))
            cover = np.maximum(cover, np.clip(width / 2 + 0.5 - distance, 0.0, 1.0))
    rgb = 255.0 * (1 - cover[..., None]) + np.asarray(ink, dtype=float) * cover[..., None]
    alpha = np.full((size, size, 1), 255.0)
    return np.concatenate([rgb, alpha], axis=2).round().astype(np.uint8)


def open_draw_page(tab, base_url: str, timeout_ms: int = 120_000) -> None:
    """Open the Draw page and wait for its canvas (the first visit may train the default model)."""
    tab.goto(f"{base_url}/Draw")
    wait_for_app(tab, timeout_ms)
    tab.locator(CANVAS).wait_for(timeout=timeout_ms)


@contextmanager
def draw_page_tab(base_url: str) -> Iterator:
    """A headless Chromium tab open on the Draw page, for the scripts that draw many figures on it;
    exits with a sentence when Debian's Chromium is missing."""
    from playwright.sync_api import sync_playwright

    from tests.helpers import CHROMIUM_ARGS, find_chromium

    chromium = find_chromium()
    if chromium is None:
        sys.exit("Debian's chromium is not installed (apt-get install -y chromium).")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.set_default_timeout(30_000)
        open_draw_page(tab, base_url)
        try:
            yield tab
        finally:
            browser.close()


def set_brush(tab, px: int) -> None:
    """Pick a brush width on the page's brush control."""
    option = tab.get_by_role("radio", name=f"{px} px", exact=True)  # a segmented control
    if option.get_attribute("aria-checked") != "true":
        option.click()
        wait_for_app(tab)


def clear(tab) -> None:
    """Press the page's Clear button and wait until the canvas is blank and the page says so."""
    tab.get_by_role("button", name="Clear").click()
    if wait_until(tab, lambda: tab.locator(DRAWN).evaluate(INKED_JS), False):
        raise AssertionError("Clear left ink on the canvas")
    tab.get_by_text(EMPTY_WARNING).wait_for()
    wait_for_app(tab)


def draw(tab, stroke: Stroke) -> None:
    """Drag the mouse along the stroke's points on the canvas, pen down to pen up."""
    box = tab.locator(CANVAS).bounding_box()
    (x, y), *rest = stroke.points
    tab.mouse.move(box["x"] + x, box["y"] + y)
    tab.mouse.down()
    for x, y in rest:
        tab.mouse.move(box["x"] + x, box["y"] + y, steps=STEPS)
    tab.mouse.up()


# The prediction and its confidence, read in one go once the page has settled: Streamlit idle and
# exactly one prediction shown (a rerun briefly shows the stale one beside the new); else null.
SETTLED_PREDICTION_JS = """([prediction, confidence]) => {
  const status = document.querySelector('[data-testid="stStatusWidget"]');
  if (status && status.innerText.includes("Running")) return null;
  const names = document.querySelectorAll(prediction), values = document.querySelectorAll(confidence);
  if (names.length !== 1 || values.length !== 1) return null;
  return [names[0].innerText.trim(), values[0].innerText.trim()];
}"""


def read_prediction(tab, timeout_ms: int = 30_000) -> tuple[str, str]:
    """(class name, confidence text) shown once the page has classified the drawing and settled."""
    handle = tab.wait_for_function(SETTLED_PREDICTION_JS, arg=[PREDICTION, CONFIDENCE], timeout=timeout_ms)
    name, confidence = handle.json_value()
    return name, confidence


def canvas_png(tab) -> bytes:
    """The canvas as a PNG, as Fabric renders it (the same pixels the component sends)."""
    url = tab.locator(DRAWN).evaluate("canvas => canvas.toDataURL('image/png')")
    return base64.b64decode(url.split(",", 1)[1])


def stroke_landed(tab, timeout_ms: int = 10_000) -> bool:
    """True once the canvas shows ink: the stroke was drawn, not lost (False after ``timeout_ms``)."""
    return wait_until(tab, lambda: tab.locator(DRAWN).evaluate(INKED_JS), True, timeout_ms)


def classify_on_page(tab, stroke: Stroke) -> tuple[str, str]:
    """Pick the stroke's brush, clear, draw it once; return the page's (class, confidence).

    The brush is picked before Clear so the fresh canvas is born with it. A stroke that left
    no ink is a failure, not something to draw again: a user's stroke would be lost too.
    """
    set_brush(tab, stroke.brush)
    clear(tab)
    draw(tab, stroke)
    if not stroke_landed(tab):
        raise AssertionError(f"stroke {stroke.name} left no ink on the canvas")
    return read_prediction(tab)


def wait_until(tab, probe, expected, timeout_ms: int = 15_000):
    """Poll ``probe()`` until it returns ``expected`` or the time is up; return its last value."""
    deadline = time.monotonic() + timeout_ms / 1000
    value = probe()
    while value != expected and time.monotonic() < deadline:
        tab.wait_for_timeout(50)
        value = probe()
    return value


def use_cells(tab) -> None:
    """Switch the Draw page to the clickable 8x8 cell grid."""
    tab.get_by_role("radio", name="Click cells", exact=True).click()
    cell_button(tab, 0).wait_for()
    wait_for_app(tab)


def cell_button(tab, index: int):
    """The grid's cell ``index`` (row by row, 0..63)."""
    name = f"Row {index // 8 + 1}, column {index % 8 + 1}"
    return tab.get_by_role("button", name=name, exact=True)


def painted_cells(tab) -> set[int]:
    """Indices of the cells the grid shows as painted."""
    return {index for index in range(64) if cell_button(tab, index).get_attribute("aria-pressed") == "true"}


def model_input_sum(tab) -> float | None:
    """Sum of the 64 numbers the page shows under 'What the model sees' (its heatmap's data).

    None while a rerun still shows more than one heatmap there (the stale one is on its way out)
    or Plotly has not drawn it yet.
    """
    sums = tab.locator(".st-key-draw-input .js-plotly-plot").evaluate_all(
        "plots => plots.map(plot => plot.data ? plot.data[0].z.flat().reduce((a, b) => a + b, 0) : null)"
    )
    return sums[0] if len(sums) == 1 else None
