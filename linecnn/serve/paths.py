"""Where linecnn keeps files that outlive a session (the benchmark history)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

DATA_DIR_ENV = "LINECNN_DATA_DIR"  # set it to keep linecnn's files somewhere else (tests, servers)


def data_dir() -> Path:
    """The per-user data directory (e.g. ~/.local/share/linecnn), or $LINECNN_DATA_DIR when set."""
    override = os.environ.get(DATA_DIR_ENV, "").strip()
    return Path(override).expanduser() if override else Path(platformdirs.user_data_dir("linecnn"))
