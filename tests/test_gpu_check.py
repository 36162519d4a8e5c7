"""The GPU check runs every CUDA-marked test file, and each imports only the core (as on a GPU box)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gpu_check.sh"
# CUDA tests of a page (AppTest): they need Streamlit, which a bare GPU box has not; run them with
# `python -m pytest -m cuda` on a GPU machine where the app is installed.
NEEDS_THE_APP = {"tests/test_lesson_page.py"}


def cuda_test_files() -> list[str]:
    """Test files with a test marked cuda."""
    return sorted(
        f"tests/{path.name}"
        for path in (ROOT / "tests").glob("test_*.py")
        if "pytest.mark.cuda" in path.read_text()
        and path.name != Path(__file__).name
        and f"tests/{path.name}" not in NEEDS_THE_APP
    )


def test_the_gpu_check_runs_every_cuda_test_file():
    """A CUDA test left out of scripts/gpu_check.sh would never run anywhere."""
    listed = set(re.findall(r"tests/test_\w+\.py", SCRIPT.read_text()))
    assert set(cuda_test_files()) <= listed


def test_every_cuda_test_file_imports_without_streamlit_pandas_or_plotly():
    """Imported with Streamlit, Plotly and Playwright made unimportable, as on a bare GPU box."""
    modules = [name.removesuffix(".py").replace("/", ".") for name in cuda_test_files()]
    blocked = "; ".join(f"sys.modules[{name!r}] = None" for name in ("streamlit", "plotly", "playwright"))
    code = f"import sys; {blocked}; " + "; ".join(f"import {module}" for module in modules)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
