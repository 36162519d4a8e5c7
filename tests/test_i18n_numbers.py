"""Numbers the reader's way: a Spanish page writes '0,01' and '25.288', never '0.01' or '25,288'."""

import re
from dataclasses import replace

import pytest

from linecnn.device import cpu_threads
from linecnn.train.config import RunConfig
from linecnn.train.trainer import fit
from linecnn.ui import state
from tests.helpers import shown
from tests.i18n_check import english_numbers, english_numbers_in, is_english_number
from tests.test_draw_page import as_session_run


@pytest.mark.parametrize(
    ("number", "english"),
    [("0.01", True), ("3.0", True), ("25,288", True), ("1,234.5", True), ("0.00000005", True)]
    + [("0,01", False), ("25.288", False), ("1.234,5", False), ("12.345.678", False), ("2.13.0", False)]
    + [("1,115", False)],
)
def test_the_check_tells_the_two_ways_apart(number, english):
    """A decimal point or a thousands comma is English; a decimal comma or thousands point is Spanish."""
    assert is_english_number(number) is english


def test_versions_code_and_file_names_are_not_numbers():
    """'PyTorch 2.5.1', 'CUDA 12.4', `lr=0.01` and run1.safetensors are left alone; 'lr 0.01' is not."""
    assert english_numbers_in("PyTorch 2.5.1 · CUDA 12.4 · `lr=0.01` · run1.safetensors") == []
    assert english_numbers_in("lr 0.01 · 25,288 imágenes/s") == ["0.01", "25,288"]


def test_a_version_is_a_number_only_when_the_page_leaves_it_unmarked():
    """Home's facts name their product before a colon: the version must be marked as code to pass."""
    assert english_numbers_in("- **Runtime de CUDA**: `13.0`") == []
    assert english_numbers_in("- **Runtime de CUDA**: 13.0") == ["13.0"]


def test_home_on_a_cuda_build_shows_its_versions_as_names(monkeypatch):
    """PyPI's torch is a CUDA build even without a GPU: CUDA 13.0 and cuDNN 91002 are names in Spanish."""
    from linecnn import device
    from tests.test_i18n import page_in

    here = device.environment()
    cuda_build = replace(here, torch_version="2.14.1+cu130", cuda_version="13.0", cudnn_version=91002)
    monkeypatch.setattr(device, "environment", lambda: cuda_build)
    spanish = page_in("es", None)
    assert not spanish.exception
    assert english_numbers(spanish) == []
    facts = " ".join(block.value for block in spanish.markdown)
    assert "`13.0`" in facts and "`91002`" in facts and "`2.14.1+cu130`" in facts


def test_a_spanish_train_page_with_runs_writes_its_numbers_the_spanish_way():
    """Two runs: the summary, the compare table (lr, loss, accuracy, seconds), the smoothing slider and the
    learning-rate box."""
    from streamlit.testing.v1 import AppTest

    from tests.helpers import ROOT

    with cpu_threads("cpu", 1):
        runs = [as_session_run(fit(RunConfig.from_flat(per_class=30, epochs=2, lr=r))) for r in (0.01, 5e-8)]
    runs[1] = replace(runs[1], number=2)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["lang"] = "es"
    at.run()
    at.session_state[state.RUNS] = runs
    at.switch_page("pages/1_Train.py").run()  # one run only: AppTest cannot rerun a translated selectbox
    assert not at.exception
    assert english_numbers(at) == []
    assert "Resumen · Ejecución 2 · CPU · 2 ép" in [s.value for s in at.subheader]  # not the key "cpu"
    assert {m.label: m.value for m in at.metric}["Dispositivo"] == "CPU"
    table = shown(at.dataframe[-1])
    assert list(table["tasa de aprendizaje"]) == ["0,01", "5 × 10⁻⁸"]  # as the log axes write it
    assert all(re.fullmatch(r"\d+,\d\s?%", cell) for cell in table["exactitud val"])
    assert at.select_slider(key="train.smoothing").options[:3] == ["0,00", "0,01", "0,02"]
    assert at.text_input(key="train.lr.text").value == "0,01"  # a number box wrote '0.0100'


@pytest.mark.parametrize(("value", "digits", "spanish"), [(1e30, 0, "1E30"), (1.5e300, 4, "1,5E300")])
def test_a_huge_number_typed_is_written_in_powers_of_ten_not_a_traceback(value, digits, spanish):
    """'1e30' in the epochs box made the range message's number raise decimal.InvalidOperation."""
    from linecnn.ui.i18n import _number

    assert _number(value, digits, "es") == spanish
    assert _number(1e9, 4, "es") == "1.000.000.000,0000"


def test_minus_zero_is_written_zero():
    """'-0' typed stays -0.0 when '0' follows it: the range message said '-0' beside a box showing 0."""
    from linecnn.ui.i18n import _number

    assert (_number(-0.0, 0, "es"), _number(-0.0, 4, "en")) == ("0", "0.0000")


def test_the_uploaders_own_sizes_are_written_the_spanish_way():
    """Streamlit's '2MB per file' and 'File must be 2.0MB or smaller.' read '2 MB' and '2,0 MB' in Spanish."""
    from linecnn.ui.builtin_texts import rules

    def shown(english: str) -> str:  # the first rule that matches, as the page's script applies it
        for where, pattern, text in rules("es"):
            found = re.fullmatch(pattern.replace("(?<", "(?P<"), english)
            if where == "text" and found:
                return found.expand(re.sub(r"\$<(\w+)>", r"\\g<\1>", text))
        return english

    assert shown("2MB per file") == "2 MB por archivo"
    assert shown("File must be 2.0MB or smaller.") == "El archivo debe ocupar 2,0 MB como mucho."
    assert shown("File must be 2 GB or smaller.") == "El archivo debe ocupar 2 GB como mucho."  # as it is
