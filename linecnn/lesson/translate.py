"""A snippet's words in another language: its comments and printed texts; the code stays the same.

The code of a snippet is written once, in English; these functions swap its comments and the
string literals it prints for their entries in ``linecnn.lesson.comments``, and ``code_tokens``
gives what two translations of one snippet must share.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Mapping


def translate_comments(code: str, comments: Mapping[str, str]) -> str:
    """``code`` with each comment replaced by its entry in ``comments`` (kept when it has none)."""
    lines = code.splitlines(keepends=True)
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            english = token.string.removeprefix("#").strip()
            (row, start), (_, end) = token.start, token.end
            line = lines[row - 1]
            lines[row - 1] = f"{line[:start]}# {comments.get(english, english)}{line[end:]}"
    return "".join(lines)


def translate_prints(code: str, texts: Mapping[str, str]) -> str:
    """``code`` with each string literal keyed in ``texts`` (quotes included) replaced by its entry."""
    for english, translated in texts.items():
        code = code.replace(english, translated)
    return code


def code_tokens(code: str) -> list[tuple[int, str]]:
    """The code's tokens without its comments and string texts: equal for two translations of one snippet."""
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return [
        (token.type, "" if token.type == tokenize.STRING else token.string)
        for token in tokens
        if token.type not in skip
    ]
