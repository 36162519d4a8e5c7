"""Training as a generator of per-epoch records, with a plain ``fit`` on top.

Data, model and optimizer stay on one device. Each epoch ends with a single sync
(one ``tolist`` of four numbers), so the loop never stalls a GPU per step.
"""

from __future__ import annotations

import copy
import hashlib
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace

import torch
import torch.nn.functional as F
from torch import nn

from linecnn.config import ModelConfig, RunConfig, TrainLimits
from linecnn.data import Dataset, make_dataset
from linecnn.device import preferred_memory_format, synchronize
from linecnn.errors import Message, UserError
from linecnn.model import NUM_CLASSES, build_model, count_parameters

EVAL_CHUNK = 65_536  # images per forward pass when evaluating, to bound memory


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
    elapsed_seconds: float  # training time so far; pauses are not counted
    device: str  # where it ran, e.g. "cpu" or "cuda:0"

    def as_dict(self) -> dict:
        """JSON-friendly view."""
        return asdict(self)


def make_optimizer(model: nn.Module, lr: float, device: torch.device) -> torch.optim.Optimizer:
    """Adam, as in the lesson; the fused kernel where torch has one (fewer tiny launches)."""
    fused = torch.device(device).type in ("cpu", "cuda")
    return torch.optim.Adam(model.parameters(), lr=lr, fused=fused)


def batch_slices(n: int, batch_size: int | None) -> list[slice]:
    """Consecutive slices covering range(n), ``batch_size`` long (None = one slice)."""
    size = n if batch_size is None else min(batch_size, n)
    return [slice(start, min(start + size, n)) for start in range(0, n, size)]


def step_memory_bytes(model: ModelConfig, batch: int) -> int:
    """Rough bytes of the activations one training step keeps for backward, plus their gradients.

    Per image, in floats: conv1 and its ReLU (2 x 8w x 8 x 8), the same per extra conv, the
    pooled map (8w x 4 x 4), conv2 and its ReLU (2 x 16w x 4 x 4) and its pool (16w x 2 x 2);
    doubled for the gradients backward creates. Good to a factor of ~2, enough to refuse
    settings that would exhaust memory.
    """
    c1, c2 = 8 * model.width, 16 * model.width
    floats = 2 * c1 * 64 * (1 + model.extra_convs) + c1 * 16 + 2 * c2 * 16 + c2 * 4
    return 2 * 4 * floats * batch


def format_size(count: int) -> str:
    """Bytes for a sentence, e.g. '35.2 GiB' (MiB below 1 GiB)."""
    return f"{count / 2**30:.1f} GiB" if count >= 2**30 else f"{count / 2**20:.0f} MiB"


def run_memory_bytes(config: RunConfig) -> int:
    """Rough bytes a run holds on its device: images and labels (plus the shuffled copy mini-batches
    take each epoch), the model with its gradients and Adam's two moments, and one step's activations."""
    per_image = 8 * 8 * 4 + 8  # float32 pixels and an int64 label
    data = per_image * 3 * (config.data.per_class + config.data.val_per_class)
    if config.step_size < config.data.train_size:
        data += per_image * config.data.train_size
    model = 4 * 4 * count_parameters(build_model(config.model))
    return data + model + step_memory_bytes(config.model, config.step_size)


def largest_batch(config: RunConfig, fits: Callable[[RunConfig], bool], choices: Sequence[int]) -> int | None:
    """The largest of ``choices`` (below the full set) whose config ``fits``, or None."""
    for size in sorted(choices, reverse=True):
        if size < config.data.train_size and fits(
            replace(config, train=replace(config.train, batch_size=size))
        ):
            return size
    return None


POWERS_OF_TWO = tuple(2**k for k in range(23))  # batch sizes suggested when the caller has no list


def check_step_memory(
    config: RunConfig, max_bytes: int, batch_choices: Sequence[int] = POWERS_OF_TWO
) -> None:
    """Raise ValueError when one training step of ``config`` would keep more than ``max_bytes``."""
    needed = step_memory_bytes(config.model, config.step_size)
    if needed <= max_bytes:
        return
    size = largest_batch(
        config, lambda c: step_memory_bytes(c.model, c.step_size) <= max_bytes, batch_choices
    )
    advice = (
        f"Choose batch size {size:,} or smaller, or a smaller width." if size else "Choose a smaller width."
    )
    raise ValueError(
        f"A step of {config.step_size:,} images at width {config.model.width} needs about "
        f"{format_size(needed)} of memory, more than allowed ({format_size(max_bytes)}). {advice}"
    )


def check_limits(
    config: RunConfig, limits: TrainLimits, batch_choices: Sequence[int] = POWERS_OF_TWO
) -> None:
    """Raise ValueError, naming a setting that fits, when ``config`` is over the work or memory budget."""
    images, epochs = config.data.train_size, config.train.epochs
    work = epochs * images
    if work > limits.max_image_epochs:
        options = []
        if limits.max_image_epochs // images >= 1:
            options.append(Message("at_most_epochs", count=limits.max_image_epochs // images))
        if limits.max_image_epochs // (3 * epochs) >= 1:
            options.append(Message("at_most_per_class", count=limits.max_image_epochs // (3 * epochs)))
        either = options[0] if len(options) == 1 else Message("either", first=options[0], second=options[1])
        limit = limits.max_image_epochs
        raise UserError("over_work", epochs=epochs, images=images, work=work, limit=limit, options=either)
    needed = run_memory_bytes(config)
    if needed <= limits.max_bytes:
        return

    def fits(candidate: RunConfig) -> bool:
        return run_memory_bytes(candidate) <= limits.max_bytes

    size = largest_batch(config, fits, batch_choices)
    if size is not None:
        advice = Message("choose_batch", size=size)
    else:
        per_class = largest_per_class(config, fits)
        advice = Message("choose_per_class", count=per_class) if per_class else Message("choose_width")
    raise UserError(
        "over_memory", needed=format_size(needed), limit=format_size(limits.max_bytes), advice=advice
    )


def largest_per_class(config: RunConfig, fits: Callable[[RunConfig], bool]) -> int:
    """The most training images per class (up to the config's own) that ``fits``; 0 if none."""
    low, high = 0, config.data.per_class
    while low < high:
        middle = (low + high + 1) // 2
        if fits(replace(config, data=replace(config.data, per_class=middle))):
            low = middle
        else:
            high = middle - 1
    return low


def weights_fingerprint(model: nn.Module) -> str:
    """Twelve hex digits that change whenever any weight changes (layout and device do not count)."""
    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().to("cpu").contiguous().numpy().tobytes())
    return digest.hexdigest()[:12]


CHANCE_MARGIN = 0.05  # within this of 1/3, the model does no better than guessing


@dataclass(frozen=True)
class Diagnosis:
    """What went wrong with a run, and the advice, for a message in any language."""

    problem: str  # "nan" or "infinite" (the loss), "diverged", or "chance" (no better than guessing)
    advice: str  # "smaller_lr" or "more_epochs"
    lr: float  # the run's learning rate
    smaller_lr: float  # a smaller learning rate to try
    first_loss: float  # training loss of the first epoch
    last_loss: float  # training loss of the last epoch
    val_acc: float  # validation accuracy at the end


def find_problem(history: Sequence[EpochRecord], lr: float) -> Diagnosis | None:
    """How a run ended no better than chance or its loss diverged, with advice; None when it did not."""
    if not history:
        return None
    last = history[-1]
    losses = (last.train_loss, last.val_loss)
    first = history[0].train_loss
    if not all(math.isfinite(loss) for loss in losses):
        problem = "nan" if any(math.isnan(x) for x in losses) else "infinite"
    elif last.train_loss > 2 * first:
        problem = "diverged"
    elif last.val_acc <= 1 / NUM_CLASSES + CHANCE_MARGIN:
        problem = "chance"
    else:
        return None
    advice = "more_epochs" if problem == "chance" and lr <= 0.01 else "smaller_lr"
    return Diagnosis(problem, advice, lr, min(lr / 10, 0.01), first, last.train_loss, last.val_acc)


def diagnose(history: Sequence[EpochRecord], lr: float) -> str | None:
    """A sentence when a run ended no better than chance or its loss diverged, with advice; else None."""
    found = find_problem(history, lr)
    if found is None:
        return None
    advice = (
        f"try a smaller learning rate than {found.lr:g}, such as {found.smaller_lr:g}"
        if found.advice == "smaller_lr"
        else "train for more epochs, or try a smaller learning rate"
    )
    if found.problem in ("nan", "infinite"):
        return f"The loss became {'NaN' if found.problem == 'nan' else 'infinite'}: {advice}."
    if found.problem == "diverged":
        return f"The loss diverged (from {found.first_loss:.3g} to {found.last_loss:.3g}): {advice}."
    return (
        f"Validation accuracy ended at {found.val_acc:.1%}, no better than guessing one of three "
        f"classes: {advice}."
    )


SMALL_STEP_BYTES = 32 << 20  # steps under ~32 MiB of activations train on one CPU thread


def cpu_threads_for(config: RunConfig) -> int | None:
    """CPU threads for a run shown live in a browser: 1 for small steps, None (torch's default)
    for bigger ones. Pages train inside ``device.cpu_threads`` with it; the CLI does not.

    A small step's ops last well under a millisecond, and when the browser redraws on one of the
    cores, every op split over two threads waits for its descheduled second thread; one thread
    does not wait. The README's Measurements give the figures (``scripts/bench_train_page.py``)."""
    return 1 if step_memory_bytes(config.model, config.step_size) <= SMALL_STEP_BYTES else None


def train_epoch(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    optimizer: torch.optim.Optimizer,
    batch_size: int | None = None,
    order: torch.Generator | None = None,
    scaler: torch.amp.GradScaler | None = None,
    *,
    after_step: Callable[[], None] | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One pass over (x, y); returns the summed loss and the correct count as device tensors.

    Mini-batches are shuffled with ``order`` (a CPU generator) when there is more than one.
    ``scaler`` is for fp16 autocast (the benchmark's AMP option): it scales the loss so small
    gradients survive, and skips steps whose gradients overflowed. ``after_step`` runs after
    every optimizer step (the benchmark's cancel and time cap raise from it).
    """
    model.train()
    slices = batch_slices(len(x), batch_size)
    if len(slices) > 1:
        perm = torch.randperm(len(x), generator=order).to(x.device)
        x, y = x[perm], y[perm]
    loss_sum = torch.zeros((), device=x.device)
    correct = torch.zeros((), device=x.device, dtype=torch.long)
    for part in slices:
        logits = model(x[part])
        loss = F.cross_entropy(logits, y[part])
        optimizer.zero_grad(set_to_none=True)
        if scaler is None:
            loss.backward()
            optimizer.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        loss_sum += loss.detach() * (part.stop - part.start)
        correct += (logits.argmax(dim=1) == y[part]).sum()
        if after_step is not None:
            after_step()
    return loss_sum, correct


@torch.no_grad()
def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Summed loss and correct count on (x, y) in eval mode, as device tensors."""
    model.eval()
    loss_sum = torch.zeros((), device=x.device)
    correct = torch.zeros((), device=x.device, dtype=torch.long)
    for part in batch_slices(len(x), EVAL_CHUNK):
        logits = model(x[part])
        loss_sum += F.cross_entropy(logits, y[part], reduction="sum")
        correct += (logits.argmax(dim=1) == y[part]).sum()
    return loss_sum, correct


@torch.no_grad()
def confusion_matrix(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> list[list[int]]:
    """Counts [true class][predicted class] over (x, y)."""
    model.eval()
    predicted = torch.cat([model(x[part]).argmax(dim=1) for part in batch_slices(len(x), EVAL_CHUNK)])
    counts = torch.bincount(y * NUM_CLASSES + predicted, minlength=NUM_CLASSES**2)
    return counts.view(NUM_CLASSES, NUM_CLASSES).tolist()


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
