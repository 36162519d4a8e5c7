"""One training loop: train_epoch, its Shard for data-parallel ranks, and everything that must call it."""

from __future__ import annotations

import ast
import copy
import dataclasses
import sys
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.nn.functional as F

from linecnn.bench import timing
from linecnn.bench.config import BenchConfig
from linecnn.device import cpu_threads
from linecnn.parallel import launch, series
from linecnn.parallel import rank as ddp
from linecnn.parallel.config import RanksConfig
from linecnn.train import trainer as train
from linecnn.train.config import ModelConfig, RunConfig
from linecnn.train.data import Dataset, make_dataset
from linecnn.train.epoch import WHOLE, Shard, train_epoch
from linecnn.train.model import build_model

PACKAGE = Path(__file__).resolve().parent.parent / "linecnn"
LOOP_HOME = PACKAGE / "train" / "epoch.py"


def batch(images: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """``images`` random 8x8 images and labels."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.rand(images, 1, 8, 8, generator=generator)
    return x, torch.randint(0, 3, (images,), generator=generator)


def gradients(model: torch.nn.Module) -> list[torch.Tensor]:
    return [p.grad.clone() for p in model.parameters()]


def count_calls(monkeypatch, module) -> list[dict]:  # noqa: ANN001 - the module whose train_epoch to count
    """Record the keyword arguments of every train_epoch call made through ``module``."""
    calls, real = [], module.train_epoch

    def counted(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "train_epoch", counted)
    return calls


@pytest.mark.parametrize("world", [2, 3])
def test_the_ranks_shares_average_to_the_whole_batch_gradient_even_when_uneven(world):
    """A share's loss is scaled by world/images, so the ranks' mean gradient (DDP's) is the batch mean's."""
    x, y = batch(7)  # 7 images: shares of 4+3 or 3+2+2
    model = build_model(ModelConfig(), seed=1)
    F.cross_entropy(model(x), y).backward()
    whole = gradients(model)
    per_rank = []
    for rank in range(world):
        replica, shard = copy.deepcopy(model), Shard(rank, world)
        replica.zero_grad()
        xs, ys = shard.share(x), shard.share(y)
        shard.loss(replica(xs), ys, images=len(x)).backward()
        per_rank.append(gradients(replica))
    for i, expected in enumerate(whole):
        averaged = sum(grads[i] for grads in per_rank) / world
        assert torch.allclose(averaged, expected, atol=1e-6), i
    shares = [Shard(rank, world).share(y) for rank in range(world)]
    assert torch.equal(torch.cat(shares), y)  # contiguous shares, in rank order, make up the batch


def test_one_device_is_the_plain_mean_of_the_whole_batch():
    """The default shard trains on the whole batch with the mean cross-entropy, and bad shards are refused."""
    x, y = batch(5)
    logits = build_model(ModelConfig(), seed=1)(x)
    assert WHOLE.share(x) is x
    assert torch.equal(WHOLE.loss(logits, y, images=5), F.cross_entropy(logits, y))
    for rank, world in [(2, 2), (-1, 2), (0, 0)]:
        with pytest.raises(ValueError, match="processes sharing a batch"):
            Shard(rank, world)


def test_a_rank_trains_on_its_share_and_sums_the_loss_of_what_it_trained():
    """Rank 1 of 2 sees half of each step (the smaller half of the uneven last one); its sums are its own."""
    x, y = batch(15)
    sizes: list[int] = []
    model = build_model(ModelConfig(), seed=1)
    model.register_forward_pre_hook(lambda _module, inputs: sizes.append(len(inputs[0])))
    frozen = torch.optim.SGD(model.parameters(), lr=0.0)  # the weights stay put: the sums are easy to check
    order = torch.Generator().manual_seed(2)
    loss_sum, correct = train_epoch(model, x, y, frozen, 4, order, shard=Shard(1, 2))
    assert sizes == [2, 2, 2, 1]
    perm = torch.randperm(15, generator=torch.Generator().manual_seed(2))
    mine = torch.cat([perm[start : start + 4][2:] for start in range(0, 15, 4)])
    assert len(mine) == 7
    with torch.no_grad():
        logits = model(x[mine])
    expected = F.cross_entropy(logits, y[mine], reduction="sum")
    assert float(loss_sum) == pytest.approx(float(expected), rel=1e-5)
    assert int(correct) == int((logits.argmax(dim=1) == y[mine]).sum())


def test_only_train_epoch_runs_backward_and_optimizer_steps():
    """A second training loop anywhere in linecnn (a backward or an optimizer step) fails this test."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            call = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            if call and node.func.attr in ("backward", "zero_grad") and path != LOOP_HOME:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []


def test_the_single_device_reference_trains_with_train_epoch_on_the_configs_data(monkeypatch):
    """The reference calls train_epoch once per epoch on whole batches, on the data mode its config names."""
    calls, modes = count_calls(monkeypatch, series), []
    real_lines = ddp.make_lines
    monkeypatch.setattr(ddp, "make_lines", lambda n, mode, g: modes.append(mode) or real_lines(n, mode, g))
    config = RanksConfig.from_flat(per_class=5, data_mode="varied", warmup=1, repeats=2, threads=1)
    loss = series.reference_loss(config)
    assert len(calls) == config.bench.epochs and all("shard" not in kwargs for kwargs in calls)
    assert modes == ["varied"] and loss > 0
    [passed] = [arg for arg in launch.torchrun_command(config, 2, "out.json") if arg.startswith("--config=")]
    assert ddp.config_arg(passed.removeprefix("--config=")).bench.run.data.mode == "varied"


def test_a_rank_trains_with_train_epoch_and_its_shard(monkeypatch):
    """Every epoch of a rank (warm-up and timed) is one train_epoch call with that rank's Shard."""
    calls = count_calls(monkeypatch, ddp)
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        flat = '{"per_class": 5, "batch_size": 4, "warmup": 1, "repeats": 2}'
        args = ddp.parse(["--out=unused", f"--config={flat}"])
        ddp.train(args, rank=0, world=1, device=torch.device("cpu"))
    finally:
        dist.destroy_process_group()
    assert [kwargs["shard"] for kwargs in calls] == [Shard(0, 1)] * 3


def test_the_trainer_and_the_benchmark_train_with_train_epoch(monkeypatch):
    """The Train page's Trainer and a benchmark cell's epoch each call train_epoch once per epoch."""
    trained = count_calls(monkeypatch, train)
    trainer = train.Trainer(RunConfig.from_flat(epochs=3, per_class=10, val_per_class=5), "cpu")
    assert len(list(trainer.run())) == 3 and len(trained) == 3
    timed = count_calls(monkeypatch, timing)
    workload = timing.prepare(BenchConfig.from_flat(per_class=10, warmup=1, repeats=1), "cpu")
    workload.epoch()
    assert len(timed) == 1


def lesson_loop_losses(config: RunConfig) -> list[tuple[float, float]]:
    """(train loss, validation loss) per epoch of the lesson's plain loop on the core's data and weights.

    As the lesson writes it: Conv -> ReLU -> Pool, contiguous tensors, Adam's plain for-loop, a
    ``.item()`` per number and validation under ``torch.no_grad()``.
    """
    data, model = make_dataset(config.data, config.seed), build_model(config.model, config.seed)

    def forward(x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(model.conv1(x)), 2)
        x = F.max_pool2d(F.relu(model.conv2(x)), 2)
        return model.fc2(F.relu(model.fc1(torch.flatten(x, start_dim=1))))

    optimizer = torch.optim.Adam(model.parameters(), lr=config.train.lr, foreach=False)
    losses = []
    for _ in range(config.train.epochs):
        loss = F.cross_entropy(forward(data.train_x), data.train_y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            losses.append((loss.item(), F.cross_entropy(forward(data.val_x), data.val_y).item()))
    return losses


@pytest.fixture
def in_float64(monkeypatch):
    """Models and images in float64 for one test.

    Two loops that round differently part ways in float32: each epoch of training magnifies the
    difference, by how much depends on the CPU's kernels and threads, past any fixed tolerance on
    some CPU. In float64 the rounding starts a hundred million times smaller."""

    single = make_dataset

    def doubled(*args: object, **kwargs: object) -> Dataset:
        data = single(*args, **kwargs)
        return dataclasses.replace(data, train_x=data.train_x.double(), val_x=data.val_x.double())

    monkeypatch.setattr(train, "make_dataset", doubled)
    monkeypatch.setattr(sys.modules[__name__], "make_dataset", doubled)
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


def test_the_core_computes_what_the_lessons_plain_loop_computes(in_float64):
    """Each epoch of the core's lesson run has the plain loop's train and validation loss, up to rounding."""
    config = RunConfig.from_flat(epochs=20)  # the lesson's run, shortened
    with cpu_threads("cpu", 1):  # a few milliseconds per epoch even on a busy machine
        core = [(r.train_loss, r.val_loss) for r in train.fit(config).history]
        lesson = lesson_loop_losses(config)
    assert len(core) == len(lesson) == 20
    for epoch, (mine, theirs) in enumerate(zip(core, lesson, strict=True), start=1):
        assert mine == pytest.approx(theirs, rel=1e-9), epoch


def test_a_bad_data_mode_is_refused_with_a_sentence():
    """RanksConfig checks its data mode as the Train page's config does."""
    with pytest.raises(ValueError, match="Data mode must be one of lesson, varied"):
        RanksConfig.from_flat(data_mode="dots")
    assert ddp.parse(["--out=x"]).config.bench.run.data.mode == RunConfig().data.mode


def test_a_large_shuffle_is_gathered_in_chunks_with_the_epoch_check_between(monkeypatch):
    """The same images in the same order as one gather, the check after every chunk, and a time cap
    raising from the check ends the shuffle there (millions of images took tens of seconds at once)."""
    from linecnn.stop import Stopped
    from linecnn.train import epoch

    monkeypatch.setattr(epoch, "SHUFFLE_CHUNK", 4)
    x, perm, checks = torch.arange(10.0).reshape(10, 1), torch.randperm(10), []
    assert torch.equal(epoch.shuffled(x, perm, lambda: checks.append(1)), x[perm])
    assert len(checks) == 3

    def capped() -> None:
        raise Stopped.time_cap(20)

    with pytest.raises(Stopped):
        epoch.shuffled(x, perm, capped)
