"""The parts of honest epoch timing: a cell's workload on its device, the synchronised clock, the statistics,
and the cheap check that ends a cell between two optimizer steps (a cancel, a time cap).
"""

from __future__ import annotations

import contextlib
import statistics
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import cast

import torch
from torch import nn

from linecnn.bench.config import BenchConfig
from linecnn.device_ops import synced_seconds, synchronize
from linecnn.stop import Stopped, StopReason
from linecnn.train.data import make_lines
from linecnn.train.epoch import batch_slices, make_optimizer, train_epoch
from linecnn.train.model import build_model


class Watch:
    """What a cell checks after every optimizer step: a cancel flag and a deadline, nothing slower.

    The check runs inside the timed epochs, so it reads an event and a clock and calls no
    other code; progress reports wait for the gaps between epochs.
    """

    def __init__(
        self,
        cancel: threading.Event | None = None,
        max_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cancel = cancel or threading.Event()  # set by whoever may cancel (the page's Cancel)
        self.max_seconds = max_seconds  # the time cap; None = none
        self.clock = clock
        self.deadline = None if max_seconds is None else clock() + max_seconds

    def check(self) -> None:
        """Raise Stopped (cancelled, or the time cap) when the cell must end now."""
        if self.cancel.is_set():
            raise Stopped(StopReason.CANCELLED)
        if self.deadline is not None and self.clock() > self.deadline:
            assert self.max_seconds is not None  # a deadline exists only with a time cap
            raise Stopped.time_cap(self.max_seconds)


@dataclass(frozen=True)
class Summary:
    """Statistics of the timed epochs."""

    median_ms: float
    p25_ms: float
    p75_ms: float
    samples_per_s: float  # training images per second at the median epoch time


def summarize(seconds: Sequence[float], images: int) -> Summary:
    """Median, quartiles (linear interpolation, as numpy) and throughput of epoch times."""
    if not seconds:
        raise ValueError("There are no timed epochs to summarise.")
    ordered = sorted(seconds)
    if len(ordered) == 1:
        p25 = median = p75 = ordered[0]
    else:
        p25, median, p75 = statistics.quantiles(ordered, n=4, method="inclusive")
    return Summary(1000 * median, 1000 * p25, 1000 * p75, images / median)


def time_epochs(
    epoch: Callable[[], object],
    device: torch.device | str,
    count: int,
    *,
    clock: Callable[[], float] = time.perf_counter,
    sync: Callable[[torch.device | str], None] = synchronize,
    after_each: Callable[[int], None] | None = None,
) -> list[float]:
    """Seconds of each of ``count`` calls of ``epoch``; the device is synchronised before every clock read.

    ``after_each(done)`` runs after an epoch's clock has stopped and before the next one's starts.
    """
    seconds = []
    for index in range(count):
        seconds.append(synced_seconds(epoch, partial(sync, device), clock)[1])
        if after_each is not None:
            after_each(index + 1)
    return seconds


@dataclass(frozen=True)
class Workload:
    """One cell's images, model and optimizer on its device, ready to train epoch after epoch."""

    config: BenchConfig
    device: torch.device
    x: torch.Tensor  # (N, 1, 8, 8) images made on the device
    y: torch.Tensor  # (N,) labels
    optimizer: torch.optim.Optimizer
    order: torch.Generator  # CPU generator of the mini-batch order
    scaler: torch.amp.GradScaler | None  # fp16 AMP only
    eager: nn.Module  # the model as built (under autocast when AMP is on)
    timed: nn.Module  # what the epochs run: ``eager`` or its compiled form
    check: Callable[[], None]  # runs after every optimizer step: a cancel or time cap raises from it

    def epoch(self) -> None:
        """One pass of ``train.epoch.train_epoch`` over the training set (no sync: the caller's clock syncs).

        This is the training part of a Train page epoch, not all of it: there is no validation
        pass and no per-epoch metric sync (``tolist``), a full batch above MAX_FULL_BATCH images
        is cut into steps that big, and on the CPU torch runs its start-up thread count
        (``bench`` sets it), where the Train page runs small steps on one thread.
        """
        step = self.config.step_size
        train_epoch(
            self.timed, self.x, self.y, self.optimizer, step, self.order, self.scaler, after_step=self.check
        )

    def first_steps(self, net: nn.Module) -> float:
        """Seconds for one training step on each batch shape an epoch uses (pays autotune or compilation).

        The check runs before the first step and after each one, outside the clock.
        """
        sizes = sorted(
            {part.stop - part.start for part in batch_slices(self.config.images, self.config.step_size)}
        )
        x, y, optimizer = self.x, self.y, self.optimizer
        steps = [partial(train_epoch, net, x[:n], y[:n], optimizer, scaler=self.scaler) for n in sizes]
        self.check()
        return sum(time_epochs(step, self.device, 1, after_each=lambda _: self.check())[0] for step in steps)


def prepare(
    config: BenchConfig, device: torch.device | str, check: Callable[[], None] = lambda: None
) -> Workload:
    """Generate the images on ``device`` and build the model, optimizer and faster paths there."""
    device = torch.device(device)
    run = config.run
    layout = torch.channels_last if config.channels_last else torch.contiguous_format
    generator = torch.Generator(device=device).manual_seed(run.seed)
    x, y = make_lines(run.data.per_class, run.data.mode, generator)  # (N, 1, 8, 8), (N,) on device
    # torch's stubs leave out Module.to's documented memory_format keyword.
    model = build_model(run.model, run.seed).to(device, memory_format=layout)  # type: ignore[call-overload]
    eager = Autocast(model, config.amp) if config.amp != "off" else model
    return Workload(
        config=config,
        device=device,
        x=x.contiguous(memory_format=layout),
        y=y,
        optimizer=make_optimizer(model, run.train.lr, device),
        order=torch.Generator().manual_seed(run.seed + 1),
        scaler=torch.amp.GradScaler(device.type) if config.amp == "fp16" else None,
        eager=eager,
        timed=compiled(eager, config) if config.compile or config.cuda_graphs else eager,
        check=check,
    )


class Autocast(nn.Module):
    """Runs a model under autocast and hands float32 logits to the loss, as AMP recipes do."""

    def __init__(self, model: nn.Module, amp: str) -> None:
        super().__init__()
        self.model = model
        self.dtype = torch.bfloat16 if amp == "bf16" else torch.float16

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits (B, 3) in float32."""
        with torch.autocast(x.device.type, dtype=self.dtype):
            return self.model(x).float()


COMPILE_BACKEND = "inductor"  # what torch.compile lowers to (tests swap in "eager" or a recording backend)


def compiled(model: nn.Module, config: BenchConfig) -> nn.Module:
    """torch.compile'd model; 'reduce-overhead' records CUDA graphs, which cut the launch cost.

    Dynamo keeps its compiled code on ``LineCNN.forward`` for every model instance, guarded on the
    parameters' shapes and device, and past ``recompile_limit`` entries it runs the code eagerly
    without a word. Each cell therefore starts from empty caches, so a sweep of widths or depths
    compiles every cell.
    """
    torch._dynamo.reset()
    mode = "reduce-overhead" if config.cuda_graphs else None
    # torch.compile of a Module returns an OptimizedModule, a Module; its stub only says "a callable".
    return cast(nn.Module, torch.compile(model, backend=COMPILE_BACKEND, mode=mode))


def release_compiled() -> None:
    """Drop Dynamo's compiled code and the CUDA-graph trees of this thread, with their memory pools."""
    torch._dynamo.reset()


def frames_compiled() -> int:
    """Frames Dynamo has compiled in this process so far (a cell that compiles none runs eagerly)."""
    from torch._dynamo.utils import counters

    return counters["frames"]["ok"]


@contextlib.contextmanager
def must_compile(enabled: bool) -> Iterator[None]:
    """Raise RuntimeError when the block, the first run of a compiled model, compiled nothing."""
    before = frames_compiled() if enabled else 0
    yield
    if enabled and frames_compiled() == before:
        raise RuntimeError(
            "torch.compile compiled nothing for this cell, so it would time the model eagerly."
        )


@contextlib.contextmanager
def cudnn_benchmark(device: torch.device) -> Iterator[None]:
    """Let cuDNN autotune its convolution algorithms while a CUDA cell runs (the priming pays for it)."""
    if device.type != "cuda":
        yield
        return
    before = torch.backends.cudnn.benchmark
    torch.backends.cudnn.benchmark = True
    try:
        yield
    finally:
        torch.backends.cudnn.benchmark = before
