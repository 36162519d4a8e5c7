"""Finds text a page shows in the same words in English and Spanish: text nobody translated.

A page is rendered twice (AppTest, ``?lang=en`` and ``?lang=es``) and its elements are paired in
order. A pair whose text is identical and holds a real word is untranslated, unless every word
in it is one both languages share (names, units, code). Names the hardware reports (the CPU's and
GPUs' model names) are nobody's to translate and differ from machine to machine, so they are left
out before the words are read.
"""

from __future__ import annotations

import json
import re

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


def untranslated(english_at, spanish_at) -> list[str]:
    """The texts a page shows identically in English and Spanish (see ``is_untranslated``)."""
    english, spanish = rendered_texts(english_at), rendered_texts(spanish_at)
    same = set(english) & set(spanish)
    return sorted(text for text in same if is_untranslated(text, text))
