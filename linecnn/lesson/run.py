"""Run a lesson snippet for real on a device, and capture what it printed or raised.

The code runs in a fresh namespace where the name ``device`` is bound to the device the reader
picked. ``print`` writes into the outcome, not to the server's stdout, so sessions running
snippets at once never mix their output; and it writes the numbers it is given the reader's way
(``number_text``: '0,6931' and '25.288' on a Spanish page), as the page writes its own.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeGuard

import torch

from linecnn.classroom.gpu_use import GPU_USE
from linecnn.device import cpu_threads
from linecnn.device_ops import synchronize


@dataclass(frozen=True)
class Outcome:
    """What one run of a snippet really did."""

    device: str  # where it ran, e.g. "cpu" or "cuda:0"
    output: str  # everything the code printed
    error: str | None  # "RuntimeError: ..." when the code raised, else None
    seconds: float  # wall time of the run, synchronised with the device


def run(code: str, device: torch.device | str, number_text: Callable[[float], str] = str) -> Outcome:
    """Execute ``code`` with ``device`` bound, capture what it prints, and return what happened.

    ``print`` writes each int or float it is given with ``number_text`` (Python's own ``str`` by
    default). An exception the code raises is part of the outcome (the lesson shows a real error on
    purpose), never raised to the caller.
    """
    device = torch.device(device)
    buffer = io.StringIO()

    def capture(*values: object, sep: str | None = " ", end: str | None = "\n", **_: object) -> None:
        written = (number_text(value) if _is_number(value) else value for value in values)
        print(*written, sep=sep, end=end, file=buffer)

    namespace = {"__name__": "__lesson__", "device": device, "print": capture}
    error = None
    start = time.perf_counter()
    with cpu_threads(device, None), GPU_USE.using(device):  # a benchmark's GPU cell sees it
        try:
            exec(compile(code, "<lesson>", "exec"), namespace)
            synchronize(device)
        except Exception as exc:  # the lesson's mistake raises on purpose; any other failure is shown too
            error = f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    return Outcome(device=str(device), output=buffer.getvalue(), error=error, seconds=seconds)


def _is_number(value: object) -> TypeGuard[int | float]:
    """An int or a float, not a bool (which prints as True or False)."""
    return isinstance(value, int | float) and not isinstance(value, bool)
