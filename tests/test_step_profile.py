"""Inside one step from the profiler's events: steps told apart, kernels counted whatever launched them.

The events are built by hand as torch.profiler gives them with CUDA activity, so these run on a CPU.
Core only (no streamlit): they run on a bare GPU box too.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from torch.autograd import DeviceType

from linecnn.bench.step_profile import STEP_RANGE, phase_of, summarize_events


def fake_op(name, start, self_us=10.0, parent=None, kernels=()):
    """An aten event as the profiler gives it, with only what the summary reads."""
    return SimpleNamespace(
        name=name,
        is_async=False,
        time_range=SimpleNamespace(start=start, end=start + 1),
        self_cpu_time_total=self_us,
        cpu_parent=parent,
        kernels=[SimpleNamespace(name=k, duration=d) for k, d in kernels],
    )


def fake_step(start, end):
    """A STEP_RANGE event from ``start`` to ``end`` (µs)."""
    step = fake_op(STEP_RANGE, start, self_us=1.0)
    step.time_range.end = end
    return step


def test_the_summary_reads_the_median_step_and_counts_kernels_not_copies():
    """Figures come from the median step alone; memory copies are not kernel launches; phases by parent."""
    engine = SimpleNamespace(name="autograd::engine::evaluate_function: AddmmBackward0", cpu_parent=None)
    adam = SimpleNamespace(name="Optimizer.step#Adam.step", cpu_parent=None)
    events = [
        fake_step(0, 100),
        fake_step(200, 300),
        fake_step(400, 500),
        fake_op("aten::addmm", 10, kernels=[("gemm", 3.0)]),  # step 1 (the slowest)
        fake_op("aten::addmm", 210, kernels=[("gemm", 2.0), ("Memcpy HtoD", 5.0)]),  # step 2 (the median)
        fake_op("aten::mm", 220, parent=engine, kernels=[("gemm_bw", 4.0)]),
        fake_op("aten::_fused_adam_", 230, parent=adam, kernels=[("adam", 1.0)]),
        fake_op("aten::addmm", 410),  # step 3 (the fastest)
    ]
    p = summarize_events(
        events,
        device="cuda:0",
        images=4,
        plain_seconds=[0.01] * 3,
        profiled_seconds=[0.03, 0.02, 0.01],
        flops=8.0,
    )
    assert (p.operator_calls, p.kernels, p.profiled_ms) == (3, 3, 20.0)
    assert p.work_ms == pytest.approx((2 + 5 + 4 + 1) / 1000)  # kernel times, copies included
    assert {op.name: op.phase for op in p.operators} == {
        "aten::addmm": "forward",
        "aten::mm": "backward",
        "aten::_fused_adam_": "optimizer",
    }
    assert phase_of(fake_op("aten::relu", 0)) == "forward"


def device_event(name, start, duration=1.0, linked=1, annotation=False):
    """An event the profiler records on the GPU side: a kernel, or a record_function's annotation."""
    return SimpleNamespace(
        name=name,
        is_async=False,
        device_type=DeviceType.CUDA,
        time_range=SimpleNamespace(start=start, end=start + duration),
        linked_correlation_id=linked,
        is_user_annotation=annotation,
        kernels=[],
    )


def test_gpu_side_copies_of_the_step_ranges_are_not_steps():
    """With CUDA activity each step range also appears on the GPU (a gpu_user_annotation): not a step."""
    events = [
        fake_step(0, 100),
        fake_step(200, 300),
        device_event(STEP_RANGE, 5, 90, linked=0, annotation=True),
        device_event(STEP_RANGE, 205, 90, linked=0, annotation=True),
        fake_op("aten::addmm", 10, kernels=[("gemm", 3.0), (STEP_RANGE, 90.0)]),
        fake_op("aten::addmm", 210, kernels=[("gemm", 2.0)]),
        device_event("gemm", 12, 3.0),
        device_event("gemm", 212, 2.0),
    ]
    p = summarize_events(
        events, device="cuda:0", images=4, plain_seconds=[0.01] * 2, profiled_seconds=[0.03, 0.02], flops=8.0
    )
    assert p.steps == 2
    assert (p.kernels, p.work_ms) == (1, pytest.approx(3.0 / 1000))  # the median (slower) step: one gemm


def test_compiled_and_graph_kernels_count_whatever_launched_them():
    """Triton kernels hang off CompiledFunction(Backward), graph ones off their launch: all count."""
    events = [
        fake_step(0, 100),
        fake_op("CompiledFunction", 5, self_us=20.0, kernels=[("triton_poi_fused_relu_0", 2.0)] * 3),
        fake_op("CompiledFunctionBackward", 30, self_us=20.0, kernels=[("triton_red_fused_1", 3.0)] * 2),
        fake_op("cudaGraphLaunch", 60, self_us=5.0, kernels=[("void cutlass_gemm", 4.0)] * 4),
        fake_op("aten::_fused_adam_", 80, kernels=[("adam", 1.0), ("Memset (Device)", 1.0)]),
        device_event("void replayed_kernel", 85, 5.0, linked=0),  # a kernel no host event claims
        device_event("Optimizer.step#Adam.step", 80, 9.0, linked=0, annotation=True),
    ]
    p = summarize_events(
        events, device="cuda:0", images=4, plain_seconds=[0.01], profiled_seconds=[0.02], flops=8.0
    )
    assert p.kernels == 3 + 2 + 4 + 1 + 1  # the Memset is no launch
    assert p.work_ms == pytest.approx((3 * 2 + 2 * 3 + 4 * 4 + 1 + 1 + 5) / 1000)
    assert p.operator_calls == 1  # aten operators only
    assert {"CompiledFunction", "CompiledFunctionBackward", "cudaGraphLaunch"} <= {
        op.name for op in p.operators
    }


def test_a_step_count_the_profiler_disagrees_with_is_refused():
    """Summaries never guess which events belong to which step."""
    with pytest.raises(ValueError, match="recorded 1 steps where 2 ran"):
        summarize_events(
            [fake_step(0, 1)], device="cpu", images=1, plain_seconds=[1, 1], profiled_seconds=[1, 1], flops=0
        )
