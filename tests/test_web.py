"""The page scripts' files: each has a header that parses, each is used, and none is left in Python."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from linecnn.ui.builtin_texts import RULES
from linecnn.ui.web import asset, fill, header, names
from tests.helpers import ROOT

# What JavaScript, CSS or page markup looks like inside a Python string. Plotly's own markup in
# chart labels (<br>, <b>, <extra>) is not a page's; the <style> that wraps layout.css is no CSS.
LOOKS_LIKE_WEB = re.compile(
    r"export default|querySelector|addEventListener|=>|\bconst |\bfunction\s*\("
    r"|<(?:div|span|p|pre|h\d|button|svg|path|script|html|head|body|title|meta|canvas)\b"
    r"|[\w\]\)\"'-]\s*\{[^{}]*:[^{}]*;"
)


def python_strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string constant in the Python file ``path`` but its docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, documented) and node.body and isinstance(node.body[0], ast.Expr)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_every_header_parses_and_names_where_it_is_used():
    """A malformed header would hide a reliance from the browser test: each one parses."""
    for name in names():
        assert header(name) is not None
        assert asset(name).strip(), f"{name} is empty after its header"


def test_a_header_line_of_an_unknown_kind_is_refused(tmp_path, monkeypatch):
    """A typo in a header (a kind, a page) fails with the file and the line, not silently."""
    from linecnn.ui import web

    typos = (
        ("relies-on: selecter .x", "kind"),
        ("relies-on: selector .x ; pages: Trian", "Trian"),
        ("relies-on: selector .x ; after: dancing", "dancing"),
    )
    for line, words in typos:
        monkeypatch.setattr(web, "_raw", lambda name, line=line: f"/*\n * pages: Draw\n * {line}\n */\nx")
        with pytest.raises(ValueError, match=words):
            web.header("broken.js")


def test_every_file_is_used_and_every_use_has_a_file():
    """No file in linecnn/ui/web lies unused, and every asset("...") a module asks for exists."""
    source = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "linecnn").rglob("*.py"))
    asked = set(re.findall(r"\b(?:asset|fill)\(\s*[\"']([\w.-]+)[\"']", source))
    assert asked == set(names())


def test_a_placeholder_is_filled_as_a_json_value_or_refused():
    """fill() writes a value as JSON, so quotes in it cannot end the script's string; a wrong name fails."""
    script = fill("cell-grid.js", clear_html='<b title="x">"</b>')
    assert '"<b title=\\"x\\">\\"</b>"' in script and "{{" not in script
    with pytest.raises(ValueError, match="clear_html"):
        fill("cell-grid.js", other="x")


def test_the_translator_header_lists_every_english_text_it_rewrites():
    """builtin-texts.js names, in order, the English texts of builtin_texts.RULES, for the browser test."""
    listed = [reliance.value for reliance in header("builtin-texts.js").relies_on if reliance.kind == "text"]
    assert listed == [pattern for _, pattern, _ in RULES]


def test_no_javascript_css_or_markup_is_left_in_python_strings():
    """The pages' scripts, styles and markup live in linecnn/ui/web, where their headers are checked."""
    files = [*(ROOT / "linecnn").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]
    files.remove(ROOT / "linecnn" / "ui" / "web" / "__init__.py")  # the header's grammar, not a page's
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text[:60]!r}"
        for path in files
        for line, text in python_strings(path)
        if LOOKS_LIKE_WEB.search(text)
    ]
    assert not found, "\n".join(found)
