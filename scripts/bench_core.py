"""Core vs the original lesson, measured side by side in one run on the CPU.

    python scripts/bench_core.py [--repeats 8] [--json]

1. Training: ms/epoch of linecnn's Trainer vs a faithful copy of the lesson's loop (same
   config: 360 images, full batch, Adam 0.01, 120 epochs). The lesson computes metrics every
   10 epochs; the core computes them every epoch, and is still timed as is. A third run times
   the core's training pass alone (its epoch without the validation pass), to show what that
   pass costs. Runs come in rounds whose order alternates (lesson, core, training pass; then
   the other way round), so that machine noise and whatever the first run leaves behind
   (caches, allocator) hit all alike; each ratio is the median of per-round ratios.
2. Data: the vectorised generator vs the lesson's per-image Python loops, images per second.
3. One million images generated: seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn, optim

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from linecnn.device import environment  # noqa: E402
from linecnn.device_ops import synchronize  # noqa: E402
from linecnn.train.config import RunConfig  # noqa: E402
from linecnn.train.data import make_lines  # noqa: E402
from linecnn.train.epoch import train_epoch  # noqa: E402
from linecnn.train.trainer import Trainer  # noqa: E402

# ---- A faithful copy of the lesson's data and loop (its names translated) ----------------------


def lesson_vertical() -> torch.Tensor:
    col = torch.randint(1, 7, (1,)).item()
    matrix = [[0 for _ in range(8)] for _ in range(8)]
    for row in range(8):
        matrix[row][col] = 1
    img = torch.tensor(matrix, dtype=torch.float32)
    img += 0.10 * torch.rand(8, 8)
    return img.clamp(0.0, 1.0)


def lesson_horizontal() -> torch.Tensor:
    row = torch.randint(1, 7, (1,)).item()
    matrix = [[0 for _ in range(8)] for _ in range(8)]
    for col in range(8):
        matrix[row][col] = 1
    img = torch.tensor(matrix, dtype=torch.float32)
    img += 0.10 * torch.rand(8, 8)
    return img.clamp(0.0, 1.0)


def lesson_diagonal() -> torch.Tensor:
    matrix = [[0 for _ in range(8)] for _ in range(8)]
    if torch.randint(0, 2, (1,)).item() == 0:
        for i in range(8):
            matrix[i][i] = 1
    else:
        for i in range(8):
            matrix[i][7 - i] = 1
    img = torch.tensor(matrix, dtype=torch.float32)
    img += 0.10 * torch.rand(8, 8)
    return img.clamp(0.0, 1.0)


def lesson_dataset(n_per_class: int) -> tuple[torch.Tensor, torch.Tensor]:
    images, labels = [], []
    for _ in range(n_per_class):
        images.append(lesson_vertical())
        labels.append(0)
        images.append(lesson_horizontal())
        labels.append(1)
        images.append(lesson_diagonal())
        labels.append(2)
    return torch.stack(images).unsqueeze(1), torch.tensor(labels, dtype=torch.long)


class LessonCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2)
        self.fc1 = nn.Linear(16 * 2 * 2, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = torch.flatten(x, start_dim=1)
        return self.fc2(self.relu(self.fc1(x)))


def lesson_accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    return (torch.argmax(logits, dim=1) == y).float().mean().item()


def lesson_training_seconds(epochs: int = 120) -> float:
    """The lesson's entrenar_paso loop without its Tk after(30) waits; returns the loop's seconds."""
    torch.manual_seed(24)
    x_train, y_train = lesson_dataset(120)
    x_val, y_val = lesson_dataset(60)
    model = LessonCNN()
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        model.train()
        loss = criterion(model(x_train), y_train)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if epoch % 10 == 0 or epoch == 1:
            model.eval()
            with torch.no_grad():
                logits_train, logits_val = model(x_train), model(x_val)
                criterion(logits_train, y_train).item()
                criterion(logits_val, y_val).item()
                lesson_accuracy(logits_train, y_train)
                lesson_accuracy(logits_val, y_val)
    return time.perf_counter() - start


def core_training_seconds() -> float:
    """linecnn's Trainer on the same config, metrics every epoch; returns the loop's seconds."""
    trainer = Trainer(RunConfig(), "cpu")
    start = time.perf_counter()
    for _ in trainer.run():
        pass
    return time.perf_counter() - start


def core_training_pass_seconds() -> float:
    """The core's epochs without their validation pass, read back once an epoch as the Trainer does."""
    trainer = Trainer(RunConfig(), "cpu")
    data, config = trainer.data, trainer.config
    start = time.perf_counter()
    for _ in range(config.train.epochs):
        model, optimizer = trainer.model, trainer.optimizer
        loss_sum, correct = train_epoch(
            model, data.train_x, data.train_y, optimizer, config.train.batch_size, trainer.order
        )
        torch.stack([loss_sum, correct.float()]).tolist()
    synchronize(trainer.device)
    return time.perf_counter() - start


# ---- Measurements -------------------------------------------------------------------------


Run = Callable[[], float]  # one measured run; returns its seconds


def in_rounds(runs: list[Run], rounds: int) -> list[list[float]]:
    """``rounds`` results of every run, in order then reversed, alternately: ABC, CBA, ABC, ..."""
    results = []
    for index in range(rounds):
        order = list(range(len(runs))) if index % 2 == 0 else list(range(len(runs)))[::-1]
        seconds = [0.0] * len(runs)
        for which in order:
            seconds[which] = runs[which]()
        results.append(seconds)
    return results


def in_pairs(first: Run, second: Run, pairs: int) -> list[tuple[float, float]]:
    """``pairs`` (first, second) results, run in alternating order: AB, BA, AB, ... (ABBA...)."""
    return [(a, b) for a, b in in_rounds([first, second], pairs)]


def compare_training(repeats: int) -> dict:
    """Lesson, core and the core's training pass in rounds of alternating order: median ms/epoch
    of each and the per-round ratios to the lesson."""
    runs = [lesson_training_seconds, core_training_seconds, core_training_pass_seconds]
    lesson_training_seconds(10), core_training_seconds(), core_training_pass_seconds()  # first-call costs
    rounds = in_rounds(runs, repeats)
    lesson_ms, core_ms, pass_ms = ([r[i] / 120 * 1000 for r in rounds] for i in range(3))
    ratios = [c / s for c, s in zip(core_ms, lesson_ms, strict=True)]
    pass_ratios = [p / s for p, s in zip(pass_ms, lesson_ms, strict=True)]
    return {
        "lesson_ms_per_epoch": statistics.median(lesson_ms),
        "core_ms_per_epoch": statistics.median(core_ms),
        "ratio_core_over_lesson": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
        "training_pass_ms_per_epoch": statistics.median(pass_ms),
        "ratio_training_pass_over_lesson": statistics.median(pass_ratios),
        "training_pass_ratio_min": min(pass_ratios),
        "training_pass_ratio_max": max(pass_ratios),
        "repeats": repeats,
    }


def compare_generators(per_class: int = 10_000, repeats: int = 6) -> dict:
    """Images per second of the lesson's per-image loops vs make_lines on the same count.

    Runs come in pairs of alternating order (one lesson run and the median of three core runs,
    then the other way round) and the speed-up is the median of the per-pair ratios, so that
    machine noise hits both alike.
    """
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    make_lines(per_class, "lesson", generator)  # warm-up

    def lesson() -> float:
        start = time.perf_counter()
        lesson_dataset(per_class)
        return time.perf_counter() - start

    def core() -> float:
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            make_lines(per_class, "lesson", generator)
            runs.append(time.perf_counter() - start)
        return statistics.median(runs)

    pairs = in_pairs(lesson, core, repeats)
    images = 3 * per_class
    return {
        "images": images,
        "lesson_images_per_s": images / statistics.median(s for s, _ in pairs),
        "core_images_per_s": images / statistics.median(c for _, c in pairs),
        "speedup": statistics.median(s / c for s, c in pairs),
    }


def million_images() -> dict:
    """Seconds to generate 1,000,002 lesson-mode images (best and median of 3)."""
    generator = torch.Generator().manual_seed(0)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        images, _ = make_lines(333_334, "lesson", generator)
        times.append(time.perf_counter() - start)
        del images
    return {"images": 3 * 333_334, "median_s": statistics.median(times), "best_s": min(times)}


def main() -> int:
    """Run the three comparisons and print them."""
    parser = argparse.ArgumentParser(description="Core vs the lesson, side by side on the CPU.")
    parser.add_argument("--repeats", type=int, default=8, help="training rounds (default 8)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    env = environment()
    result = {
        "training": compare_training(args.repeats),
        "generator": compare_generators(),
        "million": million_images(),
        "env": {"cpu": env.cpu_model, "torch": env.torch_version, "threads": env.torch_threads},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    t, g, m = result["training"], result["generator"], result["million"]
    print(f"CPU: {env.cpu_model}, torch {env.torch_version}, {env.torch_threads} threads")
    print(
        f"training  lesson {t['lesson_ms_per_epoch']:.2f} ms/epoch, core {t['core_ms_per_epoch']:.2f} "
        f"ms/epoch, core/lesson = {t['ratio_core_over_lesson']:.2f} "
        f"(range {t['ratio_min']:.2f}-{t['ratio_max']:.2f}, {t['repeats']} rounds of alternating order)"
    )
    print(
        f"          the core's training pass alone (no validation) {t['training_pass_ms_per_epoch']:.2f} "
        f"ms/epoch, /lesson = {t['ratio_training_pass_over_lesson']:.2f} "
        f"(range {t['training_pass_ratio_min']:.2f}-{t['training_pass_ratio_max']:.2f})"
    )
    print(
        f"generator lesson {g['lesson_images_per_s']:,.0f} img/s, core {g['core_images_per_s']:,.0f} img/s, "
        f"{g['speedup']:,.0f}x faster ({g['images']} images)"
    )
    print(f"1M images {m['median_s']:.2f} s median, {m['best_s']:.2f} s best")
    return 0


if __name__ == "__main__":
    sys.exit(main())
