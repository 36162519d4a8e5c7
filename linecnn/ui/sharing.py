"""The Train page's side of sharing a server: its place in the training queue, and its CPU threads."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import streamlit as st
import torch

from linecnn.config import RunConfig
from linecnn.device import describe
from linecnn.sharing import Wait, cpu_share, is_local_client, training_queue
from linecnn.train import cpu_threads_for
from linecnn.ui.format import format_seconds

# A host who knows better than the policy below can fix the CPU threads of every Train-page run.
TRAIN_THREADS_ENV = "LINECNN_TRAIN_THREADS"
# Reverse proxies put the browser's address here; without one the connection's own address is used.
FORWARDED_HEADERS = ("X-Forwarded-For", "X-Real-Ip")


def client_address() -> str | None:
    """The browser's IP address as this server sees it (None for a local connection)."""
    headers = st.context.headers or {}
    for name in FORWARDED_HEADERS:
        value = headers.get(name)
        if value:
            return value.split(",")[0].strip()
    return st.context.ip_address


def training_threads(config: RunConfig, device: torch.device | str) -> int | None:
    """CPU threads for this session's runs of ``config`` (None: torch's default).

    A browser on this machine draws its charts on the cores the run trains on, and a small step's
    ops then wait for a descheduled second thread: such runs take one thread. A browser elsewhere
    leaves the cores to the server, and each run gets its share of them under the training queue.
    The host's $LINECNN_TRAIN_THREADS, a whole number of at least 1, overrides both.
    """
    value = os.environ.get(TRAIN_THREADS_ENV, "").strip()
    if value.isdigit() and int(value) >= 1:
        return int(value)
    if is_local_client(client_address()):
        return cpu_threads_for(config)
    return cpu_share(training_queue(device).slots)


def wait_text(wait: Wait, device: torch.device | str) -> str:
    """'Queued for CPU · …: place 2 of 3 · 1 of 1 training slots in use · waiting 3.0 s. …'."""
    return (
        f"Queued for {describe(device)}: place {wait.place} of {wait.waiting} · "
        f"{wait.training} of {wait.slots} training slot{'s' if wait.slots != 1 else ''} in use · "
        f"waiting {format_seconds(wait.seconds)}. Stop leaves the queue."
    )


@contextlib.contextmanager
def training_slot(ticket: str, device: torch.device | str, progress) -> Iterator[None]:  # noqa: ANN001
    """Hold one of the device's training slots in the block, showing the place in ``progress`` meanwhile.

    ``progress`` is the page's progress-bar placeholder (an ``st.empty``).
    """

    def show(wait: Wait) -> None:
        progress.progress(0.0, text=wait_text(wait, device))

    with training_queue(device).hold(ticket, on_wait=show, poll=0.25):
        yield
