"""Frozen, self-validating configuration for data, model and training.

The defaults are the original lesson's, and ``RunConfig()`` is the one place that holds them:
the CLI, the pages and the benchmark read them from there. A bad value raises ``ValueError``
with a sentence a user can act on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from linecnn.errors import Message, UserError
from linecnn.train.lines import DATA_MODES

# Files and history rows written before the lesson's data mode was named "lesson" call it "seed".
RENAMED_DATA_MODES = {"seed": "lesson"}
MAX_SEED = 2**63 - 1  # torch.Generator.manual_seed takes a 64-bit integer

# Bounds the core accepts. Pages and the CLI may cap lower for responsiveness.
MAX_PER_CLASS = 2_000_000
MAX_EPOCHS = 100_000
MAX_WIDTH = 64
MAX_EXTRA_CONVS = 16
DEFAULT_MAX_SECONDS = 300.0  # a Train-page run's time cap unless the host sets another (TrainLimits)


def check_int(key: str, value: object, low: int, high: int) -> None:
    """Raise UserError unless value is a whole number in [low, high]; ``key`` names it (errors: field.*)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        got = value if isinstance(value, int) and not isinstance(value, bool) else repr(value)
        raise UserError("out_of_range", what=Message(f"field.{key}"), low=low, high=high, value=got)


@dataclass(frozen=True)
class DataConfig:
    """Which images to generate and how many."""

    per_class: int = 120  # training images per class (the lesson: 120)
    val_per_class: int = 60  # validation images per class (the lesson: 60)
    mode: str = "lesson"  # a key of lines.DATA_MODES: "lesson" (its exact lines), "varied", "noisy"...

    def __post_init__(self) -> None:
        check_int("per_class", self.per_class, 1, MAX_PER_CLASS)
        check_int("val_per_class", self.val_per_class, 1, MAX_PER_CLASS)
        if self.mode not in DATA_MODES:
            raise ValueError(f"Data mode must be one of {', '.join(DATA_MODES)}; got {self.mode!r}.")

    @property
    def train_size(self) -> int:
        """Number of training images (three classes)."""
        return 3 * self.per_class


@dataclass(frozen=True)
class ModelConfig:
    """Shape of the CNN."""

    width: int = 1  # channel multiplier: 1 = the lesson's 8 and 16 conv channels
    extra_convs: int = 0  # extra 3x3 conv layers after conv1: more convolution work

    def __post_init__(self) -> None:
        check_int("width", self.width, 1, MAX_WIDTH)
        check_int("extra_convs", self.extra_convs, 0, MAX_EXTRA_CONVS)


@dataclass(frozen=True)
class TrainConfig:
    """How to optimise."""

    epochs: int = 120  # passes over the training set (the lesson: 120)
    lr: float = 0.01  # Adam learning rate (the lesson: 0.01)
    batch_size: int | None = None  # images per step; None = the whole set at once (the lesson)

    def __post_init__(self) -> None:
        check_int("epochs", self.epochs, 1, MAX_EPOCHS)
        lr_ok = isinstance(self.lr, int | float) and not isinstance(self.lr, bool)
        if not lr_ok or not 0.0 < self.lr <= 10.0:  # no float(): a huge int would overflow it
            raise UserError("lr_out_of_range", value=repr(self.lr))
        if self.batch_size is not None:
            check_int("batch_size", self.batch_size, 1, 3 * MAX_PER_CLASS)


@dataclass(frozen=True)
class TrainLimits:
    """What one training run may use on a shared server; the Train page refuses or stops a run past them."""

    max_seconds: float | None = DEFAULT_MAX_SECONDS  # training seconds per run, pauses excluded; None: no cap
    max_image_epochs: int = 10_000_000  # epochs x training images: the run's work, known before it starts
    max_bytes: int = 512 << 20  # data set + model + one step's activations, as limits.run_memory_bytes counts

    def __post_init__(self) -> None:
        if self.max_seconds is not None and not self.max_seconds > 0:
            raise ValueError(f"The time cap must be a number of seconds above 0; got {self.max_seconds!r}.")
        check_int("work_budget", self.max_image_epochs, 1, 10**15)
        check_int("memory_budget", self.max_bytes, 1, 1 << 50)


@dataclass(frozen=True)
class RunConfig:
    """Everything one training run needs, plus the seed that makes it repeatable."""

    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    seed: int = 24  # seeds the images, the initial weights and the batch order (the lesson: 24)

    def __post_init__(self) -> None:
        check_int("seed", self.seed, 0, MAX_SEED)

    @property
    def step_size(self) -> int:
        """Images per optimizer step: the batch size, or the whole training set."""
        return min(self.train.batch_size or self.data.train_size, self.data.train_size)

    def as_dict(self) -> dict:
        """A flat, JSON-friendly view used by the CLI, the history and the UI."""
        return {
            "per_class": self.data.per_class,
            "val_per_class": self.data.val_per_class,
            "data_mode": self.data.mode,
            "width": self.model.width,
            "extra_convs": self.model.extra_convs,
            "epochs": self.train.epochs,
            "lr": self.train.lr,
            "batch_size": self.train.batch_size,
            "seed": self.seed,
        }

    @classmethod
    def from_flat(cls, **flat: object) -> RunConfig:
        """Build a config from the flat keys of ``as_dict`` (CLI options, widgets); a key left out
        keeps its default. An old file's data mode "seed" reads as "lesson"."""
        unknown = sorted(set(flat) - set(DEFAULT_FLAT))
        if unknown:
            raise TypeError(f"from_flat() got unexpected keys: {', '.join(unknown)}")
        values = {**DEFAULT_FLAT, **flat}
        mode = values["data_mode"]
        mode = RENAMED_DATA_MODES.get(mode, mode) if isinstance(mode, str) else mode
        return cls(
            data=DataConfig(per_class=values["per_class"], val_per_class=values["val_per_class"], mode=mode),
            model=ModelConfig(width=values["width"], extra_convs=values["extra_convs"]),
            train=TrainConfig(epochs=values["epochs"], lr=values["lr"], batch_size=values["batch_size"]),
            seed=values["seed"],
        )


DEFAULT_FLAT = RunConfig().as_dict()  # the lesson's settings under the flat keys: the CLI's defaults
