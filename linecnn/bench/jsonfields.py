"""Reading untrusted JSON into typed values: bounded parsing, then one field at a time with its type checked.

Every refusal is a ``UserError`` whose sentence names the place in the file, e.g.
"result 3's median_ms is 'fast', not a number from 0 to 9.22e+18" (its keys: linecnn.sentences_json).
Values are echoed cut short.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Literal, TypeGuard, overload

from linecnn.errors import Figure, Message, UserError, json_place
from linecnn.untrusted import json_echo, value_bound

MAX_FILE_BYTES = 2_000_000  # a real sweep's JSON is tens of kB; decimal MB, as the browser counts
MAX_VALUES = 120_000  # values in one document: a result has ~70, so a 2 MB file holds ~100,000
MAX_DEPTH = 8  # nesting of objects and lists; a real document nests 6 deep (results, env, devices)
MAX_TEXT = 2_000  # characters in one string; statuses and notes stay well under
MAX_NUMBER = 2**63 - 1  # magnitude of any number: Arrow's int64, so every table column converts
MAX_DIGITS = len(str(MAX_NUMBER))  # longer integers are refused while parsing, before Python builds them


class _Refused(ValueError):
    """A value refused while a file is parsed (a number too long to be one linecnn wrote)."""


def _parse_int(text: str) -> int:
    """JSON's integers, refused past MAX_DIGITS digits before Python spends time building them."""
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _Refused(Message("json.digits", digits=digits, limit=MAX_DIGITS))
    return int(text)


def _parse_float(text: str) -> float:
    """JSON's decimals, refused when they overflow to infinity."""
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(Message("json.float", number=text[:20]))
    return value


def parse_json(text: str | bytes) -> object:
    """Parse a benchmark JSON of at most MAX_FILE_BYTES, nested at most MAX_DEPTH deep."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:
        raise UserError("bench_too_big", size=size / 1e6, limit=Figure(MAX_FILE_BYTES / 1e6))
    if value_bound(text) > MAX_VALUES:  # counted before parsing: tiny values cost far more than their bytes
        raise UserError("bench_unusable", problem=Message("json.values", limit=MAX_VALUES))
    try:
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float)
    except _Refused as refused:
        raise UserError("bench_unusable", problem=refused.args[0]) from None
    except RecursionError:
        raise UserError("bench_unusable", problem=Message("json.nested")) from None
    except json.JSONDecodeError as error:  # where, in the reader's language; the parser's words are English
        raise UserError("bench_not_json", detail=json_place(error, text)) from None
    except UnicodeDecodeError:
        raise UserError("bench_not_json", detail=Message("json.encoding")) from None
    problem = _size_problem(value)
    if problem is not None:
        raise UserError("bench_unusable", problem=problem)
    return value


def _size_problem(value: object) -> Message | None:
    """Too many values or too deep a nesting anywhere (fields never read included), or None.

    Iterative, so that no nesting can exhaust Python's stack, and holding one iterator per level of
    nesting: walking a long list costs no memory per item.
    """
    if not isinstance(value, dict | list):
        return None
    keys: list[object] = []  # where each level below the top was entered
    levels, seen = [_children(value)], 1
    while levels:
        pair = next(levels[-1], None)
        if pair is None:
            levels.pop()
            if keys:
                keys.pop()
            continue
        key, item = pair
        seen += 1
        if seen > MAX_VALUES:
            return Message("json.values", limit=MAX_VALUES)
        if isinstance(item, dict | list):
            if len(keys) + 1 >= MAX_DEPTH:
                return Message("json.deeper", limit=MAX_DEPTH, where=place((*keys, key)))
            keys.append(key)
            levels.append(_children(item))
    return None


def _children(item: dict | list) -> Iterator[tuple[object, object]]:
    """(key, value) of an object's fields or (index, value) of a list's items."""
    return iter(item.items()) if isinstance(item, dict) else enumerate(item)


def place(path: tuple) -> Message:
    """A place in a document for a sentence: "result 3", "result 3's config.images", "'env.devices'"."""
    if len(path) >= 2 and path[0] == "results" and isinstance(path[1], int):
        number, rest = str(path[1] + 1), ".".join(map(str, path[2:]))  # str: 'result 1500', never '1,500'
        if rest:
            return Message("place.result_field", number=number, field=rest)
        return Message("place.result", number=number)
    return Message("place.field", field=".".join(map(str, path))) if path else Message("place.file")


def echo(value: object) -> str:
    """A value from a file for a sentence, spelled as JSON spells it ("fast", true, null), cut short."""
    return json_echo(value)


def is_number(value: object) -> TypeGuard[int | float]:
    """An int or float that is not a bool (JSON's numbers)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


class Fields:
    """One JSON object of an untrusted document, read field by field with types checked."""

    def __init__(self, value: object, path: tuple = ()) -> None:
        if not isinstance(value, dict):
            raise UserError("json.not_object", where=place(path))
        self.values, self.path = value, path

    def _raw(self, key: str, required: bool) -> object:
        """The value under ``key``; a missing required key is refused."""
        if required and key not in self.values:
            raise UserError("json.lacks", where=place(self.path), name=key)
        return self.values.get(key)

    @overload
    def text(self, key: str, required: Literal[True]) -> str: ...
    @overload
    def text(self, key: str, required: bool = False) -> str | None: ...
    def text(self, key: str, required: bool = False) -> str | None:
        """A string of at most MAX_TEXT characters (None when optional and missing or null)."""
        value = self._raw(key, required)
        if value is None and not required:
            return None
        return check_text(value, (*self.path, key), empty=not required)

    @overload
    def number(self, key: str, required: Literal[True], low: float = 0.0) -> float: ...
    @overload
    def number(self, key: str, required: bool = False, low: float = 0.0) -> float | None: ...
    def number(self, key: str, required: bool = False, low: float = 0.0) -> float | None:
        """A finite number of at least ``low`` (None when optional and missing or null)."""
        value = self._raw(key, required)
        if value is None and not required:
            return None
        return check_number(value, (*self.path, key), low)

    @overload
    def whole(self, key: str, low: int = 0, *, required: Literal[True]) -> int: ...
    @overload
    def whole(self, key: str, low: int = 0, required: bool = False) -> int | None: ...
    def whole(self, key: str, low: int = 0, required: bool = False) -> int | None:
        """A whole number from ``low`` to MAX_NUMBER (None when optional and missing or null)."""
        value = self._raw(key, required)
        if value is None and not required:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_NUMBER:
            where = place((*self.path, key))
            raise UserError("json.not_whole", where=where, value=echo(value), low=low, high=MAX_NUMBER)
        return value

    def flag(self, key: str) -> bool:
        """True or false (false when missing)."""
        value = self._raw(key, False)
        if value is not None and not isinstance(value, bool):
            raise UserError("json.not_flag", where=place((*self.path, key)), value=echo(value))
        return bool(value)

    def texts(self, key: str) -> tuple[str, ...]:
        """A list of strings (empty when missing)."""
        value = self._raw(key, False) or []
        if not isinstance(value, list):
            raise UserError("json.not_texts", where=place((*self.path, key)))
        return tuple(check_text(item, (*self.path, key, n), empty=True) for n, item in enumerate(value))

    def numbers(self, key: str) -> tuple[float, ...]:
        """A list of finite numbers of at least 0 (empty when missing)."""
        value = self._raw(key, False) or []
        if not isinstance(value, list):
            raise UserError("json.not_numbers", where=place((*self.path, key)))
        return tuple(check_number(item, (*self.path, key, n), 0.0) for n, item in enumerate(value))

    def child(self, key: str, required: bool = False) -> Fields:
        """The object under ``key`` (an empty one when optional and missing or null)."""
        value = self._raw(key, required)
        return Fields({} if value is None else value, (*self.path, key))

    def children(self, key: str, required: bool = False) -> list[Fields]:
        """The list of objects under ``key`` (empty when optional and missing)."""
        value = self._raw(key, required)
        if value is None and not required:
            return []
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise UserError("json.not_objects", where=place((*self.path, key)))
        return [Fields(item, (*self.path, key, n)) for n, item in enumerate(value)]


def check_text(value: object, path: tuple, empty: bool = True) -> str:
    """``value`` if it is a string that can be stored and shown, else a ValueError naming ``path``."""
    if not isinstance(value, str) or not (empty or value):
        raise UserError("json.not_text", where=place(path), value=echo(value))
    if len(value) > MAX_TEXT:
        raise UserError("json.long_text", where=place(path), count=len(value), limit=MAX_TEXT)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise UserError("json.surrogate", where=place(path)) from None
    return value


def check_number(value: object, path: tuple, low: float) -> float:
    """``value`` as a float if it is a finite number from ``low`` to MAX_NUMBER, else a ValueError."""
    if is_number(value) and not math.isfinite(value):
        raise UserError("json.not_finite", where=place(path), value=repr(value))
    if not is_number(value) or not low <= value <= MAX_NUMBER:
        where, high = place(path), Figure(MAX_NUMBER, ".3g")
        raise UserError("json.not_number", where=where, value=echo(value), low=Figure(low), high=high)
    return float(value)
