"""The training queue, the GPU-state lock and the thread policy that let a class share one server."""

from __future__ import annotations

import threading

import pytest

from linecnn.classroom import sharing
from linecnn.classroom.line import Wait, WaitingLine
from linecnn.classroom.sharing import SharedExclusive
from linecnn.stop import Stopped, StopReason

JOIN = 10.0  # seconds a test waits for a thread it expects to finish; a hang fails instead of blocking


class Waiter(threading.Thread):
    """Holds a slot of ``queue`` under ``ticket`` until ``release`` is set; records what it saw."""

    def __init__(self, queue: WaitingLine, ticket: str, on_wait=None) -> None:
        super().__init__(daemon=True)
        self.queue, self.ticket, self.on_wait = queue, ticket, on_wait
        self.waits: list[Wait] = []
        self.started_training = threading.Event()
        self.release = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        def seen(wait: Wait) -> None:
            self.waits.append(wait)
            if self.on_wait is not None:
                self.on_wait(wait)

        try:
            with self.queue.hold(self.ticket, on_wait=seen, poll=0.01):
                self.started_training.set()
                self.release.wait(JOIN)
        except BaseException as error:  # noqa: BLE001 - the test reads it
            self.error = error


def wait_until(condition, what: str) -> None:
    """Poll ``condition`` until it holds (bounded), so threads are observed, never ordered by sleeps."""
    done = threading.Event()
    for _ in range(int(JOIN / 0.005)):
        if condition():
            return
        done.wait(0.005)
    pytest.fail(f"timed out waiting for {what}")


def test_at_most_k_runs_train_and_the_rest_wait_in_arrival_order():
    """With two slots, the third and fourth runs wait and start in the order they came."""
    queue = WaitingLine(slots=2)
    first, second = Waiter(queue, "a"), Waiter(queue, "b")
    first.start(), second.start()
    assert first.started_training.wait(JOIN) and second.started_training.wait(JOIN)
    third = Waiter(queue, "c")
    third.start()
    wait_until(lambda: queue.status("c") is not None, "c to queue")
    fourth = Waiter(queue, "d")
    fourth.start()
    wait_until(lambda: queue.status("d") is not None, "d to queue")
    assert queue.held == 2
    assert queue.status("c").place == 1 and queue.status("d").place == 2
    d = queue.status("d")
    assert (d.place, d.waiting, d.held, d.slots) == (2, 2, 2, 2) and d.seconds >= 0

    first.release.set()
    assert third.started_training.wait(JOIN)
    assert not fourth.started_training.is_set()
    assert queue.status("d").place == 1
    for waiter in (second, third, fourth):
        waiter.release.set()
    for waiter in (first, second, third, fourth):
        waiter.join(JOIN)
        assert waiter.error is None
    assert queue.held == 0


def test_a_waiting_run_sees_its_place_and_can_cancel():
    """on_wait reports the place; cancel takes the run out (Stopped, cancelled); the next one moves up."""
    queue = WaitingLine(slots=1)
    holder = Waiter(queue, "holder")
    holder.start()
    assert holder.started_training.wait(JOIN)
    leaving, staying = Waiter(queue, "leaving"), Waiter(queue, "staying")
    leaving.start()
    wait_until(lambda: queue.status("leaving") is not None, "the first waiter to queue")
    staying.start()
    wait_until(lambda: queue.status("staying") is not None, "the second waiter to queue")
    wait_until(lambda: leaving.waits, "a progress report")
    assert leaving.waits[-1].place == 1

    queue.cancel("leaving")
    leaving.join(JOIN)
    assert isinstance(leaving.error, Stopped) and leaving.error.reason is StopReason.CANCELLED
    assert queue.status("leaving") is None and queue.status("staying").place == 1
    holder.release.set()
    assert staying.started_training.wait(JOIN)
    staying.release.set()
    for waiter in (holder, staying):
        waiter.join(JOIN)


def test_a_run_that_must_wait_is_told_its_place_before_the_first_pause():
    """on_wait reports at once, not only after a poll interval: a page says "waiting" from the start."""
    queue = WaitingLine(slots=1)
    holder = Waiter(queue, "holder")
    holder.start()
    assert holder.started_training.wait(JOIN)
    reported = threading.Event()
    waiter = threading.Thread(target=lambda: _hold_once(queue, "late", reported), daemon=True)
    waiter.start()
    assert reported.wait(JOIN / 4), "no report within a quarter of the poll interval"
    queue.cancel("late")
    holder.release.set()
    for thread in (waiter, holder):
        thread.join(JOIN)


def _hold_once(queue: WaitingLine, ticket: str, reported: threading.Event) -> None:
    """Wait for a slot with a poll as long as JOIN, noting the first report; end quietly when cancelled."""
    try:
        with queue.hold(ticket, on_wait=lambda wait: reported.set(), poll=JOIN):
            pass
    except Stopped:
        pass


def test_an_interrupted_waiter_keeps_its_place_when_its_page_reruns():
    """A click reruns the page, which leaves hold() by an exception and comes back: its place is kept."""
    queue = WaitingLine(slots=1)
    holder = Waiter(queue, "holder")
    holder.start()
    assert holder.started_training.wait(JOIN)

    class Rerun(Exception):
        """Stands for Streamlit's StopException at the page's next st.* call."""

    def interrupt(wait: Wait) -> None:
        raise Rerun

    early = Waiter(queue, "early", on_wait=interrupt)
    early.start()
    early.join(JOIN)
    assert isinstance(early.error, Rerun)
    late = Waiter(queue, "late")
    late.start()
    wait_until(lambda: queue.status("late") is not None, "the late waiter to queue")
    assert queue.status("early").place == 1 and queue.status("late").place == 2

    back = Waiter(queue, "early")  # the rerun, same ticket
    back.start()
    holder.release.set()
    assert back.started_training.wait(JOIN)
    assert not late.started_training.is_set()
    back.release.set()
    assert late.started_training.wait(JOIN)
    late.release.set()
    for waiter in (holder, back, late):
        waiter.join(JOIN)


def test_a_waiter_that_is_away_does_not_block_those_behind_it(monkeypatch):
    """A ticket whose page went away never holds up the queue, and is forgotten after a while."""
    queue = WaitingLine(slots=1)
    holder = Waiter(queue, "holder")
    holder.start()
    assert holder.started_training.wait(JOIN)

    def interrupt(wait: Wait) -> None:
        raise RuntimeError("page closed")

    gone = Waiter(queue, "gone", on_wait=interrupt)
    gone.start()
    gone.join(JOIN)
    behind = Waiter(queue, "behind")
    behind.start()
    wait_until(lambda: queue.status("behind") is not None, "the waiter behind to queue")
    holder.release.set()
    assert behind.started_training.wait(JOIN)

    monkeypatch.setattr(queue, "rejoin_seconds", 0.0)
    behind.release.set()
    behind.join(JOIN)
    with queue.hold("next"):  # entering expires away tickets
        assert queue.status("gone") is None


def test_gpu_state_exclusive_waits_for_shared_work_and_blocks_new_work():
    """An exclusive block starts only when no training epoch is on the GPU, and holds new ones off."""
    state = SharedExclusive()
    in_exclusive, exclusive_done = threading.Event(), threading.Event()
    shared_entered = threading.Event()

    def writer() -> None:
        with state.exclusive():
            in_exclusive.set()
            exclusive_done.wait(JOIN)

    def late_reader() -> None:
        with state.shared():
            shared_entered.set()

    with state.shared():
        thread = threading.Thread(target=writer, daemon=True)
        thread.start()
        wait_until(lambda: state._writers_waiting == 1, "the writer to wait")
        assert not in_exclusive.is_set()
    assert in_exclusive.wait(JOIN)
    reader = threading.Thread(target=late_reader, daemon=True)
    reader.start()
    reader.join(0.05)
    assert not shared_entered.is_set()
    exclusive_done.set()
    assert shared_entered.wait(JOIN)
    thread.join(JOIN), reader.join(JOIN)


def test_sharing_gpu_passes_cpu_records_through_and_locks_each_cuda_step(monkeypatch):
    """On the CPU the records pass untouched; on CUDA each step runs inside GPU_STATE.shared()."""
    assert list(sharing.sharing_machine(iter([1, 2, 3]), "cpu")) == [1, 2, 3]
    inside = []
    state = SharedExclusive()
    monkeypatch.setattr(sharing, "GPU_STATE", state)

    def steps():
        for n in range(3):
            inside.append(state._sharing)
            yield n

    assert list(sharing.sharing_machine(steps(), "cuda:0")) == [0, 1, 2]
    assert inside == [1, 1, 1] and state._sharing == 0


@pytest.mark.parametrize(
    ("address", "local"),
    [(None, True), ("", True), ("127.0.0.1", True), ("::1", True), ("[::1]", True), ("10.1.2.3", False),
     ("203.0.113.9", False), ("2001:db8::1", False), ("not an address", True)],
)
def test_local_clients_are_loopback_or_unknown(address, local):
    """Only a loopback (or missing) address counts as a browser on this machine."""
    assert sharing.is_local_client(address) is local


def test_slots_and_thread_share_follow_the_cores_and_the_host(monkeypatch):
    """One CPU slot per two cores by default, a host's whole number wins, nonsense falls back."""
    assert sharing.default_cpu_slots(2) == 1 and sharing.default_cpu_slots(16) == 8
    assert sharing.cpu_share(slots=1, cpu_count=2) == 2 and sharing.cpu_share(slots=8, cpu_count=16) == 2
    assert sharing.cpu_share(slots=4, cpu_count=2) == 1
    monkeypatch.setenv(sharing.SLOTS_ENV, "3")
    assert sharing.slots_from_env(sharing.SLOTS_ENV, 1) == 3
    for bad in ("0", "-2", "two", "1.5", ""):
        monkeypatch.setenv(sharing.SLOTS_ENV, bad)
        assert sharing.slots_from_env(sharing.SLOTS_ENV, 5) == 5


def test_a_queue_needs_a_slot():
    """Zero slots would make every run wait forever: refused with a sentence."""
    with pytest.raises(ValueError, match="at least one slot"):
        WaitingLine(0)


def test_a_cuda_benchmark_cell_keeps_training_off_the_gpu(monkeypatch):
    """bench_turns.gpu_alone takes the GPUs exclusively for CUDA cells and nothing for CPU cells."""
    import torch

    from linecnn.classroom import bench_turns as bench

    state = SharedExclusive()
    monkeypatch.setattr(bench, "GPU_STATE", state)
    entered = threading.Event()

    def training_epoch() -> None:
        with state.shared():
            entered.set()

    with bench.gpu_alone(torch.device("cpu")):
        thread = threading.Thread(target=training_epoch, daemon=True)
        thread.start()
        assert entered.wait(JOIN)
    thread.join(JOIN)
    entered.clear()
    with bench.gpu_alone(torch.device("cuda", 0)):
        thread = threading.Thread(target=training_epoch, daemon=True)
        thread.start()
        thread.join(0.05)
        assert not entered.is_set()
    assert entered.wait(JOIN)
    thread.join(JOIN)


def test_a_remote_browser_gets_the_hosts_share_of_cores_and_a_local_one_a_single_thread(monkeypatch):
    """The thread policy reads where the browser is: this machine (1 thread for small steps) or elsewhere."""
    from linecnn.train.config import RunConfig
    from linecnn.ui.train import sharing as page_sharing

    monkeypatch.delenv(page_sharing.TRAIN_THREADS_ENV, raising=False)
    monkeypatch.setattr(page_sharing, "training_queue", lambda device: WaitingLine(slots=1))
    monkeypatch.setattr(sharing.os, "cpu_count", lambda: 8)
    monkeypatch.setattr(page_sharing, "client_address", lambda: None)
    assert page_sharing.training_threads(RunConfig(), "cpu") == 1
    monkeypatch.setattr(page_sharing, "client_address", lambda: "203.0.113.9")
    assert page_sharing.training_threads(RunConfig(), "cpu") == 8


@pytest.mark.parametrize(
    ("headers", "connection", "expected"),
    [({}, None, None), ({}, "10.0.0.7", "10.0.0.7"), ({"X-Forwarded-For": "203.0.113.9, 10.0.0.1"}, None,
     "203.0.113.9"), ({"X-Real-Ip": "198.51.100.4"}, "127.0.0.1", "198.51.100.4")],
)
def test_behind_a_reverse_proxy_the_forwarded_address_counts(headers, connection, expected):
    """nginx on the same machine connects from loopback; the browser's address is in its headers."""
    from linecnn.ui.train.sharing import address_from

    assert address_from(headers, connection) == expected


def test_the_train_page_says_a_queued_run_waits_for_its_turn_not_that_it_trains(monkeypatch):
    """Another session holds the only slot: beside the buttons the run says it waits, with its place,
    while it waits and when the page is drawn again, never "Training on"."""
    import contextlib

    import streamlit as st

    from linecnn.ui.train import away
    from linecnn.ui.train import sharing as page_sharing
    from tests.helpers import app_test
    from tests.test_pages import TRAIN, click

    class StopsTheScriptWhileWaiting(WaitingLine):
        """The page's script ends at its first report of the wait, as a click's new run would end it."""

        @contextlib.contextmanager
        def hold(self, ticket, on_wait=None, poll=0.25):  # noqa: ANN001, ANN202 - WaitingLine.hold's
            def report_then_stop(wait: Wait) -> None:
                on_wait(wait)
                st.stop()

            with super().hold(ticket, report_then_stop if on_wait else None, poll) as lease:
                yield lease

    queue = StopsTheScriptWhileWaiting(slots=1)
    monkeypatch.setattr(page_sharing, "training_queue", lambda device: queue)
    monkeypatch.setattr(away, "browser_gone", lambda: False)  # a click ended the script, not a gone browser
    other_session = Waiter(queue, "other-session")
    other_session.start()
    assert other_session.started_training.wait(JOIN)
    try:
        at = click(app_test(TRAIN), "Start")
        assert_says_it_waits(at)
        assert_says_it_waits(at.run())  # the page drawn again while the run still waits
        at = click(at, "Stop")  # Stop while queued leaves the line: it never trained, so never "stopped"
        said = [i.value for i in at.info]
        left = "You left the line before your turn: nothing was trained"
        assert any(s.startswith(left) for s in said), said
        assert not [s for s in said if s.startswith("Stopped before the first epoch")]
        assert queue.status("other-session") is None and not queue.waiters()
    finally:
        other_session.release.set()
        other_session.join(JOIN)


def assert_says_it_waits(at) -> None:
    """Beside the Train page's buttons the run waits for its turn; no line says it trains; its place
    is said once, by the progress bar, not again beside the buttons."""
    lines = [caption.value for caption in at.caption]
    assert not at.exception and not [line for line in lines if line.startswith("Training on")]
    waiting = [line for line in lines if line.startswith("Waiting for its turn on")]
    assert len(waiting) == 1 and "place" not in waiting[0].lower(), waiting
    bars = [bar.proto.text for bar in at.get("progress")]
    assert [bar for bar in bars if bar.startswith("Place 1 of 1 in the queue")], bars


def test_the_waiting_text_says_place_slots_and_how_to_leave():
    """What a queued run shows instead of its progress bar."""
    from linecnn.ui.train.sharing import wait_text

    text = wait_text(Wait(place=2, waiting=3, holders=("run-1",), slots=1, seconds=4.2))
    assert "Place 2 of 3" in text and "1 of 1 training slot in use" in text and "4.2 s" in text
    assert "Stop leaves the queue" in text
