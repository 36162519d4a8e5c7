"""The Benchmark page states the server's image cap only when a host set one: the default, the sweep's
largest cell of 1,000,002 images (3 × 333,334), would read like a typing error."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import ROOT

PAGE = "pages/2_Benchmark.py"
ODD = {"en": "1,000,002", "es": "1.000.002"}
STEP = {"en": "more than 1.0 GiB of activations", "es": "más de 1,0 GiB de activaciones"}
SERIES = {"en": "time cap for a whole series is", "es": "para una serie completa es"}
HOST_CAP = {"en": "100,000 images", "es": "100.000 imágenes"}


@pytest.fixture(autouse=True)
def private_history(tmp_path, monkeypatch):
    """The page's history lives in a temporary folder."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))


def captions(language: str) -> str:
    """Every caption of the Benchmark page in ``language`` (the sweep's form and the data-parallel one)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["lang"] = language
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception
    return " ".join(caption.value for caption in at.caption)


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_default_image_cap_is_not_written_out(language):
    text = captions(language)
    assert STEP[language] in text and SERIES[language] in text  # both forms state their other caps
    assert ODD[language] not in text


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_hosts_own_image_cap_is_stated_on_both_forms(monkeypatch, language):
    monkeypatch.setenv("LINECNN_BENCH_MAX_IMAGES", "100000")
    assert captions(language).count(HOST_CAP[language]) == 2
