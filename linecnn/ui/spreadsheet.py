"""CSV downloads the reader's spreadsheet opens as it should, in the reader's language.

The core writes CSV the English way: commas between fields, a point before decimals, column names
as its keys. A Spanish spreadsheet reads that point as a thousands mark and the commas as decimal
marks, so for Spanish the file is rewritten: semicolons between fields, a decimal comma in every
number, column names from the catalog, the page's words for a run's settings ('lesson' is 'Líneas
de la lección', as on the Train page), and a byte-order mark so that spreadsheets read the accents
as UTF-8. English files stay exactly as the core writes them.
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


def for_language(
    data: bytes | str,
    header: Callable[[str], str],
    language: str,
    word: Callable[[str, str], str] = lambda key, cell: cell,
) -> bytes:
    """The core's English CSV ``data`` as ``language`` writes it; ``header`` names a column key, and
    ``word`` gives a cell that is not a number (column key, value) the language's word for it."""
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
        writer.writerow([_cell(key, cell, mark, word) for key, cell in zip(rows[0], row, strict=True)])
    return (BOM + buffer.getvalue()).encode()


def _cell(key: str, cell: str, mark: str, word: Callable[[str, str], str]) -> str:
    """A number with the language's decimal ``mark``; any other cell in the language's ``word``."""
    return cell.replace(".", mark) if _NUMBER.fullmatch(cell) else word(key, cell)


def runs_csv(runs: Sequence[RunLike], language: str) -> bytes:
    """The runs' epochs as CSV (``history_csv``) in ``language``: its column names, and its words for the
    data mode and a whole-set batch, as the Train page shows them ('Líneas de la lección', 'completo')."""

    def word(key: str, cell: str) -> str:
        if key == "data_mode":
            return translate(language, f"train.mode.{cell}")
        return translate(language, "train.batch_full") if key == "batch_size" and cell == "full" else cell

    def header(key: str) -> str:
        return translate(language, f"restore.csv.{key}")

    return for_language(history_csv(runs), header, language, word)
