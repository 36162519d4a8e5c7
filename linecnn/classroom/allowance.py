"""A fair share of the benchmark for each session: seconds it may hold the benchmark within a sliding window.

Benchmarks run one at a time per server (``linecnn.classroom.bench_turns``), so a long sweep makes everyone
else wait. With a per-session allowance, one student's sweeps cannot hold a class for long: past
its share, a session waits until its earlier runs leave the window. Nothing here imports Streamlit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from linecnn.classroom.settings import env_number, env_uncapped, plain_number, warn_once

SESSION_SECONDS_ENV = "LINECNN_BENCH_SESSION_SECONDS"  # host setting: seconds per session and window
WINDOW_SECONDS_ENV = "LINECNN_BENCH_WINDOW_SECONDS"  # host setting: the window's length in seconds
DEFAULT_SESSION_SECONDS = 600.0  # two of the default 300 s sweeps per session ...
DEFAULT_WINDOW_SECONDS = 3600.0  # ... per hour: 30 students still get a turn within a lesson
MIN_RUN_SECONDS = 5.0  # with less left than this a run would time nothing: it is refused instead
KEEP_SECONDS = 86_400.0  # spans that ended longer ago than this are forgotten (no window is that long)


@dataclass(frozen=True)
class Allowance:
    """How much benchmark time one session may use."""

    seconds: float | None = DEFAULT_SESSION_SECONDS  # seconds within the window; None = no cap
    window: float = DEFAULT_WINDOW_SECONDS  # the sliding window's length in seconds (at most KEEP_SECONDS)

    def __post_init__(self) -> None:
        if self.seconds is not None and not self.seconds >= MIN_RUN_SECONDS:
            raise ValueError(f"A session's benchmark allowance must be at least {MIN_RUN_SECONDS:g} s.")
        if not 0 < self.window <= KEEP_SECONDS:
            raise ValueError(f"The allowance's window must be from 0 to {KEEP_SECONDS:g} s long.")

    @classmethod
    def from_env(cls) -> Allowance:
        """The host's settings ("inf" or "none" lifts the cap); a bad value falls back, with a log line."""
        seconds = (
            None
            if env_uncapped(SESSION_SECONDS_ENV)
            else env_number(SESSION_SECONDS_ENV, DEFAULT_SESSION_SECONDS, MIN_RUN_SECONDS, uncappable=True)
        )
        window = env_number(WINDOW_SECONDS_ENV, DEFAULT_WINDOW_SECONDS, minimum=1.0, maximum=KEEP_SECONDS)
        if seconds is not None and seconds >= window:
            _say_no_share(seconds, window)
        return cls(seconds, window)


def _say_no_share(seconds: float, window: float) -> None:
    """Log, once, that a share as long as its window never stops a session: a host meant a cap."""
    share, span = plain_number(seconds), plain_number(window)
    warn_once(
        SESSION_SECONDS_ENV,
        f"{share} within {span}",
        f"{SESSION_SECONDS_ENV}={share} is not less than {WINDOW_SECONDS_ENV}={span}: no session can hold "
        "the benchmark for longer than the window within it, so in effect there is no per-session share "
        "(as with inf; each run still stops at its time cap). Set it below the window for a share.",
    )


class Ledger:
    """The benchmark time each session held, as (start, end) spans; safe to use from several threads."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._spans: dict[str, list[tuple[float, float]]] = {}

    def record(self, who: str, seconds: float) -> None:
        """``who`` held the benchmark for ``seconds``, until now."""
        now = self.clock()
        with self._lock:
            spans = [span for span in self._spans.get(who, []) if span[1] > now - KEEP_SECONDS]
            self._spans[who] = [*spans, (now - seconds, now)]

    def used(self, who: str, window: float, at: float | None = None) -> float:
        """Seconds ``who`` held the benchmark within the window that ends at ``at`` (now by default)."""
        end = self.clock() if at is None else at
        with self._lock:
            spans = list(self._spans.get(who, ()))
        return sum(max(0.0, stop - max(start, end - window)) for start, stop in spans)

    def left(self, who: str, allowance: Allowance) -> float | None:
        """Seconds ``who`` may still use now; None when there is no cap."""
        if allowance.seconds is None:
            return None
        return max(0.0, allowance.seconds - self.used(who, allowance.window))

    def ready_in(self, who: str, allowance: Allowance) -> float:
        """Seconds until ``who`` has MIN_RUN_SECONDS left again (0 when it has them now)."""
        if allowance.seconds is None:
            return 0.0
        now, need = self.clock(), allowance.seconds - MIN_RUN_SECONDS
        if self.used(who, allowance.window, now) <= need:
            return 0.0
        low, high = 0.0, allowance.window  # used() only falls as the window slides: bisect
        for _ in range(40):
            middle = (low + high) / 2
            fits = self.used(who, allowance.window, now + middle) <= need
            low, high = (low, middle) if fits else (middle, high)
        return high


LEDGER = Ledger()  # one per process: every session of a Streamlit server shares it
