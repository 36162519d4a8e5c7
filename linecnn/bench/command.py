"""The one ``python -m linecnn bench`` line that times exactly a sweep request (what the page suggests).

Run on another machine, it writes a JSON file whose cells are the request's cells: imported on the
Benchmark page, its series line up with the page's run in the cards and the chart.
"""

from __future__ import annotations

import shlex

from linecnn.bench.config import FASTER_PATHS
from linecnn.bench.plan import MAX_STEP_BYTES, Caps, SweepRequest
from linecnn.train.config import DEFAULT_FLAT

OPTIONS = {"channels_last": "--channels-last", "compile": "--compile", "cuda_graphs": "--cuda-graphs"}


def cli_line(request: SweepRequest, caps: Caps | None = None, out: str = "gpu.json") -> str:
    """The CLI command of ``request`` on every device of the machine it runs on: a table, and JSON in ``out``.

    It names every option the page's form sets (factor, range, the cell held fixed, warm-up, repeats,
    faster paths), the server's step-memory cap when it differs from the CLI's, and ``--no-save``:
    the file is meant to be imported, not to enter that machine's history as well.
    """
    flat, caps = request.base.to_flat(), caps or Caps(max_step_bytes=MAX_STEP_BYTES)
    words = ["python", "-m", "linecnn", "bench", "--sweep", request.factor.name]
    if request.up_to is not None and request.factor.values:
        words += ["--up-to", str(int(request.up_to))]
    batch = flat["batch_size"]
    words += ["--per-class", str(flat["per_class"]), "--batch-size", "full" if batch is None else str(batch)]
    words += ["--width", str(flat["width"]), "--extra-convs", str(flat["extra_convs"])]
    if flat["seed"] != DEFAULT_FLAT["seed"]:
        words += ["--seed", str(flat["seed"])]
    words += ["--warmup", str(flat["warmup"]), "--repeats", str(flat["repeats"])]
    if flat["amp"] != "off":
        words += ["--amp", flat["amp"]]
    words += [OPTIONS[name] for name in FASTER_PATHS if flat[name]]
    if not request.compare_eager:
        words.append("--no-eager")
    if caps.max_step_bytes != MAX_STEP_BYTES:
        words += ["--max-step-bytes", "none" if caps.max_step_bytes is None else str(caps.max_step_bytes)]
    return shlex.join([*words, "--out", out, "--no-save"])
