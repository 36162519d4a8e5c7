"""What a data-parallel series holds in memory at its peak, against what this machine has free.

Every rank builds the whole data set (the same images from the same seed), so N ranks hold N copies;
a series that cannot fit is refused before anything is built, with a setting that fits.
"""

from __future__ import annotations

from collections.abc import Sequence

from linecnn.errors import Message, UserError
from linecnn.parallel.config import RanksConfig
from linecnn.train.config import RunConfig
from linecnn.train.limits import format_size, largest_per_class, run_memory_bytes

PROCESS_BYTES = 400 << 20  # one Python process with torch imported, before any data
GENERATION_COPIES = 2  # make_lines' temporaries (noise, the drawn lines) beside the images it builds
IMAGE_BYTES = 8 * 8 * 4  # one float32 image


def process_bytes(run: RunConfig) -> int:
    """Rough peak bytes of one rank: torch, its data, model and step, and the generator's temporaries."""
    return PROCESS_BYTES + run_memory_bytes(run) + GENERATION_COPIES * IMAGE_BYTES * run.data.train_size


def available_bytes() -> int | None:
    """Memory this machine can give without swapping (MemAvailable); None where the OS does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_memory(config: RanksConfig, counts: Sequence[int], available: int | None = None) -> None:
    """UserError, naming a setting that fits, when the largest run of ``counts`` would not fit in memory.

    The runs (and the single-device reference before them) come one at a time: the peak is the
    largest run's. ``available`` defaults to what the machine has free now.
    """
    available = available_bytes() if available is None else available
    if available is None or not counts:
        return
    most, run = max(counts), config.bench.run
    needed = most * process_bytes(run)
    if needed <= available:
        return
    per_class = largest_per_class(run, lambda candidate: most * process_bytes(candidate) <= available)
    advice = Message("choose_per_class", count=per_class) if per_class else Message("choose_fewer_ranks")
    raise UserError(
        "ranks_over_memory",
        count=most,
        needed=format_size(needed),
        available=format_size(available),
        advice=advice,
    )
