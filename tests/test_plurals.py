"""Counts agree with their nouns: '1 ejecución', '2 ejecuciones', never '1 ejecuciones'."""

import re
import string

import pytest

from linecnn.ui import i18n
from linecnn.ui.i18n import Count

# A count field written straight before a plural noun, without a {field:one|other} spec: '1 runs'.
BARE_PLURAL = re.compile(
    r"\{(count|runs|threads|ranks|cells|skipped|oom|noisy|failed)\} "
    r"(runs|threads|processes|cells|logical CPUs|ejecuciones|hilos|procesos|celdas|CPU lógicas)\b"
)

# Strings whose count is never 1: a comparison with the 1-process run, or a core sentence about
# splitting work over several processes.
ALWAYS_SEVERAL = {
    "ddp.why_poor",
    "ddp.why_good",
    "ddp.why_superlinear",
    "ddp.why_cores",
    "errors.step_not_shared",
    "errors.too_few_gpus",
    "errors.too_few_cores",
}


def counted_fields(text: str) -> set[str]:
    """The fields a catalog string writes with a singular|plural spec."""
    return {name for _, name, spec, _ in string.Formatter().parse(text) if name and spec and "|" in spec}


def filled(text: str, language: str, value: int) -> str:
    """``text`` with its counted fields set to ``value`` and every other field to 'x'."""
    names = {name for _, name, _, _ in string.Formatter().parse(text) if name}
    counted = counted_fields(text)
    return text.format(**{name: Count(value, language) if name in counted else "x" for name in names})


@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_no_count_is_written_before_a_bare_plural(language):
    """A count of runs, threads, processes or cells names its noun through a singular|plural spec."""
    catalog = i18n.catalog(language).items()
    bare = {key: text for key, text in catalog if BARE_PLURAL.search(text) and key not in ALWAYS_SEVERAL}
    assert bare == {}


@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_every_counted_string_reads_for_one_and_for_many(language):
    """Each string with a count spec formats for 1 and 2, and says it differently."""
    counted = {key: text for key, text in i18n.catalog(language).items() if counted_fields(text)}
    assert len(counted) >= 15
    for key, text in counted.items():
        assert filled(text, language, 1) != filled(text, language, 2), key


def test_one_run_is_singular_and_numbers_keep_the_languages_marks():
    """'1 ejecución', '2 ejecuciones', '1.500 ejecuciones'; '1 run', '1,500 runs'."""

    def runs(language: str, n: int) -> str:
        return i18n.translate(language, "bench.history.count", count=Count(n, language), path="p")

    spanish = [runs("es", n).split(" en ")[0] for n in (1, 2, 1500)]
    assert spanish == ["1 ejecución", "2 ejecuciones", "1.500 ejecuciones"]
    assert [runs("en", n).split(" in ")[0] for n in (1, 1500)] == ["1 run", "1,500 runs"]
    one = Count(1, "es")
    assert i18n.translate("es", "home.cpu_facts", model="m", count=one, threads=one) == (
        "m, 1 CPU lógica; torch usa 1 hilo"
    )


def test_a_count_without_a_spec_or_with_a_bad_one():
    """An unknown count reads '?' with the plural; a spec without a bar is a mistake that fails loudly."""
    assert f"{Count(None, 'es')} {Count(None, 'es'):hilo|hilos}" == "? hilos"
    with pytest.raises(ValueError, match="singular|plural"):
        format(Count(2, "en"), "runs")
