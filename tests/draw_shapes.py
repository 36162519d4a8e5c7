"""Generated drawings for the Draw page's "one straight line?" verdict: lines a hand makes, and
shapes that are something else. Each is one or more pen-down-to-pen-up polylines in canvas
pixels (0..280, y down), so the same figure can be rendered offline (``synthetic_canvas``)
or dragged with the mouse on the real canvas (``draw_figure``). A fixed seed gives fixed figures.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from tests.draw_helpers import CANVAS, model_input_sum, synthetic_canvas, wait_until

NOT_A_LINE = "none"  # the label of a figure that is not one straight line
NOT_A_LINE_TEXT = "Not one straight line"  # the page's verdict for one, in English
BRUSHES = (8, 16, 24, 36)
Points = tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Figure:
    """A drawing of one or more pen-downs, and what it should be read as."""

    name: str
    label: str  # "vertical", "horizontal", "diagonal" or NOT_A_LINE
    strokes: tuple[Points, ...]  # each a polyline drawn pen-down to pen-up
    brush: int = 24

    def canvas(self) -> np.ndarray:
        """The figure rendered as the page's RGBA canvas."""
        return synthetic_canvas(*self.strokes, width=self.brush)


def _round(points) -> Points:
    return tuple((round(min(max(x, 2.0), 278.0), 1), round(min(max(y, 2.0), 278.0), 1)) for x, y in points)


def _line_label(degrees: float) -> str:
    folded = abs((degrees + 90) % 180 - 90)  # 0 horizontal .. 90 vertical
    return "horizontal" if folded < 25 else "vertical" if folded > 65 else "diagonal"


def _place(rng: random.Random, local: list[tuple[float, float]], degrees: float, brush: float) -> Points:
    """Rotate local points (x along the line) by ``degrees`` and put them somewhere on the canvas."""
    a = math.radians(degrees)
    turned = [(x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)) for x, y in local]
    xs, ys = [p[0] for p in turned], [p[1] for p in turned]
    margin = 3 + brush / 2
    cx = rng.uniform(margin - min(xs), max(280 - margin - max(xs), margin - min(xs)))
    cy = rng.uniform(margin - min(ys), max(280 - margin - max(ys), margin - min(ys)))
    return _round((x + cx, y + cy) for x, y in turned)


LINE_KINDS = ("tilted", "bowed", "dashed", "hooked", "diagonal", "short", "flick", "wobbly")


def _local_line(rng: random.Random, kind: str, length: float) -> list[list[tuple[float, float]]]:
    """The pen paths of one line along x, centred on 0, for ``kind``."""
    half, steps = length / 2, 12
    xs = [-half + length * i / steps for i in range(steps + 1)]
    if kind == "bowed":
        sag = rng.uniform(0.02, 0.06) * length * rng.choice((-1, 1))
        return [[(x, sag * (1 - (x / half) ** 2)) for x in xs]]
    if kind == "wobbly":
        return [[(x, rng.uniform(-3, 3)) for x in xs]]
    if kind == "flick":
        return [[(-half, 0.0), (half, 0.0)]]
    if kind == "dashed":
        pieces = rng.choice((2, 3, 4))
        gap = rng.uniform(0.05, 0.12) * length
        dash = (length - gap * (pieces - 1)) / pieces
        return [
            [(-half + i * (dash + gap), 0.0), (-half + i * (dash + gap) + dash, 0.0)] for i in range(pieces)
        ]
    if kind == "hooked":
        hook = rng.uniform(0.05, 0.1) * length
        turn = math.radians(rng.uniform(60, 120)) * rng.choice((-1, 1))
        return [[(-half, 0.0), (half, 0.0), (half - hook * math.cos(turn), hook * math.sin(turn))]]
    return [[(-half, 0.0), (half, 0.0)]]


def generated_lines(count: int, seed: int) -> tuple[Figure, ...]:
    """``count`` lines of every kind a hand makes, cycling through ``LINE_KINDS``."""
    rng = random.Random(seed)
    figures = []
    for i in range(count):
        kind = LINE_KINDS[i % len(LINE_KINDS)]
        base = rng.choice((0.0, 90.0, 45.0, -45.0))
        spread = 15.0 if kind in ("tilted", "diagonal") else 8.0
        degrees = (45.0 if kind == "diagonal" else base) + rng.uniform(-spread, spread)
        if kind == "diagonal":
            degrees = rng.choice((1, -1)) * rng.uniform(30, 60)
        length = rng.uniform(70, 100) if kind == "short" else rng.uniform(130, 250)
        brush = rng.choice(BRUSHES)
        paths = tuple(_place_all(rng, _local_line(rng, kind, length), degrees, brush))
        label = _line_label(degrees)
        figures.append(
            Figure(f"line{i:02d}-{kind}-{label[0]}{degrees:+.0f}-{length:.0f}px-{brush}", label, paths, brush)
        )
    return tuple(figures)


def _place_all(rng: random.Random, paths, degrees: float, brush: float) -> list[Points]:
    """Place several paths together (one shift for all), as ``_place`` does for one."""
    flat = [p for path in paths for p in path]
    placed = _place(rng, flat, degrees, brush)
    out, start = [], 0
    for path in paths:
        out.append(placed[start : start + len(path)])
        start += len(path)
    return out


def _polar(n: int, radius, turns: float = 1.0) -> list[tuple[float, float]]:
    return [
        (
            radius(i / n) * math.cos(2 * math.pi * turns * i / n),
            radius(i / n) * math.sin(2 * math.pi * turns * i / n),
        )
        for i in range(n + 1)
    ]


def _shape_paths(kind: str, s: float, rng: random.Random) -> list[list[tuple[float, float]]]:
    """The pen paths of a non-line ``kind`` at scale ``s`` (about its half size), centred on 0."""
    j = lambda: rng.uniform(-0.08, 0.08) * s  # noqa: E731 - a hand's imprecision
    shapes = {
        "check": [[(-0.6 * s, 0), (-0.2 * s + j(), 0.5 * s), (0.7 * s, -0.7 * s)]],
        "L": [[(-0.5 * s, -s), (-0.5 * s + j(), 0.8 * s), (0.5 * s + j(), 0.8 * s)]],
        "V": [[(-0.6 * s, -0.8 * s), (j(), 0.8 * s), (0.6 * s, -0.8 * s)]],
        "T": [[(-0.8 * s, -0.8 * s), (0.8 * s, -0.8 * s + j())], [(j(), -0.8 * s), (j(), 0.9 * s)]],
        "plus": [[(-0.8 * s, j()), (0.8 * s, j())], [(j(), -0.8 * s), (j(), 0.8 * s)]],
        "X": [[(-0.7 * s, -0.7 * s), (0.7 * s, 0.7 * s)], [(0.7 * s, -0.7 * s), (-0.7 * s, 0.7 * s)]],
        "Z": [[(-0.7 * s, -0.8 * s), (0.7 * s, -0.8 * s), (-0.7 * s, 0.8 * s), (0.7 * s, 0.8 * s)]],
        "seven": [[(-0.6 * s, -0.8 * s), (0.6 * s, -0.8 * s), (-0.1 * s + j(), 0.9 * s)]],
        "four": [
            [(0.2 * s, -0.9 * s), (-0.7 * s, 0.3 * s), (0.7 * s, 0.3 * s)],
            [(0.3 * s, -0.4 * s), (0.3 * s, 0.9 * s)],
        ],
        "two": [
            [
                *[
                    (0.6 * s * math.cos(a), -0.4 * s + 0.45 * s * math.sin(a))
                    for a in np.linspace(-math.pi, 0.3, 8)
                ],
                (-0.6 * s, 0.85 * s),
                (0.7 * s, 0.85 * s),
            ]
        ],
        "S": [
            [
                (0.5 * s * math.cos(a), 0.45 * s * math.sin(a) - 0.45 * s)
                for a in np.linspace(-0.2, -1.5 * math.pi, 9)
            ]
            + [
                (-0.5 * s * math.cos(a), 0.45 * s * math.sin(a) + 0.45 * s)
                for a in np.linspace(-0.5 * math.pi, 0.8 * math.pi, 9)
            ]
        ],
        "arrow": [[(-0.9 * s, 0), (0.9 * s, 0)], [(0.55 * s, -0.3 * s), (0.9 * s, 0), (0.55 * s, 0.3 * s)]],
        "triangle": [[(0, -0.9 * s), (0.85 * s, 0.7 * s), (-0.85 * s, 0.7 * s), (0, -0.9 * s)]],
        "star": [
            [
                (0.9 * s * math.sin(4 * math.pi * k / 5), -0.9 * s * math.cos(4 * math.pi * k / 5))
                for k in range(6)
            ]
        ],
        "circle": [_polar(16, lambda u: 0.8 * s)],
        "spiral": [_polar(30, lambda u: 0.9 * s * (0.15 + 0.85 * u), turns=2.5)],
        "zigzag": [[(-0.9 * s + 1.8 * s * k / 6, (0.35 if k % 2 else -0.35) * s) for k in range(7)]],
        "scribble": [[(rng.uniform(-0.8, 0.8) * s, rng.uniform(-0.8, 0.8) * s) for _ in range(8)]],
        "dot": [[(0.0, 0.0), (2.0, 1.0)]],
        "fill": [[(-130.0, -130 + 18.0 * k) if k % 2 else (130.0, -130 + 18.0 * k) for k in range(16)]],
    }
    return shapes[kind]


SHAPE_KINDS = (
    "check",
    "L",
    "V",
    "T",
    "plus",
    "X",
    "Z",
    "seven",
    "four",
    "two",
    "S",
    "arrow",
    "triangle",
    "star",
    "circle",
    "spiral",
    "zigzag",
    "scribble",
    "dot",
    "fill",
)


def generated_non_lines(count: int, seed: int) -> tuple[Figure, ...]:
    """``count`` drawings that are not one straight line, cycling through ``SHAPE_KINDS``."""
    rng = random.Random(seed)
    figures = []
    for i in range(count):
        kind = SHAPE_KINDS[i % len(SHAPE_KINDS)]
        s = rng.uniform(60, 120)
        brush = 36 if kind == "fill" else rng.choice(BRUSHES)
        tilt = 0.0 if kind == "fill" else rng.uniform(-20, 20)
        paths = tuple(_place_all(rng, _shape_paths(kind, s, rng), tilt, brush))
        figures.append(Figure(f"shape{i:02d}-{kind}-{s:.0f}-{brush}", NOT_A_LINE, paths, brush))
    return tuple(figures)


def judge(figure: Figure, name: str, note: str) -> str:
    """'ok', or what went wrong with the page's answer (name, the line under it) to ``figure``.

    A line must get its class ("Not sure" is wrong too); a non-line must get "Not one straight
    line" with no class shown as sure.
    """
    if figure.label == NOT_A_LINE:
        if name != NOT_A_LINE_TEXT:
            return "read as a line"
        return "a class shown as sure" if "sure" in note.lower() else "ok"
    if name == NOT_A_LINE_TEXT:
        return "false alarm"
    return "ok" if name == figure.label else f"wrong class ({name})"


def draw_figure(tab, figure: Figure, steps: int = 12) -> None:
    """Drag the mouse along each of the figure's pen paths on the page's canvas.

    Each pen-up sends the canvas and reruns the page. Before the next pen-down, and before the
    caller reads a verdict, the page must show what the model sees of this stroke (its 8x8 input
    changed): else a figure's verdict could be its first stroke's alone.
    """
    # Wholly in view, clear of the page's sticky header: on a phone it may start below the fold.
    tab.locator(CANVAS).evaluate("canvas => canvas.scrollIntoView({block: 'center'})")
    box = tab.locator(CANVAS).bounding_box()
    for (x, y), *rest in figure.strokes:
        wait_until(tab, lambda: model_input_sum(tab) is not None, True)  # a rerun's two heatmaps: wait
        before = model_input_sum(tab)
        tab.mouse.move(box["x"] + x, box["y"] + y)
        tab.mouse.down()
        for x, y in rest:
            tab.mouse.move(box["x"] + x, box["y"] + y, steps=steps)
        tab.mouse.up()
        if not _input_changed(tab, before):
            raise AssertionError(f"{figure.name}: the page never showed a stroke's input")


def _input_changed(tab, before: float | None, timeout_ms: int = 30_000) -> bool:
    """Wait until the page shows a model input other than ``before``; False if it never does."""
    return wait_until(tab, lambda: model_input_sum(tab) not in (None, before), True, timeout_ms)
