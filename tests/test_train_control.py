"""Pause, Stop and Step while another thread is still training the same Trainer.

A Streamlit page's training loop can keep running in its old script thread after a click has
started a new script run, which calls pause(), stop() or step(). Threads are ordered with Events
only: a loop is held either between two epochs (in its consumer) or inside an epoch.
"""

import threading

import pytest
import torch

from linecnn.train import kept
from linecnn.train import trainer as train
from linecnn.train.config import RunConfig
from linecnn.train.trainer import Trainer

EPOCHS = 200  # far more than any test lets run, so a loop that ignores a request trains on visibly
CONFIG = RunConfig.from_flat(epochs=EPOCHS, per_class=10, val_per_class=5)


def checksum(model: torch.nn.Module) -> float:
    """A number that changes whenever any weight changes."""
    return sum(float((p.detach().double().cpu() * (i + 1)).sum()) for i, p in enumerate(model.parameters()))


class Loop(threading.Thread):
    """A page's training loop in a thread of its own, recording the weights' checksum after every epoch.

    With ``hold_after`` it waits in its consumer (between epochs, holding nothing) once that epoch
    is done, until ``go`` is set.
    """

    def __init__(self, trainer: Trainer, hold_after: int | None = None) -> None:
        super().__init__(daemon=True)
        self.trainer, self.hold_after = trainer, hold_after
        self.sums: dict[int, float] = {}
        self.held, self.go = threading.Event(), threading.Event()

    def run(self) -> None:
        for record in self.trainer.run():
            self.sums[record.epoch] = checksum(self.trainer.model)
            if record.epoch == self.hold_after:
                self.held.set()
                self.go.wait(timeout=60)


@pytest.fixture
def hold_inside_epoch(monkeypatch):
    """Make epoch 4 wait inside training (after its first step) until the returned Event is set."""
    inside, go = threading.Event(), threading.Event()
    real = train.train_epoch
    calls = []

    def held_epoch(*args, **kwargs):
        calls.append(1)
        result = real(*args, **kwargs)
        if len(calls) == 4:
            inside.set()
            go.wait(timeout=60)
        return result

    monkeypatch.setattr(train, "train_epoch", held_epoch)
    return inside, go


def test_stop_mid_epoch_files_the_weights_of_the_filed_epochs_and_they_never_change(hold_inside_epoch):
    inside, go = hold_inside_epoch
    trainer = Trainer(CONFIG, "cpu")
    loop = Loop(trainer)
    loop.start()
    assert inside.wait(timeout=60)
    filed = {}
    stopper = threading.Thread(target=lambda: filed.setdefault("run", trainer.stop()), daemon=True)
    stopper.start()
    go.set()
    stopper.join(timeout=60)
    loop.join(timeout=60)
    run = filed["run"]
    epochs = len(run.history)
    assert epochs >= 4 and [r.epoch for r in run.history] == list(range(1, epochs + 1))
    assert trainer.epoch == epochs, "the loop trained on after the run was filed"
    assert checksum(run.model) == loop.sums[epochs], "filed weights are not those of the filed epoch"
    list(trainer.run())  # a later loop must not train a stopped run either
    assert trainer.epoch == epochs and checksum(run.model) == loop.sums[epochs]
    assert next(run.model.parameters()).device.type == "cpu"


def test_the_filed_model_is_a_copy_that_later_training_cannot_touch():
    trainer = Trainer(CONFIG, "cpu")
    list(trainer.run(max_epochs=3))
    run = trainer.stop()
    before = checksum(run.model)
    assert run.model is not trainer.model and before == checksum(trainer.model)
    with torch.no_grad():
        next(trainer.model.parameters()).add_(1.0)
    assert checksum(run.model) == before and not run.model.training
    assert trainer.stop() is None  # a run is filed once, whoever asks second


def test_pause_between_epochs_stops_the_old_loop_before_its_next_epoch():
    trainer = Trainer(CONFIG, "cpu")
    loop = Loop(trainer, hold_after=3)
    loop.start()
    assert loop.held.wait(timeout=60)
    trainer.pause()
    loop.go.set()
    loop.join(timeout=60)
    assert trainer.paused and trainer.epoch == 3


def test_pause_mid_epoch_returns_once_that_epoch_is_done_and_no_other_starts(hold_inside_epoch):
    inside, go = hold_inside_epoch
    trainer = Trainer(CONFIG, "cpu")
    loop = Loop(trainer)
    loop.start()
    assert inside.wait(timeout=60)
    paused_at = []
    pauser = threading.Thread(target=lambda: (trainer.pause(), paused_at.append(trainer.epoch)), daemon=True)
    pauser.start()
    go.set()
    pauser.join(timeout=60)
    loop.join(timeout=60)
    assert paused_at[0] >= 4 and trainer.epoch == paused_at[0]


def test_step_after_pause_trains_exactly_one_epoch_while_the_old_loop_is_alive():
    trainer = Trainer(CONFIG, "cpu")
    loop = Loop(trainer, hold_after=3)
    loop.start()
    assert loop.held.wait(timeout=60)
    trainer.pause()
    record = trainer.step()
    loop.go.set()
    loop.join(timeout=60)
    assert record.epoch == 4 and trainer.epoch == 4 and trainer.paused


def test_step_while_an_old_loop_is_mid_epoch_adds_exactly_one_epoch_after_it(hold_inside_epoch):
    inside, go = hold_inside_epoch
    trainer = Trainer(CONFIG, "cpu")
    loop = Loop(trainer)
    loop.start()
    assert inside.wait(timeout=60)
    stepped = []
    stepper = threading.Thread(target=lambda: stepped.append(trainer.step()), daemon=True)
    stepper.start()
    go.set()
    stepper.join(timeout=60)
    loop.join(timeout=60)
    # The old loop finishes the epoch it was in (and may start more before the step claims the
    # trainer); the step then adds exactly one epoch, and nothing trains after it.
    assert stepped[0].epoch >= 5 and trainer.epoch == stepped[0].epoch
    assert sorted(loop.sums) == list(range(1, stepped[0].epoch))


def test_resume_after_pause_trains_to_the_end():
    trainer = Trainer(RunConfig.from_flat(epochs=6, per_class=10, val_per_class=5), "cpu")
    list(trainer.run(max_epochs=2))
    trainer.pause()
    assert list(trainer.run()) == [] and trainer.epoch == 2
    trainer.resume()
    list(trainer.run())
    assert trainer.done and not trainer.paused


def out_of_memory_in_epoch(trainer: Trainer, epoch: int, step: int) -> None:
    """Make ``trainer`` run out of memory after ``step`` optimizer steps of epoch ``epoch`` (1-based)."""
    steps = []

    def after_step() -> None:
        steps.append(trainer.epoch + 1)
        if steps.count(epoch) == step:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    trainer.after_step = after_step


def test_out_of_memory_mid_epoch_files_the_last_whole_epoch_even_if_filing_runs_out_too(monkeypatch):
    """A mini-batch epoch that runs out of memory after some steps: its steps are undone, the failed
    epoch's tensors are let go, and the run is filed with the last whole epoch's weights and history,
    even when the device is still too full to validate on (the copy and its confusion use the CPU)."""
    trainer = Trainer(RunConfig.from_flat(epochs=5, batch_size=32, per_class=40), "cpu")
    out_of_memory_in_epoch(trainer, epoch=3, step=2)
    states = []
    with pytest.raises(torch.OutOfMemoryError) as failed:
        for _ in trainer.run():
            states.append({k: v.clone() for k, v in trainer.model.state_dict().items()})
    frames = []
    traceback = failed.value.__traceback__
    while traceback is not None:
        frames.append(traceback.tb_frame.f_code.co_name)
        traceback = traceback.tb_next
    assert "train_epoch" not in frames  # the failed epoch's activations are not held by the error
    full = []

    def device_full(model, x, y):
        if not full:
            full.append(True)
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 MiB")
        return real_confusion(model, x, y)

    real_confusion = kept.confusion_matrix
    monkeypatch.setattr(kept, "confusion_matrix", device_full)
    trainer._failed = False  # as if the epoch had not failed: filing itself runs out of memory
    snapshot = trainer.stop()
    assert snapshot is not None and len(snapshot.history) == 2
    filed = snapshot.model.state_dict()
    assert all(torch.equal(filed[k], v) for k, v in states[-1].items())  # epoch 2's, without epoch 3's steps
    assert sum(map(sum, snapshot.confusion)) == len(trainer.data.val_y)
    assert full  # the device path ran out and the CPU copy gave the matrix
