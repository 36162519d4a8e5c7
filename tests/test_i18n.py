"""The two languages: complete catalogs, the browser's language first, ?lang= links and the toggle."""

import string

import pytest

from linecnn.ui import i18n
from tests.helpers import app_test
from tests.i18n_check import is_untranslated, untranslated


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


def page_in(language: str, page: str | None):
    """AppTest of ``page`` opened through a ?lang= link."""
    from streamlit.testing.v1 import AppTest

    from tests.helpers import ROOT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
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


# Each page joins this list once every string it shows is in both catalogs.
TRANSLATED_PAGES: list[str | None] = [None, "pages/3_Draw.py"]


@pytest.mark.parametrize("page", TRANSLATED_PAGES)
def test_pages_show_no_untranslated_text_in_spanish(page):
    """Rendered in Spanish, a page shows no English sentence it also shows in English."""
    english, spanish = page_in("en", page), page_in("es", page)
    assert not english.exception and not spanish.exception
    assert untranslated(english, spanish) == []


def test_the_sidebar_is_translated():
    """The shared frame: navigation, device and language read in Spanish."""
    english, spanish = page_in("en", None), page_in("es", None)
    sidebar = untranslated(english.sidebar, spanish.sidebar)
    assert sidebar == [], sidebar
