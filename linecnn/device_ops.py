"""Work on one device beyond computing: waiting for it, its memory, its one-time costs and capabilities.

Import them from here. This module depends on torch alone; ``linecnn.device`` says which devices
exist and picks one.
"""

from __future__ import annotations

import contextlib
import platform
import time
from collections.abc import Callable
from typing import TypeVar

import torch

T = TypeVar("T")


def synchronize(device: torch.device | str) -> None:
    """Wait until all queued work on ``device`` has finished (a no-op on the CPU)."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def synced_seconds(
    work: Callable[[], T], wait: Callable[[], object], clock: Callable[[], float] = time.perf_counter
) -> tuple[T, float]:
    """``work()``'s value and the seconds it took with its device work: the synchronised clock.

    ``wait`` (a device's or a stream's synchronisation) runs before the clock starts, so queued work
    from before is not counted, and before it stops, since a GPU returns before it has finished."""
    wait()
    start = clock()
    value = work()
    wait()
    return value, clock() - start


class RunStream:
    """Where one run issues its work: a CUDA stream of its own on a GPU, so that waiting for its work
    never waits for other runs' queued kernels (a device-wide sync would); the device elsewhere."""

    def __init__(self, device: torch.device | str) -> None:
        self.device = torch.device(device)
        self.stream = torch.cuda.Stream(self.device) if self.device.type == "cuda" else None

    def using(self) -> contextlib.AbstractContextManager:
        """Work issued inside goes to this run's stream (nothing to do off a GPU)."""
        return torch.cuda.stream(self.stream) if self.stream is not None else contextlib.nullcontext()

    def wait(self) -> None:
        """Wait until this run's queued work has finished."""
        if self.stream is not None:
            self.stream.synchronize()
        else:
            synchronize(self.device)


def preferred_memory_format(device: torch.device | str) -> torch.memory_format:
    """channels_last where it helps this tiny CNN (CPU max-pool runs much faster in it), else contiguous."""
    return torch.channels_last if torch.device(device).type in ("cpu", "cuda") else torch.contiguous_format


ModuleT = TypeVar("ModuleT", bound=torch.nn.Module)


def place_module(model: ModuleT, device: torch.device, memory_format: torch.memory_format) -> ModuleT:
    """``model`` itself, moved to ``device`` with its 4-D weights laid out in ``memory_format``."""
    # Module.to moves the module in place and takes memory_format, as torch documents; torch's type
    # overloads of it leave that keyword out.
    model.to(device, memory_format=memory_format)  # type: ignore[call-overload]
    return model


_USED: set[str] = set()  # devices this process has already allocated on


def first_use_seconds(device: torch.device | str) -> float | None:
    """Seconds the first allocation on a GPU takes (CUDA context creation); None if already paid or CPU."""
    device = torch.device(device)
    key = str(device)
    if device.type == "cpu" or key in _USED:
        return None
    _USED.add(key)
    has_context = getattr(torch._C, "_cuda_hasPrimaryContext", None)  # private, so looked up with care
    if device.type == "cuda" and has_context is not None and has_context(device.index or 0):
        return None  # another page or an earlier run in this process already paid for the context
    start = time.perf_counter()
    torch.empty(1, device=device)
    synchronize(device)
    return time.perf_counter() - start


def empty_cache(device: torch.device | str) -> None:
    """Give cached, unused GPU memory back to the driver (after an out-of-memory error, say)."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.empty_cache()
    elif device.type == "mps":
        torch.mps.empty_cache()


def reset_peak_memory(device: torch.device | str) -> None:
    """Start a new peak for ``peak_memory_bytes`` (GPU only: the OS keeps the CPU's)."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)


def peak_memory_bytes(device: torch.device | str) -> int | None:
    """Peak tensor memory on a GPU since the last reset, or this process's peak RSS on the CPU."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device)
    if device.type == "cpu":
        try:
            import resource  # Unix only

            # ru_maxrss is in KiB on Linux, bytes on macOS.
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            return peak if platform.system() == "Darwin" else peak * 1024
        except ImportError:
            return None
    return None


def float32_precision() -> str | None:
    """What float32 matmuls and convolutions run in on CUDA as torch is set now (TF32 or full float32).

    Ampere and newer GPUs run cuDNN convolutions in TF32 by default (about 1e-3 relative error), so
    a GPU timing says which it timed. None when torch refuses to tell (its flags were set through
    both its old and new precision APIs).
    """
    try:
        matmul = torch.get_float32_matmul_precision()
        tf32_matmul = torch.backends.cuda.matmul.allow_tf32
        tf32_conv = torch.backends.cudnn.allow_tf32
    except (RuntimeError, AttributeError):
        return None
    state = {True: "on", False: "off"}
    return (
        f"float32 matmul precision {matmul}, TF32 matmuls {state[bool(tf32_matmul)]}, "
        f"TF32 convolutions {state[bool(tf32_conv)]}"
    )


def bf16_supported(device: torch.device | str) -> bool:
    """True when ``device`` is a GPU that runs bfloat16 natively (Ampere and newer)."""
    device = torch.device(device)
    # Not torch.cuda.is_bf16_supported(): it also says yes for emulated bf16 (T4, V100), and it
    # asks about the current GPU rather than this one.
    return device.type == "cuda" and torch.cuda.get_device_properties(device).major >= 8
