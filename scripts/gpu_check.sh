#!/usr/bin/env bash
# One command for a GPU machine, from a bare clone: no install, only a Python with torch (a CUDA
# build), numpy, pandas, pytest, pytest-timeout and safetensors. It runs the CUDA-marked tests
# (core only, never streamlit) in steps, then a short CPU-vs-CUDA data sweep, and prints one JSON
# summary on stdout that says per step what passed (logs, JUnit reports and the sweep's JSON go
# to $GPU_CHECK_OUT, a temp dir by default). Each step has its own time limit, so one hang cannot
# eat the rest: all of them together stay under 8 minutes.
#
#   PYTHON=python3 scripts/gpu_check.sh              # on a machine with CUDA
#   PYTHON=python3 scripts/gpu_check.sh --reference  # also keep the sweep as the GPU's reference
#                                                    # series, linecnn/bench/reference/<gpu>-data.json
#   PYTHON=... scripts/gpu_check.sh --cpu-only       # the same steps on a CPU-only machine (a dry run:
#                                                    # the CUDA tests are collected and skip)
#
# Exit status: 0 every step passed; 1 a step failed or ran out of time; 2 bad option; 3 CUDA is
# not available here (the JSON says why).
set -uo pipefail
cd "$(dirname "$0")/.."
# Runs from the checkout, installed or not.
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
PY="${PYTHON:-python3}"

mode=cuda
reference=0
for arg in "$@"; do
    case "$arg" in
        --cpu-only) mode=cpu ;;
        --reference) reference=1 ;;
        *) echo "usage: scripts/gpu_check.sh [--cpu-only] [--reference]" >&2; exit 2 ;;
    esac
done
out="${GPU_CHECK_OUT:-$(mktemp -d -t linecnn-gpu-check.XXXXXX)}"
mkdir -p "$out"
export GPU_CHECK_OUT="$out"
: >"$out/steps.tsv"
: >"$out/figures.jsonl"
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

# step NAME LIMIT_SECONDS COMMAND...: run it under its own time limit; its output goes to NAME.log.
step() {
    local name=$1 limit=$2 t0 rc
    shift 2
    t0=$(date +%s)
    timeout -k 5 "$limit" "$@" >"$out/$name.log" 2>&1
    rc=$?
    printf '%s\t%s\t%s\t%s\n' "$name" "$rc" "$(($(date +%s) - t0))" "$limit" >>"$out/steps.tsv"
    echo "gpu_check: $name exit $rc after $(($(date +%s) - t0)) s (limit $limit s)" >&2
}

# pytest_step NAME LIMIT FILES...: CUDA-marked tests, each test also under pytest-timeout.
pytest_step() {
    local name=$1 limit=$2
    shift 2
    step "$name" "$limit" "$PY" -m pytest -m cuda -q -p no:cacheprovider -o addopts="" \
        --timeout "$((limit - 10))" -rfEs --junitxml="$out/$name.xml" "$@"
}

# 0. The core imports on this Python and torch, without streamlit.
step core 30 "$PY" -c "
import sys, torch
import linecnn.bench.cell, linecnn.bench.profile_worker, linecnn.bench.worker, linecnn.bench.in_worker
import linecnn.train.trainer, linecnn.draw.predict, linecnn.lesson.run, linecnn.parallel.series
import linecnn.bench.reference.load
assert 'streamlit' not in sys.modules, 'the core imported streamlit'
print(torch.__version__, torch.version.cuda)
"
# 1. Training, benchmark cells, Draw inference, Inside one step and the Lesson's snippets on CUDA.
pytest_step tests_core 110 tests/test_cuda.py tests/test_train_cuda.py tests/test_predict_cuda.py \
    tests/test_profile_cuda.py tests/test_lesson_cuda.py
# 2. What no CPU test reaches: compile and graphs, AMP, OOM, the worker processes, events, sharing.
pytest_step tests_paths 170 tests/test_gpu_paths_cuda.py
# 3. NCCL: one rank per GPU (two where there are two).
pytest_step tests_nccl 60 tests/test_ranks_cuda.py

# 4. A short CPU-vs-CUDA data sweep from the lesson's 360 images up; the time cap keeps it short.
#    With --reference on a GPU it is written where the bundled reference series live.
devices=cpu,cuda
up_to=360000
cap=80
grace=25
# A dry run only needs the sweep's path exercised: two small CPU cells, with room for a busy CI machine.
[ "$mode" = cpu ] && devices=cpu && up_to=1200 && cap=8 && grace=60
sweep_out="$out/sweep.json"
if [ "$reference" = 1 ]; then
    name=$("$PY" -c "
import torch
from linecnn.bench.reference.load import reference_name
print(reference_name(torch.cuda.get_device_name(0)) if torch.cuda.is_available() else 'cpu-dry-run-data.json')")
    [ "$mode" = cuda ] && sweep_out="linecnn/bench/reference/$name" || sweep_out="$out/$name"
fi
step sweep "$((cap + grace))" "$PY" -m linecnn bench --json --no-save --devices "$devices" --sweep data \
    --up-to "$up_to" --warmup 2 --repeats 5 --max-seconds "$cap" --out "$sweep_out"

# 5. One JSON summary.
OUT="$out" START="$start" MODE="$mode" SWEEP_OUT="$sweep_out" REFERENCE="$reference" "$PY" - <<'EOF'
import json
import os
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from linecnn.bench.crossover import crossover
from linecnn.bench.factors import FACTORS

out = Path(os.environ["OUT"])
cuda = os.environ["MODE"] == "cuda"
summary = {"cuda": cuda, "out": str(out), "steps": {}}
for line in (out / "steps.tsv").read_text().splitlines():
    name, rc, seconds, limit = line.split("\t")
    entry = {"ok": rc == "0", "exit_code": int(rc), "seconds": int(seconds), "limit_s": int(limit)}
    if rc in ("124", "137"):
        entry["timed_out"] = True
    report = out / f"{name}.xml"
    if report.exists():
        try:
            root = ET.parse(report).getroot()
            suite = root if root.tag == "testsuite" else root.find("testsuite")
            tests, skipped = int(suite.get("tests")), int(suite.get("skipped"))
            failed = int(suite.get("failures")) + int(suite.get("errors"))
            entry["passed"], entry["failed"], entry["skipped"] = tests - failed - skipped, failed, skipped
            entry["failures"] = [
                f"{case.get('name')}: {(problem.get('message') or '').splitlines()[0][:300] if problem.get('message') else ''}"
                for case in suite.iter("testcase")
                for problem in list(case.findall("failure")) + list(case.findall("error"))
            ]
        except (OSError, ET.ParseError, AttributeError, TypeError) as error:
            entry["report_error"] = str(error)
    elif rc != "0":
        log = (out / f"{name}.log").read_text(errors="replace").strip().splitlines()
        entry["log_tail"] = log[-5:]
    summary["steps"][name] = entry

figures = {}
for line in (out / "figures.jsonl").read_text().splitlines():
    try:
        figures.update(json.loads(line))
    except ValueError:
        pass
if figures:
    summary["figures"] = figures

sweep_path = Path(os.environ["SWEEP_OUT"])
try:
    document = json.loads(sweep_path.read_text())
    env = document["env"]
    summary["env"] = {key: env.get(key) for key in ("torch_version", "cuda_version", "cudnn_version",
                                                   "cpu_model", "torch_threads", "float32", "date")}
    summary["env"]["gpus"] = [d["name"] for d in env["devices"] if d["kind"] == "cuda"]
    by_device = {}
    for r in document["results"]:
        by_device.setdefault(r["device"], {})[r["x"]] = r
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
    summary["sweep"] = {"file": str(sweep_path), "points": points}
    first_gpu = next((r for r in document["results"] if r["device"].startswith("cuda") and r["median_ms"]), None)
    if first_gpu:
        summary["sweep"]["one_time_ms"] = {k: first_gpu[k] for k in
                                           ("context_ms", "setup_ms", "autotune_ms", "first_epoch_ms")}
    cpu = {x: r["median_ms"] for x, r in by_device.get("cpu", {}).items() if r["median_ms"]}
    gpu_cells = {x: r["median_ms"] for x, r in by_device.get("cuda:0", {}).items() if r["median_ms"]}
    found = crossover(cpu, gpu_cells, FACTORS["data"])
    summary["sweep"]["crossover"] = found.verdict if found else None
except (OSError, ValueError, KeyError, TypeError) as error:
    summary["sweep"] = {"error": f"no sweep result: {error}"}

if os.environ["REFERENCE"] == "1":
    if cuda:
        from linecnn.bench.reference.load import read_reference

        try:
            found = read_reference(sweep_path)
            summary["reference"] = {"ok": True, "file": str(sweep_path), "gpu": found.gpu,
                                    "gpu_cells": sum(r.ok for r in found.document.results)}
        except (OSError, ValueError) as error:
            summary["reference"] = {"ok": False, "file": str(sweep_path), "error": str(error)}
    else:  # a dry run writes no reference into the repository: there is no GPU cell to keep
        summary["reference"] = {"ok": sweep_path.exists(), "file": str(sweep_path), "dry_run": True}

summary["seconds"] = round(time.time() - int(os.environ["START"]))
summary["ok"] = all(step["ok"] for step in summary["steps"].values()) and "error" not in summary["sweep"] and (
    summary.get("reference", {}).get("ok", True))
print(json.dumps(summary, indent=1))
raise SystemExit(0 if summary["ok"] else 1)
EOF
