"""Lines and non-lines drawn in Chromium on the Draw page: does the page know what it does not know?

Generated figures (``tests.draw_shapes``, a fixed seed) are dragged with the mouse on the real
canvas of a real ``streamlit run`` server, pen-down to pen-up for each of their strokes; the
verdict the page shows is read back. A line must get its class (or at least not "Not one straight
line"); a non-line must get "Not one straight line", with no class shown as sure.

    python scripts/figure_suite.py                       # 56 lines and 40 non-lines, seed 7
    python scripts/figure_suite.py --lines 80 --non-lines 40 --seed 3 --url http://127.0.0.1:8501
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for tests.helpers and tests.draw_shapes

from tests.draw_helpers import (  # noqa: E402
    canvas_png,
    clear,
    draw_page_tab,
    read_prediction,
    set_brush,
    stroke_landed,
)
from tests.draw_shapes import (  # noqa: E402
    NOT_A_LINE,
    Figure,
    draw_figure,
    generated_lines,
    generated_non_lines,
    judge,
)
from tests.helpers import StreamlitServer  # noqa: E402


def draw_all(base_url: str, out: Path, figures: tuple[Figure, ...]) -> list[dict]:
    """Draw every figure on the page; one row per figure, its canvas saved as a PNG."""
    rows = []
    with draw_page_tab(base_url) as tab:
        for figure in figures:
            set_brush(tab, figure.brush)
            clear(tab)
            draw_figure(tab, figure)
            if not stroke_landed(tab):
                raise AssertionError(f"{figure.name} left no ink on the canvas")
            name, note = read_prediction(tab)
            (out / f"{figure.name}.png").write_bytes(canvas_png(tab))
            verdict = judge(figure, name, note)
            rows.append(
                {
                    "figure": figure.name,
                    "expected": figure.label,
                    "page": name,
                    "note": note,
                    "verdict": verdict,
                }
            )
            mark = "ok " if verdict == "ok" else "BAD"
            print(f"{mark} {figure.name:44} {name:24} {note} {'' if verdict == 'ok' else verdict}")
    return rows


def main() -> None:
    """Draw the figures, print and save the scores."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", help="a running dashboard to use; default: start one")
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "figure_suite")
    parser.add_argument("--lines", type=int, default=56)
    parser.add_argument("--non-lines", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    figures = generated_lines(args.lines, args.seed) + generated_non_lines(args.non_lines, args.seed + 1)
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    server = None if args.url else StreamlitServer().start()
    try:
        rows = draw_all(args.url or server.url, args.out, figures)
    finally:
        if server is not None:
            server.stop()
    lines = [row for row in rows if row["expected"] != NOT_A_LINE]
    others = [row for row in rows if row["expected"] == NOT_A_LINE]
    summary = {
        "lines": len(lines),
        "lines_right_class": sum(row["verdict"] == "ok" for row in lines) / max(len(lines), 1),
        "lines_false_alarms": sum(row["verdict"] == "false alarm" for row in lines),
        "non_lines": len(others),
        "non_lines_caught": sum(row["verdict"] == "ok" for row in others) / max(len(others), 1),
        "seconds": round(time.perf_counter() - start, 1),
    }
    (args.out / "results.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=2))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
