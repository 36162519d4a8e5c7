"""The type checker: mypy over linecnn/, with the settings of pyproject.toml's [tool.mypy]."""

import subprocess
import sys

from tests.helpers import ROOT


def test_mypy_finds_no_type_errors_in_the_package():
    """mypy reports nothing; its cache (.mypy_cache) makes a rerun over unchanged code take about a second."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(ROOT / ".mypy_cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
