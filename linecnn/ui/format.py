"""Small formatting helpers for numbers and outside text shown on screen. Pure, no Streamlit."""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from babel.numbers import format_decimal, format_scientific

from linecnn.device import DeviceInfo, describe, device_key, list_devices
from linecnn.untrusted import MAX_QUOTE, plain_text

if TYPE_CHECKING:
    import torch

_ALL_DIGITS = "0." + "#" * 20  # every digit of a float's shortest form, down to 1e-20


def _decimal(value: float, digits: int, locale: str) -> str:
    """``value`` with ``digits`` decimals and the separators of ``locale`` ('en': 1,234.5; 'es': 1.234,5)."""
    return format_decimal(value, format="#,##0" + ("." + "0" * digits if digits else ""), locale=locale)


def decimal_text(value: float, locale: str) -> str:
    """``value`` with the digits Python would print and the decimal mark of ``locale``: '0,01', '0.0005'.

    No thousands separator: a text box reads this back (``linecnn.ui.number_boxes``)."""
    if not math.isfinite(value):
        return str(value)
    try:
        return format_decimal(Decimal(repr(value)), format=_ALL_DIGITS, locale=locale)
    except InvalidOperation:  # past Decimal's 28 digits ('1e9' typed): '1E9', which reads back too
        return format_scientific(Decimal(repr(value)), format=_ALL_DIGITS + "E0", locale=locale)


def format_bytes(count: int | None, locale: str = "en") -> str:
    """Bytes as a short human string, e.g. '24.0 GiB' ('24,0 GiB' for locale 'es'); 'unknown' for None."""
    if count is None:
        return "unknown"
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{_decimal(value, 0 if unit == 'B' else 1, locale)} {unit}"
        value /= 1024
    return f"{_decimal(value, 1, locale)} TiB"


def format_seconds(seconds: float, locale: str = "en") -> str:
    """Seconds as '0.4 ms', '850 ms', '12.3 s' or '4 min 05 s' (the units read the same in Spanish: '12,3 s').

    Under 10 ms a tenth is kept, so a Lesson snippet of 0.4 ms never reads 'in 0 ms'. Each unit
    ends where rounding would write the next one's first value ('1000 ms', '60.0 s')."""
    if seconds < 0.00995:
        return f"{_decimal(seconds * 1000, 1, locale)} ms"
    if seconds < 0.9995:
        return f"{_decimal(seconds * 1000, 0, locale)} ms"
    if seconds < 59.95:
        return f"{_decimal(seconds, 1, locale)} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{_decimal(minutes, 0, locale)} min {rest:02d} s"


# Characters that start markdown, HTML, LaTeX ($) or Streamlit's :color[...] and :icon: directives.
_MARKDOWN_SPECIALS = frozenset("\\`*_{}[]()<>#+-.!|~$:&")


# Where markdown would still act on plain text after its escapes are resolved: GitHub-flavoured
# autolinks (scheme://, www., user@host.domain) and Streamlit's :material/icon: and :emoji: codes. A
# word joiner (U+2060, invisible, but copied with the text) is put in their way, and only there: a
# time (10:06), a path (C:\\tmp) or an ordinary colon is copied exactly as it reads.
_EMOJI_OPENING_WITH_A_DIGIT = r"100|1234|[123](?:st|nd|rd)_place_medal|8ball"
_AUTOLINKS = re.compile(
    r"(?<=:)(?=//)"  # https://
    rf"|(?<=:)(?=(?:[a-z_+-][\w+-]*|{_EMOJI_OPENING_WITH_A_DIGIT}|material/[\w-]+):)"  # :smile:, :material/x:
    r"|(?<=www)(?=\.)"  # www.example.org
    r"|(?<=[\w.+-])(?=@[\w-]+\.)",  # user@example.org
    re.IGNORECASE,
)


def escape_markdown(text: object, limit: int = MAX_QUOTE) -> str:
    """``text`` as literal characters in Streamlit markdown: no links, images, HTML, LaTeX, icons or headings.

    For anything taken from a file, a form or another machine: newlines become spaces so a value
    stays one line, invisible characters are shown as escapes, and it is cut to ``limit`` characters.
    """
    head = str(text)[: limit + 1]
    flat = plain_text(" ".join(head.splitlines()) + ("x" if len(head) > limit else ""), limit)
    flat = _AUTOLINKS.sub("\u2060", flat)
    return "".join("\\" + c if c in _MARKDOWN_SPECIALS else c for c in flat)


def version_code(version: object) -> str:
    """A version string ('2.14.1+cu130', '13.0', '91002') as Markdown inline code.

    A version is a name, read the same in every language: marked as code, it is never taken for a
    number to write the page's way ('13.0' stays '13.0' on a Spanish page). For this machine's own
    versions; text from a file goes through ``escape_markdown`` instead.
    """
    text = plain_text(" ".join(str(version).split()), MAX_QUOTE)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def device_label(info: DeviceInfo) -> str:
    """A device's label, 'CUDA:0 · NVIDIA H200', with the name its driver reported escaped."""
    return f"{info.key.upper()} · {escape_markdown(info.name)}"


def device_short(device: torch.device | str) -> str:
    """A device's short name for tight places (pickers, legends, titles): 'CPU', 'CUDA:0'.

    The same key the sidebar's labels start with; the full name goes where a sentence has room. An
    imported file may name a device this PyTorch does not know ('npu:1'): it is written 'NPU:1'.
    Callers that put it in Markdown or a chart escape it there."""
    try:
        return device_key(device).upper()
    except RuntimeError:  # torch.device refuses a name it does not know
        return str(device).upper()


def device_text(device: torch.device | str) -> str:
    """A device as the pages name it (``linecnn.device.describe``), the name its driver reported escaped."""
    label = describe(device)
    info = next((info for info in list_devices() if info.label == label), None)
    return device_label(info) if info is not None else escape_markdown(label)
