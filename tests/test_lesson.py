"""The lesson's snippets: each really runs on the CPU, prints its real output, and is shown as it runs."""

import ast
import re

import pytest
import torch

from linecnn.device import PORTABLE_PATTERN
from linecnn.lesson import snippets as lesson
from linecnn.lesson.comments import COMMENTS, PRINTS
from linecnn.lesson.run import run
from linecnn.lesson.translate import code_tokens, translate_comments
from linecnn.train.config import RunConfig
from linecnn.ui.lesson.snippets import printed_number
from tests.i18n_check import english_numbers_in

SNIPPETS = [snippet for section in lesson.SECTIONS for snippet in section.snippets]

# What each snippet prints on the CPU: every line listed must be in its output.
ON_CPU = {
    "device": ["x lives on: cpu", "after .to(device): cpu", "kind of device: cpu"],
    "detect": [f"CUDA available: {torch.cuda.is_available()}", f"GPUs visible: {torch.cuda.device_count()}"],
    "move": ["before: cpu cpu", "after: cpu cpu cpu", "images: (360, 1, 8, 8)"],
    "mismatch.mistake": ["torch.Size([4, 3])"],
    "mismatch.fix": ["logits on cpu with shape (4, 3)"],
    "evaluate": ["validation images: 180 on cpu", "gradients tracked: False"],
    "portable": ["the sidebar picked: cpu", "epoch 10: loss", "epoch 30: loss"],
    "speed": ["100 images:", "10000 images:", "µs per step"],
}


def test_the_sections_follow_the_lesson():
    """Device, detection, moving, the mistake and its fix, evaluation, the pattern, speed."""
    assert [s.key for s in lesson.SECTIONS] == [
        "device", "detect", "move", "mismatch", "evaluate", "portable", "speed"
    ]
    assert [s.key for s in SNIPPETS] == list(ON_CPU)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.key)
def test_every_snippet_runs_on_the_cpu_and_returns_what_it_printed(snippet, capsys):
    """Run for real on the CPU: no error, the expected lines printed, nothing leaked to stdout."""
    outcome = run(snippet.text("en"), torch.device("cpu"))
    assert outcome.error is None and outcome.device == "cpu" and outcome.seconds > 0
    for line in ON_CPU[snippet.key]:
        assert line in outcome.output, (line, outcome.output)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.key)
def test_translations_differ_only_in_their_comments_and_printed_texts(snippet):
    """Each language shows the same code: the tokens match once comments and string texts are dropped."""
    english, spanish = snippet.text("en"), snippet.text("es")
    assert code_tokens(english) == code_tokens(spanish)
    assert english != spanish, "the Spanish snippet has Spanish comments"
    assert not set(comments(english)) & set(comments(spanish)), "no comment is left in English"
    assert english.splitlines()[0] == spanish.splitlines()[0] and len(english.splitlines()) == len(
        spanish.splitlines()
    )


def comments(code: str) -> list[str]:
    """The text of each comment in ``code``, in order."""
    return [line.split("# ", 1)[1] for line in code.splitlines() if "# " in line]


def test_each_snippet_is_stored_once_with_a_translation_for_every_comment():
    """One code text per snippet; the Spanish table holds exactly the comments the snippets have."""
    assert all(isinstance(snippet.code, str) for snippet in SNIPPETS)
    written = {comment for snippet in SNIPPETS for comment in comments(snippet.code)}
    assert set(COMMENTS["es"]) == written


def printed_literals(code: str) -> set[str]:
    """The source text of every string literal passed to ``print`` in ``code``."""
    return {
        ast.get_source_segment(code, arg)
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"
        for arg in node.args
        if isinstance(arg, ast.Constant | ast.JoinedStr) and not isinstance(getattr(arg, "value", ""), int)
    }


def test_every_printed_text_has_a_spanish_entry_and_none_is_left_over():
    """Each string a snippet prints is in the Spanish table, which holds nothing else."""
    written = {literal for snippet in SNIPPETS for literal in printed_literals(snippet.code)}
    assert set(PRINTS["es"]) == written


@pytest.mark.parametrize("snippet", [s for s in SNIPPETS if not s.expects_error], ids=lambda s: s.key)
def test_a_spanish_snippet_prints_spanish_words_and_numbers(snippet):
    """Run in Spanish as the page runs it, no English label of the snippet's prints shows, and no number
    reads the English way ('25,288', '0.6931')."""
    output = run(snippet.text("es"), torch.device("cpu"), printed_number("es")).output
    labels = " ".join(re.sub(r"\{[^}]*\}", " ", literal) for literal in printed_literals(snippet.code))
    english = set(re.findall(r"[^\W\d_]{3,}", labels.lower()))
    shared = {"cuda", "pytorch", "logits", "device", "gpu"}  # names, the same in Spanish
    assert not set(re.findall(r"[^\W\d_]{3,}", output.lower())) & (english - shared), output
    assert english_numbers_in(output) == [], output


def test_print_writes_the_numbers_it_is_given_the_readers_way():
    """As the page runs a snippet: ints with the language's thousands mark, floats with its decimal mark,
    every digit kept; a bool, a tuple and a text stay as Python writes them."""
    code = 'print("loss", 0.6931, 25288, 0.0005, True, (360, 1), "0.5")'
    spanish = run(code, "cpu", printed_number("es")).output
    english = run(code, "cpu", printed_number("en")).output
    assert spanish == "loss 0,6931 25.288 0,0005 True (360, 1) 0.5\n"
    assert english == "loss 0.6931 25,288 0.0005 True (360, 1) 0.5\n"


def test_a_comment_is_translated_in_place_and_nothing_else_changes():
    """Only the comment's words change: a '#' inside a string and the code around it stay."""
    code = 'print("# not a comment")  # a comment\nx = 1\n'
    assert translate_comments(code, {"a comment": "un comentario"}) == (
        'print("# not a comment")  # un comentario\nx = 1\n'
    )


def test_the_snippets_show_the_lessons_settings_from_run_config():
    """The data, seed and learning rate in the code are RunConfig's defaults, written out."""
    defaults = RunConfig()
    move, portable = lesson.snippet("move").text("en"), lesson.snippet("portable").text("en")
    data = defaults.data
    assert f"DataConfig(per_class={data.per_class}, val_per_class={data.val_per_class})" in move
    assert f"seed={defaults.seed}" in move and f"seed={defaults.seed}" in portable
    assert f"lr={defaults.train.lr}" in portable and "$" not in move + portable


def test_the_code_run_is_the_text_given():
    """run() executes exactly the text it gets: the Spanish text of a snippet prints what its code says."""
    spanish = lesson.snippet("move").text("es")
    english = run(lesson.snippet("move").text("en"), "cpu").output
    words = {"before:": "antes:", "after:": "después:", "images:": "imágenes:"}  # the same run, in Spanish
    for word, palabra in words.items():
        english = english.replace(word, palabra)
    assert run(spanish, "cpu").output == english
    changed = spanish.replace('print("imágenes:", tuple(X.shape))', 'print("labels:", tuple(y.shape))')
    assert "labels: (360,)" in run(changed, "cpu").output


def test_device_names_the_device_given():
    """The name ``device`` in a snippet is the device passed to run()."""
    assert run("print(device, type(device).__name__)", "cpu").output == "cpu device\n"


def test_the_portable_snippet_shows_the_lessons_pattern():
    """The one line of the lesson, as Home shows it, is in the code that runs."""
    assert PORTABLE_PATTERN.split(" = ", 1)[1] in lesson.snippet("portable").text("en")


def test_an_exception_becomes_the_outcomes_error_with_the_output_so_far():
    """A failing snippet returns its error text; what it printed before the failure is kept."""
    outcome = run("print('before')\nraise ValueError('the reason')", "cpu")
    assert outcome.output == "before\n"
    assert outcome.error == "ValueError: the reason"


def test_the_mistake_raises_the_real_error_when_the_model_is_on_another_device():
    """With the model on a second device (PyTorch's 'meta' device here) the forward pass really fails."""
    outcome = run(lesson.snippet("mismatch.mistake").text("en"), "meta")
    assert outcome.error is not None and outcome.error.startswith("RuntimeError: ")
    assert "meta" in outcome.error and "cpu" in outcome.error
    fixed = run(lesson.snippet("mismatch.fix").text("en"), "meta")
    assert fixed.error is None and "logits on meta" in fixed.output


def test_an_unknown_snippet_is_named_with_the_known_ones():
    with pytest.raises(ValueError, match="no lesson snippet 'nope'.*mismatch.fix"):
        lesson.snippet("nope")
