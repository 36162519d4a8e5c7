"""One rank of ``linecnn.parallel.rank`` in this process (gloo, world of one): what its clock counts."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
import torch
import torch.distributed as dist

from linecnn.parallel import rank as ddp


class Clock:
    """A perf_counter that moves only when told: anything that advances it inside an epoch shows."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture
def one_rank():
    """A gloo process group of one rank, torn down afterwards."""
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()


def test_progress_reports_happen_between_timed_epochs_never_inside_them(one_rank, monkeypatch):
    """Rank 0 reports after every epoch; the time a report takes is in no epoch's or all-reduce's time."""
    clock, events = Clock(), []

    def slow_report(event: str, **values: object) -> None:
        events.append((event, values))
        clock.now += 1000.0  # a report (printing, a page redrawing) that takes far longer than an epoch

    monkeypatch.setattr(ddp, "time", SimpleNamespace(perf_counter=clock.perf_counter))
    monkeypatch.setattr(ddp, "emit", slow_report)
    problem = {"per_class": 5, "batch_size": 4, "warmup": 1, "repeats": 3}
    args = ddp.parse(["--out=unused", f"--config={json.dumps(problem)}"])
    result = ddp.train(args, rank=0, world=1, device=torch.device("cpu"))
    assert [values["done"] for _, values in events] == [1, 2, 3, 4]
    assert result["epoch_s"] == [0.0, 0.0, 0.0] and result["first_epoch_s"] == 0.0
    assert result["comm_s"] == [0.0, 0.0, 0.0]


def test_the_worker_defaults_are_the_benchmarks():
    """A rank started without options trains what RanksConfig() describes (the lesson's problem)."""
    from linecnn.parallel.config import RanksConfig

    assert ddp.parse(["--out=x"]).config == RanksConfig()
    assert ddp.parse(["--out=x", f"--config={json.dumps(RanksConfig().as_dict())}"]).config == RanksConfig()
