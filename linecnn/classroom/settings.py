"""Numbers a host sets through environment variables, read the same way everywhere.

A value that is missing falls back to the default; one that is not a finite number of at least
the minimum falls back too, with a warning in the server's log, so that a typo in a service file
never takes the app down. Every page run reads these settings again, so each bad value is logged
once per process, not once per click of every student.
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
_WARNED: set[tuple[str, str]] = set()  # (variable, value) pairs already logged


def _warn_once(name: str, raw: str, why: str) -> None:
    """Log that $name=raw is ignored and why, the first time this process meets that value."""
    warn_once(name, raw, f"Ignoring {name}={raw!r}: {why}")


def warn_once(name: str, raw: str, line: str) -> None:
    """Log ``line`` about $name=raw, the first time this process meets that value."""
    if (name, raw) not in _WARNED:
        _WARNED.add((name, raw))
        _LOG.warning("%s", line)


def plain_number(value: float) -> str:
    """A number as a host writes it in a service file: '1000002', '0.001', never '1e+06'."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def env_number(
    name: str, default: float, minimum: float, uncappable: bool = False, maximum: float = math.inf
) -> float:
    """$name as a number: below ``minimum`` (or not one) ``default``, above ``maximum`` ``maximum``."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= minimum):
        lift = " (write inf for no cap)" if uncappable else ""
        why = f"it must be a number of at least {plain_number(minimum)}{lift}; using {plain_number(default)}."
        _warn_once(name, raw, why)
        return default
    if value > maximum:
        _warn_once(name, raw, f"it must be at most {plain_number(maximum)}; using {plain_number(maximum)}.")
        return maximum
    return value


def env_whole(name: str, default: int | None, minimum: int = 1) -> int | None:
    """$name as a whole number of at least ``minimum``, else ``default`` (None: the caller's policy)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not (raw.isdigit() and int(raw) >= minimum):
        using = "the default" if default is None else str(default)
        _warn_once(name, raw, f"it must be a whole number of at least {minimum}; using {using}.")
        return default
    return int(raw)


def env_uncapped(name: str) -> bool:
    """True when the host lifted the cap $name ('inf' or 'none')."""
    return os.environ.get(name, "").strip().lower() in UNCAPPED


def env_flag(name: str, default: bool) -> bool:
    """$name as a switch (1/true/yes/on or 0/false/no/off); missing or anything else: ``default``."""
    raw = os.environ.get(name, "").strip().lower()
    if raw and raw not in YES + NO:
        _warn_once(name, raw, f"write 1 or 0; using {int(default)}.")
    return True if raw in YES else False if raw in NO else default


def env_words(name: str) -> tuple[str, ...]:
    """$name as a list of words separated by commas, semicolons or spaces (e-mails, domains)."""
    return tuple(word for word in re.split(r"[\s,;]+", os.environ.get(name, "")) if word)


def seconds_field(seconds: float) -> int | float:
    """Seconds as a sentence's field: a whole number reads '20', not '20.0'."""
    return int(seconds) if float(seconds).is_integer() else seconds
