"""CSV downloads the reader's spreadsheet opens as it should, in the reader's language.

The core writes CSV the English way: commas between fields, a point before decimals, column names
as its keys. A Spanish spreadsheet reads that point as a thousands mark and the commas as decimal
marks, so for Spanish the file is rewritten: semicolons between fields, a decimal comma in every
number, column names from the catalog, and a byte-order mark so that spreadsheets read the
accents as UTF-8. English files stay exactly as the core writes them.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Sequence

from babel.numbers import get_decimal_symbol

from linecnn.checkpoint.checks import RunLike
from linecnn.checkpoint.history import history_csv
from linecnn.ui.i18n import translate

_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")  # a number as Python and pandas write it
BOM = "\ufeff"  # marks the file as UTF-8 for spreadsheets that would otherwise guess


def separators(language: str) -> tuple[str, str]:
    """(field separator, decimal mark) a spreadsheet in ``language`` expects: (',', '.') or (';', ',')."""
    mark = get_decimal_symbol(language)
    return ("," if mark == "." else ";"), mark


def for_language(data: bytes | str, header: Callable[[str], str], language: str) -> bytes:
    """The core's English CSV ``data`` as ``language`` writes it; ``header`` names a column key."""
    text = data.decode() if isinstance(data, bytes) else data
    if language == "en":
        return text.encode()
    delimiter, mark = separators(language)
    rows = list(csv.reader(io.StringIO(text)))
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    if rows:
        writer.writerow([header(key) for key in rows[0]])
    for row in rows[1:]:
        writer.writerow([cell.replace(".", mark) if _NUMBER.fullmatch(cell) else cell for cell in row])
    return (BOM + buffer.getvalue()).encode()


def runs_csv(runs: Sequence[RunLike], language: str) -> bytes:
    """The runs' epochs as CSV (``history_csv``) in ``language``, with its column names."""
    return for_language(history_csv(runs), lambda key: translate(language, f"restore.csv.{key}"), language)
