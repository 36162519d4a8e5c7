"""A benchmark cell's core reservation: the split of the cores, the server's threads confined and restored,
training paused between epochs with a ledger of what it cost. Fake clock, fake affinity, no real cores."""

from __future__ import annotations

import threading
import time

import pytest

from linecnn.classroom import cores, sharing
from linecnn.classroom.cores import ALONE, SPLIT, CoreSplit, core_split, hold_cores
from linecnn.classroom.sharing import SharedExclusive
from linecnn.train.config import RunConfig
from linecnn.train.trainer import Trainer

JOIN = 10.0  # seconds a test waits for a thread it expects to finish


class FakeClock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakeAffinity:
    """Threads and their cores in a dict; a test may start threads while a block runs."""

    def __init__(self, tids: list[int], cores: tuple[int, ...], supported: bool = True) -> None:
        self.supported = supported
        self.threads = {tid: tuple(cores) for tid in tids}
        self.calls: list[tuple[int, tuple[int, ...]]] = []

    def tasks(self) -> list[int]:
        return list(self.threads)

    def confine(self, tid: int, cores: tuple[int, ...]) -> None:
        self.calls.append((tid, tuple(cores)))
        self.threads[tid] = tuple(cores)

    def start_thread(self, tid: int, parent: int) -> None:
        """A thread started now inherits its parent's cores."""
        self.threads[tid] = self.threads[parent]


def wait_until(condition, what: str) -> None:  # noqa: ANN001
    deadline = time.monotonic() + JOIN
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.001)


@pytest.mark.parametrize(
    ("count", "bench", "mode"),
    [
        (1, 1, ALONE),
        (2, 2, ALONE),
        (3, 3, ALONE),
        (4, 2, SPLIT),
        (8, 2, SPLIT),
        (16, 4, SPLIT),
        (64, 16, SPLIT),
    ],
)
def test_small_machines_give_a_cell_every_core_and_servers_a_quarter(monkeypatch, count, bench, mode):
    """Up to 3 cores a cell takes them all (training waits); above, a quarter and at least two."""
    monkeypatch.delenv(cores.BENCH_CORES_ENV, raising=False)
    split = core_split(range(count), affinity=FakeAffinity([], ()))
    assert len(split.bench) == bench and split.mode == mode
    assert split.bench == tuple(range(count - bench, count)) and set(split.rest) | set(split.bench) == set(
        range(count)
    )


def test_the_host_setting_decides_the_cell_cores_and_bad_values_fall_back(monkeypatch):
    """$LINECNN_BENCH_CORES=1 splits a 2-core machine; above the core count: all; nonsense: default."""
    affinity = FakeAffinity([], ())
    monkeypatch.setenv(cores.BENCH_CORES_ENV, "1")
    split = core_split((0, 1), affinity=affinity)
    assert split.bench == (1,) and split.rest == (0,) and split.mode == SPLIT
    monkeypatch.setenv(cores.BENCH_CORES_ENV, "9")
    assert core_split((0, 1), affinity=affinity).bench == (0, 1)
    for bad in ("0", "two", "-1", "1.5"):
        monkeypatch.setenv(cores.BENCH_CORES_ENV, bad)
        assert core_split(range(16), affinity=affinity).bench == (12, 13, 14, 15)


def test_without_affinity_a_split_machine_falls_back_to_training_waiting(monkeypatch):
    """Where threads cannot be confined (macOS), a cell never shares: training waits instead."""
    monkeypatch.delenv(cores.BENCH_CORES_ENV, raising=False)
    assert core_split(range(16), affinity=FakeAffinity([], (), supported=False)).mode == ALONE


def test_split_mode_confines_every_server_thread_and_restores_all_of_them():
    """Every thread, one started meanwhile included, goes to the rest cores and comes back to all."""
    affinity = FakeAffinity([10, 11, 12], (0, 1, 2, 3))
    split = CoreSplit((0, 1, 2, 3), (2, 3), affinity=True)
    clock = SharedExclusive()
    with hold_cores(split, clock, affinity) as hold:
        assert set(affinity.threads.values()) == {(0, 1)}
        affinity.start_thread(13, parent=11)
        assert clock.readers_waiting == 0
        with clock.shared("run") as turn:  # training is not paused: it runs on the rest
            assert turn.waited == 0
    assert affinity.threads == dict.fromkeys([10, 11, 12, 13], (0, 1, 2, 3))
    assert (hold.mode, hold.cores, hold.machine, hold.runs, hold.seconds) == (SPLIT, 2, 4, 0, 0.0)


def test_split_mode_restores_the_threads_when_the_cell_fails():
    """A cancel or an error inside the hold still gives the server all its cores back."""
    affinity = FakeAffinity([10], (0, 1, 2, 3))
    with (
        pytest.raises(RuntimeError),
        hold_cores(CoreSplit((0, 1, 2, 3), (3,), True), SharedExclusive(), affinity),
    ):
        raise RuntimeError("the worker died")
    assert affinity.threads[10] == (0, 1, 2, 3)


def test_alone_mode_pauses_training_and_counts_who_waited_and_how_long():
    """Two runs that wait 3.1 s for a cell: the hold says 2 runs, 6.2 s; each run knows its own 3.1 s."""
    clock = FakeClock()
    lock = SharedExclusive(clock)
    affinity = FakeAffinity([10], (0, 1))
    turns: dict[str, float] = {}

    def epoch(who: str) -> None:
        with lock.shared(who) as turn:
            turns[who] = turn.waited

    with hold_cores(CoreSplit((0, 1), (0, 1), True), lock, affinity) as hold:
        assert affinity.calls == []  # nothing moves: the cell has every core
        runs = [threading.Thread(target=epoch, args=(who,), daemon=True) for who in ("run-a", "run-b")]
        for run in runs:
            run.start()
        wait_until(lambda: lock.readers_waiting == 2, "both runs to wait")
        clock.now += 3.1
    for run in runs:
        run.join(JOIN)
    assert (hold.mode, hold.cores, hold.machine, hold.runs) == (ALONE, 2, 2, 2)
    assert hold.seconds == pytest.approx(6.2) and turns == pytest.approx({"run-a": 3.1, "run-b": 3.1})


def test_a_run_waiting_through_two_cells_is_charged_to_each_for_its_own_part():
    """A writer waiting behind a hold keeps the run waiting; the second hold counts only its own seconds."""
    clock = FakeClock()
    lock = SharedExclusive(clock)
    first_done, second_in = threading.Event(), threading.Event()
    ledgers = []

    def second_cell() -> None:
        with lock.exclusive() as ledger:
            ledgers.append(ledger)
            second_in.set()
            first_done.wait(JOIN)
            clock.now += 2.0

    run = threading.Thread(target=lambda: lock.shared("run-a").__enter__(), daemon=True)
    with lock.exclusive() as first:
        run.start()
        wait_until(lambda: lock.readers_waiting == 1, "the run to wait")
        clock.now += 1.0
        writer = threading.Thread(target=second_cell, daemon=True)
        writer.start()
        wait_until(lambda: lock._writers_waiting == 1, "the second cell to wait")
    assert second_in.wait(JOIN)
    first_done.set()
    writer.join(JOIN), run.join(JOIN)
    assert (first.runs, first.seconds) == ({"run-a"}, 1.0)
    assert (ledgers[0].runs, ledgers[0].seconds) == ({"run-a"}, 2.0)


def test_a_training_run_keeps_the_seconds_it_waited(monkeypatch):
    """sharing_machine takes the CPU clock per epoch on any device and tells the Trainer what it waited."""
    clock = FakeClock()
    lock = SharedExclusive(clock)
    monkeypatch.setattr(sharing, "CPU_CLOCK", lock)
    trainer = Trainer(RunConfig.from_flat(epochs=2, per_class=10), "cpu")
    records = []

    def train() -> None:
        records.extend(sharing.sharing_machine(trainer.run(), "cpu", "run-a", trainer.waited))

    with lock.exclusive() as ledger:
        thread = threading.Thread(target=train, daemon=True)
        thread.start()
        wait_until(lambda: lock.readers_waiting == 1, "the run to wait for the cell")
        clock.now += 3.1
    thread.join(JOIN)
    assert len(records) == 2 and trainer.waited_seconds == pytest.approx(3.1)
    assert ledger.runs == {"run-a"} and ledger.seconds == pytest.approx(3.1)
    assert trainer._snapshot().waited_seconds == pytest.approx(3.1)


def test_a_run_waiting_for_a_cell_keeps_its_training_slot():
    """Waiting for a benchmark is not stalling: the run's lease beats while it waits, so a cell longer
    than the queue's stall bound does not cost the run its slot."""
    lock = SharedExclusive()
    beats = threading.Event()

    def epoch() -> None:
        with lock.shared("run-a", beat=beats.set):
            pass

    with lock.exclusive():
        thread = threading.Thread(target=epoch, daemon=True)
        thread.start()
        assert beats.wait(JOIN)  # within BEAT_SECONDS of waiting
    thread.join(JOIN)


def test_a_cell_waits_for_the_run_to_finish_with_its_epoch_before_taking_the_clock(monkeypatch):
    """What the page does with an epoch (its chart redraw) is part of the run's turn: a cell asking for
    the clock meanwhile gets it only once the run asks for its next epoch, never while it draws."""
    lock = SharedExclusive(FakeClock())
    monkeypatch.setattr(sharing, "CPU_CLOCK", lock)
    events: list[str] = []

    def cell() -> None:
        with lock.exclusive():
            events.append("cell timed")

    epochs = sharing.sharing_machine(iter([1, 2]), "cpu", "run-a")
    assert next(epochs) == 1  # the run has its first epoch and draws it
    timed = threading.Thread(target=cell, daemon=True)
    timed.start()
    wait_until(lambda: lock._writers_waiting == 1, "the cell to wait for the run's turn")
    events.append("epoch 1 drawn")
    assert next(epochs) == 2
    timed.join(JOIN)
    assert events == ["epoch 1 drawn", "cell timed"]
    assert list(epochs) == [] and lock._sharing == 0
