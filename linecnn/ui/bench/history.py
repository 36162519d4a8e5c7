"""The Benchmark page's History: pick stored runs to show, import a JSON from elsewhere, delete a run."""

from __future__ import annotations

import streamlit as st

from linecnn.bench.factors import FACTORS
from linecnn.bench.jsonfields import MAX_FILE_BYTES
from linecnn.bench.store import History, RunSummary
from linecnn.ui.bench.state import DELETE, IMPORTED, MESSAGE, SHOWN, history
from linecnn.ui.bench.words import factor_words
from linecnn.ui.format import escape_markdown
from linecnn.ui.i18n import number, t
from linecnn.untrusted import plain_text


def run_label(summary: RunSummary) -> str:
    """'#7 · 2026-06-01 14:03 · data sweep · cpu, cuda:0 · imported · AMD EPYC'.

    A picker shows its options as plain text, so the names an imported file gave its machine and
    devices are only cut and made visible (``plain_text``), not escaped for Markdown.
    """
    when = summary.created.replace("T", " ")[:16]
    sweep = factor_words(summary.sweep, "sweep") if summary.sweep in FACTORS else summary.sweep
    origin = f" · {t('bench.source.import')}" if summary.source == "import" else ""
    return plain_text(f"#{summary.id} · {when} · {sweep} · {summary.devices}{origin} · {summary.machine}")


def render_history() -> None:
    """Pick stored runs to compare, import a JSON made by the CLI on another machine, delete a run."""
    st.subheader(t("bench.history.title"))
    store = history()
    try:
        summaries: dict[int, RunSummary] = {r.id: r for r in store.runs()}
    except ValueError as error:
        st.error(t("bench.history.unreadable", error=escape_markdown(error)), icon=":material/error:")
        return
    _import(store)
    if not summaries:
        st.caption(t("bench.history.empty", path=escape_markdown(store.path)))
        return
    st.session_state[SHOWN] = [i for i in st.session_state.get(SHOWN, []) if i in summaries]
    st.multiselect(
        t("bench.history.shown"),
        options=list(summaries),
        format_func=lambda i: run_label(summaries[i]),
        key=SHOWN,
        persist_state="session",
    )
    st.caption(t("bench.history.count", count=number(len(summaries)), path=escape_markdown(store.path)))
    _delete_control(store, summaries)


def _import(store: History) -> None:
    """The upload of a CLI JSON: stored and shown, or refused with the reason."""
    upload = st.file_uploader(
        t("bench.import.label"),
        type=["json"],
        key="bench.upload",
        max_upload_size=MAX_FILE_BYTES // 10**6,
        help=t("bench.import.help"),
    )
    if upload is None or upload.file_id in st.session_state.setdefault(IMPORTED, []):
        return
    st.session_state[IMPORTED].append(upload.file_id)
    try:
        if upload.size > MAX_FILE_BYTES:  # the browser enforces the limit too; a script client may not
            raise ValueError(
                t(
                    "bench.import.too_big",
                    size=number(upload.size / 1e6, 1),
                    limit=number(MAX_FILE_BYTES / 1e6),
                )
            )
        run_id = store.import_json(upload.getvalue())
    except ValueError as error:
        st.error(t("bench.import.refused", error=escape_markdown(error)), icon=":material/error:")
    else:
        st.session_state[SHOWN] = list(dict.fromkeys([*st.session_state.get(SHOWN, []), run_id]))
        st.rerun()


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
        st.session_state[MESSAGE] = ("error", escape_markdown(error))
    else:
        st.session_state[MESSAGE] = ("info", t("bench.delete.done", run=run_id))
    st.session_state[SHOWN] = [i for i in st.session_state.get(SHOWN, []) if i != run_id]
    st.session_state[DELETE + ".run"] = None
    st.session_state[DELETE + ".sure"] = False
