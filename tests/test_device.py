"""Device discovery and resolution."""

import pytest
import torch

from linecnn import device as dev
from linecnn.device_ops import bf16_supported


def test_cpu_is_always_listed_first():
    """The CPU is the first device, with a name."""
    devices = dev.list_devices()
    assert devices[0].key == "cpu" and devices[0].kind == "cpu" and devices[0].name


def test_resolve_cpu_and_auto():
    """'cpu' is the CPU; 'auto' is the best device present (the lesson's portable pattern)."""
    assert dev.resolve("cpu") == torch.device("cpu")
    expected = "cuda:0" if dev.cuda_available() else ("mps" if dev.mps_available() else "cpu")
    assert dev.resolve("auto") == torch.device(expected)
    assert dev.resolve(" CPU ") == torch.device("cpu")


def test_unknown_device_is_a_clear_error():
    """A typo names the valid choices."""
    with pytest.raises(ValueError, match="choose auto, cpu, cuda"):
        dev.resolve("gpu")


@pytest.mark.skipif(dev.cuda_available(), reason="checks the message shown when CUDA is absent")
def test_cuda_without_a_gpu_says_why():
    """Asking for CUDA on a machine without it explains why and what to do instead."""
    with pytest.raises(ValueError, match="CUDA was requested") as caught:
        dev.resolve("cuda")
    assert dev.cuda_unavailable_reason() in str(caught.value)
    assert "cpu" in str(caught.value)


def test_missing_gpu_index_is_a_clear_error(monkeypatch):
    """cuda:7 on a one-GPU machine names the GPUs that exist."""
    monkeypatch.setattr(dev, "cuda_available", lambda: True)
    monkeypatch.setattr(
        dev,
        "list_devices",
        lambda: (dev.DeviceInfo("cpu", "cpu", "x", None), dev.DeviceInfo("cuda:0", "cuda", "g", 1)),
    )
    with pytest.raises(ValueError, match="no cuda:7 here; the GPUs are: cuda:0"):
        dev.resolve("cuda:7")
    assert dev.resolve("cuda") == torch.device("cuda:0")
    assert dev.resolve("auto") == torch.device("cuda:0")


def test_environment_has_the_facts_benchmarks_print():
    """Versions, CPU model and thread counts are recorded."""
    env = dev.environment().as_dict()
    for key in ("torch_version", "cuda_version", "cpu_model", "cpu_count", "torch_threads", "devices"):
        assert key in env
    assert env["torch_version"] == torch.__version__ and env["torch_threads"] >= 1


def test_environment_reports_the_start_up_threads_even_inside_a_one_thread_block():
    """A Train run elsewhere may have lowered this thread's count; benchmarks still use the default."""
    with dev.cpu_threads("cpu", 1):
        assert dev.environment().torch_threads == dev.DEFAULT_CPU_THREADS


def test_only_device_module_asks_torch_about_cuda():
    """Nothing but device.py calls torch.cuda.is_available() (the device is resolved once).

    lesson/snippets.py is the exception by design: it holds the lesson's snippets as text, and detecting
    CUDA that way is what one of them teaches.
    """
    from pathlib import Path

    package = Path(dev.__file__).parent
    offenders = [
        str(path)
        for path in package.rglob("*.py")
        if path.relative_to(package).as_posix() not in ("device.py", "lesson/snippets.py")
        and "cuda.is_available" in path.read_text()
    ]
    assert offenders == []


def test_overlapping_thread_limits_leave_the_default_for_new_threads():
    """Two sessions' cpu_threads blocks overlapping (A in, B in, A out, B out) leak nothing."""
    import threading

    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def session_a():
        with dev.cpu_threads("cpu", 1):
            seen["a"] = torch.get_num_threads()
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def session_b():
        a_in.wait(5)
        with dev.cpu_threads("cpu", 1):
            b_in.set()
            a_out.wait(5)
            seen["b"] = torch.get_num_threads()

    workers = [threading.Thread(target=session_a), threading.Thread(target=session_b)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(10)
    fresh = threading.Thread(target=lambda: seen.setdefault("fresh", torch.get_num_threads()))
    fresh.start()
    fresh.join(10)
    assert seen == {"a": 1, "b": 1, "fresh": dev.DEFAULT_CPU_THREADS}
    assert torch.get_num_threads() == dev.DEFAULT_CPU_THREADS


def test_none_means_the_start_up_default_even_after_an_inherited_limit():
    """A thread that inherited one thread gets the default back inside cpu_threads(None)."""
    torch.set_num_threads(1)
    try:
        with dev.cpu_threads("cpu", None):
            assert torch.get_num_threads() == dev.DEFAULT_CPU_THREADS
    finally:
        torch.set_num_threads(dev.DEFAULT_CPU_THREADS)


def test_bf16_means_native_support_on_that_gpu(monkeypatch):
    """Ampere (8.x) and newer have native bf16; a Volta or Turing GPU that only emulates it does not."""
    from types import SimpleNamespace

    monkeypatch.setattr(
        torch.cuda, "get_device_properties", lambda d: SimpleNamespace(major=7 + (d.index or 0))
    )
    assert not bf16_supported("cpu")
    assert not bf16_supported("cuda:0")  # major 7: V100 or T4
    assert bf16_supported("cuda:1")  # major 8: A100 and newer
