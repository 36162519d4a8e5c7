"""The Benchmark page's History: pick stored runs to show, import a JSON from elsewhere, delete a run.

What a session may do follows its rights (``linecnn.classroom.roles``): a student lists their own runs,
only those allowed see Delete, and no sentence names where the history lives on the server.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from linecnn.bench.document import BenchDocument
from linecnn.bench.factors import FACTORS, SINGLE
from linecnn.bench.jsonfields import MAX_FILE_BYTES
from linecnn.bench.store import SOURCES, History, RunSummary
from linecnn.classroom.roles import Rights, Role
from linecnn.ui import notice
from linecnn.ui.bench.history.teacher import render_teacher_tools
from linecnn.ui.bench.state import DELETE, MESSAGE, SHOWN, history, history_problem, visible_runs
from linecnn.ui.bench.words import factor_words
from linecnn.ui.format import device_short, escape_markdown
from linecnn.ui.i18n import count, number, t
from linecnn.ui.notice import Notice
from linecnn.ui.roles import session_rights
from linecnn.ui.run_files import shown_name
from linecnn.ui.streamlit_private import UploadedFile
from linecnn.ui.whole_name import show_whole_name
from linecnn.untrusted import plain_text

IMPORT_MESSAGE = "bench.import.message"  # {file id: Notice (ui.notice)} of the files in the uploader
WATCH_SECONDS = 5.0  # how often an open Benchmark page checks whether another session changed the history


@st.fragment(run_every=WATCH_SECONDS)
def watch_history(shown: tuple[int, int, int]) -> None:
    """Rerun the page when the history no longer holds what it shows (``shown``: its ``History.version``).

    The history is shared by every session of the server: a teacher's list, count and class board
    would otherwise stay as they were until the teacher's next click. An unchanged history costs
    one small query and draws nothing.
    """
    try:
        now = history().version()
    except ValueError:
        return  # unreadable now: the next full run of the page says so
    if now != shown:
        st.rerun(scope="app")


def run_label(summary: RunSummary) -> str:
    """'#7 · 2026-06-01 14:03 · data sweep · 360–36,000 images · CPU, CUDA:0 · imported · AMD EPYC'.

    A picker shows its options as plain text, so the names an imported file gave its machine and
    devices are only cut and made visible (``plain_text``), not escaped for Markdown.
    """
    when = summary.created.replace("T", " ")[:16]
    sweep = factor_words(summary.sweep, "sweep") if summary.sweep in FACTORS else summary.sweep
    timed = timed_words(summary)
    sweep += f" · {timed}" if timed else ""
    origin = f" · {t('bench.source.import')}" if summary.source == "import" else ""
    who = f" · {summary.owner_name}" if summary.owner_name else ""
    devices = ", ".join(device_short(device) for device in summary.devices.split(", "))
    label = f"#{summary.id} · {when} · {sweep} · {devices}{origin} · {summary.machine}{who}"
    return plain_text(label)


def timed_words(summary: RunSummary) -> str:
    """What a run timed: '360 images', '360 images, batches of 64', '360–36,000 images'; '' when not known."""
    span = summary.timed
    if span is None or summary.sweep not in FACTORS:
        return ""
    if span.low == span.high:
        words = factor_words(summary.sweep, "x", n=_value(span.low))
    else:
        words = factor_words(summary.sweep, "span", low=_value(span.low), high=_value(span.high))
    if summary.sweep == SINGLE.name and span.batch is not None and span.batch < span.low:
        return t("bench.history.in_batches", images=words, batch=number(span.batch))
    return words


def _value(x: float) -> str:
    """A stored value with the language's separators: whole, or to one decimal when it is not."""
    return number(x, 0 if float(x).is_integer() else 1)


def render_history() -> list[RunSummary] | None:
    """Pick stored runs to compare, import a JSON made by the CLI on another machine, delete a run.

    Returns every stored run (the class board lists them too), or None when the history cannot be read.
    """
    st.subheader(t("bench.history.title"))
    store, session = history(), session_rights()
    try:
        everyone, shown = store.runs(), store.version()
    except ValueError as error:
        st.error(t("bench.history.unreadable", error=history_problem(error)), icon=":material/error:")
        return None
    watch_history(shown)
    summaries: dict[int, RunSummary] = {r.id: r for r in visible_runs(everyone, session)}
    _import(store, session)
    # A run deleted since it was picked (by a teacher, or in another tab) leaves the screen quietly,
    # the last one too: loading it would only warn, in the core's English, that it is missing.
    st.session_state[SHOWN] = [i for i in st.session_state.get(SHOWN, []) if i in summaries]
    if not summaries:
        st.caption(t("bench.history.empty" if session.sees_all else "bench.history.empty_own"))
        render_teacher_tools(store, session)
        return everyone
    st.multiselect(
        t("bench.history.shown"),
        options=list(summaries),
        format_func=lambda i: run_label(summaries[i]),
        key=SHOWN,
        persist_state="session",
        placeholder=t("common.choose_many"),
    )
    runs = count(len(summaries))
    st.caption(t("bench.history.count" if session.sees_all else "bench.history.count_own", count=runs))
    if session.delete:
        _delete_control(store, summaries)
    else:  # say why there is no Delete, rather than leave a student looking for it
        why = "teachers_delete" if session.role is Role.STUDENT else "nobody_deletes"
        st.caption(t(f"bench.history.{why}"))
    render_teacher_tools(store, session)
    return everyone


def _import(store: History, session: Rights) -> None:
    """The upload of CLI JSONs, several at once: each stored and shown, or refused with its reason.

    A teacher collects a class's files in one go, so one bad file is said under its name and the
    good ones beside it are still imported.
    """
    uploads = st.file_uploader(
        t("bench.import.label"),
        key="bench.upload",
        accept_multiple_files=True,
        max_upload_size=MAX_FILE_BYTES // 10**6,
        help=t("bench.import.help"),
    )
    said: dict[str, Notice] = st.session_state.setdefault(IMPORT_MESSAGE, {})
    added = False
    for upload in uploads:
        if upload.file_id not in said:
            said[upload.file_id], stored = _import_one(store, session, upload)
            added = added or stored
    # What each file did is said while it stays in the uploader; a file taken out takes its line along.
    present = {upload.file_id for upload in uploads}
    for file_id in [i for i in said if i not in present]:
        del said[file_id]
    if added:
        st.rerun()  # the picker lists a new run only in a run that reads the history again
    for upload in uploads:  # with several files, each line names its file
        line = said[upload.file_id]
        line = line if len(uploads) == 1 else _named(shown_name(upload.name), line)
        notice.show_notice(line, icon=":material/upload_file:", error_icon=":material/error:")


def _import_one(store: History, session: Rights, upload: UploadedFile) -> tuple[Notice, bool]:
    """Import one uploaded file: what to say about it, and whether it reached the history."""
    # Each refusal is worded at each showing, so it follows a language switch while the file stays.
    if not upload.name.lower().endswith(".json"):  # the browser lets any file through, so it is said here
        name = shown_name(upload.name)  # the sentence is escaped whole: _ and . in a name mean Markdown
        return lambda: ("error", _refused(escape_markdown(t("bench.import.not_json", name=name)))), False
    if upload.size > MAX_FILE_BYTES:  # the browser enforces the limit too; a script client may not
        megabytes, limit = upload.size / 1e6, MAX_FILE_BYTES / 1e6
        too_big = partial(t, "bench.import.too_big", size=number(megabytes, 1), limit=number(limit))
        return lambda: ("error", _refused(too_big())), False
    try:
        document = BenchDocument.from_json(upload.getvalue())
        twin = store.stored(document)
        run_id = store.save(document, "import", session.user, session.name) if twin is None else twin.id
    except ValueError as error:
        problem = partial(history_problem, error)  # kept: Python forgets ``error`` after this block
        return lambda: ("error", _refused(problem())), False
    if twin is None or session.sees_all or twin.user_owns(session.user):
        st.session_state[SHOWN] = list(dict.fromkeys([*st.session_state.get(SHOWN, []), run_id]))
    return partial(_imported, run_id, twin), True


def _refused(problem: str) -> str:
    """'This file cannot be imported.' and why."""
    return t("bench.import.refused", error=problem)


def _named(name: str, said: Notice) -> Notice:
    """``said`` under the file's name, so a batch of uploads tells which file each line is about."""

    def worded() -> tuple[str, str]:
        kind, text = said()
        return kind, t("bench.import.file", name=escape_markdown(name), said=text)

    return worded


def _imported(run_id: int, found: RunSummary | None) -> tuple[str, str]:
    """The message after an upload: imported as a new run, or already in the history (and where from)."""
    if found is None:
        return "success", t("bench.import.done", run=run_id)
    source = t(f"bench.source.{found.source}") if found.source in SOURCES else found.source
    when = escape_markdown(found.created.replace("T", " ")[:16])
    return "info", t("bench.import.already", run=run_id, source=source, when=when)


def _delete_control(store: History, summaries: dict[int, RunSummary]) -> None:
    """Delete one run from the history, for every viewer of this server, after a confirmation."""
    with st.expander(t("bench.delete.title"), icon=":material/delete:"):
        doomed = st.selectbox(
            t("bench.delete.pick"),
            options=list(summaries),
            index=None,
            format_func=lambda i: run_label(summaries[i]),
            key=DELETE + ".run",
            placeholder=t("bench.delete.placeholder"),
        )
        show_whole_name(run_label(summaries[doomed]) if doomed in summaries else None)
        sure = st.checkbox(t("bench.delete.sure"), key=DELETE + ".sure")
        st.button(
            t("bench.delete.button"),
            icon=":material/delete:",
            disabled=doomed is None or not sure,
            key=DELETE,
            on_click=_delete,
            args=(store, doomed),
        )


def _delete(store: History, run_id: int) -> None:
    """The Delete button's callback: forget the run, take it off screen, reset the control."""
    try:
        store.delete(run_id)
    except ValueError as error:
        notice.keep(MESSAGE, notice.said("error", history_problem, error))
    else:
        notice.keep(MESSAGE, notice.said("info", t, "bench.delete.done", run=run_id))
    st.session_state[SHOWN] = [i for i in st.session_state.get(SHOWN, []) if i != run_id]
    st.session_state[DELETE + ".run"] = None
    st.session_state[DELETE + ".sure"] = False
