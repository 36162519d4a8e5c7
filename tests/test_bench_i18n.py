"""The Benchmark page in English and Spanish, where the time goes, reference series, runs shown on return."""

from __future__ import annotations

import csv
import io
import json

import pytest

from linecnn.bench.document import BenchDocument
from linecnn.bench.reference import load as reference
from linecnn.bench.store import History
from linecnn.ui import i18n
from linecnn.ui.bench.results import table
from linecnn.ui.bench.results.data import ShownRun, results_frame
from linecnn.ui.bench.results.table import results_csv
from linecnn.ui.format import escape_markdown
from tests.bench_fixture import cpu_document, fake_gpu_document
from tests.helpers import app_test
from tests.i18n_check import rendered_texts, untranslated
from tests.test_bench_hostile import texts, upload

PAGE = "pages/2_Benchmark.py"


@pytest.fixture(autouse=True)
def private_history(tmp_path, monkeypatch):
    """Every test gets its own empty history and no bundled reference."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(reference, "FOLDER", tmp_path / "references")


def opened(language: str, shown: list[int] | None = None):
    """The Benchmark page in ``language`` with the stored runs ``shown`` on screen."""
    at = app_test(PAGE)
    at.session_state[i18n.LANGUAGE] = language
    if shown is not None:
        at.session_state["bench.shown"] = shown
    return at.run()


def test_every_string_of_the_page_is_spanish_with_runs_on_screen():
    """Cards, where the time goes, charts, table, history: nothing shown in Spanish is still English."""
    shown = [History().import_json(json.dumps(fake_gpu_document(gpu_only=False, largest=4_000)))]
    shown.append(History().import_json(json.dumps(cpu_document(2.0))))
    english, spanish = opened("en", shown), opened("es", shown)
    assert not english.exception and not spanish.exception
    assert spanish.title[0].value == "Medir"
    assert untranslated(english, spanish) == []
    texts = " ".join(rendered_texts(spanish))
    assert "Adónde va el tiempo" in texts and "1.200 imágenes" in texts  # Spanish thousands separator
    assert "1,200 images" in " ".join(rendered_texts(english))


def test_an_empty_page_is_spanish_too():
    """Before any run: the form, the CUDA card, the empty history, the import, all in Spanish."""
    english, spanish = opened("en"), opened("es")
    assert untranslated(english, spanish) == []
    assert any("Aún no hay resultados" in info.value for info in spanish.info)


CHOICES = ("bench.up_to.data", "bench.batch", "ddp.device", "ddp.batch", "ddp.threads")  # select boxes


def test_a_language_switch_sends_the_select_boxes_values_again():
    """After a switch to Spanish the form's select boxes send their values again, or the browser would go
    on showing 'full' and '36,000 images'; a rerun in the same language leaves a choice being made alone."""
    at = opened("en").run()
    assert not any(at.selectbox(key=key).proto.set_value for key in CHOICES)
    at.session_state[i18n.LANGUAGE] = "es"
    at.run()
    assert all(at.selectbox(key=key).proto.set_value for key in CHOICES)
    assert at.selectbox(key="bench.batch").proto.raw_value == "completo"  # the value kept, in new words


def test_where_the_time_goes_splits_the_measured_epochs():
    """The fixture GPU pays 6 ms per step and 0.02 µs per image: the page says so, from the fit."""
    run_id = History().import_json(json.dumps(fake_gpu_document(gpu_only=False)))
    at = opened("en", [run_id])
    assert not at.exception
    assert any(s.value == "Where the time goes" for s in at.subheader)
    gpu = next(
        m.value
        for m in at.markdown
        if m.value.startswith("**" + escape_markdown("CUDA:0")) and "step" in m.value
    )
    assert "each step costs about **6.00 ms**" in gpu and "each image about **0.02 µs**" in gpu
    assert "within 0.0% of every measured point (8 points)" in gpu
    assert "At 360 images (steps per epoch: 1) **100%** of the epoch is fixed per-step cost" in gpu
    assert any("Why a GPU loses on tiny problems" in m.value for m in at.markdown)
    names = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    assert any(trace["name"].endswith(": fitted line") for trace in names)


def test_a_width_sweep_says_what_the_split_needs():
    """One epoch size cannot be split: the section says to sweep data or batch size instead."""
    document = cpu_document(1.0)
    for result in document["results"]:
        result["factor"] = "width"
    document["sweep"] = "width"
    document["results"] = document["results"][:1]
    run_id = History().import_json(json.dumps(document))
    at = opened("en", [run_id])
    assert any("Sweep the **data size** or the **batch size**" in info.value for info in at.info)


def test_no_bundled_reference_is_said_plainly(tmp_path):
    """With an empty reference folder the page says none is bundled, and draws no reference line."""
    at = opened("en")
    assert any("none is bundled" in caption.value for caption in at.caption)


def test_a_bundled_reference_is_drawn_and_labelled_as_not_this_machine(tmp_path):
    """A reference file (written here by the test) becomes a labelled line beside this CPU's run."""
    folder = tmp_path / "references"
    folder.mkdir()
    (folder / "imaginary-data.json").write_text(json.dumps(fake_gpu_document()))
    cpu = History().import_json(json.dumps(cpu_document(1.0)))
    at = opened("en", [cpu])
    assert not at.exception
    environment = escape_markdown("PyTorch 2.13.0+cu128 · CUDA 12.8 · measured 2026-01-01")
    assert any("Reference **Imaginary GPU**" in c.value and environment in c.value for c in at.caption)
    label = "reference, measured on Imaginary GPU (not this machine)"
    # Every chart of the results; the class board below lists only stored runs, never a reference.
    specs = [chart.proto.spec for chart in at.get("plotly_chart") if chart.key != "bench.board_chart"]
    assert specs and all(label in spec for spec in specs)
    at.toggle(key="bench.references").set_value(False).run()
    assert not any(label in chart.proto.spec for chart in at.get("plotly_chart"))


def test_the_newest_stored_run_is_shown_on_return():
    """A new session (a reload, a return) opens on the newest stored run, not on an empty page."""
    History().import_json(json.dumps(cpu_document(1.0)))
    newest = History().import_json(json.dumps(cpu_document(2.0)))
    at = app_test(PAGE)
    assert not at.exception
    assert at.multiselect(key="bench.shown").value == [newest]
    assert any(m.label == "median per epoch" for m in at.metric)


DROPPED = ("AMP runs on CUDA only; timed in fp32.", "CUDA graphs need CUDA.")  # for_device's English notes


def noted_run() -> int:
    """A stored CPU run whose cells hold the English notes an older linecnn wrote, plus one nobody knows."""
    document = cpu_document(1.0)
    for result in document["results"]:
        result["notes"] = [*DROPPED, "A note from elsewhere."]
    return History().import_json(json.dumps(document))


def test_stored_notes_of_cells_are_said_in_spanish_and_unknown_ones_as_stored():
    """Notes linecnn wrote in English read in Spanish; a note it does not know shows as stored."""
    shown = [noted_run()]
    english, spanish = opened("en", shown), opened("es", shown)
    assert not english.exception and not spanish.exception
    texts = " ".join(rendered_texts(spanish))
    assert not any(note.rstrip(".") in texts for note in DROPPED)
    assert "AMP solo funciona en CUDA" in texts and "Los grafos CUDA necesitan CUDA" in texts
    assert "A note from elsewhere" in texts
    assert "AMP runs on CUDA only" in " ".join(rendered_texts(english))


def width_sweep(language: str, monkeypatch):
    """A width sweep up to width 2 of one tiny timed cell on the CPU, run to its end in ``language``.

    AppTest formats a select box's value outside the script, where no session says the language:
    ``current`` is pinned so it formats the way the page did.
    """
    monkeypatch.setattr(i18n, "current", lambda: language)
    at = opened(language)
    at.segmented_control(key="bench.factor").set_value("width").run()
    at.selectbox(key="bench.up_to.width").set_value(2)
    at.multiselect(key="bench.devices").set_value(["cpu"])
    at.text_input(key="bench.warmup.text").input("1")
    at.text_input(key="bench.repeats.text").input("1")
    run = i18n.translate(language, "bench.form.run")
    next(b for b in at.button if b.label == run).click().run()
    assert at.session_state["bench.running"].done.wait(120), "the benchmark did not end in time"
    return at.run()


def test_a_sweeps_notes_on_cells_left_out_are_spanish(monkeypatch):
    """Width 2 is over a per-step cap of 8 MiB: the run's message says so in Spanish, sizes with a comma."""
    monkeypatch.setenv("LINECNN_BENCH_MAX_STEP_BYTES", str(8 << 20))
    english, spanish = width_sweep("en", monkeypatch), width_sweep("es", monkeypatch)
    assert not english.exception and not spanish.exception
    said = " ".join(w.value for w in english.warning)
    assert "this server's cap of 8.0 MiB of activations were left out: width 2 (≈ 9.5 MiB)" in said
    texts = " ".join(rendered_texts(spanish))
    assert "Cells whose" not in texts and "were left out" not in texts
    assert "el tope de este servidor, de 8,0 MiB: ancho 2 (≈ 9,5 MiB)" in texts
    assert untranslated(english, spanish) == []


def test_a_refused_import_follows_a_switch_to_spanish():
    """A JSON that is not a benchmark, and one that is not JSON, are refused in English; switched to
    Spanish while the file stays in the uploader, the whole refusal reads in Spanish."""
    refusals = {
        '{"not": "a run"}': ("This is not a linecnn benchmark JSON", "Esto no es un JSON de medición de"),
        '{"broken": ': ("This file is not valid JSON (", "Este archivo no es JSON válido ("),
    }
    for data, (english, spanish) in refusals.items():
        at = upload(opened("en"), data, "wrong.json")
        assert any(english in e.value for e in at.error if "cannot be imported" in e.value), texts(at)
        at.session_state[i18n.LANGUAGE] = "es"
        [said] = [e.value for e in at.run().error if "no se puede importar" in e.value]
        assert spanish in said and "This" not in said, said
    # Where the broken file stops being JSON, in Spanish too: not the parser's English ("Expecting value")
    assert "(línea 1, columna 12)" in said and "Expecting" not in said, said


def test_log_axes_label_a_narrow_range_and_write_decimals_the_readers_way(monkeypatch):
    """Medians of 5.5 to 7.7 ms get ticks at 6 and 7 ms (the powers, 2 and 5 left none in view), and a
    Spanish axis reads '0,2 ms' and '1,5k'."""
    import pandas as pd

    from linecnn.ui.bench.results import charts

    monkeypatch.setattr(charts, "current", lambda: "es", raising=False)
    ticks = charts._decades(pd.Series([5.5, 7.7]), charts._milliseconds)
    pairs = zip(ticks["tickvals"], ticks["ticktext"], strict=True)
    in_view = [text for value, text in pairs if 5.5 <= value <= 7.7]
    assert in_view == ["6 ms", "7 ms"]
    assert charts._milliseconds(0.2) == "0,2 ms" and charts._count(1_500) == "1,5k"


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_share_that_rounds_to_nothing_reads_under_one_percent(language):
    """A fixed cost of 0.3 % of the epoch read 'about 0%', which calls it nothing: it reads 'under 1%'."""
    import re

    import pandas as pd
    import streamlit as st

    from linecnn.bench.costfit import CostFit
    from linecnn.ui.bench.where_time_goes.section import _series_text

    result = type("Result", (), {"disturbed": ()})()
    rows = pd.DataFrame(
        {"x": [360, 36_000], "steps": [1, 1], "images": [360, 36_000], "result": [result, result]}
    )
    under = {"en": "under 1%", "es": "menos del 1 %"}[language]
    st.session_state[i18n.LANGUAGE] = language
    try:
        for error in (0.01, 0.3):  # a close fit (bold shares) and a rough one ('about …' elsewhere)
            fit = CostFit(per_step_ms=0.01, per_image_ms=0.01, points=4, max_error=error)
            text = _series_text("CPU", fit, rows, "data")
            assert under in text and not re.search(r"(?<![\d.,])0\s?%", text), text
    finally:
        del st.session_state[i18n.LANGUAGE]


@pytest.mark.parametrize(
    ("language", "one", "many"),
    [
        ("en", "at about 1 image per step.", "at about 1,200 images per step."),
        ("es", "con alrededor de 1 imagen por paso.", "con alrededor de 1.200 imágenes por paso."),
    ],
)
def test_the_balance_point_agrees_with_its_count_of_images(language, one, many):
    """'Both parts weigh the same at about 1 images per step': the noun now agrees with the count."""
    import pandas as pd
    import streamlit as st

    from linecnn.bench.costfit import CostFit
    from linecnn.ui.bench.where_time_goes.section import _series_text

    result = type("Result", (), {"disturbed": ()})()
    rows = pd.DataFrame(
        {"x": [360, 36_000], "steps": [1, 1], "images": [360, 36_000], "result": [result, result]}
    )
    st.session_state[i18n.LANGUAGE] = language
    try:
        assert one in _series_text("CPU", CostFit(0.01, 0.01, points=4, max_error=0.01), rows, "data")
        assert many in _series_text("CPU", CostFit(12.0, 0.01, points=4, max_error=0.01), rows, "data")
    finally:
        del st.session_state[i18n.LANGUAGE]


@pytest.mark.parametrize(
    ("language", "under", "about", "same"),
    [
        ("en", "at under 1 image per step.", "at about 0 images", "weigh the same"),
        ("es", "con menos de 1 imagen por paso.", "alrededor de 0 imágenes", "pesan lo mismo"),
    ],
)
def test_a_balance_under_one_image_reads_under_1_not_about_0(language, under, about, same):
    """A balance point of 0.2 images per step reads 'under 1 image', never 'about 0 images' as if there
    were none; with no fixed cost at all the parts never weigh the same, and no sentence says so."""
    import pandas as pd
    import streamlit as st

    from linecnn.bench.costfit import CostFit
    from linecnn.ui.bench.where_time_goes.section import _series_text

    result = type("Result", (), {"disturbed": ()})()
    rows = pd.DataFrame(
        {"x": [360, 36_000], "steps": [1, 1], "images": [360, 36_000], "result": [result, result]}
    )
    st.session_state[i18n.LANGUAGE] = language
    try:
        tiny = _series_text("CPU", CostFit(0.002, 0.01, points=4, max_error=0.01), rows, "data")
        assert under in tiny and about not in tiny, tiny
        none = _series_text("CPU", CostFit(0.0, 0.01, points=4, max_error=0.01), rows, "data")
        assert same not in none and about not in none, none
    finally:
        del st.session_state[i18n.LANGUAGE]


def test_the_spanish_csv_writes_the_pages_words_not_the_cores(monkeypatch):
    """The results CSV on a Spanish page has its words ('correcto', 'normal (eager)'), not 'ok'."""
    monkeypatch.setattr(i18n, "current", lambda: "es")
    monkeypatch.setattr(table, "current", lambda: "es")
    document = fake_gpu_document(gpu_only=False)
    document["results"] = document["results"][:1]
    run = ShownRun(1, "page", BenchDocument.from_json(json.dumps(document)))
    rows = list(csv.reader(io.StringIO(results_csv(results_frame([run])).decode("utf-8-sig")), delimiter=";"))
    cells = set(rows[1])
    assert {"correcto", "normal (eager)", "Tamaño de datos", "hecha en esta página"} <= cells, rows
    assert not cells & {"ok", "eager", "data", "page"}, rows
