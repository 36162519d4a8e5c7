#!/usr/bin/env bash
# One command for a GPU machine: the CUDA-marked tests, then a short CPU-vs-CUDA data sweep,
# then one JSON summary on stdout (logs and the sweep's JSON go to $GPU_CHECK_OUT, a temp dir
# by default). Under 5 minutes: each step has its own time limit.
#
#   scripts/gpu_check.sh             # on a machine with CUDA
#   scripts/gpu_check.sh --cpu-only  # exercise the same steps on a CPU-only machine (no GPU figures)
#
# Exit status: 0 all good; 1 a test failed or the sweep did not finish; 3 CUDA is not available
# here (the JSON says why); with --cpu-only, 0 or 1 as for the GPU run.
set -uo pipefail
cd "$(dirname "$0")/.."
# Runs from the checkout, installed or not: a bare GPU box needs only torch, numpy, pytest.
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
PY="${PYTHON:-python3}"

mode=cuda
[ "${1:-}" = "--cpu-only" ] && mode=cpu
out="${GPU_CHECK_OUT:-$(mktemp -d -t linecnn-gpu-check.XXXXXX)}"
mkdir -p "$out"
start=$(date +%s)

if [ "$mode" = cuda ] && ! "$PY" -c "import sys; from linecnn.device import cuda_available as a; sys.exit(not a())"; then
    "$PY" - <<'EOF'
import json
from linecnn.device import cuda_unavailable_reason, environment
env = environment()
print(json.dumps({"cuda": False, "ok": False, "reason": cuda_unavailable_reason(),
                  "torch": env.torch_version, "cpu": env.cpu_model}))
EOF
    echo "gpu_check: CUDA is not available here, so there is nothing to check (try --cpu-only)." >&2
    exit 3
fi

devices=cpu,cuda
[ "$mode" = cpu ] && devices=cpu
# 1. Every CUDA-marked test (training, benchmark and Draw inference on the GPU); these files
#    import only the core, never streamlit.
timeout 170 "$PY" -m pytest -m cuda -q -p no:cacheprovider -o addopts="" \
    --junitxml="$out/tests.xml" tests/test_cuda.py tests/test_train_cuda.py tests/test_predict.py tests/test_ranks_cuda.py tests/test_profile_cuda.py \
    >"$out/tests.log" 2>&1
tests_rc=$?

# 2. A short CPU-vs-CUDA data sweep from the lesson's 360 images up; the time cap keeps it short.
timeout 110 "$PY" -m linecnn bench --json --no-save --devices "$devices" --sweep data --up-to 360000 \
    --warmup 2 --repeats 5 --max-seconds 90 --out "$out/sweep.json" >/dev/null 2>"$out/sweep.log"
sweep_rc=$?

# 3. One JSON summary.
TESTS_RC=$tests_rc SWEEP_RC=$sweep_rc OUT="$out" START="$start" MODE="$mode" "$PY" - <<'EOF'
import json, os, time
import xml.etree.ElementTree as ET

from linecnn.bench.crossover import crossover
from linecnn.bench.factors import FACTORS

out = os.environ["OUT"]
summary = {"cuda": os.environ["MODE"] == "cuda", "out": out}
try:
    suite = ET.parse(f"{out}/tests.xml").getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    tests, failed = int(suite.get("tests")), int(suite.get("failures")) + int(suite.get("errors"))
    skipped = int(suite.get("skipped"))
    summary["tests"] = {"passed": tests - failed - skipped, "failed": failed, "skipped": skipped,
                        "exit_code": int(os.environ["TESTS_RC"])}
except (OSError, ET.ParseError, AttributeError, TypeError) as error:
    summary["tests"] = {"error": f"no test report: {error}", "exit_code": int(os.environ["TESTS_RC"])}
try:
    with open(f"{out}/sweep.json") as file:
        document = json.load(file)
    env = document["env"]
    summary["env"] = {key: env.get(key) for key in ("torch_version", "cuda_version", "cudnn_version",
                                                   "cpu_model", "torch_threads", "date")}
    summary["env"]["gpus"] = [d["name"] for d in env["devices"] if d["kind"] == "cuda"]
    by_device = {}
    for r in document["results"]:
        by_device.setdefault(r["device"], {})[r["x"]] = r
    cpu = {x: r["median_ms"] for x, r in by_device.get("cpu", {}).items() if r["median_ms"] is not None}
    points = []
    for x in sorted({x for cells in by_device.values() for x in cells}):
        point = {"images": int(x)}
        for device, cells in by_device.items():
            cell = cells.get(x)
            point[f"{device}_ms"] = None if cell is None or cell["median_ms"] is None else round(cell["median_ms"], 3)
            if cell is not None and cell["status"] != "ok":
                point[f"{device}_status"] = cell["status"]
        gpu = point.get("cuda:0_ms")
        point["speedup"] = round(point["cpu_ms"] / gpu, 2) if gpu and point.get("cpu_ms") else None
        points.append(point)
    summary["sweep"] = {"points": points, "exit_code": int(os.environ["SWEEP_RC"])}
    first_gpu = next((r for r in document["results"] if r["device"].startswith("cuda") and r["median_ms"]), None)
    if first_gpu:
        summary["sweep"]["one_time_ms"] = {k: first_gpu[k] for k in
                                           ("context_ms", "setup_ms", "autotune_ms", "first_epoch_ms")}
    gpu_cells = {x: r["median_ms"] for x, r in by_device.get("cuda:0", {}).items() if r["median_ms"]}
    found = crossover(cpu, gpu_cells, FACTORS["data"])
    summary["sweep"]["crossover"] = found.verdict if found else None
except (OSError, ValueError, KeyError) as error:
    summary["sweep"] = {"error": f"no sweep result: {error}", "exit_code": int(os.environ["SWEEP_RC"])}
summary["seconds"] = round(time.time() - int(os.environ["START"]))
summary["ok"] = summary["tests"].get("exit_code") == 0 and summary["sweep"].get("exit_code") == 0
print(json.dumps(summary, indent=1))
raise SystemExit(0 if summary["ok"] else 1)
EOF
