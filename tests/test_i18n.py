"""The two languages: complete catalogs, the browser's language first, ?lang= links and the toggle."""

import string

import pytest

from linecnn.ui import i18n
from tests.helpers import app_test


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
