"""Numbers a host sets through environment variables, read the same way everywhere.

A value that is missing falls back to the default; one that is not a finite number of at least
the minimum falls back too, with a warning in the server's log, so that a typo in a service file
never takes the app down.
"""

from __future__ import annotations

import logging
import math
import os
import re

_LOG = logging.getLogger(__name__)
UNCAPPED = ("inf", "none")  # what a host writes to lift a cap
YES = ("1", "true", "yes", "on")  # what a host writes to turn a switch on
NO = ("0", "false", "no", "off")  # and off


def env_number(name: str, default: float, minimum: float) -> float:
    """$name as a number of at least ``minimum``, else ``default``."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= minimum):
        _LOG.warning(
            "Ignoring %s=%r: it must be a number of at least %g; using %g.", name, raw, minimum, default
        )
        return default
    return value


def env_uncapped(name: str) -> bool:
    """True when the host lifted the cap $name ('inf' or 'none')."""
    return os.environ.get(name, "").strip().lower() in UNCAPPED


def env_flag(name: str, default: bool) -> bool:
    """$name as a switch (1/true/yes/on or 0/false/no/off); missing or anything else: ``default``."""
    raw = os.environ.get(name, "").strip().lower()
    if raw and raw not in YES + NO:
        _LOG.warning("Ignoring %s=%r: write 1 or 0; using %s.", name, raw, int(default))
    return True if raw in YES else False if raw in NO else default


def env_words(name: str) -> tuple[str, ...]:
    """$name as a list of words separated by commas, semicolons or spaces (e-mails, domains)."""
    return tuple(word for word in re.split(r"[\s,;]+", os.environ.get(name, "")) if word)
