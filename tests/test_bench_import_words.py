"""Every refusal of a benchmark import in the reader's language: Spanish on a Spanish page, English as was."""

from __future__ import annotations

import json
import re

import pytest

from linecnn.bench.document import BenchDocument
from linecnn.bench.reference import load as reference
from linecnn.errors import Message, UserError
from linecnn.ui import i18n
from linecnn.ui.i18n import say
from tests.bench_fixture import bad_documents, hostile_imports
from tests.helpers import app_test
from tests.i18n_check import SHARED_WORDS
from tests.test_bench_hostile import upload
from tests.test_bench_page import PAGE

# Each malformed or hostile file, with a fragment of the English sentence that refuses it
CASES = {name: (json.dumps(document), said) for name, (document, said) in bad_documents().items()}
CASES |= hostile_imports()
_WORD = re.compile(r"[^\W\d_]{3,}")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")  # a value as the file writes it ("ok", 'env'), in any language
SHARED = SHARED_WORDS | {"unicode", "utf"}  # words both languages write alike


@pytest.fixture(autouse=True)
def private_history(tmp_path, monkeypatch):
    """Every test gets its own empty history and no bundled reference."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(reference, "FOLDER", tmp_path / "references")


def refusal(text: str | bytes) -> UserError:
    """The error that refuses ``text`` as a benchmark JSON: a keyed sentence, never plain English."""
    with pytest.raises(UserError) as caught:
        BenchDocument.from_json(text)
    return caught.value


def words(text: str) -> set[str]:
    """The words of a text, lower-cased."""
    return {word.lower() for word in _WORD.findall(text)}


def file_words(message: Message) -> set[str]:
    """The words of what a sentence quotes from the file (its keys and values), at any depth."""
    found: set[str] = set()
    for value in message.values.values():
        for item in value if isinstance(value, tuple) else (value,):
            found |= file_words(item) if isinstance(item, Message) else words(str(item))
    return found


def shown(markdown: str) -> str:
    """Markdown as a reader sees it: its escapes and the word joiners that break autolinks removed."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


@pytest.mark.parametrize(("name", "case"), CASES.items(), ids=list(CASES))
def test_every_refusal_reads_in_spanish_and_keeps_its_english(name, case):
    """The page's English is the sentence the CLI prints; the Spanish keeps no English word of it but the
    file's own keys and values and the words both languages share."""
    text, fragment = case
    error = refusal(text)
    english, spanish = say(error, "en"), say(error, "es")
    assert fragment in str(error) and shown(english) == str(error)
    left = words(english) & words(_QUOTED.sub(" ", spanish)) - SHARED - file_words(error.message)
    assert not left, spanish


def test_refusals_read_as_a_spanish_student_would_write_them():
    """Three refusals in full: a field of a result, a place in the document, a setting out of range."""
    cases = bad_documents()
    assert shown(say(refusal(json.dumps(cases["median is text"][0])), "es")) == (
        "Este JSON de medición no se puede usar: el campo median_ms del resultado 1 es \"fast\", "
        "no un número de 0 a 9,22e+18."
    )
    assert shown(say(refusal(json.dumps(cases["env devices hold a number"][0])), "es")) == (
        "Este JSON de medición no se puede usar: el campo «env.devices» no es una lista de objetos."
    )
    assert shown(say(refusal(json.dumps(cases["images per class beyond any sweep"][0])), "es")) == (
        "Este JSON de medición no se puede usar: el campo config del resultado 1 no es válido: Imágenes "
        "por clase: debe ser un número entero de 1 a 2.000.000; se recibió 1.099.511.627.776."
    )


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_refused_field_is_said_in_the_pages_language(language):
    """A file refused for one field is refused on the page in the page's language, numbers its way too
    (uploaded on the English page, then switched: AppTest cannot touch a select box after a switch)."""
    document, _ = bad_documents()["p25 above the median"]
    error = refusal(json.dumps(document))
    at = upload(app_test(PAGE), json.dumps(document))
    at.session_state[i18n.LANGUAGE] = language
    at.run()
    cannot = {"en": "This file cannot be imported.", "es": "Este archivo no se puede importar."}[language]
    assert [e.value for e in at.error] == [f"{cannot} {say(error, language)}"]
    quartiles = {"en": "1e\\+09, 6\\.0072 and 6\\.12734 ms", "es": "1e\\+09, 6,0072 y 6,12734 ms"}[language]
    assert quartiles in at.error[0].value
