"""Everything about devices, in one place: what exists, what it is, how to pick one.

No other module calls ``torch.cuda.is_available()``: they ask this one.
"""

from __future__ import annotations

import functools
import os
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass

import torch

from linecnn.errors import Message

# The lesson's one-line portable pattern, shown on the Home page.
PORTABLE_PATTERN = 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")'


@dataclass(frozen=True)
class DeviceInfo:
    """One device a tensor can live on."""

    key: str  # what resolve() accepts: "cpu", "cuda:0", "mps"
    kind: str  # "cpu", "cuda" or "mps"
    name: str  # e.g. "AMD EPYC 7B13" or "NVIDIA H200"
    memory_bytes: int | None  # total memory (system RAM for the CPU); None if unknown

    @property
    def label(self) -> str:
        """Short human label, e.g. 'CUDA:0 · NVIDIA H200'."""
        return f"{self.key.upper()} · {self.name}"


@dataclass(frozen=True)
class Environment:
    """Software and hardware facts to print beside every measurement."""

    torch_version: str
    cuda_version: str | None  # CUDA runtime torch was built with; None for CPU builds
    cudnn_version: int | None
    python_version: str
    platform: str
    cpu_model: str
    cpu_count: int  # logical CPUs the OS reports
    torch_threads: int  # intra-op CPU threads torch starts with (benchmarks and the CLI use them)
    devices: tuple[DeviceInfo, ...]
    cuda_note: str | None  # why CUDA is not offered, or None when it is

    def as_dict(self) -> dict:
        """JSON-friendly view."""
        return asdict(self)


def cuda_available() -> bool:
    """True when torch can run on an NVIDIA GPU here."""
    return torch.cuda.is_available()


def mps_available() -> bool:
    """True when torch can run on Apple's Metal GPU here."""
    return bool(getattr(torch.backends, "mps", None)) and torch.backends.mps.is_available()


def cuda_unavailable_reason() -> str | None:
    """A short sentence saying why CUDA is not offered, or None when it is."""
    if cuda_available():
        return None
    if torch.version.cuda is None:
        return Message("cuda_cpu_build", version=torch.__version__)
    return Message("cuda_no_gpu")


def cpu_model() -> str:
    """The CPU's marketing name, as precise as the OS tells."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _system_memory() -> int | None:
    """Total RAM in bytes, where the OS tells it."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


@functools.cache
def list_devices() -> tuple[DeviceInfo, ...]:
    """Every device available here: the CPU first, then each CUDA GPU, then MPS."""
    devices = [DeviceInfo("cpu", "cpu", cpu_model(), _system_memory())]
    if cuda_available():
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            devices.append(DeviceInfo(f"cuda:{index}", "cuda", props.name, props.total_memory))
    if mps_available():
        devices.append(DeviceInfo("mps", "mps", "Apple Metal GPU", None))
    return tuple(devices)


def environment() -> Environment:
    """The facts of this machine and its PyTorch build."""
    cudnn = torch.backends.cudnn.version() if cuda_available() else None
    return Environment(
        torch_version=torch.__version__,
        cuda_version=torch.version.cuda,
        cudnn_version=cudnn,
        python_version=platform.python_version(),
        platform=platform.platform(terse=True),
        cpu_model=cpu_model(),
        cpu_count=os.cpu_count() or 1,
        torch_threads=DEFAULT_CPU_THREADS,  # not this thread's count, which a page may have lowered
        devices=list_devices(),
        cuda_note=cuda_unavailable_reason(),
    )


def resolve(choice: str = "auto", option: str = "--device") -> torch.device:
    """Turn a user's choice ('auto', 'cpu', 'cuda', 'cuda:1', 'mps') into a torch.device.

    'auto' is the lesson's portable pattern: CUDA when present, else MPS, else the CPU.
    Asking for a device that is not here raises ValueError saying why, and which ``option`` to change.
    """
    choice = (choice or "auto").strip().lower()
    keys = [d.key for d in list_devices()]
    if choice == "auto":
        return torch.device(keys[1] if len(keys) > 1 else "cpu")
    if choice == "cpu":
        return torch.device("cpu")
    if choice == "cuda" or choice.startswith("cuda:"):
        if not cuda_available():
            raise ValueError(f"CUDA was requested, but {cuda_unavailable_reason()} Use {option} cpu.")
        key = "cuda:0" if choice == "cuda" else choice
        if key not in keys:
            gpus = ", ".join(k for k in keys if k.startswith("cuda"))
            raise ValueError(f"There is no {key} here; the GPUs are: {gpus}.")
        return torch.device(key)
    if choice == "mps":
        if not mps_available():
            raise ValueError(f"MPS (Apple GPU) is not available here. Use {option} cpu.")
        return torch.device("mps")
    raise ValueError(f"Unknown device {choice!r}; choose auto, cpu, cuda, cuda:N or mps.")


# torch's own choice at start-up (one per core). Every cpu_threads block ends by restoring it,
# never "the count before": another session's block may have been open at that moment.
DEFAULT_CPU_THREADS = torch.get_num_threads()


def core_share(parts: int, cores: int | None = None) -> int:
    """CPU threads each of ``parts`` gets when ``cores`` (this machine's by default) are split evenly, at
    least one: a training slot's runs, a data-parallel run's ranks."""
    return max(1, (cores or os.cpu_count() or 1) // max(1, parts))


@contextmanager
def cpu_threads(device: torch.device | str, threads: int | None) -> Iterator[None]:
    """Run this thread's torch CPU ops on ``threads`` threads (None: the start-up default) in the block.

    One thread is for tiny ops: they gain nothing from more, and when the machine is busy (a
    browser drawing charts, other sessions) each op waits for a thread that waits for a core,
    which can make a tiny op many times slower (docs/measurements.md). torch keeps the count per
    calling thread, but threads started meanwhile inherit it, so a Streamlit run (each has its own
    thread) should set what it needs, None included.
    The block always ends at DEFAULT_CPU_THREADS. Does nothing for other devices.
    """
    if torch.device(device).type != "cpu":
        yield
        return
    torch.get_num_threads()  # first, torch's lazy per-thread set-up, which would undo the next line
    torch.set_num_threads(threads or DEFAULT_CPU_THREADS)
    try:
        yield
    finally:
        torch.set_num_threads(DEFAULT_CPU_THREADS)


def device_key(device: torch.device | str) -> str:
    """The key a device is listed under: 'cpu', 'cuda:0', 'mps' (a bare 'cuda' is the first GPU)."""
    key = str(torch.device(device))
    return "cuda:0" if key == "cuda" else key


def describe(device: torch.device | str) -> str:
    """A human label for a resolved device, e.g. 'CUDA:0 · NVIDIA H200'."""
    key = device_key(device)
    for info in list_devices():
        if info.key == key:
            return info.label
    return key
