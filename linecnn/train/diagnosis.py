"""What a finished run shows: whether it learned anything, and which weights it ended with."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

from torch import nn

from linecnn.train.config import RunConfig
from linecnn.train.model import NUM_CLASSES
from linecnn.train.trainer import EpochRecord

CHANCE_MARGIN = 0.05  # within this of 1/3, the model does no better than guessing
LESSON_LR = RunConfig().train.lr  # at or below it, a run stuck at chance needs epochs, not a smaller step


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
    advice = "more_epochs" if problem == "chance" and lr <= LESSON_LR else "smaller_lr"
    return Diagnosis(problem, advice, lr, min(lr / 10, LESSON_LR), first, last.train_loss, last.val_acc)


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


def weights_fingerprint(model: nn.Module) -> str:
    """Twelve hex digits that change whenever any weight changes (layout and device do not count)."""
    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().to("cpu").contiguous().numpy().tobytes())
    return digest.hexdigest()[:12]
