"""CSV downloads in the reader's language: English with commas and points, Spanish with ; and commas."""

from __future__ import annotations

import csv
import io
from dataclasses import replace

import pandas as pd
import pytest

from linecnn.checkpoint.history import history_csv
from linecnn.ui import i18n
from linecnn.ui.spreadsheet import for_language, runs_csv
from tests.test_checkpoint import run  # noqa: F401  (the module-scoped fixture: a short real run)


def spanish_rows(data: bytes) -> list[dict[str, str]]:
    """A Spanish CSV read as a Spanish spreadsheet reads it: UTF-8 with its mark, fields split at ';'."""
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig")), delimiter=";"))


def test_english_csv_is_the_cores_with_commas_and_decimal_points(run):  # noqa: F811
    """English: the core's file unchanged, its keys as headers, read with ',' and '.'."""
    data = runs_csv([run], "en")
    assert data == history_csv([run])
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert float(rows[0]["val_acc"]) == run.history[0].val_acc and rows[0]["lr"] == "0.02"


def test_spanish_csv_has_semicolons_decimal_commas_and_spanish_headers(run):  # noqa: F811
    """Spanish: ';' between fields, a decimal comma in every number, column names in Spanish."""
    rows = spanish_rows(runs_csv([run], "es"))
    assert len(rows) == len(run.history)
    first = rows[0]
    assert first["tasa de aprendizaje"] == "0,02" and first["época"] == "1"
    assert float(first["exactitud de validación"].replace(",", ".")) == run.history[0].val_acc
    numbers = [cell for row in rows for cell in row.values() if cell[:1].isdigit()]
    assert numbers and not any("." in cell for cell in numbers)
    catalog = i18n.catalog("es")
    assert set(rows[0]) == {
        catalog[f"restore.csv.{key}"]
        for key in csv.DictReader(io.StringIO(history_csv([run]).decode())).fieldnames
    }


def test_spanish_csv_names_the_data_mode_and_a_whole_set_batch_as_the_page_does(run):  # noqa: F811
    """Spanish: 'lesson' and 'full' read 'Líneas de la lección' and 'completo', the Train page's words."""
    whole_set = replace(run, config=replace(run.config, train=replace(run.config.train, batch_size=None)))
    rows = spanish_rows(runs_csv([run, whole_set], "es"))
    catalog = i18n.catalog("es")
    assert {row["datos"] for row in rows} == {catalog["train.mode.lesson"]} == {"Líneas de la lección"}
    assert {row["tamaño de lote"] for row in rows} == {"16", catalog["train.batch_full"]}


@pytest.mark.parametrize(("language", "delimiter", "mark"), [("en", ",", "."), ("es", ";", ",")])
def test_a_table_csv_parses_back_to_its_numbers(language, delimiter, mark):
    """A results table written for a language reads back, with its separator, to the same numbers."""
    frame = pd.DataFrame({"images": [360, 3600], "median_ms": [1.25, 0.00005], "status": ["ok", "ok"]})
    data = for_language(frame.to_csv(index=False), str.upper if language == "es" else str, language)
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig")), delimiter=delimiter))
    assert rows[0] == (
        ["IMAGES", "MEDIAN_MS", "STATUS"] if language == "es" else ["images", "median_ms", "status"]
    )
    assert [float(row[1].replace(mark, ".")) for row in rows[1:]] == [1.25, 0.00005]
    assert [row[0] for row in rows[1:]] == ["360", "3600"]  # no thousands mark a spreadsheet would misread
