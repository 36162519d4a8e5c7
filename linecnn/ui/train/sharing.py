"""The Train page's side of sharing a server: its place in the training queue, and its CPU threads."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping

import streamlit as st
import torch

from linecnn.classroom.line import Lease, Wait
from linecnn.classroom.settings import env_whole
from linecnn.classroom.sharing import cpu_share, is_local_client, training_queue
from linecnn.device import cpu_threads
from linecnn.train.config import RunConfig
from linecnn.train.limits import cpu_threads_for
from linecnn.train.trainer import Trainer
from linecnn.ui.i18n import duration, number, t

# A host who knows better than the policy below can fix the CPU threads of every Train-page run.
TRAIN_THREADS_ENV = "LINECNN_TRAIN_THREADS"
# Reverse proxies put the browser's address here; without one the connection's own address is used.
FORWARDED_HEADERS = ("X-Forwarded-For", "X-Real-Ip")


def client_address() -> str | None:
    """The browser's IP address as this server sees it (None for a local connection)."""
    return address_from(st.context.headers or {}, st.context.ip_address)


def address_from(headers: Mapping[str, str], connection: str | None) -> str | None:
    """The first address a reverse proxy forwarded, else the connection's own address."""
    for name in FORWARDED_HEADERS:
        value = headers.get(name)
        if value:
            return value.split(",")[0].strip()
    return connection


def training_threads(config: RunConfig, device: torch.device | str) -> int | None:
    """CPU threads for this session's runs of ``config`` (None: torch's default).

    A browser on this machine draws its charts on the cores the run trains on, and a small step's
    ops then wait for a descheduled second thread: such runs take one thread. A browser elsewhere
    leaves the cores to the server, and each run gets its share of them under the training queue.
    The host's $LINECNN_TRAIN_THREADS, a whole number of at least 1, overrides both.
    """
    threads = env_whole(TRAIN_THREADS_ENV, None)
    if threads is not None:
        return threads
    if is_local_client(client_address()):
        return cpu_threads_for(config)
    return cpu_share(training_queue(device).slots)


def wait_text(wait: Wait) -> str:
    """'Place 2 of 3 in the queue · 1 of 1 training slot in use · waiting 3.0 s. …' (or in Spanish)."""
    return t(
        "sharing.queued_one_slot" if wait.slots == 1 else "sharing.queued",
        place=number(wait.place),
        waiting=number(wait.waiting),
        training=number(wait.held),
        slots=number(wait.slots),
        wait=duration(wait.seconds),
    )


def ticket(trainer: Trainer) -> str:
    """The run's name in the training queue: one per live run, never shared between sessions."""
    return f"run-{id(trainer):x}"


@contextlib.contextmanager
def training_turn(
    trainer: Trainer,
    progress=None,  # noqa: ANN001
    on_turn: Callable[[Wait | None], None] | None = None,
) -> Iterator[Lease]:
    """Train ``trainer`` in the block: in one of its device's slots, on this session's CPU threads.

    While the run waits, its place is shown in ``progress`` (the page's progress-bar ``st.empty``)
    and given to ``on_turn``, which hears None once the run trains (the button row says which);
    without them it waits silently (a single Step). Each epoch also waits for any benchmark cell
    that needs the machine alone (the CPU clock, process-wide CUDA settings): wrap the epochs in
    ``linecnn.classroom.sharing.sharing_machine``.
    Every optimizer step beats the slot's lease; check it between epochs (``Lease.check``).
    """

    def show(wait: Wait) -> None:
        progress.progress(0.0, text=wait_text(wait))
        if on_turn is not None:
            on_turn(wait)

    queue = training_queue(trainer.device)
    with (
        queue.hold(ticket(trainer), on_wait=None if progress is None else show, poll=0.25) as lease,
        cpu_threads(trainer.device, training_threads(trainer.config, trainer.device)),
    ):
        if on_turn is not None:
            on_turn(None)
        trainer.after_step = lease.beat
        try:
            yield lease
        finally:
            if trainer.after_step == lease.beat:  # a newer script run may have taken the run over
                trainer.after_step = None


def waiting(trainer: Trainer) -> bool:
    """True while the run waits in the training queue for its turn."""
    return training_queue(trainer.device).status(ticket(trainer)) is not None


def leave_queue(trainer: Trainer) -> None:
    """Take a run that is waiting for a slot out of the queue (Stop while queued)."""
    training_queue(trainer.device).cancel(ticket(trainer))
