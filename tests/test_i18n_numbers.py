"""Numbers the reader's way: a Spanish page writes '0,01' and '25.288', never '0.01' or '25,288'."""

import re

import pytest

from linecnn.train.config import RunConfig
from tests.i18n_check import english_numbers, english_numbers_in, is_english_number
from tests.test_i18n import page_in
from tests.test_pages import click


@pytest.mark.parametrize(
    ("number", "english"),
    [("0.01", True), ("3.0", True), ("25,288", True), ("1,234.5", True), ("0.00000005", True)]
    + [("0,01", False), ("25.288", False), ("1.234,5", False), ("12.345.678", False), ("2.13.0", False)],
)
def test_the_check_tells_the_two_ways_apart(number, english):
    """A decimal point or a thousands comma is English; a decimal comma or thousands point is Spanish."""
    assert is_english_number(number) is english


def test_versions_code_and_file_names_are_not_numbers():
    """'PyTorch 2.5.1', 'CUDA 12.4', `lr=0.01` and run1.safetensors are left alone; 'lr 0.01' is not."""
    assert english_numbers_in("PyTorch 2.5.1 · CUDA 12.4 · `lr=0.01` · run1.safetensors") == []
    assert english_numbers_in("lr 0.01 · 25,288 imágenes/s") == ["0.01", "25,288"]


def test_a_spanish_train_page_with_runs_writes_its_numbers_the_spanish_way():
    """Two runs: the summary, the compare table (lr, loss, accuracy, seconds) and the smoothing slider."""
    at = page_in("es", "pages/1_Train.py")
    at.number_input(key="train.epochs").set_value(2)
    at.number_input(key="train.per_class").set_value(30)
    at.run()
    for _ in range(2):
        click(at, "Iniciar")
    assert not at.exception and len(at.session_state["train.runs"]) == 2
    assert english_numbers(at) == []
    row = at.dataframe[-1].value.iloc[-1]
    assert RunConfig().train.lr == 0.01 and row["lr"] == "0,01"
    assert re.fullmatch(r"\d+,\d\s?%", row["exactitud val"]) and re.fullmatch(r"[\d.]+,\d\d", row["segundos"])
    assert at.select_slider(key="train.smoothing").options[:3] == ["0,00", "0,01", "0,02"]
