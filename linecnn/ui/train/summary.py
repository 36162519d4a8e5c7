"""The Train page's summary of a finished run: final metrics, speed, diagnosis and confusion matrix."""

from __future__ import annotations

import streamlit as st

from linecnn.train.diagnosis import find_problem, weights_fingerprint
from linecnn.ui import i18n, state
from linecnn.ui.agree import show_on_train
from linecnn.ui.chart import show_chart
from linecnn.ui.format import device_short, device_text
from linecnn.ui.i18n import duration, t
from linecnn.ui.train import charts
from linecnn.ui.train.compare import significant
from linecnn.ui.train.controls import batch_choice, batch_text

WAIT_SHOWN = 0.05  # seconds: a shorter wait for a benchmark is not worth a line


def summary(record: state.RunRecord) -> None:
    """Final metrics of a run, then its validation confusion matrix."""
    last = record.history[-1]
    ending = "time_cap" if record.out_of_time else "stopped" if record.stopped else "done"
    # A stopped run's label already says so ('stopped at 3'); its title adds how many epochs were planned.
    planned = i18n.count(record.config.train.epochs)
    st.subheader(t(f"train.summary.title_{ending}", label=record.label, planned=planned))
    problem = diagnosis(record)
    if problem:
        st.warning(problem, icon=":material/warning:")
    left, right = st.columns([3, 2], gap="large")
    with left:
        row = st.columns(3)
        row[0].metric(t("train.metric.val_acc"), i18n.percent(last.val_acc, 1))
        row[1].metric(t("train.metric.val_loss"), loss_text(last.val_loss))
        row[2].metric(t("train.summary.device"), device_short(record.device))
        row = st.columns(3)
        row[0].metric(t("train.metric.train_acc"), i18n.percent(last.train_acc, 1))
        row[1].metric(t("train.metric.train_loss"), loss_text(last.train_loss))
        row[2].metric(t("train.summary.total_time"), duration(last.elapsed_seconds))
        st.markdown(
            t(
                "train.summary.speed",
                ms=i18n.number(1000 * last.elapsed_seconds / last.epoch, 2),
                epochs=i18n.count(last.epoch),
                where=where(record),
                images=i18n.number(record.config.data.train_size),
                batch=batch_text(batch_choice(record.config)),
            )
        )
        show_on_train(record)  # the Benchmark's cell of the same settings, if this session timed one
        if record.waited_seconds >= WAIT_SHOWN:
            st.caption(t("train.summary.waited", time=duration(record.waited_seconds)))
        st.caption(
            t("train.summary.fingerprint", fingerprint=weights_fingerprint(record.model), epoch=last.epoch)
        )
    with right:
        show_chart(charts.confusion_figure(record.confusion), "train.confusion", t("chart.confusion"))
        st.caption(t("train.summary.confusion_caption", classes=", ".join(charts.class_names())))


def diagnosis(record: state.RunRecord) -> str | None:
    """A sentence when the run ended no better than chance or its loss diverged, with advice."""
    found = find_problem(record.history, record.config.train.lr)
    if found is None:
        return None
    advice = t(
        f"train.diagnosis.{found.advice}",
        lr=significant(found.lr, 4),
        smaller=significant(found.smaller_lr, 4),
    )
    return t(
        f"train.diagnosis.{found.problem}",
        advice=advice,
        first=significant(found.first_loss, 3),
        last=significant(found.last_loss, 3),
        accuracy=i18n.percent(found.val_acc, 1),
    )


def loss_text(loss: float) -> str:
    """A loss with four significant digits, the language's way (e.g. '0,01234')."""
    return significant(loss, 4)


def where(record: state.RunRecord) -> str:
    """The device a run used, with its CPU thread count, e.g. 'CPU · AMD EPYC (1 thread)'."""
    if record.threads is None:
        return device_text(record.device)
    key = "train.where.one_thread" if record.threads == 1 else "train.where.threads"
    return t(key, device=device_text(record.device), threads=i18n.count(record.threads))
