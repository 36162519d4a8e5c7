"""Where linecnn keeps files that outlive a session (the benchmark history)."""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "LINECNN_DATA_DIR"  # set it to keep linecnn's files somewhere else (tests, servers)


def data_dir() -> Path:
    """The per-user data directory (e.g. ~/.local/share/linecnn), or $LINECNN_DATA_DIR when set."""
    override = os.environ.get(DATA_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    try:
        import platformdirs
    except ImportError:  # a bare GPU machine has torch and the test tools only: the XDG default there
        return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "linecnn"
    return Path(platformdirs.user_data_dir("linecnn"))
