"""A value that came from outside (a file, a form, a driver, another machine) as visible, bounded text.

Such a value is quoted, never trusted to be short or printable: invisible characters (controls,
right-to-left marks, zero-width spaces, lone surrogates that no encoder accepts) are written as
their escapes, and a long value is cut with an ellipsis instead of being echoed whole.
"""

from __future__ import annotations

MAX_QUOTE = 200  # characters of an outside value quoted in one sentence
ELLIPSIS = "…"


def plain_text(value: object, limit: int = MAX_QUOTE) -> str:
    """``value`` as one line of printable text of at most ``limit`` characters (cut ones end in '…')."""
    text = str(value)
    head = text[: limit + 1]  # never walk a 7 MB string: only what can be shown is looked at
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in head)
    if len(shown) <= limit and len(head) == len(text):
        return shown
    return shown[: limit - 1] + ELLIPSIS
