"""Training as a generator of per-epoch records, with a plain ``fit`` on top.

Data, model and optimizer stay on one device. Each epoch ends with a single sync
(one ``tolist`` of four numbers), so the loop never stalls a GPU per step. The epoch's own
work is in ``linecnn.train.epoch``; a run's budget checks are in ``linecnn.train.limits``.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import torch
from torch import nn

from linecnn.device_ops import preferred_memory_format, synchronize
from linecnn.train.config import RunConfig
from linecnn.train.data import Dataset, make_dataset
from linecnn.train.epoch import confusion_matrix, evaluate, make_optimizer, train_epoch
from linecnn.train.model import build_model


@dataclass(frozen=True)
class EpochRecord:
    """What one epoch did and how long it took."""

    epoch: int  # 1-based number of the epoch just finished
    epochs: int  # epochs planned for the run
    train_loss: float  # mean cross-entropy over the epoch's batches (before each step)
    train_acc: float  # fraction of training images classified right during the epoch
    val_loss: float  # mean cross-entropy on the validation set after the epoch
    val_acc: float  # validation accuracy after the epoch
    epoch_seconds: float  # wall time of the epoch, device synchronised, metrics included
    elapsed_seconds: float  # training time so far: epochs only, not pauses nor the page drawing between them
    device: str  # where it ran, e.g. "cpu" or "cuda:0"

    def as_dict(self) -> dict:
        """JSON-friendly view."""
        return asdict(self)


@dataclass(frozen=True, eq=False)
class Snapshot:
    """A stopped run as it was at the end of its last whole epoch; training on never changes it."""

    history: tuple[EpochRecord, ...]  # every finished epoch, oldest first
    model: nn.Module  # a CPU copy of the weights after the last of those epochs, in eval mode
    confusion: list[list[int]]  # validation [true][predicted] of those weights
    cpu_threads: int | None  # CPU threads the last epoch ran on; None on other devices
    out_of_time: bool  # True when the run ended at its time cap


class Trainer:
    """A model, its optimizer and its data on one device, trained one epoch at a time.

    The state lives here, not in the generator, so a run can be paused, stepped or stopped
    between epochs and picked up again by a fresh ``run()``.

    Several threads may drive one Trainer: a page's loop can keep running in an old thread
    after a click has asked, from another thread, to pause, stop or step. So every epoch trains
    under ``_lock``, and just before each one, under that lock, the loop checks that it still
    owns the trainer (the latest ``run()`` or ``step()`` call claimed it), that the run is not
    paused or stopped, and that the time cap leaves room for another epoch. ``pause()`` and
    ``stop()`` set their flag, then take the lock, so they return only once the epoch in flight
    has ended, and no other starts. ``stop()`` copies the history and the model under the lock,
    so a filed run's epochs and weights match and never change. ``step()`` claims the trainer,
    so an older loop ends before its next epoch, and trains exactly one epoch.
    """

    def __init__(
        self, config: RunConfig, device: torch.device | str, max_seconds: float | None = None
    ) -> None:
        self.config = config
        self.device = torch.device(device)
        self.max_seconds = max_seconds  # training seconds a run may take; None = no cap
        memory_format = preferred_memory_format(self.device)
        data = make_dataset(config.data, config.seed, self.device)
        self.data = Dataset(
            train_x=data.train_x.contiguous(memory_format=memory_format),
            train_y=data.train_y,
            val_x=data.val_x.contiguous(memory_format=memory_format),
            val_y=data.val_y,
        )
        self.model = build_model(config.model, config.seed).to(self.device, memory_format=memory_format)
        self.optimizer = make_optimizer(self.model, config.train.lr, self.device)
        self.order = torch.Generator().manual_seed(config.seed + 1)
        self.history: list[EpochRecord] = []
        self.cpu_threads: int | None = None  # CPU threads the last epoch ran on; None on other devices
        self.paused = False  # a paused run trains only when stepped
        self.stopped = False  # a stopped run never trains again
        self.out_of_time = False  # set when the time cap ended the run
        self._lock = threading.Lock()  # held while an epoch trains or the run is copied
        self._owner: object | None = None  # token of the run() or step() call allowed to train

    @property
    def epoch(self) -> int:
        """Epochs finished so far."""
        return len(self.history)

    @property
    def done(self) -> bool:
        """True once every planned epoch has run."""
        return self.epoch >= self.config.train.epochs

    @property
    def elapsed_seconds(self) -> float:
        """Training time so far, pauses excluded."""
        return self.history[-1].elapsed_seconds if self.history else 0.0

    @property
    def ended(self) -> bool:
        """True once the run will train no more: every epoch done, or the time cap reached."""
        return self.done or self.out_of_time

    def run(self, max_epochs: int | None = None) -> Iterator[EpochRecord]:
        """Train until done, paused, stopped, out of time or claimed by a later call (or for
        ``max_epochs`` more), yielding one record per epoch."""
        token = self._owner = object()
        stop = self.config.train.epochs if max_epochs is None else self.epoch + max_epochs
        while True:
            with self._lock:
                if self.paused or not self._may_train(token) or self.epoch >= stop:
                    return
                record = self._train_one_epoch()
            yield record

    def step(self) -> EpochRecord | None:
        """Pause the run and train exactly one epoch now; None when the run has ended."""
        token = self._owner = object()
        self.paused = True
        with self._lock:
            return self._train_one_epoch() if self._may_train(token) else None

    def pause(self) -> None:
        """Stop training after the epoch in flight (waiting for it) until ``resume``, ``step`` or ``run``."""
        self.paused = True
        with self._lock:
            pass

    def resume(self) -> None:
        """Let the next ``run()`` train again."""
        self.paused = False

    def stop(self) -> Snapshot | None:
        """End the run for good after the epoch in flight and return a copy of it; None if it was
        already stopped (a run is filed once) or never finished an epoch."""
        self._owner = None
        with self._lock:
            if self.stopped:
                return None
            self.stopped = True
            if not self.history:
                return None
            return Snapshot(
                history=tuple(self.history),
                model=copy.deepcopy(self.model).to("cpu").eval(),
                confusion=self.confusion_matrix(),
                cpu_threads=self.cpu_threads,
                out_of_time=self.out_of_time,
            )

    def _may_train(self, token: object) -> bool:
        """Whether the holder of ``token`` may train another epoch now (call under the lock).

        The time cap ends a run before an epoch that, at the last epoch's pace, would end past it:
        an epoch is never cut short, so the weights always match the history."""
        if self._owner is not token or self.stopped or self.done:
            return False
        cap = self.max_seconds
        if cap is not None and self.history and self.elapsed_seconds + self.history[-1].epoch_seconds > cap:
            self.out_of_time = True
            return False
        return True

    def _train_one_epoch(self) -> EpochRecord:
        """Train and validate one epoch (under the lock) and append its record."""
        data, n_train, n_val = self.data, len(self.data.train_y), len(self.data.val_y)
        if self.device.type == "cpu":
            self.cpu_threads = torch.get_num_threads()
        synchronize(self.device)
        start = time.perf_counter()
        loss_sum, correct = train_epoch(
            self.model,
            data.train_x,
            data.train_y,
            self.optimizer,
            self.config.train.batch_size,
            self.order,
        )
        val_loss_sum, val_correct = evaluate(self.model, data.val_x, data.val_y)
        sums = torch.stack([loss_sum, correct.float(), val_loss_sum, val_correct.float()])
        train_loss, train_right, val_loss, val_right = sums.tolist()  # the epoch's one sync
        synchronize(self.device)
        seconds = time.perf_counter() - start
        record = EpochRecord(
            epoch=self.epoch + 1,
            epochs=self.config.train.epochs,
            train_loss=train_loss / n_train,
            train_acc=train_right / n_train,
            val_loss=val_loss / n_val,
            val_acc=val_right / n_val,
            epoch_seconds=seconds,
            elapsed_seconds=self.elapsed_seconds + seconds,
            device=str(self.device),
        )
        self.history.append(record)
        return record

    def confusion_matrix(self) -> list[list[int]]:
        """Validation confusion matrix [true][predicted] of the current weights."""
        return confusion_matrix(self.model, self.data.val_x, self.data.val_y)


def fit(config: RunConfig, device: torch.device | str = "cpu") -> Trainer:
    """Train to the end without streaming; the finished Trainer holds model and history."""
    trainer = Trainer(config, device)
    for _ in trainer.run():
        pass
    return trainer
