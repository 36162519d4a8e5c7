"""One epoch's work: the optimizer, mini-batches, the one training pass everything runs, and evaluation.

``train_epoch`` is the only training loop in linecnn: the Train page's Trainer, the benchmark's
workload, each data-parallel rank and that benchmark's single-device reference all call it (a rank
with its ``Shard``). Every function returns device tensors and never syncs: the caller reads them
all at once, so a GPU never stalls per step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from linecnn.train.model import NUM_CLASSES

EVAL_CHUNK = 65_536  # images per forward pass when evaluating, to bound memory


@dataclass(frozen=True)
class Shard:
    """Which part of every step's batch this process trains on; DDP averages the processes' gradients."""

    rank: int  # this process, 0 to world - 1
    world: int  # processes sharing each step's batch

    def __post_init__(self) -> None:
        if not 0 <= self.rank < self.world:
            raise ValueError(f"Process {self.rank!r} is not one of {self.world!r} processes sharing a batch.")

    def share(self, batch: torch.Tensor) -> torch.Tensor:
        """This process's contiguous part of ``batch``; uneven splits make the first parts longer."""
        return batch if self.world == 1 else batch.tensor_split(self.world)[self.rank]

    def loss(self, logits: torch.Tensor, y: torch.Tensor, images: int) -> torch.Tensor:
        """The loss to step on: the batch's mean cross-entropy, of which this process holds a share.

        A share's loss is its summed cross-entropy times ``world / images``: averaged over the
        processes, as DDP averages their gradients, that is the mean over all ``images`` of the
        batch, even when the shares differ in size. One process takes the plain mean.
        """
        if self.world == 1:
            return F.cross_entropy(logits, y)
        return F.cross_entropy(logits, y, reduction="sum") * (self.world / images)


WHOLE = Shard(rank=0, world=1)  # one device trains on every step's whole batch


def make_optimizer(model: nn.Module, lr: float, device: torch.device) -> torch.optim.Optimizer:
    """Adam, as in the lesson; the fused kernel where torch has one (fewer tiny launches)."""
    fused = torch.device(device).type in ("cpu", "cuda")
    return torch.optim.Adam(model.parameters(), lr=lr, fused=fused)


def batch_slices(n: int, batch_size: int | None) -> list[slice]:
    """Consecutive slices covering range(n), ``batch_size`` long (None = one slice)."""
    size = n if batch_size is None else min(batch_size, n)
    return [slice(start, min(start + size, n)) for start in range(0, n, size)]


def train_epoch(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    optimizer: torch.optim.Optimizer,
    batch_size: int | None = None,
    order: torch.Generator | None = None,
    scaler: torch.amp.GradScaler | None = None,
    *,
    shard: Shard = WHOLE,
    after_step: Callable[[], None] | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One pass over (x, y); returns the summed loss and the correct count of the images trained here.

    Mini-batches are shuffled with ``order`` (a CPU generator) when there is more than one.
    ``shard`` says which part of each batch this process trains on (a data-parallel rank; see
    ``Shard``): every process draws the same order, so the shares make up each batch exactly.
    ``scaler`` is for fp16 autocast (the benchmark's AMP option): it scales the loss so small
    gradients survive, and skips steps whose gradients overflowed. ``after_step`` runs after
    every optimizer step: keep it to a cheap check (the benchmark's cancel and time cap raise
    from it), because it runs inside the epoch's timing.
    """
    model.train()
    slices = batch_slices(len(x), batch_size)
    if len(slices) > 1:
        perm = torch.randperm(len(x), generator=order).to(x.device)
        x, y = x[perm], y[perm]
    loss_sum = torch.zeros((), device=x.device)
    correct = torch.zeros((), device=x.device, dtype=torch.long)
    for part in slices:
        images = part.stop - part.start
        xs, ys = shard.share(x[part]), shard.share(y[part])
        logits = model(xs)
        loss = shard.loss(logits, ys, images)
        optimizer.zero_grad(set_to_none=True)
        if scaler is None:
            loss.backward()
            optimizer.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        loss_sum += loss.detach() * (images / shard.world)
        correct += (logits.argmax(dim=1) == ys).sum()
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


def mean_loss(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    """Mean cross-entropy of ``model`` on all of (x, y) in eval mode, read back (one sync)."""
    loss_sum, _ = evaluate(model, x, y)
    return float(loss_sum) / len(x)


@torch.no_grad()
def confusion_matrix(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> list[list[int]]:
    """Counts [true class][predicted class] over (x, y)."""
    model.eval()
    predicted = torch.cat([model(x[part]).argmax(dim=1) for part in batch_slices(len(x), EVAL_CHUNK)])
    counts = torch.bincount(y * NUM_CLASSES + predicted, minlength=NUM_CLASSES**2)
    return counts.view(NUM_CLASSES, NUM_CLASSES).tolist()
