"""The range of each number box, checked and explained by the page itself, in the reader's language.

A widget's own ``min_value``/``max_value`` check answers in Streamlit's English only, and a box
it refuses still shows the refused number while the app keeps the previous one, so Start would run
a value the reader no longer sees. The boxes (``linecnn.ui.number_boxes``) take any number; the page
checks it against its Bounds, says what is wrong next to the form and refuses to start until it is fixed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from linecnn.ui.i18n import number, t


@dataclass(frozen=True)
class Bounds:
    """The numbers one box accepts."""

    low: float  # the smallest value allowed
    high: float  # the largest value allowed
    digits: int = 0  # decimals the message writes the bounds with; 0 for counts

    def __post_init__(self) -> None:
        if not self.low <= self.high:
            raise ValueError(f"Bounds need low <= high, got {self.low} and {self.high}.")

    def problem(self, label: str, value: float | None) -> str | None:
        """A sentence saying what is wrong with ``value`` in the box named ``label``; None when it fits."""
        if value is not None and self.low <= value <= self.high:
            return None  # before any wording: Start checks every box, and formatting a number takes time
        fields = {
            "label": label,
            "low": number(self.low, self.digits),
            "high": number(self.high, self.digits),
        }
        if value is None:
            return t("common.range_empty", **fields)
        return t("common.out_of_range", value=number(value, self.digits), **fields)


def problems(checks: Iterable[tuple[str, float | None, Bounds]]) -> list[str]:
    """The sentences for every (label, value, bounds) whose value does not fit, in order."""
    found = (bounds.problem(label, value) for label, value, bounds in checks)
    return [sentence for sentence in found if sentence is not None]


def problems_text(found: list[str]) -> str:
    """Several problems as one Markdown message, one per line."""
    return "\n\n".join(found)
