"""Which device work belongs to one profiled step, whatever launched it.

With CUDA activity torch.profiler attaches each kernel to the host event it correlates with: an
aten operator in eager mode, CompiledFunction(Backward) for Triton kernels, a graph launch or the
compiled function for a CUDA graph's replay. It also copies every record_function range to the
device side (gpu_user_annotation), which is no kernel.
"""

from __future__ import annotations

from types import SimpleNamespace

from torch.autograd import DeviceType
from torch.autograd.profiler_util import FunctionEvent


def step_kernels(
    events: list[FunctionEvent],
    launchers: list[FunctionEvent],
    ranges_named: set[str],
    start: float,
    before: float,
) -> list:
    """The kernels of one step: those its host events launched, and those no host event claims.

    Kernels hang off whichever host event launched them: an aten operator in eager mode,
    CompiledFunction(Backward) for Triton kernels, cudaGraphLaunch or the compiled function for a
    CUDA graph's replay. Each kernel hangs off one event, so counting them all counts it once.
    """
    claimed = [kernel for event in launchers for kernel in launched(event, ranges_named)]
    return claimed + _unlinked_kernels(events, ranges_named, start, before)


def on_host(event: FunctionEvent) -> bool:
    """True for an event recorded on the CPU side (an operator, a range, a runtime call)."""
    return getattr(event, "device_type", DeviceType.CPU) == DeviceType.CPU


def launched(event: FunctionEvent, ranges_named: frozenset[str] | set[str]) -> list:
    """The device kernels ``event`` launched, less device-side copies of host ranges (annotations)."""
    return [kernel for kernel in event.kernels if kernel.name not in ranges_named]


def _unlinked_kernels(
    events: list[FunctionEvent], ranges_named: set[str], start: float, before: float
) -> list:
    """Device events no host event claims (no launch correlation), that ran from ``start`` until ``before``.

    Each step ends with a device sync, so a step's kernels run before the next step starts.
    """
    return [
        SimpleNamespace(name=event.name, duration=event.time_range.end - event.time_range.start)
        for event in events
        if not on_host(event)
        and getattr(event, "linked_correlation_id", None) == 0
        and not getattr(event, "is_user_annotation", False)
        and event.name not in ranges_named
        and start <= event.time_range.start < before
    ]
