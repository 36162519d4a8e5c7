"""Who may use the machine while a benchmark times it: one benchmark per server in turn, CUDA cells alone.

The turns are a waiting line with one slot (``classroom.line``): benchmarks start in order of arrival,
and anyone can see who holds the turn and who waits how long. The holder beats its lease as it reports
progress; a holder silent past the host's bound (a thread stuck in a call that never returns) loses the
turn to the next benchmark, and its own next check raises Stopped (no progress) with a sentence saying so.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import torch

from linecnn.classroom.line import WaitingLine
from linecnn.classroom.settings import env_number
from linecnn.classroom.sharing import GPU_STATE

STALL_ENV = "LINECNN_BENCH_STALL_SECONDS"  # host setting: a benchmark silent this long loses its turn
STALL_SECONDS = 120.0  # its default: longer than any one epoch or set-up of a cell the caps allow
MIN_STALL_SECONDS = 1.0


def gpu_alone(device: torch.device) -> contextlib.AbstractContextManager:
    """Exclusive use of the GPUs for a CUDA cell; nothing to wait for on other devices."""
    return GPU_STATE.exclusive() if device.type == "cuda" else contextlib.nullcontext()


def bench_turns(
    stall_seconds: float | None = None, clock: Callable[[], float] = time.monotonic
) -> WaitingLine:
    """A line of benchmarks with one turn; one that leaves before its turn (a cancel) leaves at once,
    since no page rerun comes back for it."""
    return WaitingLine(1, stall_seconds, clock, rejoin_seconds=0.0, lost="bench_stalled")


# Shared by every session of a Streamlit server (module state is per process).
BENCH_TURNS = bench_turns(env_number(STALL_ENV, STALL_SECONDS, MIN_STALL_SECONDS))
