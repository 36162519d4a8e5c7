"""The sweep-factor registry and the one config family built on RunConfig."""

from __future__ import annotations

import dataclasses
import json

import pytest

from linecnn.bench.config import BenchConfig
from linecnn.bench.document import BenchDocument
from linecnn.bench.factors import FACTORS, factor
from linecnn.bench.plan import Caps, SweepRequest
from linecnn.parallel.config import RanksConfig
from linecnn.ui.i18n import catalog
from tests.bench_fixture import fake_gpu_document

STORED_NAMES = ("none", "data", "batch", "width", "conv")  # what documents and history rows already say


def test_every_stored_factor_name_still_reads_as_a_factor():
    """Documents saying none/data/batch/width/conv load, and their factor writes back the same name."""
    for name in STORED_NAMES:
        data = {**fake_gpu_document(gpu_only=False, largest=120), "sweep": name}
        document = BenchDocument.from_json(json.dumps(data))
        assert document.factor is FACTORS[name]
        assert json.loads(document.to_json())["sweep"] == name
    with pytest.raises(ValueError, match="Sweep must be one of none, data, batch, width, conv"):
        factor("epochs")


@pytest.mark.parametrize("name", list(FACTORS))
def test_a_factors_cells_rise_along_its_axis_and_read_back_their_value(name):
    """Each value sets a cell whose x is that value, smallest first (batch sizes stop at the data)."""
    swept = FACTORS[name]
    cells = swept.cells(BenchConfig())
    xs = [swept.x(cell) for cell in cells]
    assert xs == sorted(set(xs))
    if name == "batch":
        assert xs == [16, 64, 256, 360]
    else:
        assert xs == (list(swept.values) or [360])


@pytest.mark.parametrize("language", ["en", "es"])
def test_every_factor_has_its_catalog_line(language):
    """Each registered factor has one [factor] line per language with all of its words."""
    words = catalog(language)
    for name in FACTORS:
        for part in ("title", "unit", "x", "axis", "hover", "sweep"):
            assert words.get(f"bench.factor.{name}.{part}"), (language, name, part)


def test_a_sweep_request_plans_what_it_names():
    """The form's typed request plans its factor up to its value, on its devices, within the caps."""
    request = SweepRequest(BenchConfig(), FACTORS["width"], ("cpu",), up_to=4)
    plan = request.plan(Caps())
    assert plan.factor is FACTORS["width"] and plan.devices == ("cpu",)
    assert [c.run.model.width for c in plan.configs] == [1, 2, 4]


def test_ranks_config_holds_a_bench_config_and_only_its_own_fields():
    """RanksConfig copies no field of BenchConfig or RunConfig: it holds one, plus device and threads."""
    assert [f.name for f in dataclasses.fields(RanksConfig)] == ["bench", "device", "threads"]
    config = RanksConfig.from_flat(per_class=5, batch_size=4, warmup=1, repeats=2, threads=1)
    assert config.bench == BenchConfig.from_flat(per_class=5, batch_size=4, warmup=1, repeats=2)
    assert RanksConfig.from_flat(**config.as_dict()) == config
    old_keys = {"per_class", "batch_size", "width", "warmup", "repeats", "seed", "lr", "device", "threads"}
    assert old_keys <= set(config.as_dict())  # the ranks JSON keeps the keys it had


def test_ranks_config_bounds_come_from_bench_config():
    """Warm-up and repeats are refused with BenchConfig's sentences; faster paths are refused too."""
    with pytest.raises(ValueError, match="Warm-up epochs must be a whole number from 1 to 1,000"):
        RanksConfig.from_flat(warmup=0)
    with pytest.raises(ValueError, match="Timed repeats must be a whole number from 1 to 1,000"):
        RanksConfig.from_flat(repeats=1001)
    with pytest.raises(ValueError, match="plain fp32"):
        RanksConfig(BenchConfig(compile=True))
    with pytest.raises(ValueError, match="'cpu' \\(gloo\\) or 'cuda'"):
        RanksConfig(device="mps")
