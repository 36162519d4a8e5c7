"""What came from outside (a file, a form, a driver, another machine), before it is trusted.

A value is quoted as visible, bounded text: invisible characters (controls, right-to-left marks,
zero-width spaces, lone surrogates that no encoder accepts) are written as their escapes, and a long
value is cut with an ellipsis instead of being echoed whole. A JSON text has its values counted on
its bytes before it is parsed: parsing costs memory per value, not per byte, and a file of tiny
objects (``{},{},…``) costs Python about twenty times its size.
"""

from __future__ import annotations

import json

MAX_QUOTE = 200  # characters of an outside value quoted in one sentence
MAX_ECHO = 60  # characters of a value from a file echoed in a sentence about it
MAX_ECHO_BITS = 200  # a longer integer is echoed by its first digits (Python will not print huge ones)
ELLIPSIS = "…"


def plain_text(value: object, limit: int = MAX_QUOTE) -> str:
    """``value`` as one line of printable text of at most ``limit`` characters (cut ones end in '…')."""
    text = str(value)
    head = text[: limit + 1]  # never walk a 7 MB string: only what can be shown is looked at
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in head)
    if len(shown) <= limit and len(head) == len(text):
        return shown
    return shown[: limit - 1] + ELLIPSIS


def json_echo(value: object, limit: int = MAX_ECHO) -> str:
    """A value read from a JSON file as the file spells it ("360" in quotes, true, null), cut to ``limit``.

    A reader fixes the file, so the value is echoed in the file's own notation: a string keeps its
    quotes (so "1" is not mistaken for the number 1) and a boolean reads true, not Python's True.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_ECHO_BITS:
        digits = int(value.bit_length() * 0.30103)  # log10(2): about its count of digits, never more
        head = abs(value) // 10 ** (digits - 12)  # its first dozen digits, without printing all of them
        return ("-" if value < 0 else "") + f"{head}{ELLIPSIS}"
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return plain_text(text, limit)


def value_bound(text: bytes | str) -> int:
    """An upper bound on the values (and object keys) parsing ``text`` builds: its , [ { and one more."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    return 1 + data.count(b",") + data.count(b"[") + data.count(b"{")
