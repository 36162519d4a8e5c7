"""Training as a generator of per-epoch records, with a plain ``fit`` on top.

Data, model and optimizer stay on one device. Each epoch ends with a single sync (one ``tolist`` of
four numbers), so the loop never stalls a GPU per step. The epoch's own work is in ``train.epoch``;
budget checks in ``train.limits``; pausing, stepping and stopping from other threads in ``train.turns``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass

import torch

from linecnn.device_ops import RunStream, place_module, preferred_memory_format, synced_seconds
from linecnn.train.config import RunConfig
from linecnn.train.data import Dataset, make_dataset
from linecnn.train.epoch import confusion_matrix, evaluate, make_optimizer, train_epoch
from linecnn.train.kept import LastWholeEpoch, confusion_safely, cpu_copy, let_go
from linecnn.train.model import LineCNN, build_model
from linecnn.train.turns import Turns


@dataclass(frozen=True)
class EpochRecord:
    """What one epoch did and how long it took."""

    epoch: int  # 1-based number of the epoch just finished
    epochs: int  # epochs planned for the run
    train_loss: float  # mean cross-entropy over the epoch's batches (before each step)
    train_acc: float  # fraction of training images classified right during the epoch
    val_loss: float  # mean cross-entropy on the validation set after the epoch
    val_acc: float  # validation accuracy after the epoch
    # Wall time of the epoch, metrics included, waiting for this run's own work only (its CUDA stream);
    # other runs' kernels on the same GPU still share its units meanwhile: not the GPU's time alone.
    epoch_seconds: float
    elapsed_seconds: float  # training time so far: epochs only, not pauses nor the page drawing between them
    device: str  # where it ran, e.g. "cpu" or "cuda:0"

    def as_dict(self) -> dict:
        """JSON-friendly view."""
        return asdict(self)


@dataclass(frozen=True, eq=False)
class Snapshot:
    """A stopped run as it was at the end of its last whole epoch; training on never changes it."""

    history: tuple[EpochRecord, ...]  # every finished epoch, oldest first
    model: LineCNN  # a CPU copy of the weights after the last of those epochs, in eval mode
    confusion: list[list[int]]  # validation [true][predicted] of those weights
    cpu_threads: int | None  # CPU threads the last epoch ran on; None on other devices
    out_of_time: bool  # True when the run ended at its time cap
    waited_seconds: float = 0.0  # seconds it waited between epochs while a benchmark timed the machine


class Trainer:
    """A model, its optimizer and its data on one device, trained one epoch at a time.

    Read top to bottom it is a plain PyTorch loop: build the data, the model and the optimizer, then
    per epoch train (``train.epoch.train_epoch``), validate and read the numbers back in one sync. The
    state lives here, not in the generator, so a run can be paused, stepped or stopped between epochs
    and picked up by a fresh ``run()``. Several threads may drive one run (Pause, Step and Stop):
    ``turns`` (``train.turns``) makes that safe, and each epoch trains as one of its turns.
    """

    def __init__(
        self, config: RunConfig, device: torch.device | str, max_seconds: float | None = None
    ) -> None:
        self.config = config
        self.device = torch.device(device)
        self.max_seconds = max_seconds  # training seconds a run may take; None = no cap
        memory_format = preferred_memory_format(self.device)
        # A GPU run works on a CUDA stream of its own and waits only for it, so its epoch times leave
        # out other runs' queued work (a device-wide sync would wait for every session's kernels).
        self.stream = RunStream(self.device)
        with self.stream.using():
            self._build(config, memory_format)
        self.order = torch.Generator().manual_seed(config.seed + 1)
        self.history: list[EpochRecord] = []
        self.cpu_threads: int | None = None  # CPU threads the last epoch ran on; None on other devices
        self.out_of_time = False  # set when the time cap ended the run
        self.waited_seconds = 0.0  # seconds it waited between epochs while a benchmark timed the machine
        self.turns = Turns()  # who may train the next epoch: the Pause, Step and Stop of other threads
        # Runs after every optimizer step, inside the epoch's timing: a cheap note that the run advances
        # (the training queue's lease); it must not raise, or the weights would not match the history.
        self.after_step: Callable[[], None] | None = None
        # Put back when an epoch fails partway (out of memory): a filed run's weights match its history.
        self._last_whole = LastWholeEpoch(self.model, self.optimizer)
        self._failed = False  # an epoch failed: the device may be full, so filing works on the CPU

    def _build(self, config: RunConfig, memory_format: torch.memory_format) -> None:
        """The data, model and optimizer on the device."""
        data = make_dataset(config.data, config.seed, self.device)
        self.data = Dataset(
            train_x=data.train_x.contiguous(memory_format=memory_format),
            train_y=data.train_y,
            val_x=data.val_x.contiguous(memory_format=memory_format),
            val_y=data.val_y,
        )
        self.model = place_module(build_model(config.model, config.seed), self.device, memory_format)
        self.optimizer = make_optimizer(self.model, config.train.lr, self.device)

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

    @property
    def paused(self) -> bool:
        """True while the run trains only when stepped."""
        return self.turns.paused

    def waited(self, seconds: float) -> None:
        """Note that the run waited ``seconds`` between epochs for a benchmark (``serve.sharing``)."""
        self.waited_seconds += seconds

    def run(self, max_epochs: int | None = None) -> Iterator[EpochRecord]:
        """Train until done, paused, stopped, out of time or claimed by a later call (or for
        ``max_epochs`` more), yielding one record per epoch."""
        last = self.config.train.epochs if max_epochs is None else self.epoch + max_epochs
        turn = self.turns.claim()
        while (record := turn.take(lambda: self._next_epoch(last))) is not None:
            yield record

    def step(self) -> EpochRecord | None:
        """Pause the run and train exactly one epoch now; None when the run has ended."""
        return self.turns.claim(step=True).take(self._next_epoch)

    def pause(self) -> None:
        """Stop training after the epoch in flight (waiting for it) until ``resume``, ``step`` or ``run``."""
        self.turns.pause()

    def resume(self) -> None:
        """Let the next ``run()`` train again."""
        self.turns.resume()

    def stop(self) -> Snapshot | None:
        """End the run for good after the epoch in flight and return a copy of it; None if it was
        already stopped (a run is filed once) or never finished an epoch."""
        return self.turns.stop(self._snapshot)

    def _next_epoch(self, last: int | None = None) -> EpochRecord | None:
        """Train the next epoch, unless the run is done, out of time or at epoch ``last``."""
        if self.done or self._out_of_time() or (last is not None and self.epoch >= last):
            return None
        return self._train_one_epoch()

    def _out_of_time(self) -> bool:
        """Whether the time cap has ended the run: another epoch at the last one's pace would end past it
        (an epoch is never cut short, so the weights always match the history)."""
        cap = self.max_seconds
        if cap is not None and self.history and self.elapsed_seconds + self.history[-1].epoch_seconds > cap:
            self.out_of_time = True
        return self.out_of_time

    def _train_one_epoch(self) -> EpochRecord:
        """Train and validate one epoch and append its record; a failed epoch leaves the run as it was."""
        with self.stream.using():
            self._last_whole.keep()
            try:
                return self._timed_epoch()
            except BaseException as error:
                self._failed = True
                let_go(error, self.device)
                self._last_whole.restore()
                raise

    def _timed_epoch(self) -> EpochRecord:
        """One epoch on the clock: train, validate, read the numbers back in one sync."""
        n_train, n_val = len(self.data.train_y), len(self.data.val_y)
        if self.device.type == "cpu":
            self.cpu_threads = torch.get_num_threads()
        # this run's own stream is waited for, never the whole device (other runs' kernels are not ours)
        sums, seconds = synced_seconds(self._epoch_sums, self.stream.wait, time.perf_counter)
        train_loss, train_right, val_loss, val_right = sums
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

    def _epoch_sums(self) -> list[float]:
        """Train and validate once: the sums of losses and right answers, read back in one sync."""
        data = self.data
        args = (data.train_x, data.train_y, self.optimizer, self.config.train.batch_size, self.order)
        loss_sum, correct = train_epoch(self.model, *args, after_step=self.after_step)
        val_loss_sum, val_correct = evaluate(self.model, data.val_x, data.val_y)
        return torch.stack([loss_sum, correct.float(), val_loss_sum, val_correct.float()]).tolist()

    def _snapshot(self) -> Snapshot | None:
        """A copy of the run as its last whole epoch left it, made on the CPU (the device may be full);
        None before the first epoch. Its confusion matrix is computed on the CPU after a failed epoch."""
        if not self.history:
            return None
        with self.stream.using():
            model = cpu_copy(self.model, self.config)
            val_x, val_y = self.data.val_x, self.data.val_y
            confusion = confusion_safely(self.model, model, val_x, val_y, on_device=not self._failed)
        return Snapshot(
            history=tuple(self.history),
            model=model,
            confusion=confusion,
            cpu_threads=self.cpu_threads,
            out_of_time=self.out_of_time,
            waited_seconds=self.waited_seconds,
        )

    def confusion_matrix(self) -> list[list[int]]:
        """Validation confusion matrix [true][predicted] of the current weights."""
        with self.stream.using():
            return confusion_matrix(self.model, self.data.val_x, self.data.val_y)


def fit(config: RunConfig, device: torch.device | str = "cpu") -> Trainer:
    """Train to the end without streaming; the finished Trainer holds model and history."""
    trainer = Trainer(config, device)
    for _ in trainer.run():
        pass
    return trainer
