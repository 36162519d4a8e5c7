"""The two languages: complete catalogs, the browser's language first, ?lang= links and the toggle."""

import re
import string

import pytest

from linecnn.checkpoint.model_file import MAX_MODEL_BYTES, load_model
from linecnn.device import cpu_threads
from linecnn.errors import UserError
from linecnn.sentences import ENGLISH
from linecnn.train.config import RunConfig
from linecnn.train.trainer import fit
from linecnn.ui import i18n, state
from linecnn.ui.format import escape_markdown, format_bytes, format_seconds
from linecnn.ui.sidebar import PAGES
from tests.helpers import app_test
from tests.i18n_check import (
    english_numbers,
    is_builtin_english,
    is_untranslated,
    rendered_texts,
    untranslated,
)


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_both_languages_have_the_same_keys_and_fields():
    """A key missing in one language, or a {field} one translation forgot, fails here."""
    english, spanish = i18n.catalog("en"), i18n.catalog("es")
    assert english and sorted(english) == sorted(spanish)
    for key, text in english.items():
        assert fields(text) == fields(spanish[key]), key


@pytest.mark.parametrize(
    ("locale", "language"), [("es-MX", "es"), ("es", "es"), ("en-GB", "en"), ("fr-FR", "en"), (None, "en")]
)
def test_the_browser_locale_picks_the_starting_language(locale, language):
    """Spanish for any Spanish locale, English otherwise."""
    assert i18n.from_locale(locale) == language


def test_a_lang_link_sets_the_language_and_the_toggle_can_change_it_back():
    """?lang=es opens in Spanish; the toggle then wins, and the address follows it."""
    at = app_test()
    assert [link.proto.label for link in at.sidebar.get("page_link")][0] == "Home"
    at.query_params["lang"] = "es"
    at.run()
    assert [link.proto.label for link in at.sidebar.get("page_link")][:2] == ["Inicio", "Entrenar"]
    at.session_state[i18n.LANGUAGE] = "en"
    at.run()
    assert [link.proto.label for link in at.sidebar.get("page_link")][0] == "Home"
    assert at.query_params["lang"] == "en"


def test_a_lang_link_typed_in_capitals_or_with_a_region_opens_in_that_language():
    """?lang=ES (typed by hand) opens in Spanish, not English, and the address is written as es."""
    at = page_in("ES", None)
    assert [link.proto.label for link in at.sidebar.get("page_link")][0] == "Inicio"
    assert at.query_params["lang"] == "es"
    assert i18n.language_code(" es_MX ") == "es"


def page_in(language: str, page: str | None):
    """AppTest of ``page`` opened through a ?lang= link."""
    from streamlit.testing.v1 import AppTest

    from tests.helpers import ROOT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)  # Draw may train the default model
    at.query_params["lang"] = language
    at.run()
    if page is not None:
        at.switch_page(page).run()
    return at


def test_the_checker_catches_text_nobody_translated():
    """The detector flags identical English sentences but not names, units or numbers."""
    assert is_untranslated("Train the model", "Train the model")
    assert not is_untranslated("CPU · AMD EPYC 7B13", "CPU · AMD EPYC 7B13")
    assert not is_untranslated("Train", "Entrenar")


def test_the_checker_knows_the_widgets_english():
    """The uploader's and the toolbar's English are recognised; the Spanish we write is not (the browser
    test reads every page for them: tests/test_pages_browser.py)."""
    assert is_builtin_english("Upload") and is_builtin_english("8MB per file")
    assert is_builtin_english("Help for Imágenes por clase") and is_builtin_english("Reset canvas & history")
    assert is_builtin_english("json files are not allowed.") and is_builtin_english("files are not allowed.")
    assert not is_builtin_english("Subir") and not is_builtin_english("Ayuda sobre Imágenes por clase")


# Every page the sidebar links to (None: Home), so a new page is checked as soon as it is added.
TRANSLATED_PAGES: list[str | None] = [None if path == "app.py" else path for path, _, _ in PAGES]


@pytest.mark.parametrize("page", TRANSLATED_PAGES)
def test_pages_show_no_untranslated_text_in_spanish(page):
    """In Spanish, a page shows no English sentence it also shows in English, nor an English number; its
    dropdowns, emptied, say so in Spanish (without a placeholder of ours, Streamlit writes its English)."""
    english, spanish = page_in("en", page), page_in("es", page)
    assert not english.exception and not spanish.exception
    assert untranslated(english, spanish) == []
    assert english_numbers(spanish) == []  # '0,01' and '25.288', never '0.01' or '25,288'
    assert [box.label for box in (*spanish.selectbox, *spanish.multiselect) if not box.placeholder] == []


def test_the_sidebar_is_translated():
    """The shared frame: navigation, device and language read in Spanish."""
    english, spanish = page_in("en", None), page_in("es", None)
    sidebar = untranslated(english.sidebar, spanish.sidebar)
    assert sidebar == [], sidebar


@pytest.fixture
def english_sounding_cpu(monkeypatch):
    """This machine's CPU reports a model name made of English words, as Intel's Xeons do."""
    from linecnn import device

    monkeypatch.setattr(device, "cpu_model", lambda: "Intel(R) Xeon(R) Processor")
    device.list_devices.cache_clear()
    yield "Intel(R) Xeon(R) Processor"
    device.list_devices.cache_clear()


def test_the_checker_passes_whatever_cpu_the_machine_has(english_sounding_cpu):
    """The CPU's name is shown as the hardware says it, in both languages: never flagged as English."""
    assert not is_untranslated(f"CPU · {english_sounding_cpu}", f"CPU · {english_sounding_cpu}")
    assert is_untranslated(f"Train on {english_sounding_cpu}", f"Train on {english_sounding_cpu}")
    english, spanish = page_in("en", None), page_in("es", None)
    shown = escape_markdown(english_sounding_cpu)  # a name from the driver is quoted escaped
    assert any(shown in text for text in rendered_texts(spanish.sidebar))
    assert untranslated(english.sidebar, spanish.sidebar) == []


def test_a_page_switch_keeps_the_language():
    """Opened in Spanish, Home's language carries to Draw: its body, not only the sidebar."""
    at = page_in("es", "pages/3_Draw.py")
    assert at.title[0].value == "Dibujar"
    assert "El lienzo está vacío" in at.warning[0].value
    assert at.query_params["lang"] == "es"


def test_draw_with_a_prediction_is_translated():
    """With a line drawn, the verdict, bars, feature maps and captions read in Spanish too."""
    from tests.draw_helpers import synthetic_canvas
    from tests.test_draw_page import draw

    stroke = synthetic_canvas(((10, 10), (10, 270)))
    english, spanish = (draw(page_in(language, "pages/3_Draw.py"), stroke) for language in ("en", "es"))
    assert not english.exception and not spanish.exception
    assert untranslated(english, spanish) == []
    captions = " ".join(caption.value for caption in spanish.caption)
    assert "Se ejecutó en **CPU" in captions and re.search(r"en \d+,\d\d ms", captions)
    assert re.search(r"\d+\s?% de confianza", " ".join(m.value for m in spanish.markdown))


def test_draw_verdicts_on_a_non_line_and_for_a_lesson_run_are_translated():
    """"Not one straight line", the forced guess and a lesson run's "unlike its data" read in Spanish."""
    from tests.draw_helpers import synthetic_canvas
    from tests.test_draw_page import as_session_run, draw

    check = synthetic_canvas(((70, 150), (120, 210), (230, 50)))
    english, spanish = (draw(page_in(language, "pages/3_Draw.py"), check) for language in ("en", "es"))
    assert untranslated(english, spanish) == []
    assert "No es una sola línea recta" in " ".join(m.value for m in spanish.markdown)
    with cpu_threads("cpu", 1):
        run = as_session_run(fit(RunConfig.from_flat(per_class=30, epochs=80)))
    thick = synthetic_canvas(((100, 100), (100, 190)), width=36)
    pages = []
    for at in (english, spanish):
        at.session_state[state.RUNS] = [run]
        pages.append(draw(at, thick))
    assert untranslated(*pages) == []
    assert "distinto de sus datos de entrenamiento" in " ".join(m.value for m in pages[1].markdown)


def test_numbers_use_the_languages_separators():
    """Durations and sizes: a decimal point in English, a decimal comma in Spanish."""
    assert format_seconds(12.34) == "12.3 s" and format_seconds(12.34, "es") == "12,3 s"
    assert format_seconds(245, "es") == "4 min 05 s"
    # Under 10 ms a tenth stays (a Lesson snippet ran 'in 0 ms'); no unit shows its next one's value.
    assert format_seconds(0.0004) == "0.4 ms" and format_seconds(0.0053, "es") == "5,3 ms"
    assert format_seconds(0.0123) == "12 ms" and format_seconds(0.9997) == "1.0 s"
    assert format_seconds(59.97) == "1 min 00 s"
    assert format_bytes(24 << 30) == "24.0 GiB" and format_bytes(24 << 30, "es") == "24,0 GiB"
    at = page_in("es", None)
    memory = at.dataframe[0].value["memoria"].iloc[0]
    assert re.fullmatch(r"[\d.]+,\d (GiB|MiB|TiB)", memory), memory


def test_core_messages_are_said_in_the_users_language():
    """A core error reads in Spanish in the app, nested parts included, and stays English for the CLI."""
    with pytest.raises(UserError) as caught:
        load_model(b"x" * (MAX_MODEL_BYTES + 1))
    assert str(caught.value).startswith("The model file is 3.0 MB; at most 3.0 MB")
    assert i18n.say(caught.value, "en") == str(caught.value)
    assert i18n.say(caught.value, "es").startswith("El archivo de modelo ocupa 3,0 MB; se aceptan 3,0 MB")
    assert i18n.say(ValueError("plain"), "es") == "plain"  # an error without a key is shown as it is


def test_every_core_message_has_a_spanish_sentence_with_the_same_fields():
    """Each key of linecnn.errors has a Spanish entry that fills the same {fields}."""
    spanish = i18n.catalog("es")
    for key, text in ENGLISH.items():
        assert f"errors.{key}" in spanish, key
        assert fields(text) == fields(spanish[f"errors.{key}"]), key


def test_a_run_over_the_servers_budget_is_refused_in_spanish():
    """The Train page's refusal of a run over the work budget reads in Spanish, with a setting that fits."""
    from linecnn.train.config import RunConfig, TrainLimits
    from linecnn.train.limits import check_limits

    with pytest.raises(UserError) as caught:
        check_limits(RunConfig.from_flat(epochs=5_000, per_class=20_000), TrainLimits())
    assert str(caught.value).endswith("Choose at most 166 epochs or at most 666 images per class.")
    spanish = i18n.say(caught.value, "es")
    assert "5.000 épocas de 60.000 imágenes" in spanish
    assert spanish.endswith("Elige como mucho 166 épocas o como mucho 666 imágenes por clase.")


def test_the_dialog_of_a_server_gone_away_is_said_in_spanish():
    """A restart mid-lesson showed a Spanish page Streamlit's English 'Connection error' dialog: each of its
    texts (as Streamlit's frontend writes them) has a Spanish rule, and the page's script looks in dialogs."""
    from pathlib import Path

    import streamlit

    from linecnn.ui import builtin_texts

    bundles = (Path(streamlit.__file__).parent / "static" / "static" / "js").glob("index.*.js")
    frontend = "".join(bundle.read_text() for bundle in bundles)
    silent = "Streamlit server is not responding. Are you connected to the internet?"
    dialog = {"Connection error": "Error de conexión", silent: i18n.translate("es", "builtin.silent")}
    for english, spanish in dialog.items():
        assert english in frontend  # an upgrade that rewords it fails here, not silently on a page
        rules = builtin_texts.rules("es")
        said = [text for _, pattern, text in rules if re.fullmatch(pattern.replace("(?<", "(?P<"), english)]
        assert said == [spanish] and spanish != english
    assert '[role="dialog"]' in builtin_texts._JS


def test_a_pickers_dropdown_says_its_own_words_in_spanish():
    """The run pickers' dropdowns said 'Select all' and 'No results' on Spanish pages."""
    from linecnn.ui import builtin_texts

    rules = builtin_texts.rules("es")
    for english in ("Select all", "Select 3 matches", "No results"):
        said = [text for _, pattern, text in rules if re.fullmatch(pattern.replace("(?<", "(?P<"), english)]
        assert len(said) == 1 and said[0] != english
    assert '[role="option"]' in builtin_texts._JS
