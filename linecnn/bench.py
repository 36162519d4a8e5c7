"""Honest epoch timing: warm up, sync before every clock read, median of N epochs.

The epoch timed is ``train.train_epoch`` on the real model and the real line generator, with
the data made on the device under test. One-time costs (CUDA context, cuDNN autotune,
compilation, the first epoch) are measured apart and never mixed into the median.
"""

from __future__ import annotations

import contextlib
import gc
import statistics
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from functools import partial

import torch
from torch import nn

from linecnn.config import MAX_SEED, DataConfig, ModelConfig, RunConfig, TrainConfig, check_int
from linecnn.data import make_lines
from linecnn.device import (
    bf16_supported,
    cpu_threads,
    describe,
    empty_cache,
    environment,
    first_use_seconds,
    peak_memory_bytes,
    reset_peak_memory,
    synchronize,
)
from linecnn.model import build_model
from linecnn.sharing import GPU_STATE
from linecnn.train import batch_slices, make_optimizer, train_epoch

AMP_MODES = ("off", "bf16", "fp16")
MAX_FULL_BATCH = 4_096  # a "full batch" bigger than this is cut into steps this big: bounded memory
OK = "ok"
OUT_OF_MEMORY = "out of memory"
LESSON = RunConfig()  # the lesson's settings: a cell's defaults


@dataclass(frozen=True)
class BenchConfig:
    """One benchmark cell: the problem, how to time it, and which faster paths to take."""

    per_class: int = LESSON.data.per_class  # training images per class; an epoch sees 3x this
    batch_size: int | None = LESSON.train.batch_size  # None: all, in steps of MAX_FULL_BATCH at most
    width: int = LESSON.model.width  # channel multiplier: 1 = the lesson's 8 and 16 conv channels
    extra_convs: int = LESSON.model.extra_convs  # extra 3x3 conv layers at 8x8: the "convolution work"
    warmup: int = 2  # untimed epochs first; the first one is reported as a one-time cost
    repeats: int = 5  # timed epochs; median and quartiles come from these
    amp: str = "off"  # autocast on CUDA: "off", "bf16" or "fp16" (with a GradScaler)
    channels_last: bool = False  # NHWC layout for weights and images (CPU and CUDA)
    compile: bool = False  # torch.compile the model; compile time is reported apart
    cuda_graphs: bool = False  # torch.compile(mode="reduce-overhead"): replays CUDA graphs (CUDA only)
    lr: float = LESSON.train.lr  # Adam learning rate
    seed: int = LESSON.seed  # seeds the images, the weights and the batch order
    data_mode: str = LESSON.data.mode  # "lesson" lines or "varied" strokes

    def __post_init__(self) -> None:
        # The core configs hold the ranges and the user-facing messages.
        DataConfig(per_class=self.per_class, mode=self.data_mode)
        ModelConfig(width=self.width, extra_convs=self.extra_convs)
        TrainConfig(lr=self.lr, batch_size=self.batch_size)
        check_int("Warm-up epochs", self.warmup, 1, 1000)
        check_int("Timed repeats", self.repeats, 1, 1000)
        check_int("Seed", self.seed, 0, MAX_SEED)
        if self.amp not in AMP_MODES:
            raise ValueError(f"AMP must be one of {', '.join(AMP_MODES)}; got {self.amp!r}.")

    @property
    def images(self) -> int:
        """Training images per epoch."""
        return 3 * self.per_class

    @property
    def step_size(self) -> int:
        """Images per optimizer step, after the full-batch memory bound."""
        return min(self.images, self.batch_size or MAX_FULL_BATCH)

    @property
    def steps(self) -> int:
        """Optimizer steps per epoch."""
        return -(-self.images // self.step_size)

    @property
    def variant(self) -> str:
        """'eager', or the faster paths taken, e.g. 'bf16 + compile'."""
        parts = [self.amp] if self.amp != "off" else []
        parts += [name for name in ("channels_last", "compile", "cuda_graphs") if getattr(self, name)]
        return " + ".join(parts) or "eager"

    def eager(self) -> BenchConfig:
        """The same cell with every faster path off: fp32, default NCHW layout, no compilation."""
        return replace(self, amp="off", channels_last=False, compile=False, cuda_graphs=False)

    def for_device(self, device: torch.device | str) -> tuple[BenchConfig, tuple[str, ...]]:
        """The options that apply on ``device``, and a sentence for each one dropped."""
        kind = torch.device(device).type
        config, notes = self, []
        if config.amp != "off" and kind != "cuda":
            config, notes = replace(config, amp="off"), [*notes, "AMP runs on CUDA only; timed in fp32."]
        if config.amp == "bf16" and kind == "cuda" and not bf16_supported(device):
            config, notes = replace(config, amp="off"), [*notes, "This GPU has no bf16; timed in fp32."]
        if config.channels_last and kind not in ("cpu", "cuda"):
            config, notes = (
                replace(config, channels_last=False),
                [*notes, "channels_last: CPU and CUDA only."],
            )
        if config.cuda_graphs and kind != "cuda":
            config, notes = replace(config, cuda_graphs=False), [*notes, "CUDA graphs need CUDA."]
        return config, tuple(notes)

    def as_dict(self) -> dict:
        """Flat, JSON-friendly view, with the derived sizes the tables and charts use."""
        return {
            **asdict(self),
            "images": self.images,
            "step_size": self.step_size,
            "steps": self.steps,
            "conv_layers": 2 + self.extra_convs,
            "variant": self.variant,
        }


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
    """Seconds of each of ``count`` calls of ``epoch``; the device is synchronised before every clock read."""
    seconds = []
    for index in range(count):
        sync(device)  # queued work from before must not land in this epoch
        start = clock()
        epoch()
        sync(device)  # a GPU returns before it has finished: wait for it
        seconds.append(clock() - start)
        if after_each is not None:
            after_each(index + 1)
    return seconds


@dataclass(frozen=True)
class BenchResult:
    """One cell measured on one device. Times are None unless status is 'ok'."""

    device: str  # "cpu", "cuda:0", "mps"
    device_name: str  # e.g. "CUDA:0 · NVIDIA H200"
    config: BenchConfig  # what was timed, after dropping options that do not apply here
    status: str = OK  # "ok", "out of memory", "failed: ...", "stopped: ..." or "skipped: ..."
    times_ms: tuple[float, ...] = ()  # every timed epoch, in order
    median_ms: float | None = None
    p25_ms: float | None = None
    p75_ms: float | None = None
    samples_per_s: float | None = None
    first_epoch_ms: float | None = None  # the first warm-up epoch: caches, allocator growth, lazy init
    context_ms: float | None = None  # CUDA context creation; None when already paid in this process
    setup_ms: float | None = None  # generating the images on the device, building and moving the model
    autotune_ms: float | None = None  # first eager step per batch shape: cuDNN autotune, lazy kernel loading
    compile_ms: float | None = None  # first compiled step per batch shape; None when not compiling
    peak_memory_bytes: int | None = None  # GPU: peak tensor memory; CPU: the process's peak RSS so far
    notes: tuple[str, ...] = field(default_factory=tuple)  # options dropped on this device, and why

    @property
    def ok(self) -> bool:
        """True when the cell has timings."""
        return self.status == OK

    def as_dict(self) -> dict:
        """JSON-friendly view; ``config`` is flattened."""
        values = asdict(self)
        values["config"] = self.config.as_dict()
        values["times_ms"] = list(self.times_ms)
        values["notes"] = list(self.notes)
        return values


class Stop(Exception):
    """Raised from a progress callback to end a benchmark early (cancel, time cap)."""


# progress(phase, done, total): phase is "setup", "warm-up" or "timing"; raise Stop to end early. Besides
# once per phase and epoch, it is called again with the same arguments after every optimizer step.
Progress = Callable[[str, int, int], None]


def is_out_of_memory(error: BaseException) -> bool:
    """True for an allocation failure on any device (GPUs raise OutOfMemoryError, the CPU a RuntimeError)."""
    text = str(error).lower()
    return isinstance(error, torch.OutOfMemoryError) or "out of memory" in text or "can't allocate" in text


def gpu_alone(device: torch.device) -> contextlib.AbstractContextManager:
    """Exclusive use of the GPUs for a CUDA cell; nothing to wait for on other devices."""
    return GPU_STATE.exclusive() if device.type == "cuda" else contextlib.nullcontext()


def bench(config: BenchConfig, device: torch.device | str, progress: Progress | None = None) -> BenchResult:
    """Time whole training epochs of ``config`` on ``device``; out of memory is recorded, not raised."""
    device = torch.device(device)
    config, notes = config.for_device(device)
    name = describe(device)
    try:
        # CPU cells run on torch's start-up thread count, whatever a page set before. A CUDA cell
        # turns on cuDNN autotuning (and may capture graphs or compile), which every thread of the
        # process would see: no Train run shares the GPU meanwhile.
        with cpu_threads(device, None), gpu_alone(device):
            return replace(_measure(config, device, progress or (lambda *_: None)), notes=notes)
    except Stop:
        raise
    except Exception as error:  # noqa: BLE001 - one bad cell must not end a sweep
        status = OUT_OF_MEMORY if is_out_of_memory(error) else f"failed: {type(error).__name__}: {error}"
        status = status.splitlines()[0][:300]
    finally:
        # The failed cell's tensors are only garbage once the traceback is gone: collect, then free.
        gc.collect()
        empty_cache(device)
    return BenchResult(str(device), name, config, status=status, notes=notes)


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

    def epoch(self, after_step: Callable[[], None] | None = None) -> None:
        """One pass of ``train.train_epoch`` over the training images (no sync: the caller's clock syncs).

        This is the training part of a Train page epoch, not all of it: there is no validation
        pass and no per-epoch metric sync (``tolist``), a full batch above MAX_FULL_BATCH images
        is cut into steps that big, and on the CPU torch runs its start-up thread count
        (``bench`` sets it), where the Train page runs small steps on one thread.
        ``after_step`` runs after every optimizer step (a cancel or time cap raises from it).
        """
        train_epoch(
            self.timed,
            self.x,
            self.y,
            self.optimizer,
            self.config.step_size,
            self.order,
            self.scaler,
            after_step=after_step,
        )

    def first_steps(self, net: nn.Module, after_step: Callable[[], None] | None = None) -> float:
        """Seconds for one training step on each batch shape an epoch uses (pays autotune or compilation).

        ``after_step`` runs before the first step and after each one, outside the clock.
        """
        sizes = sorted(
            {part.stop - part.start for part in batch_slices(self.config.images, self.config.step_size)}
        )
        x, y, optimizer = self.x, self.y, self.optimizer
        steps = [partial(train_epoch, net, x[:n], y[:n], optimizer, scaler=self.scaler) for n in sizes]
        check = after_step or (lambda: None)
        check()
        return sum(time_epochs(step, self.device, 1, after_each=lambda _: check())[0] for step in steps)


def prepare(config: BenchConfig, device: torch.device | str) -> Workload:
    """Generate the images on ``device`` and build the model, optimizer and faster paths there."""
    device = torch.device(device)
    layout = torch.channels_last if config.channels_last else torch.contiguous_format
    generator = torch.Generator(device=device).manual_seed(config.seed)
    x, y = make_lines(config.per_class, config.data_mode, generator)  # (N, 1, 8, 8), (N,) on device
    model = build_model(ModelConfig(config.width, config.extra_convs), config.seed)
    model = model.to(device, memory_format=layout)
    eager = Autocast(model, config.amp) if config.amp != "off" else model
    return Workload(
        config=config,
        device=device,
        x=x.contiguous(memory_format=layout),
        y=y,
        optimizer=make_optimizer(model, config.lr, device),
        order=torch.Generator().manual_seed(config.seed + 1),
        scaler=torch.amp.GradScaler(device.type) if config.amp == "fp16" else None,
        eager=eager,
        timed=_compiled(eager, config) if config.compile or config.cuda_graphs else eager,
    )


def _measure(config: BenchConfig, device: torch.device, progress: Progress) -> BenchResult:
    """The timing recipe: context, setup, priming, warm-up, timed repeats.

    ``progress`` is called at each phase, after each epoch, and again with the same arguments
    after every optimizer step (priming steps and compilation included), so that a Stop raised
    from it (a cancel, a time cap) lands within one step, not one epoch.
    """
    where = ["setup", 0, 1]  # the phase, epochs done and planned: what a per-step call repeats

    def at(phase: str, done: int, total: int) -> None:
        where[:] = [phase, done, total]
        progress(phase, done, total)

    def step() -> None:
        progress(*where)

    at("setup", 0, 1)
    context = first_use_seconds(device)
    reset_peak_memory(device)
    synchronize(device)
    start = time.perf_counter()
    work = prepare(config, device)
    synchronize(device)
    setup = time.perf_counter() - start

    epoch = partial(work.epoch, after_step=step)
    with _cudnn_benchmark(device):
        autotune = work.first_steps(work.eager, after_step=step)
        compiled = (
            work.first_steps(work.timed, after_step=step) if config.compile or config.cuda_graphs else None
        )
        at("warm-up", 0, config.warmup)
        warmup = time_epochs(
            epoch, device, config.warmup, after_each=lambda i: at("warm-up", i, config.warmup)
        )
        at("timing", 0, config.repeats)
        seconds = time_epochs(
            epoch, device, config.repeats, after_each=lambda i: at("timing", i, config.repeats)
        )

    summary = summarize(seconds, config.images)
    return BenchResult(
        device=str(device),
        device_name=describe(device),
        config=config,
        times_ms=tuple(1000 * s for s in seconds),
        median_ms=summary.median_ms,
        p25_ms=summary.p25_ms,
        p75_ms=summary.p75_ms,
        samples_per_s=summary.samples_per_s,
        first_epoch_ms=1000 * warmup[0],
        context_ms=None if context is None else 1000 * context,
        setup_ms=1000 * setup,
        autotune_ms=1000 * autotune,
        compile_ms=None if compiled is None else 1000 * compiled,
        peak_memory_bytes=peak_memory_bytes(device),
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


def _compiled(model: nn.Module, config: BenchConfig) -> nn.Module:
    """torch.compile'd model; 'reduce-overhead' records CUDA graphs, which cut the launch cost."""
    return torch.compile(model, mode="reduce-overhead" if config.cuda_graphs else None)


@contextlib.contextmanager
def _cudnn_benchmark(device: torch.device) -> Iterator[None]:
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


def bench_environment() -> dict:
    """The environment to store beside every result, with the date (UTC, ISO 8601)."""
    return {**environment().as_dict(), "date": datetime.now(UTC).isoformat(timespec="seconds")}


class BenchLock:
    """One benchmark at a time in this process (the server), so that runs never share the machine."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.holder: str | None = None  # who runs now, for the queued message

    @contextlib.contextmanager
    def hold(
        self, who: str, on_wait: Callable[[str | None, float], None] | None = None, poll: float = 0.25
    ) -> Iterator[None]:
        """Run the block alone; while queued, call ``on_wait(holder, seconds waited)`` every ``poll`` s."""
        queued = time.monotonic()
        while not self._lock.acquire(timeout=poll):
            if on_wait is not None:
                on_wait(self.holder, time.monotonic() - queued)
        self.holder = who
        try:
            yield
        finally:
            self.holder = None
            self._lock.release()

    @property
    def busy(self) -> bool:
        """True while some benchmark holds the lock."""
        return self._lock.locked()


BENCH_LOCK = BenchLock()  # shared by every session of a Streamlit server (module state is per process)
