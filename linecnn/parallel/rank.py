"""One rank of a data-parallel benchmark: ``torchrun ... -m linecnn.parallel.rank --out FILE ...``.

Every rank generates the same images from the same seed and builds the same model; PyTorch's
``DistributedDataParallel`` keeps the copies equal by all-reducing the gradients after each
backward. Each rank runs ``train.epoch.train_epoch``, the one training loop, with its ``Shard``:
each optimizer step takes the same global batch a single-device run takes (same batch order, from
the same generator) and gives every rank one contiguous share of it, with the loss scaled so that
DDP's average of the ranks' gradients is the batch mean's, exactly as on one device, even when the
batch does not split evenly.

The all-reduce runs in a communication hook that times it: it waits for the reduction to finish
(so it is not overlapped with backward), which lets the epoch time be split into compute and
communication. Rank 0 prints progress as ``LINECNN {json}`` lines on stdout and writes one JSON
result to ``--out``; every rank announces its pid first, so the launcher can check none is left, and
then beats (``events.Heartbeat``) about once a second, so that the launcher can end a run one of whose ranks
froze. A collective that waits longer than ``--watch`` seconds plus a margin fails on its own.
"""

import argparse
import gc
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from functools import partial

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from linecnn.device_ops import synced_seconds, synchronize
from linecnn.parallel.config import RanksConfig, threads_per_rank
from linecnn.parallel.events import Heartbeat, emit
from linecnn.parallel.watchdog import WATCH_SECONDS
from linecnn.train.config import RunConfig
from linecnn.train.data import make_lines
from linecnn.train.epoch import Shard, make_optimizer, mean_loss, train_epoch
from linecnn.train.model import build_model

# A collective fails this long after the launcher's bound: the launcher, which knows which rank fell
# silent, ends the run first with a sentence naming it; the timeout is the backstop for a rank that
# beats but whose training hangs.
TIMEOUT_MARGIN_SECONDS = 10.0


class CommTimer:
    """A DDP communication hook that all-reduces each gradient bucket and adds up the seconds it took.

    This module does not postpone annotations: DDP checks the hook's ``bucket`` annotation at runtime.
    """

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.seconds = 0.0  # all-reduce time since the last ``take``

    def hook(self, _state: object, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
        """Average the bucket over the ranks, timing the all-reduce (waiting for the slowest rank too)."""
        buffer = bucket.buffer()
        # the bucket's gradients are ready before the clock starts: backward's work is not counted
        wait = partial(synchronize, self.device)
        self.seconds += synced_seconds(lambda: dist.all_reduce(buffer), wait, time.perf_counter)[1]
        buffer.div_(dist.get_world_size())
        done: torch.futures.Future[torch.Tensor] = torch.futures.Future()
        done.set_result(buffer)
        return done

    def take(self) -> float:
        """Seconds spent in all-reduces since the last call."""
        seconds, self.seconds = self.seconds, 0.0
        return seconds


def timed(epoch: Callable[[], object], device: torch.device) -> float:
    """Seconds ``epoch`` takes on this rank, every rank starting it together and its GPU work included."""
    dist.barrier()  # every rank starts the epoch together: the clock measures the epoch, not the skew
    return synced_seconds(epoch, partial(synchronize, device), time.perf_counter)[1]


def build_problem(run: RunConfig, device: torch.device) -> tuple[torch.Tensor, torch.Tensor, nn.Module]:
    """The images, labels and model every rank builds, and the single-device reference with them."""
    x, y = make_lines(run.data.per_class, run.data.mode, torch.Generator().manual_seed(run.seed))
    return x.to(device), y.to(device), build_model(run.model, run.seed).to(device)


def config_arg(text: str) -> RanksConfig:
    """Parse --config: a RanksConfig's ``as_dict`` as JSON; keys left out keep their defaults."""
    try:
        flat = json.loads(text)
        if not isinstance(flat, dict):
            raise TypeError("expected a JSON object")
        return RanksConfig.from_flat(**flat)
    except (TypeError, ValueError) as error:
        raise argparse.ArgumentTypeError(f"bad --config: {error}") from None


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The worker's options (the launcher in ``linecnn.parallel.launch`` writes them)."""
    parser = argparse.ArgumentParser(prog="linecnn.parallel.rank", description="One rank of a DDP benchmark.")
    parser.add_argument("--out", required=True, help="rank 0 writes its JSON result here")
    parser.add_argument(
        "--config", type=config_arg, default=RanksConfig(), help="the run as RanksConfig.as_dict() JSON"
    )
    parser.add_argument(
        "--watch", type=float, default=WATCH_SECONDS, help="the launcher's bound on a silent rank, in seconds"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Train ``warmup + repeats`` epochs with DDP on this rank; rank 0 reports and writes the result."""
    args = parse(argv)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.set_num_threads(threads_per_rank(world, threads=args.config.threads))
    emit("ready", rank=rank, pid=os.getpid())
    heartbeat = Heartbeat(rank)
    heartbeat.start()
    try:
        result = run(args, rank, world, heartbeat)
    finally:
        heartbeat.stop()
    if rank == 0:
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump(result, out)
        emit("done")
    return 0


def run(args: argparse.Namespace, rank: int, world: int, heartbeat: Heartbeat) -> dict:
    """Join the process group, train, and leave it together; rank 0's figures with the rendezvous time."""
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if args.config.device == "cuda":
        device, backend = torch.device("cuda", local), "nccl"
        torch.cuda.set_device(device)
    else:
        device, backend = torch.device("cpu"), "gloo"
    start = time.perf_counter()
    dist.init_process_group(backend, timeout=timedelta(seconds=args.watch + TIMEOUT_MARGIN_SECONDS))
    try:
        result = train(args, rank, world, device, heartbeat.step)
        dist.barrier()  # no rank tears its process group down while another still talks to it
    finally:
        # The DDP model outlives train() in a reference cycle (its comm hook); freed at exit, after its
        # process group, it aborted the rank ("terminate called without an active exception").
        gc.collect()
        dist.destroy_process_group()
    result.update(backend=backend, rendezvous_s=time.perf_counter() - start - result.pop("train_s"))
    return result


def train(
    args: argparse.Namespace,
    rank: int,
    world: int,
    device: torch.device,
    after_step: Callable[[], None] | None = None,
) -> dict:
    """Build the data and the DDP model, train and time the epochs; rank 0's figures as a dict.

    ``after_step`` runs after every optimizer step (the heartbeat's count)."""
    begin = time.perf_counter()
    bench = args.config.bench
    run = bench.run
    x, y, model = build_problem(run, device)
    net = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
    timer = CommTimer(device)
    net.register_comm_hook(None, timer.hook)
    optimizer = make_optimizer(net, run.train.lr, device)
    order = torch.Generator().manual_seed(run.seed + 1)
    step, shard = run.train.batch_size, Shard(rank, world)
    epochs, comm = [], []
    total = bench.epochs
    for index in range(total):
        epochs.append(
            timed(
                lambda: train_epoch(net, x, y, optimizer, step, order, shard=shard, after_step=after_step),
                device,
            )
        )
        comm.append(timer.take())
        if rank == 0:  # between timed epochs: printing and the launcher's progress stay off the clock
            emit("epoch", done=index + 1, total=total, warmup=bench.warmup)
    loss = mean_loss(model, x, y)
    return {
        "ranks": world,
        "device": device.type,
        "threads": torch.get_num_threads(),
        "images": len(x),
        "epoch_s": epochs[bench.warmup :],
        "comm_s": comm[bench.warmup :],
        "first_epoch_s": epochs[0],
        "final_loss": loss,
        "train_s": time.perf_counter() - begin,
    }


if __name__ == "__main__":
    sys.exit(main())
