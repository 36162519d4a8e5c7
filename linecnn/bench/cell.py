"""Honest epoch timing: warm up, sync before every clock read, median of N epochs.

The epoch timed is ``train.epoch.train_epoch`` on the real model and the real line generator, with
the data made on the device under test. One-time costs (CUDA context, cuDNN autotune,
compilation, the first epoch) are measured apart and never mixed into the median. Progress
is reported between epochs only: nothing but a cheap cancel and time-cap check runs while an
epoch's clock runs.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial

import torch

from linecnn.bench import runqueue
from linecnn.bench.config import BenchConfig
from linecnn.bench.results import CellResult, CellStatus
from linecnn.bench.timing import (
    Watch,
    cudnn_benchmark,
    must_compile,
    prepare,
    release_compiled,
    summarize,
    time_epochs,
)
from linecnn.classroom.bench_turns import gpu_alone
from linecnn.device import cpu_threads, describe
from linecnn.device_ops import (
    empty_cache,
    first_use_seconds,
    peak_memory_bytes,
    reset_peak_memory,
    synced_seconds,
    synchronize,
)
from linecnn.stop import Stopped

# progress(phase, done, total): phase is "setup", "warm-up" or "timing". Called at each phase and
# after each epoch, outside the epochs' clock.
Progress = Callable[[str, int, int], None]


def is_out_of_memory(error: BaseException) -> bool:
    """True for an allocation failure on any device (GPUs raise OutOfMemoryError, the CPU a RuntimeError)."""
    text = str(error).lower()
    return isinstance(error, torch.OutOfMemoryError) or "out of memory" in text or "can't allocate" in text


def bench(
    config: BenchConfig,
    device: torch.device | str,
    progress: Progress | None = None,
    watch: Watch | None = None,
    threads: int | None = None,
) -> CellResult:
    """Time whole training epochs of ``config`` on ``device``; out of memory is recorded, not raised.

    ``watch`` is checked after every optimizer step; the Stopped it raises (a cancel, the time cap)
    ends the cell. A CPU cell runs on ``threads`` torch threads (None: torch's start-up count).
    """
    device = torch.device(device)
    config, notes = config.for_device(device)
    name = describe(device)
    try:
        # CPU cells run on ``threads`` (else torch's start-up count), whatever a page set before. A CUDA cell
        # turns on cuDNN autotuning (and may capture graphs or compile), which every thread of the
        # process would see: no Train run shares the GPU meanwhile.
        with cpu_threads(device, threads), gpu_alone(device):
            result = _measure(config, device, progress or (lambda *_: None), watch or Watch())
            used = torch.get_num_threads() if device.type == "cpu" else None
            return replace(result, notes=notes, threads=used)
    except Stopped:
        raise
    except Exception as error:  # noqa: BLE001 - one bad cell must not end a sweep
        failed = not is_out_of_memory(error)
        status = CellStatus.FAILED if failed else CellStatus.OUT_OF_MEMORY
        reason = f"{type(error).__name__}: {error}".splitlines()[0][:290] if failed else ""
    finally:
        if config.compile or config.cuda_graphs:
            # Compiled code and CUDA graphs keep the graphs' memory pools alive; a later cell's peak
            # memory must not include them.
            release_compiled()
        # The failed cell's tensors are only garbage once the traceback is gone: collect, then free.
        gc.collect()
        empty_cache(device)
    return CellResult(str(device), name, config, status=status, reason=reason, notes=notes)


def _measure(config: BenchConfig, device: torch.device, progress: Progress, watch: Watch) -> CellResult:
    """The timing recipe: context, setup, priming, warm-up, timed repeats; progress between epochs."""
    progress("setup", 0, 1)
    watch.check()
    context = first_use_seconds(device)
    reset_peak_memory(device)
    work, setup = synced_seconds(lambda: prepare(config, device, watch.check), partial(synchronize, device))
    with cudnn_benchmark(device):
        autotune = work.first_steps(work.eager)
        compiled = None
        if config.compile or config.cuda_graphs:
            with must_compile(True):
                compiled = work.first_steps(work.timed)
        phases, waits = {}, {}
        for phase, count in (("warm-up", config.warmup), ("timing", config.repeats)):
            progress(phase, 0, count)
            after = lambda done, phase=phase, count=count: progress(phase, done, count)  # noqa: E731
            waits[phase], start = runqueue.waits_now(), time.perf_counter()
            phases[phase] = time_epochs(work.epoch, device, count, after_each=after)
            wall = time.perf_counter() - start
        # The timed repeats' waits, per thread the cell computes on (a CUDA cell: its launching thread).
        threads = torch.get_num_threads() if device.type == "cpu" else 1
        waited = runqueue.waited_share(waits["timing"], runqueue.waits_now(), wall * threads)
    summary = summarize(phases["timing"], config.images)
    return CellResult(
        device=str(device),
        device_name=describe(device),
        config=config,
        times_ms=tuple(1000 * s for s in phases["timing"]),
        median_ms=summary.median_ms,
        p25_ms=summary.p25_ms,
        p75_ms=summary.p75_ms,
        samples_per_s=summary.samples_per_s,
        first_epoch_ms=1000 * phases["warm-up"][0],
        context_ms=None if context is None else 1000 * context,
        setup_ms=1000 * setup,
        autotune_ms=1000 * autotune,
        compile_ms=None if compiled is None else 1000 * compiled,
        peak_memory_bytes=peak_memory_bytes(device),
        run_queue=waited,
    )
