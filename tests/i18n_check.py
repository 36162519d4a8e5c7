"""Finds text a page shows in the same words in English and Spanish: text nobody translated.

A page is rendered twice (AppTest, ``?lang=en`` and ``?lang=es``) and its elements are paired in
order. A pair whose text is identical and holds a real word is untranslated, unless every word
in it is one both languages share (names, units, code). Names the hardware reports (the CPU's and
GPUs' model names) are nobody's to translate and differ from machine to machine, so they are left
out before the words are read. A Spanish page must also write its numbers the Spanish way:
``english_numbers`` finds '0.01' and '25,288' in its texts and its tables' cells.
"""

from __future__ import annotations

import json
import math
import re

from linecnn.ui.builtin_texts import RULES
from tests.helpers import shown

# Words that read the same in both languages, or are names: never a sign of a missed translation.
SHARED_WORDS = {
    "linecnn", "pytorch", "python", "cuda", "cudnn", "cpu", "gpu", "gpus", "nvidia", "amd", "epyc", "intel",
    "mps", "apple", "adam", "relu", "conv", "conv2d", "linear", "maxpool", "softmax", "amp", "nchw",
    "channels_last", "torch", "streamlit", "json", "csv", "safetensors", "linux", "macos", "windows",
    "english", "español", "float", "bfloat", "float16", "bfloat16", "float32", "tf32", "ddp", "torchrun",
    "gloo", "nccl", "batch", "sha", "utc", "gib", "mib", "kib", "ms", "cuda:0", "build", "total",
    "vertical", "horizontal", "diagonal",  # the three classes: the same words in Spanish
}
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
_TEXT_FIELDS = ("label", "body", "help", "placeholder", "caption")


def _plotly_texts(spec: str) -> list[str]:
    """Titles, axis titles, legend names and annotations of a Plotly figure's JSON."""
    figure = json.loads(spec)
    layout = figure.get("layout", {})
    texts = [trace.get("name") or "" for trace in figure.get("data", [])]
    for key, value in layout.items():
        if key == "title" or key.startswith(("xaxis", "yaxis")) or key == "legend":
            title = value.get("title") if key != "title" else value
            texts.append(title.get("text", "") if isinstance(title, dict) else str(title or ""))
    texts += [note.get("text", "") for note in layout.get("annotations", [])]
    return texts


def _texts(element) -> list[str]:
    """The human-readable strings of one AppTest element."""
    proto = getattr(element, "proto", None)
    if type(element).__name__ in ("Code", "Html", "Json"):
        return []
    if proto is not None and hasattr(proto, "spec") and proto.DESCRIPTOR.name == "PlotlyChart":
        return _plotly_texts(proto.spec)
    texts = [str(getattr(element, name)) for name in _TEXT_FIELDS if getattr(element, name, None)]
    options = getattr(element, "options", None)
    if options:
        texts += [str(option) for option in options]
    return texts


def rendered_texts(at) -> list[str]:
    """Every text an AppTest (or one of its blocks, e.g. ``at.sidebar``) shows, in document order."""
    found: list[str] = []

    def walk(node) -> None:
        children = getattr(node, "children", None)
        if children:
            for child in children.values():
                walk(child)
        elif children is None:
            found.extend(_texts(node))

    walk(getattr(at, "_tree", at))
    return found


def hardware_names() -> set[str]:
    """The model names this machine's devices report (e.g. "Intel(R) Xeon(R) Processor"), as they are
    and as Markdown quotes them (escaped: "Intel\\(R\\) Xeon\\(R\\) Processor")."""
    from linecnn import device
    from linecnn.ui.format import escape_markdown

    names = {device.cpu_model()} | {info.name for info in device.list_devices()}
    return names | {escape_markdown(name) for name in names}


def is_untranslated(english: str, spanish: str) -> bool:
    """True when the two renderings are the same words and some word is not a shared one."""
    if english != spanish:
        return False
    for name in sorted(hardware_names(), key=len, reverse=True):
        english = english.replace(name, " ")
    return any(word.lower() not in SHARED_WORDS for word in _WORD.findall(english))


# Streamlit's and the canvas's English, as the patterns linecnn.ui.builtin_texts looks for.
BUILTIN_ENGLISH = [re.compile(pattern.replace("(?<", "(?P<")) for _, pattern, _ in RULES]


def is_builtin_english(text: str) -> bool:
    """True when ``text`` is one of Streamlit's or the canvas's own English texts."""
    return any(pattern.fullmatch(text) for pattern in BUILTIN_ENGLISH)


def untranslated(english_at, spanish_at) -> list[str]:
    """The texts a page shows identically in English and Spanish (see ``is_untranslated``)."""
    english, spanish = rendered_texts(english_at), rendered_texts(spanish_at)
    same = set(english) & set(spanish)
    return sorted(text for text in same if is_untranslated(text, text))


# A number with separators: ('0.01', '25,288', '1.234,5'); which way it is written is told below.
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)+(?![\w.,]*\d)")
_GROUPED = re.compile(r"[1-9]\d{0,2}([.,]\d{3})+")  # thousands marks only: '25.288' or '25,288'
# Not numbers a reader computes with: versions, either marked as code as the pages show this
# machine's (`13.0`, linecnn.ui.format.version_code) or right after their product's name as a
# file's are quoted ('PyTorch 2.5.1', 'CUDA 12.4'); other code in backticks; addresses and file names.
_NOT_A_NUMBER = re.compile(
    r"`[^`]*`|https?://\S+|\b[\w.-]+\.(safetensors|json|csv|py)\b"
    r"|\b(PyTorch|torch|CUDA|cuDNN|Python|Streamlit|v)\s*[\d.+\w]+",
    re.IGNORECASE,
)


def is_english_number(number: str) -> bool:
    """True for '0.01', '3.0', '25,288' and '1,234.5'; False for '0,01', '25.288', '1.234,5' and '2.13.0'."""
    if number.count(".") > 1 and not _GROUPED.fullmatch(number):
        return False  # a version, e.g. PyTorch's 2.13.0
    if "," in number and "." in number:
        return number.rfind(".") > number.rfind(",")
    if "," in number:  # '1,115' is a Spanish loss of four significant digits; '25,288' reads as thousands
        return bool(_GROUPED.fullmatch(number)) and (number.count(",") > 1 or number.index(",") > 1)
    return not _GROUPED.fullmatch(number)


def english_numbers_in(text: str) -> list[str]:
    """The numbers ``text`` writes with a decimal point or a thousands comma, versions and code aside."""
    found = (match.group(0) for match in _NUMBER.finditer(_NOT_A_NUMBER.sub(" ", text)))
    return [number for number in found if is_english_number(number)]


def _table_cells(at) -> list[str]:
    """Cells of the page's tables written the English way: fractional numbers Streamlit writes itself,
    or that a table's Styler (``linecnn.ui.tables``) writes with a decimal point or a thousands comma."""
    cells = []
    for table in at.dataframe:
        raw = table.value
        styled = table.proto.arrow_data.HasField("styler")
        written = shown(table).to_numpy().ravel() if styled else [None] * raw.size
        for value, text in zip(raw.to_numpy().ravel(), written, strict=True):
            if not (isinstance(value, float) and math.isfinite(value) and value != int(value)):
                continue
            if text is None:
                cells.append(repr(value))
            else:
                cells += english_numbers_in(str(text))
    return cells


def english_numbers(at) -> list[str]:
    """Numbers a page shows the English way, in its texts or its tables (for a Spanish page: none)."""
    found = [number for text in rendered_texts(at) for number in english_numbers_in(text)]
    return found + _table_cells(at)
