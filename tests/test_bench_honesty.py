"""Is bench's clock honest about the work it times? Checked on a clock that counts work, not seconds.

Comparing bench's milliseconds with an independent loop is a benchmark (``scripts/bench_honesty.py``):
under load its ratios swing far beyond any tolerance. What load cannot change is which work the
timed epochs hold, so here the clock reads the number of images the model has seen: a timed epoch
that skipped images, counted the warm-up, or divided by the wrong number of epochs shows exactly.
"""

from __future__ import annotations

import pytest
import torch

from linecnn.bench import cell as bench_module
from linecnn.bench import timing
from linecnn.bench.cell import bench
from linecnn.bench.config import BenchConfig


@pytest.fixture
def image_clock(monkeypatch):
    """Every model bench builds counts the images it forwards; bench's epoch clock reads that count."""
    seen = {"images": 0}
    build_model = timing.build_model

    def counting_model(*args, **kwargs):
        model = build_model(*args, **kwargs)
        model.register_forward_pre_hook(lambda _, inputs: seen.update(images=seen["images"] + len(inputs[0])))
        return model

    def time_epochs(*args, **kwargs):
        return real_time_epochs(*args, **kwargs, clock=lambda: float(seen["images"]))

    real_time_epochs = bench_module.time_epochs
    monkeypatch.setattr(timing, "build_model", counting_model)
    monkeypatch.setattr(bench_module, "time_epochs", time_epochs)
    return seen


@pytest.mark.parametrize(
    ("per_class", "batch_size"), [(120, None), (40, 32)], ids=["lesson full batch", "mini-batches"]
)
def test_each_timed_epoch_is_one_pass_over_every_image(image_clock, per_class, batch_size):
    """Median, quartiles and every timed epoch equal one pass over the cell's images, warm-up apart."""
    config = BenchConfig.from_flat(per_class=per_class, batch_size=batch_size, warmup=2, repeats=5)
    result = bench(config, torch.device("cpu"))
    images = 3 * per_class
    assert result.times_ms == (1000.0 * images,) * 5  # one "second" per image seen
    assert result.median_ms == result.p25_ms == result.p75_ms == 1000.0 * images
    assert result.first_epoch_ms == 1000.0 * images
    assert result.samples_per_s == pytest.approx(1.0)
