"""Texts Streamlit and the drawing canvas write themselves, said in the reader's language.

Some words on a page come from the widgets' own code, in English, with no option to set them:
the file uploader's button, its size limit and its refusals ("Upload", "8MB per file"), the
screen-reader name of every help icon ("Help for Seed") and of other controls ("Collapse
sidebar", "Increment"), Plotly's toolbar, and the canvas toolbar's tooltips ("Undo", "Reset
canvas & history"). A small script finds each by its English words and writes the catalog's
sentence in its place: a text node's value, or a ``title``, ``aria-label`` or ``data-title``
(Plotly's tooltips) attribute, never an element of the widget's own, so uploads and drawing
work as before. It keeps each original and puts it back on an English page. In every language it
also gives a help icon's "?" button its tooltip as the description a screen reader reads with the
button's name (Streamlit gives it to the unfocusable element around it). Should a Streamlit
upgrade change an English text, nothing breaks: that text stays English, and the browser test
that compares each page's texts in both languages fails.

A table's cells are drawn on a canvas; what a screen reader reads is a table the grid keeps beside
them, where each number is written as JavaScript writes it ('5.39'). The script writes those with
the language's marks ('5,39'), as the drawn cell shows it.
"""

from __future__ import annotations

import re

import streamlit as st

from linecnn.ui.i18n import DEFAULT, current, translate
from linecnn.ui.web import asset

# (where, the widget's English as a JavaScript regular expression, the catalog key of our text).
# "text": a text node inside a file uploader, the skip link, a box's "Press Enter" hint, a dialog or
# a dropdown's option; "attr": an attribute (see builtin-texts.js) anywhere, canvas included. Every pattern
# is also listed in that file's header, for the browser test that checks Streamlit still writes it.
# A named group fills the catalog field of the same name.
RULES = (
    ("text", r"^Upload$", "builtin.upload"),
    ("text", r"^Drag and drop a file here$", "builtin.drop_one"),
    ("text", r"^Drag and drop files here$", "builtin.drop_many"),
    # The uploader writes sizes as '2MB' and '2.0MB': said with the reader's decimal mark and a space
    # before the unit; a size of any other form falls to the rule after, and is kept as it is.
    ("text", r"^(?<whole>\d+)(?<unit>[KMGT]?B) per file$", "builtin.per_file_whole"),
    ("text", r"^(?<size>\S+) per file$", "builtin.per_file"),
    (
        "text",
        r"^File must be (?<whole>\d+)\.(?<fraction>\d+)(?<unit>[KMGT]?B) or smaller\.$",
        "builtin.too_big",
    ),
    ("text", r"^File must be (?<size>.+) or smaller\.$", "builtin.too_large"),
    ("text", r"^(?<type>.+) files are not allowed\.$", "builtin.wrong_type"),
    ("text", r"^files are not allowed\.$", "builtin.wrong_type_unnamed"),  # a file with no extension
    ("text", r"^Only one file is allowed\.$", "builtin.only_one"),
    ("text", r"^File size is too small\.$", "builtin.too_small"),
    ("text", r"^Unexpected error\. Please try again\.$", "builtin.unexpected"),
    ("text", r"^Upload failed$", "builtin.failed"),
    ("text", r"^Skip to main content$", "builtin.skip"),
    ("text", r"^Press Enter to apply$", "builtin.press_enter"),
    # The dialog the page shows while the server is gone (stopped, restarting): a class sees it mid-lesson.
    ("text", r"^Connection error$", "builtin.connection_error"),
    ("text", r"^Streamlit server is not responding\. Are you connected to the internet\?$", "builtin.silent"),
    (
        "text",
        r"^Is Streamlit still running\? If you accidentally stopped Streamlit, just restart it in your "
        r"terminal:$",
        "builtin.still_running",
    ),
    # A picker's dropdown (the run pickers of Train and Benchmark): its bulk choice and its empty list.
    ("text", r"^Select all$", "builtin.select_all"),
    ("text", r"^Select (?<count>\d+) matches$", "builtin.select_matches"),
    ("text", r"^No results$", "builtin.no_results"),
    ("text", r"^(?<whole>\d+)\.(?<fraction>\d+) ?(?<unit>[KMGT]?B)$", "builtin.file_size"),
    ("attr", r"^(?<name>.+), (?<whole>\d+)\.(?<fraction>\d+) ?(?<unit>[KMGT]?B)$", "builtin.file_chip"),
    ("attr", r"^Remove (?<name>.+)$", "builtin.remove"),
    ("attr", r"^Cancel upload of (?<name>.+)$", "builtin.cancel_upload"),
    ("attr", r"^Click to retry upload$", "builtin.retry"),
    ("attr", r"^Add files$", "builtin.add_files"),
    ("attr", r"^Help$", "builtin.help"),
    ("attr", r"^Help for (?<label>.+)$", "builtin.help_for"),
    ("attr", r"^Update the app with this drawing$", "builtin.send"),
    ("attr", r"^Undo$", "builtin.undo"),
    ("attr", r"^Redo$", "builtin.redo"),
    ("attr", r"^Edit$", "builtin.edit"),
    ("attr", r"^Bring forward$", "builtin.forward"),
    ("attr", r"^Send backward$", "builtin.backward"),
    ("attr", r"^Delete selected$", "builtin.delete_selected"),
    ("attr", r"^Reset canvas & history$", "builtin.reset"),
    # Streamlit's and Plotly's other screen-reader names and tooltips.
    ("attr", r"^Collapse sidebar$", "builtin.collapse_sidebar"),
    ("attr", r"^Expand sidebar$", "builtin.expand_sidebar"),
    ("attr", r"^Sidebar$", "builtin.sidebar"),
    ("attr", r"^Increment$", "builtin.increment"),
    ("attr", r"^Decrement$", "builtin.decrement"),
    ("attr", r"^Fullscreen$", "builtin.fullscreen"),
    ("attr", r"^Close fullscreen$", "builtin.close_fullscreen"),
    ("attr", r"^Link to heading$", "builtin.heading_link"),
    ("attr", r"^Open$", "builtin.open"),
    ("attr", r"^Close$", "builtin.close"),
    ("attr", r"^file upload$", "builtin.file_upload"),
    ("attr", r"^progress$", "builtin.progress"),
    ("attr", r"^Copy to clipboard$", "builtin.copy"),
    ("attr", r"^Download as CSV$", "builtin.download_csv"),
    ("attr", r"^Search$", "builtin.search"),
    ("attr", r"^Show/hide columns$", "builtin.columns"),
    ("attr", r"^Clear all$", "builtin.clear_all"),
    ("attr", r"^Selected values$", "builtin.selected"),
    ("attr", r"^Download plot as a PNG$", "builtin.plot_png"),
    ("attr", r"^Zoom$", "builtin.zoom"),
    ("attr", r"^Pan$", "builtin.pan"),
    ("attr", r"^Zoom in$", "builtin.zoom_in"),
    ("attr", r"^Zoom out$", "builtin.zoom_out"),
    ("attr", r"^Autoscale$", "builtin.autoscale"),
    ("attr", r"^Reset axes$", "builtin.reset_axes"),
)

_JS = asset("builtin-texts.js")
_builtin_texts = st.components.v2.component("linecnn_builtin_texts", js=_JS)
_FIELD = re.compile(r"\{(\w+)\}")


def rules(language: str) -> list[list[str]]:
    """[where, English pattern, replacement] for ``language``; none for English, which keeps the originals."""
    if language == DEFAULT:
        return []
    said = []
    for where, pattern, key in RULES:
        # A catalog {field} becomes the JavaScript replacement of the group of the same name.
        text = _FIELD.sub(r"$<\1>", translate(language, key).replace("$", "$$"))
        said.append([where, pattern, text])
    return said


def say_builtin_texts() -> None:
    """Write the widgets' own English texts in the session's language (see the module's docstring)."""
    language = current()
    numbers = None if language == DEFAULT else language  # JavaScript already writes numbers the English way
    _builtin_texts(key="builtin_texts", data={"rules": rules(language), "language": numbers})
