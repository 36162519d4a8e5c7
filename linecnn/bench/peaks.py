"""Rough peak floating-point rates of some GPUs, to set a measured rate beside.

Figures are FP32 without tensor cores, from NVIDIA's datasheets for each board; a name is matched
by the first entry it contains, so the more specific names come first. A device not listed has no
peak shown: a guess would teach the wrong lesson.
"""

from __future__ import annotations

# (part of the device name, peak FP32 TFLOP/s from the board's datasheet)
FP32_PEAKS: tuple[tuple[str, float], ...] = (
    ("H100 PCIe", 51.2),
    ("H100", 67.0),  # SXM
    ("H200 NVL", 60.0),
    ("H200", 67.0),
    ("A100", 19.5),
    ("L40S", 91.6),
    ("L40", 90.5),
    ("L4", 30.3),
    ("A10", 31.2),
    ("T4", 8.1),
    ("V100", 15.7),
    ("RTX 4090", 82.6),
    ("RTX 3090", 35.6),
)
SOURCE = "NVIDIA datasheet, FP32 without tensor cores"


def peak_gflops(device_name: str) -> float | None:
    """The datasheet FP32 peak of the GPU called ``device_name`` in GFLOP/s, or None when not listed."""
    for part, tflops in FP32_PEAKS:
        if part.lower() in device_name.lower():
            return 1000 * tflops
    return None
