"""Sentences the core says to users, each known by a key so the app can say it in the user's language.

The core speaks English: the CLI, logs and tests read a :class:`Message` as the plain string it is.
It also carries its key and values, so ``linecnn.ui.i18n.say`` can show it from the app's catalogs
(area ``errors``, whose English entries are ``linecnn.sentences.ENGLISH``) in the session's language.
"""

from __future__ import annotations

import json

from linecnn.sentences import ENGLISH
from linecnn.untrusted import plain_text


def english_value(value: object) -> str:
    """A field's value as the English sentence writes it: 1,234 for integers, 1,234.5 for other numbers."""
    if isinstance(value, tuple):
        return ", ".join(english_value(item) for item in value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:,.1f}"


def recognise(text: str) -> str:
    """A stored English sentence of a key without fields as its Message; any other text as it is.

    Documents keep notes as plain strings (old ones as well), so a known sentence read back from one
    can still be said in the reader's language.
    """
    if isinstance(text, Message):
        return text
    key = _BY_ENGLISH.get(text)
    return text if key is None else Message(key)


class Message(str):
    """A sentence for the user: the English string itself, plus its key and values for translation."""

    key: str  # its key in ENGLISH and in the app's ``errors`` catalog
    values: dict[str, object]  # its fields: numbers, Messages (e.g. what a file is) or quoted text

    def __new__(cls, key: str, **values: object) -> Message:
        values = {name: _field(value) for name, value in values.items()}
        text = super().__new__(cls, ENGLISH[key].format(**{k: english_value(v) for k, v in values.items()}))
        text.key, text.values = key, values
        return text

    def __reduce__(self) -> tuple:
        """Copies and pickles rebuild the message from its key and values, not from its English."""
        return _rebuild, (self.key, self.values)


def _field(value: object) -> object:
    """A field as the sentence keeps it: numbers, sizes and messages as they are, tuples item by item,
    any other value quoted: it is text from outside (a file, a driver), so made printable and cut."""
    if isinstance(value, tuple):
        return tuple(_field(item) for item in value)
    if isinstance(value, Message | Size | Figure | int | float) and not isinstance(value, bool):
        return value
    return plain_text(value)


class Size(str):
    """Bytes as a sentence writes them in English ('35.2 GiB'), keeping the count for a page's own way."""

    byte_count: int  # the bytes (not "count": str.count is a method); linecnn.ui.i18n.say writes them

    def __new__(cls, byte_count: int) -> Size:
        english = f"{byte_count / 2**30:.1f} GiB" if byte_count >= 2**30 else f"{byte_count / 2**20:.0f} MiB"
        text = super().__new__(cls, english)
        text.byte_count = byte_count
        return text

    def __reduce__(self) -> tuple[type[Size], tuple[int]]:
        """Copies and pickles rebuild the size from its bytes."""
        return type(self), (self.byte_count,)


class Figure(str):
    """A number in Python's short form ('1e-06', '12.5', '9.22e+18'), keeping the number for the page's
    decimal mark: a value read from a file, or a bound, that the sentence shows as compactly as it can."""

    value: float  # the number itself
    spec: str  # its format spec, e.g. "g" or ".3g"

    def __new__(cls, value: float, spec: str = "g") -> Figure:
        text = super().__new__(cls, format(value, spec))
        text.value, text.spec = value, spec
        return text

    def __reduce__(self) -> tuple[type[Figure], tuple[float, str]]:
        """Copies and pickles rebuild the figure from its number and spec."""
        return type(self), (self.value, self.spec)


class Clause(Message):
    """A sentence said inside another one that ends it: the same words without its final period."""

    def __new__(cls, message: Message) -> Clause:
        text = str.__new__(cls, str(message).rstrip("."))
        text.key, text.values = message.key, message.values
        return text

    def __reduce__(self) -> tuple:
        """Copies and pickles rebuild the clause from its key and values."""
        return _rebuild_clause, (self.key, self.values)


def _rebuild_clause(key: str, values: dict[str, object]) -> Clause:
    return Clause(Message(key, **values))


def _rebuild(key: str, values: dict[str, object]) -> Message:
    return Message(key, **values)


def said(error: ValueError) -> str:
    """What an error says: its Message when it carries one (to say it in another sentence), else its text."""
    text = error.args[0] if len(error.args) == 1 else None
    return text if isinstance(text, Message) else str(error)


class UserError(ValueError):
    """A ValueError whose sentence is a :class:`Message`: English in ``str()``, translatable in the app."""

    def __init__(self, key: str, **values: object) -> None:
        self.message = Message(key, **values)
        super().__init__(self.message)


# English sentence -> key, for the keys whose sentence has no {fields} (see ``recognise``).
_BY_ENGLISH = {text: key for key, text in ENGLISH.items() if "{" not in text}


def json_place(error: json.JSONDecodeError, text: str | bytes) -> Message:
    """Where ``text`` stops being JSON, in the reader's language: its line and column, or that it is empty."""
    if not text.strip():
        return Message("json.empty")
    return Message("json.at", line=error.lineno, column=error.colno)
