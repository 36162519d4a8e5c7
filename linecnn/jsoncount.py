"""How many values a JSON text can build, counted on its bytes before any of it is parsed.

Parsing costs memory per value, not per byte: a file of tiny objects (``{},{},…``) costs Python
about twenty times its size. Counting the characters that open a value first bounds that cost.
"""

from __future__ import annotations


def value_bound(text: bytes | str) -> int:
    """An upper bound on the values (and object keys) parsing ``text`` builds: its , [ { and one more."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    return 1 + data.count(b",") + data.count(b"[") + data.count(b"{")
