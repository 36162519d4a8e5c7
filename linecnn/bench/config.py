"""What one benchmark cell times: a training problem (a ``RunConfig``) and how to time it.

The problem's defaults are ``RunConfig()``'s, the lesson's; this module adds only the timing
options. The flat dict of ``to_flat`` is the ``config`` of a result in a benchmark JSON file.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TypedDict, cast

import torch

from linecnn.device_ops import bf16_supported
from linecnn.errors import Message
from linecnn.train.config import RunConfig, check_int

AMP_MODES = ("off", "bf16", "fp16")
MAX_FULL_BATCH = 4_096  # a "full batch" bigger than this is cut into steps this big: bounded memory
FASTER_PATHS = ("channels_last", "compile", "cuda_graphs")  # the switches a variant names
TIMING_KEYS = ("warmup", "repeats", "amp", *FASTER_PATHS)
RUN_KEYS = ("per_class", "batch_size", "width", "extra_convs", "lr", "seed", "data_mode")  # what a cell uses


class TimingOptions(TypedDict, total=False):
    """BenchConfig's own fields (``TIMING_KEYS``) as keyword arguments, each one optional."""

    warmup: int
    repeats: int
    amp: str
    channels_last: bool
    compile: bool
    cuda_graphs: bool


@dataclass(frozen=True)
class BenchConfig:
    """One benchmark cell: the problem, how to time it, and which faster paths to take."""

    # The problem: data, model, batch size, learning rate and seed. Its epochs and validation
    # images are not used: a cell trains ``warmup + repeats`` epochs and validates nothing.
    run: RunConfig = field(default_factory=RunConfig)
    warmup: int = 2  # untimed epochs first; the first one is reported as a one-time cost
    repeats: int = 5  # timed epochs; median and quartiles come from these
    amp: str = "off"  # autocast on CUDA: "off", "bf16" or "fp16" (with a GradScaler)
    channels_last: bool = False  # NHWC layout for weights and images (CPU and CUDA)
    compile: bool = False  # torch.compile the model; compile time is reported apart
    cuda_graphs: bool = False  # torch.compile(mode="reduce-overhead"): replays CUDA graphs (CUDA only)

    def __post_init__(self) -> None:
        if not isinstance(self.run, RunConfig):
            raise ValueError(f"A benchmark cell needs a RunConfig; got {type(self.run).__name__}.")
        check_int("warmup", self.warmup, 1, 1000)
        check_int("repeats", self.repeats, 1, 1000)
        if self.amp not in AMP_MODES:
            raise ValueError(f"AMP must be one of {', '.join(AMP_MODES)}; got {self.amp!r}.")
        for name in FASTER_PATHS:
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false; got {getattr(self, name)!r}.")

    @classmethod
    def from_flat(cls, **flat: object) -> BenchConfig:
        """A cell from flat keys (``RUN_KEYS`` and ``TIMING_KEYS``); a key left out keeps its default."""
        unknown = sorted(set(flat) - set(RUN_KEYS) - set(TIMING_KEYS))
        if unknown:
            raise TypeError(f"from_flat() got unexpected keys: {', '.join(unknown)}")
        run = RunConfig.from_flat(**{key: flat[key] for key in RUN_KEYS if key in flat})
        # The flat values come from JSON, the CLI and the page's widgets, unchecked: __post_init__ checks
        # each one's type and range, so they are typed here as what they must be.
        timing = cast(TimingOptions, {key: flat[key] for key in TIMING_KEYS if key in flat})
        return cls(run, **timing)

    def with_run(self, **flat: object) -> BenchConfig:
        """The same cell with some of its problem's flat keys changed, e.g. ``with_run(per_class=400)``."""
        return replace(self, run=RunConfig.from_flat(**{**self.run.as_dict(), **flat}))

    @property
    def images(self) -> int:
        """Training images per epoch."""
        return self.run.data.train_size

    @property
    def step_size(self) -> int:
        """Images per optimizer step, after the full-batch memory bound."""
        return min(self.images, self.run.train.batch_size or MAX_FULL_BATCH)

    @property
    def steps(self) -> int:
        """Optimizer steps per epoch."""
        return -(-self.images // self.step_size)

    @property
    def conv_layers(self) -> int:
        """Convolution layers of the model: the lesson's two plus the extra ones."""
        return 2 + self.run.model.extra_convs

    @property
    def variant(self) -> str:
        """'eager', or the faster paths taken, e.g. 'bf16 + compile'."""
        parts = [self.amp] if self.amp != "off" else []
        parts += [name for name in FASTER_PATHS if getattr(self, name)]
        return " + ".join(parts) or "eager"

    @property
    def epochs(self) -> int:
        """Epochs a cell trains: the warm-up, then the timed ones."""
        return self.warmup + self.repeats

    def eager(self) -> BenchConfig:
        """The same cell with every faster path off: fp32, default NCHW layout, no compilation."""
        return replace(self, amp="off", channels_last=False, compile=False, cuda_graphs=False)

    def for_device(self, device: torch.device | str) -> tuple[BenchConfig, tuple[str, ...]]:
        """The options that apply on ``device``, and a sentence (a Message) for each one dropped."""
        kind = torch.device(device).type
        dropped: TimingOptions = {}
        notes: list[Message] = []
        if self.amp != "off" and kind != "cuda":
            dropped["amp"] = "off"
            notes.append(Message("note_amp_cuda_only"))
        elif self.amp == "bf16" and kind == "cuda" and not bf16_supported(device):
            dropped["amp"] = "off"
            notes.append(Message("note_no_bf16"))
        if self.channels_last and kind not in ("cpu", "cuda"):
            dropped["channels_last"] = False
            notes.append(Message("note_channels_last"))
        if self.cuda_graphs and kind != "cuda":
            dropped["cuda_graphs"] = False
            notes.append(Message("note_cuda_graphs"))
        return replace(self, **dropped), tuple(notes)

    def to_flat(self) -> dict:
        """The flat JSON view: the keys ``from_flat`` reads, then the derived sizes other readers use."""
        run = self.run.as_dict()
        return {
            **{key: run[key] for key in RUN_KEYS},
            **{key: getattr(self, key) for key in TIMING_KEYS},
            "images": self.images,
            "step_size": self.step_size,
            "steps": self.steps,
            "conv_layers": self.conv_layers,
            "variant": self.variant,
        }
