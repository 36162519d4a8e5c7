"""One word per concept: no catalog says a glossary concept with a synonym the glossary avoids."""

import re
import tomllib
from pathlib import Path

import pytest

from linecnn.lesson.comments import COMMENTS, PRINTS
from linecnn.ui import i18n

GLOSSARY_FILE = Path(i18n.__file__).parent / "locales" / "glossary.toml"
GLOSSARY = tomllib.loads(GLOSSARY_FILE.read_text(encoding="utf-8"))
_FIELD = re.compile(r"\{[^{}]*\}")  # a {field}: a name in code, not a word the reader sees


def texts(language: str) -> dict[str, str]:
    """Every string the reader of ``language`` may see, by key: catalogs, and the lesson's own words."""
    found = dict(i18n.catalog(language))
    found |= {f"lesson.comment.{k}": v for k, v in COMMENTS.get(language, {}).items()}
    found |= {f"lesson.print.{k}": v for k, v in PRINTS.get(language, {}).items()}
    return found


def violations(strings: dict[str, str], glossary: dict) -> list[str]:
    """'key: concept: matched words' for each string that says a concept with an avoided word."""
    found = []
    for key, text in strings.items():
        words = _FIELD.sub(" ", text)
        for concept, entry in glossary.items():
            for pattern in entry["avoid"]:
                for match in re.finditer(pattern, words, re.IGNORECASE):
                    found.append(f"{key}: {concept}: {match.group(0)!r}, say {entry['use']!r}")
    return found


@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_each_concept_has_one_word_in_every_catalog(language):
    """No string of the language uses a synonym its glossary avoids."""
    assert violations(texts(language), GLOSSARY[language]) == []


@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_every_glossary_word_is_in_use(language):
    """A glossary entry names a word its catalogs really use, so the glossary stays current."""
    everything = " ".join(texts(language).values()).lower()
    for concept, entry in GLOSSARY[language].items():
        assert entry["use"].lower() in everything, concept


def test_the_check_catches_a_synonym_but_not_a_neighbouring_meaning():
    """'precisión' for accuracy fails, 'media precisión' (half precision) and a {field} name do not."""
    spanish = GLOSSARY["es"]
    assert violations({"a": "precisión de validación"}, spanish)
    assert violations({"b": "una corrida en CPU"}, spanish)
    assert violations({"c": "clase oblicua"}, spanish)
    assert violations({"d": "Entrena con datos *variados*"}, spanish)
    assert not violations({"e": "Cálculo en media precisión (AMP)", "f": "lote {batch}"}, spanish)
    assert violations({"g": "Train on *varied* data"}, GLOSSARY["en"])
    assert not violations({"h": "Half-precision maths (AMP)"}, GLOSSARY["en"])
