"""What a stored run timed, in the few numbers its name in a list needs: a sweep's range, a cell's size.

The history lists hundreds of runs on every rerun of the page, and a run's document can be two
megabytes: these numbers are kept beside it (a short JSON text in its row), read without parsing it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TypeGuard

from linecnn.bench.document import BenchDocument
from linecnn.bench.jsonfields import is_number

MAX_TEXT = 200  # characters of a stored span read back; a longer one is not ours


@dataclass(frozen=True)
class Span:
    """The swept values a run's timed cells cover; a single cell's is its images, low and high alike."""

    low: float  # the smallest value of the run's factor among its timed cells (images, batch, width, layers)
    high: float  # the largest
    batch: int | None = None  # images per step when every timed cell has the same; None when they differ

    @classmethod
    def of(cls, document: BenchDocument) -> Span:
        """The span of the cells ``document`` timed; of all its cells when none got timings."""
        timed = [result for result in document.results if result.ok] or list(document.results)
        xs = [document.x(result) for result in timed]
        batches = {result.config.step_size for result in timed}
        return cls(min(xs), max(xs), batches.pop() if len(batches) == 1 else None)

    def to_text(self) -> str:
        """The JSON text kept in the history's row: '{"batch": 360, "high": 360, "low": 360}'."""
        values = {"low": _plain(self.low), "high": _plain(self.high), "batch": self.batch}
        return json.dumps(values, sort_keys=True)

    @classmethod
    def read(cls, text: str) -> Span | None:
        """The span a row keeps; None for '' (not known) or anything that is not a span's text."""
        try:
            values = json.loads(text) if 0 < len(text) <= MAX_TEXT else None
        except ValueError:
            return None
        if not isinstance(values, dict):
            return None
        low, high, batch = values.get("low"), values.get("high"), values.get("batch")
        if not (_positive(low) and _positive(high)) or low > high:
            return None
        return cls(float(low), float(high), batch if _positive(batch) and isinstance(batch, int) else None)


def _plain(value: float) -> float | int:
    """A whole number as an int, so that the stored text says 360, not 360.0."""
    return int(value) if float(value).is_integer() else value


def _positive(value: object) -> TypeGuard[int | float]:
    """True for a finite number above zero (not a bool)."""
    return is_number(value) and math.isfinite(value) and value > 0
