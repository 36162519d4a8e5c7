"""What a run keeps so that a failed epoch changes nothing: the last whole epoch's state, a CPU copy.

An epoch that fails partway (the GPU ran out of memory) has already stepped the weights; putting
back the state the last whole epoch left keeps a filed run's weights equal to its history.
"""

from __future__ import annotations

import gc

import torch
from torch import nn

from linecnn.device_ops import empty_cache
from linecnn.train.config import RunConfig
from linecnn.train.epoch import confusion_matrix
from linecnn.train.model import LineCNN, build_model


class LastWholeEpoch:
    """The weights, buffers and optimizer state as the last whole epoch left them, in buffers reused
    from epoch to epoch (copied before each epoch's clock starts)."""

    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer) -> None:
        self.model = model
        self.optimizer = optimizer
        self._kept: list[torch.Tensor] | None = None

    def _tensors(self) -> list[torch.Tensor]:
        """The tensors an epoch changes, in a fixed order: weights and buffers, then the optimizer's."""
        states = self.optimizer.state.values()
        moments = [value for state in states for value in state.values() if torch.is_tensor(value)]
        return [*self.model.parameters(), *self.model.buffers(), *moments]

    @torch.no_grad()
    def keep(self) -> None:
        """Copy the state now into the kept buffers."""
        now = self._tensors()
        if self._kept is None or len(self._kept) != len(now):  # Adam makes its state in the first step
            self._kept = [tensor.detach().clone() for tensor in now]
        else:
            torch._foreach_copy_(self._kept, now)

    @torch.no_grad()
    def restore(self) -> None:
        """Put the kept state back (no new memory: copies into the existing tensors)."""
        now = self._tensors()
        if self._kept is None:
            return
        if len(self._kept) != len(now):  # the first epoch failed after Adam made its state
            now = [*self.model.parameters(), *self.model.buffers()]
        torch._foreach_copy_(now, self._kept[: len(now)])


def let_go(error: BaseException, device: torch.device) -> None:
    """After an out-of-memory error: drop the failed epoch's tensors (held by the traceback's frames)
    and give the cached blocks back, so that what follows finds memory."""
    if isinstance(error, torch.OutOfMemoryError):
        error.__traceback__ = None
        gc.collect()
        empty_cache(device)


def cpu_copy(model: nn.Module, config: RunConfig) -> LineCNN:
    """A copy of ``model`` made on the CPU in eval mode: nothing new on a device that may be full."""
    copy = build_model(config.model, config.seed)
    copy.load_state_dict({key: value.to("cpu") for key, value in model.state_dict().items()})
    return copy.eval()


def confusion_safely(
    model: nn.Module, cpu_model: nn.Module, x: torch.Tensor, y: torch.Tensor, on_device: bool
) -> list[list[int]]:
    """The confusion matrix of ``model`` on (x, y) where they are when ``on_device``; on the CPU copy
    otherwise, or when the device runs out of memory."""
    if on_device:
        try:
            return confusion_matrix(model, x, y)
        except torch.OutOfMemoryError as error:
            let_go(error, x.device)
    return confusion_matrix(cpu_model, x.to("cpu"), y.to("cpu"))
