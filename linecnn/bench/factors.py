"""The factors a sweep varies, in one registry: each one's values, how it sets a cell and reads it back.

Adding a factor is one entry in ``FACTORS`` plus its line under ``[factor]`` in each language's
``linecnn/ui/locales/<en|es>/bench.toml``. Every reader (the plan, the CLI's ``--sweep``, the
Benchmark form, the crossover, the documents and the history) takes its factors from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from linecnn.bench.config import BenchConfig

DATA_PER_CLASS = (120, 400, 1_200, 4_000, 12_000, 40_000, 120_000, 333_334)  # 360 images (the lesson) to 1 M
BATCH_SIZES = (16, 64, 256, 1_024, 4_096, 16_384)
WIDTHS = (1, 2, 4, 8, 16)
EXTRA_CONVS = (0, 1, 2, 4, 8)


@dataclass(frozen=True)
class Factor:
    """One thing a sweep varies while the others stay at the base cell's values."""

    name: str  # its name in JSON documents ("sweep"), the history, --sweep and the catalogs' [factor] table
    values: tuple[int, ...]  # the values swept, on the axis's scale, smallest first; () = the base cell only
    apply: Callable[[BenchConfig, int], BenchConfig]  # the cell with this factor at one value
    x: Callable[[BenchConfig], float]  # where a cell sits on this factor's axis
    unit: str  # what one point of the sweep is, in an English sentence: "data size"
    words: str  # one value in an English sentence, {n} the number: "{n} images"
    column: str | None  # the results tables' column it varies (images, batch, width, conv_layers); None: none
    counts: bool = False  # small counts (width, layers): written to one decimal, never rounded to 2 digits
    fits_costs: bool = False  # its cells differ in images or steps: per-step and per-image costs separate
    up_to: int | None = None  # the page's default largest value; None = the largest of ``values``

    def cells(self, base: BenchConfig) -> list[BenchConfig]:
        """The base cell at every value, smallest first, each distinct cell once."""
        if not self.values:
            return [base]
        return list(dict.fromkeys(self.apply(base, value) for value in self.values))

    def text(self, x: float, exact: bool = False) -> str:
        """A value for an English sentence, rounded to what a sweep can tell apart (an interpolated
        crossover), or ``exact`` for a value that was set or measured."""
        if self.counts:
            return self.words.format(n=f"{x:.1f}".removesuffix(".0"))
        rounded = round(x) if exact or x < 100 else float(f"{x:.2g}")
        return self.words.format(n=f"{rounded:,.0f}")


def _images(config: BenchConfig) -> float:
    """A cell's training images per epoch."""
    return float(config.images)


def _batch(config: BenchConfig, size: int) -> BenchConfig:
    """The cell at a batch size; one bigger than the data set is the full batch, stored as such."""
    return config.with_run(batch_size=min(size, config.images))


FACTORS: dict[str, Factor] = {
    factor.name: factor
    for factor in (
        Factor("none", (), lambda c, _: c, _images, "size", "{n} images", None),
        Factor(
            "data",
            tuple(3 * n for n in DATA_PER_CLASS),
            lambda c, images: c.with_run(per_class=images // 3),
            _images,
            "data size",
            "{n} images",
            "images",
            fits_costs=True,
            up_to=36_000,
        ),
        Factor(
            "batch",
            BATCH_SIZES,
            _batch,
            lambda c: float(c.step_size),
            "batch size",
            "a batch of {n}",
            "batch",
            fits_costs=True,
        ),
        Factor(
            "width",
            WIDTHS,
            lambda c, n: c.with_run(width=n),
            lambda c: float(c.run.model.width),
            "width",
            "width {n}",
            "width",
            counts=True,
        ),
        Factor(
            "conv",
            tuple(2 + n for n in EXTRA_CONVS),
            lambda c, layers: c.with_run(extra_convs=layers - 2),
            lambda c: float(c.conv_layers),
            "conv depth",
            "{n} conv layers",
            "conv_layers",
            counts=True,
        ),
    )
}
SINGLE = FACTORS["none"]  # no sweep: the base cell alone


def factor(name: object) -> Factor:
    """The registered factor called ``name``; ValueError with a sentence for any other name."""
    if not isinstance(name, str) or name not in FACTORS:
        raise ValueError(f"Sweep must be one of {', '.join(FACTORS)}; got {name!r}.")
    return FACTORS[name]
