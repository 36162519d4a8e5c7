"""The scripts, styles and markup the pages hand to the browser, one file each, and their headers.

Each file opens with a header comment (``/* ... */``; ``<!-- ... -->`` in .html and .svg) that
names what it relies on in Streamlit's page and in the drawing canvas, one ``key: value`` a line
(a leading ``*`` is ignored)::

    about: what the file does, in words (any number of these lines)
    pages: Train Benchmark             where the file is used (Home Train Benchmark Draw Lesson), or none
    relies-on: <kind> <value> [; pages: <pages>] [; after: <action>] [; needs: <state, in words>]

Kinds: ``selector`` (a CSS selector that must match an element, shadow roots included), ``text``
(a JavaScript regular expression that an English text Streamlit or the canvas writes must match:
a text node or a title, aria-label or data-title attribute), ``variable`` (a CSS custom property
Streamlit sets on a component's element, e.g. ``--st-primary-color``). Each must be found on every
page the line names: the file's pages, or those of its own ``pages:``. ``after:`` names one of
ACTIONS, which the browser test that checks the headers (tests/test_pages_browser.py) performs on
the page before it looks; ``needs:`` names a state no page shows on its own (an upload refused, a
server gone), and the test leaves such a line unchecked.
:func:`asset` returns a file without its header (nor its last line break).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

PAGES = ("Home", "Train", "Benchmark", "Draw", "Lesson")  # the app's pages, as headers name them
KINDS = ("selector", "text", "variable")  # what a relies-on line may name
# What ``after:`` may name: typing in the page's first text box, opening its first multiselect's
# dropdown, collapsing the sidebar.
ACTIONS = ("typing", "dropdown", "collapsed-sidebar")
_HEADER = re.compile(r"\A\s*(?:/\*(?P<css>.*?)\*/|<!--(?P<html>.*?)-->)\s*", re.DOTALL)
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")  # {{name}} in a script: a value filled in from Python


@dataclass(frozen=True)
class Reliance:
    """One thing a file relies on: a selector, an English text or a theme variable, and where to find it."""

    file: str  # the file's name in linecnn/ui/web
    kind: str  # one of KINDS
    value: str  # the selector, or the text's regular expression (JavaScript syntax)
    pages: tuple[str, ...]  # it must be found on each of these pages
    after: str | None = None  # an action of ACTIONS performed on the page before looking, or None
    needs: str | None = None  # a state no page shows by itself (not checked), or None


@dataclass(frozen=True)
class Header:
    """A file's header: the pages that use it and what it relies on."""

    pages: tuple[str, ...]  # the pages whose scripts mount the file (empty: none of the app's pages)
    relies_on: tuple[Reliance, ...]  # in the order the header lists them


def _raw(name: str) -> str:
    """The whole text of the file ``name`` in this package."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def names() -> list[str]:
    """Every file of this package but its Python modules, sorted."""
    found = [entry for entry in resources.files(__name__).iterdir() if entry.is_file()]
    return sorted(entry.name for entry in found if not entry.name.endswith((".py", ".pyc")))


@cache
def asset(name: str) -> str:
    """The file ``name`` (e.g. 'layout.css') as the browser gets it: its text after the header comment."""
    text = _raw(name)
    match = _HEADER.match(text)
    if match is None:
        raise ValueError(f"{name} does not open with its header comment (see linecnn.ui.web)")
    return text[match.end() :].rstrip("\n")


def fill(name: str, **values: object) -> str:
    """The script ``name`` with each ``{{key}}`` replaced by ``values[key]`` as a JSON (JavaScript) value.

    Every placeholder must be given and every value used, so a renamed one fails at once.
    """
    text = asset(name)
    wanted = set(_PLACEHOLDER.findall(text))
    if wanted != set(values):
        raise ValueError(f"{name} has placeholders {sorted(wanted)}, given {sorted(values)}")
    return _PLACEHOLDER.sub(lambda match: json.dumps(values[match.group(1)]), text)


def _pages(value: str, where: str) -> tuple[str, ...]:
    """The page names in ``value`` ('none' for none), checked against PAGES."""
    pages = tuple(value.split())
    if pages == ("none",):
        return ()
    unknown = [page for page in pages if page not in PAGES]
    if unknown or not pages:
        raise ValueError(f"{where}: unknown pages {unknown or value!r}; pages are {' '.join(PAGES)} or none")
    return pages


def header(name: str) -> Header:
    """The parsed header of the file ``name``; raises ValueError naming the file and line when malformed."""
    match = _HEADER.match(_raw(name))
    if match is None:
        raise ValueError(f"{name} does not open with its header comment (see linecnn.ui.web)")
    comment = match.group("css") or match.group("html")
    lines = [line.strip().lstrip("*").strip() for line in comment.splitlines()]
    pages: tuple[str, ...] | None = None
    found: list[Reliance] = []
    for line in filter(None, lines):
        key, _, value = line.partition(":")
        value = value.strip()
        if key == "pages":
            pages = _pages(value, f"{name}: {line}")
        elif key == "relies-on":
            found.append(_reliance(name, value, pages))
        elif key != "about":
            raise ValueError(f"{name}: header line {line!r} is not 'about:', 'pages:' or 'relies-on:'")
    if pages is None:
        raise ValueError(f"{name}: the header names no 'pages:' line (before its relies-on lines)")
    return Header(pages, tuple(found))


def _reliance(name: str, entry: str, pages: tuple[str, ...] | None) -> Reliance:
    """One relies-on line's entry, ``<kind> <value> [; key: value]...``."""
    where = f"{name}: relies-on: {entry}"
    if pages is None:
        raise ValueError(f"{where}: the 'pages:' line must come before the relies-on lines")
    first, *options = [part.strip() for part in entry.split(" ; ")]
    kind, _, value = first.partition(" ")
    if kind not in KINDS or not value.strip():
        raise ValueError(f"{where}: a relies-on line is '<kind> <value>', kind one of {', '.join(KINDS)}")
    fields: dict[str, str] = {}
    for option in options:
        key, _, text = option.partition(":")
        if key not in ("pages", "after", "needs") or not text.strip():
            raise ValueError(f"{where}: {option!r} is not 'pages: ...', 'after: ...' or 'needs: ...'")
        fields[key] = text.strip()
    after = fields.get("after")
    if after is not None and after not in ACTIONS:
        raise ValueError(f"{where}: 'after: {after}' is none of {', '.join(ACTIONS)}")
    own = _pages(fields["pages"], where) if "pages" in fields else pages
    if not own and "needs" not in fields:
        raise ValueError(f"{where}: no page to look on; name one, or the state it needs")
    return Reliance(name, kind, value.strip(), own, after, fields.get("needs"))
