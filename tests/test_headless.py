"""The core never imports Streamlit: it must run in the CLI, in tests and on a headless GPU box."""

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "linecnn"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


# Packages that wrap Streamlit itself: the pages' views, and the hosted server's web layer around them.
STREAMLIT_SIDE = ("ui", "deploy")


def is_core(path: Path) -> bool:
    """True for a module outside the packages that wrap Streamlit."""
    return not set(STREAMLIT_SIDE) & set(path.relative_to(CORE).parts)


def test_no_core_module_imports_streamlit():
    """Every module outside linecnn/ui and linecnn/deploy is free of streamlit imports."""
    offenders = [
        str(path.relative_to(CORE))
        for path in CORE.rglob("*.py")
        if is_core(path)
        and any(
            name.split(".")[0] in ("streamlit", "streamlit_drawable_canvas")
            for name in imported_modules(path)
        )
    ]
    assert offenders == []


def test_importing_the_core_loads_no_streamlit():
    """Importing every core module in a fresh interpreter leaves streamlit unloaded."""
    modules = sorted(
        "linecnn." + ".".join(path.relative_to(CORE).with_suffix("").parts)
        for path in CORE.rglob("*.py")
        if is_core(path) and path.stem not in ("__init__", "__main__")
    )
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + "print('streamlit' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False", modules


def test_the_benchmark_jobs_load_no_streamlit():
    """The Benchmark page's background jobs (polled by fragments, run in threads) import no streamlit."""
    code = (
        "import sys, linecnn.jobs.job, linecnn.jobs.sweep, linecnn.jobs.ranks, linecnn.jobs.inside\n"
        "print('streamlit' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_the_ui_package_loads_pandas_before_any_page_can_race_plotly_for_it():
    """Plotly reads pandas from sys.modules; a half-imported one there crashed a live Train run."""
    import subprocess
    import sys

    code = "import sys, linecnn.ui; assert 'pandas' in sys.modules and sys.modules['pandas'].Series"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
