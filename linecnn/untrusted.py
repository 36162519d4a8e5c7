"""What came from outside (a file, a form, a driver, another machine), before it is trusted.

A value is quoted as visible, bounded text: invisible characters (controls, right-to-left marks,
zero-width spaces, lone surrogates that no encoder accepts) are written as their escapes, and a long
value is cut with an ellipsis instead of being echoed whole. A JSON text has its values counted on
its bytes before it is parsed: parsing costs memory per value, not per byte, and a file of tiny
objects (``{},{},…``) costs Python about twenty times its size.
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


def value_bound(text: bytes | str) -> int:
    """An upper bound on the values (and object keys) parsing ``text`` builds: its , [ { and one more."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    return 1 + data.count(b",") + data.count(b"[") + data.count(b"{")
