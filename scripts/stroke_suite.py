"""Real-stroke suite: draw lines on the Draw page's canvas in Chromium and score the models.

Each stroke in ``tests.draw_helpers.SUITE`` is drawn with Playwright mouse drags on the
real canvas of a real ``streamlit run`` server; the class the page shows is read back.
The canvas pixels are saved too, and the same pixels are classified offline by the
default model and by a model trained on the lesson's data only, for comparison.

    python scripts/stroke_suite.py                  # starts its own server
    python scripts/stroke_suite.py --url http://127.0.0.1:8501
    python scripts/stroke_suite.py --random 40 --seed 7   # random strokes instead of the suite
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for tests.helpers and tests.draw_helpers

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from linecnn.device import cpu_threads  # noqa: E402
from linecnn.draw.default_weights import load_default_model  # noqa: E402
from linecnn.draw.predict import predict, train_default_model  # noqa: E402
from linecnn.draw.preprocess import preprocess  # noqa: E402
from linecnn.train.config import RunConfig  # noqa: E402
from linecnn.train.trainer import fit  # noqa: E402
from tests.draw_helpers import (  # noqa: E402
    SUITE,
    Stroke,
    canvas_png,
    classify_on_page,
    draw_page_tab,
    random_strokes,
)
from tests.helpers import StreamlitServer  # noqa: E402


def draw_suite(base_url: str, out: Path, strokes: tuple[Stroke, ...]) -> list[dict]:
    """Draw every stroke on the page; return one row per stroke and save its canvas PNG."""
    rows = []
    with draw_page_tab(base_url) as tab:
        for stroke in strokes:
            name, confidence = classify_on_page(tab, stroke)
            png = canvas_png(tab)
            (out / f"{stroke.name}.png").write_bytes(png)
            rows.append(
                {
                    "stroke": stroke.name,
                    "expected": stroke.label,
                    "page": name,
                    "page_confidence": confidence,
                }
            )
            mark = "ok " if name == stroke.label else "MISS"
            print(f"{mark} {stroke.name:24} expected {stroke.label:10} page {name:10} {confidence}")
    return rows


def score_offline(rows: list[dict], out: Path) -> None:
    """Add the default and the lesson-only model's answers on the saved canvas pixels."""
    default = load_default_model() or train_default_model()  # the page's model: shipped, else trained
    with cpu_threads("cpu", 1):
        lesson_only = fit(RunConfig()).model.eval()  # the lesson's data and recipe
    for row in rows:
        rgba = np.asarray(Image.open(io.BytesIO((out / f"{row['stroke']}.png").read_bytes())).convert("RGBA"))
        drawing = preprocess(rgba)
        row["default"] = predict(default, drawing.image).name
        row["lesson_only"] = predict(lesson_only, drawing.image).name
        row["problem"] = drawing.problem


def accuracy(rows: list[dict], column: str) -> float:
    """Fraction of rows whose ``column`` equals the expected class."""
    return sum(row[column] == row["expected"] for row in rows) / len(rows)


def main() -> None:
    """Run the suite and print and save the scores."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", help="a running dashboard to use; default: start one")
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "stroke_suite")
    parser.add_argument("--random", type=int, default=0, help="draw this many random strokes instead")
    parser.add_argument("--seed", type=int, default=7, help="seed of the random strokes")
    args = parser.parse_args()
    strokes = random_strokes(args.random, args.seed) if args.random else SUITE
    args.out.mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    server = None if args.url else StreamlitServer().start()
    try:
        rows = draw_suite(args.url or server.url, args.out, strokes)
    finally:
        if server is not None:
            server.stop()
    score_offline(rows, args.out)

    summary = {
        "strokes": len(rows),
        "page_default_model": accuracy(rows, "page"),
        "offline_default_model": accuracy(rows, "default"),
        "offline_lesson_only_model": accuracy(rows, "lesson_only"),
        "page_and_offline_agree": sum(row["page"] == row["default"] for row in rows),
        "seconds": round(time.perf_counter() - start, 1),
    }
    (args.out / "results.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=2))
    for row in rows:
        if row["lesson_only"] != row["expected"] or row["page"] != row["expected"]:
            print(f"  {row['stroke']:24} page {row['page']:10} lesson-only {row['lesson_only']}")
    print(
        f"{summary['strokes']} strokes: default model on the page {summary['page_default_model']:.1%}, "
        f"lesson-only model {summary['offline_lesson_only_model']:.1%} "
        f"(offline default {summary['offline_default_model']:.1%}; "
        f"{summary['page_and_offline_agree']} of {len(rows)} page answers match offline). "
        f"{summary['seconds']} s. Details: {args.out / 'results.json'}"
    )


if __name__ == "__main__":
    main()
