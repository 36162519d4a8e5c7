"""The live run on the Train page: its progress bar and charts, and the loop that trains it.

The page draws only between epochs: an epoch's record times the training alone, and a redraw
never runs while an epoch is on the clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import lru_cache

import plotly.graph_objects as go
import streamlit as st

from linecnn.classroom.sharing import sharing_machine
from linecnn.stop import Stopped, StopReason
from linecnn.train.trainer import EpochRecord, Trainer
from linecnn.ui import i18n, state
from linecnn.ui.format import device_text
from linecnn.ui.i18n import duration, t
from linecnn.ui.streamlit_private import StopException, sent_to_browser, yield_point
from linecnn.ui.train import away, charts, sharing
from linecnn.ui.train.buttons import RunRow, file_ended_run, stop_on_error, stop_slot_lost
from linecnn.ui.train.place import ChartPlace
from linecnn.ui.train.summary import summary


class LiveCharts:
    """Progress bar plus loss and accuracy charts, redrawn in place while a run streams.

    Each chart redraw remounts it in the browser, which then competes with training for
    the CPU; so the cheap progress bar updates every PROGRESS_SECONDS and the charts only
    every CHART_SECONDS. Neither is redrawn within its own interval of a run's end: the final
    draw follows at once, and a browser still busy with a redraw would only show the final
    metrics later.
    """

    PROGRESS_SECONDS = 0.25
    CHART_SECONDS = 0.5
    # Live redraws plot at most this many epochs per line: a Plotly figure costs time in
    # proportion to its points, on every redraw, and the page builds it between two epochs.
    # The final draw plots every epoch.
    LIVE_POINTS = 500

    def __init__(
        self,
        progress,
        loss_stack,
        accuracy_stack,
        style: charts.ChartStyle = charts.DEFAULT_STYLE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.progress = progress
        self.loss, self.accuracy = ChartPlace("loss", loss_stack), ChartPlace("acc", accuracy_stack)
        self.style, self.clock = style, clock
        self.draws = 0  # each redraw needs a fresh key, or Streamlit sees a duplicate element
        self.progress_at = self.charts_at = clock()

    def show(
        self, history: Sequence[EpochRecord], epochs: int, live: Trainer | None, out_of_time: bool = False
    ) -> None:
        """Draw everything now: a live run (with ETA), the last finished run, or nothing yet.

        ``out_of_time``: the finished run was ended by the server's time cap."""
        self._progress(history, epochs, live, out_of_time)
        self._charts(history, epochs, None, None if live is not None else ended_name(history))

    def update(self, history: Sequence[EpochRecord], epochs: int, live: Trainer) -> None:
        """Redraw what is due during a run; call it after every epoch."""
        now, left = self.clock(), seconds_left(history, epochs)
        if now - self.charts_at >= self.CHART_SECONDS and left >= self.CHART_SECONDS:
            self._charts(history, epochs, self.LIVE_POINTS)
        if now - self.progress_at >= self.PROGRESS_SECONDS and left >= self.PROGRESS_SECONDS:
            self._progress(history, epochs, live)

    def _progress(
        self, history: Sequence[EpochRecord], epochs: int, live: Trainer | None, out_of_time: bool = False
    ) -> None:
        self.progress_at = self.clock()
        done = history[-1].epoch if history else 0  # a run restored without its curves keeps its last epoch
        fraction = min(done / max(epochs, 1), 1.0)
        self.progress.progress(fraction, text=progress_text(history, epochs, live, out_of_time))

    def _charts(
        self, history: Sequence[EpochRecord], epochs: int, points: int | None, name: str | None = None
    ) -> None:
        """Redraw both charts: a live run's (``name`` None), or an ended run's under ``name``.

        A chart whose element ID changes is remounted, and stays blank until Plotly has drawn it again
        (a second or more on a busy phone). An ended run's charts have the same key (``ended_name``)
        when the live run draws them last and when the rerun that follows draws them: the same figure
        with the same key is the same element, which the browser keeps as it is. They are drawn over
        the live run's charts (``ChartPlace``), which show until they are covered."""
        self.charts_at = self.clock()
        self.draws += 1
        key = name or str(self.draws)
        for place, figure_of, alt in (
            (self.loss, charts.loss_figure, "chart.loss"),
            (self.accuracy, charts.accuracy_figure, "chart.accuracy"),
        ):
            draw = place.draw_live if name is None else place.draw_ended
            figure = (
                figure_of(history, epochs, self.style, points)
                if history
                else empty_figure(figure_of, epochs, self.style, points, i18n.current())
            )
            draw(figure, f"train.{place.name}.{key}", t(alt))


@lru_cache(maxsize=64)
def empty_figure(
    figure_of: Callable[..., go.Figure],
    epochs: int,
    style: charts.ChartStyle,
    points: int | None,
    language: str,
) -> go.Figure:
    """A chart of no epochs yet (``language``: the session's, which its words follow), built once: Start
    draws two before its first epoch. Only read afterwards (``show_chart`` draws a copy)."""
    return figure_of((), epochs, style, points)


def ended_name(history: Sequence[EpochRecord]) -> str:
    """The charts' key for an ended run (or none): the same in every script run that shows that run."""
    return f"final-{len(history)}-{history[-1].elapsed_seconds!r}" if history else "final"


def progress_text(
    history: Sequence[EpochRecord], epochs: int, live: Trainer | None, out_of_time: bool = False
) -> str:
    """'Epoch 40 / 120 · 0.2 s elapsed · ETA 0.4 s' for a live run; how an ended run ended otherwise."""
    if not history:
        return t("train.progress.idle") if live is None else t("train.progress.starting")
    done = history[-1].epoch  # a run restored without its curves keeps only its last epoch
    elapsed = duration(history[-1].elapsed_seconds)
    if live is None:
        ending = "time_cap" if out_of_time else "stopped" if done < epochs else "finished"
        return t(
            f"train.progress.{ending}",
            done=i18n.count(done),  # '1 epoch', not '1 epochs'
            epochs=i18n.count(epochs),
            time=elapsed,
            device=device_text(history[-1].device),  # named as the page names it, not the key "cpu"
        )
    eta = duration(seconds_left(history, epochs))
    paused = t("train.progress.paused") if state.is_paused() else ""
    done_text, epochs_text = i18n.number(done), i18n.number(epochs)
    return t("train.progress.live", done=done_text, epochs=epochs_text, time=elapsed, eta=eta, paused=paused)


def seconds_left(history: Sequence[EpochRecord], epochs: int) -> float:
    """Training seconds still to go at the pace so far (infinite before the first epoch)."""
    if not history:
        return float("inf")
    return history[-1].elapsed_seconds / len(history) * max(epochs - len(history), 0)


def train_live(live: Trainer, live_charts: LiveCharts, summary_slot, epochs: int, row: RunRow) -> None:  # noqa: ANN001
    """Train the live run to its end, drawing between epochs, then show its summary and rerun.

    It first waits its turn in the server's training queue (its place shown in the progress bar, and
    ``row``, the button row, says it waits, with Pause disabled, until it trains).
    The loop ends early when a click pauses, stops or takes over the run, or when the browser went
    away (``away``: the run is paused and says why on return).
    """
    record = None
    try:
        with sharing.training_turn(live, live_charts.progress, row.turn) as lease:
            for _ in sharing_machine(live.run(), live.device, sharing.ticket(live), live.waited, lease.beat):
                lease.check()
                answer_clicks()
                live_charts.update(live.history, epochs, live)
            # Filed in the run's turn, on its CPU threads: filing computes a confusion matrix, which on
            # more threads than the run had waits for cores the browser is drawing on.
            record = file_ended_run(live) if live.ended else None
    except Stopped as stop:
        if stop.reason is StopReason.NO_PROGRESS:  # the queue took the slot back: file the run, say why
            stop_slot_lost(live, stop)
            st.rerun()
        # Stop while queued: the newer script run that Stop started draws the page
    except RuntimeError as error:
        stop_on_error(live, error)  # out of memory: files the run and leaves a message
        st.rerun()
    except StopException:  # Streamlit stopped this script run: for a click's new run, or the browser left
        if away.browser_gone():
            away.pause_for_absence(live)  # the slot is already back in the queue
        raise
    # None: a click paused, stopped or filed the run, and its newer script run draws the page. This
    # stale run just carries on to its next st.* call, which ends it: st.rerun here would restart
    # the newer run, and st.stop, ending a stale run as if finished, reset the settings' values.
    if record is None:
        return
    # The final metrics go out first: they are small, while the browser spends a while on the
    # Plotly redraws. Then rerun, so the buttons drawn while the run was live turn idle; st.rerun
    # discards what the server has not sent yet, so it waits for the server to take them.
    with summary_slot.container():
        summary(record)
    sent = sent_to_browser()
    live_charts.show(record.history, epochs, None, record.out_of_time)
    if sent:  # False: no server to wait for, or one too slow to be waited for twice
        sent_to_browser()
    st.rerun()


def answer_clicks() -> None:
    """Let a click made during the last epoch (Stop, Pause) take over now, not at the next redraw.

    Streamlit ends a script run for a click only at one of its yield points; reading
    st.session_state is one, and it sends nothing to the browser. Without it a click waited for
    the next redraw, a quarter of a second or more: dozens of short epochs.
    """
    yield_point()
