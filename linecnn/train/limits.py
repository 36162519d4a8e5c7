"""What a run may use: its memory and work against a server's budget, and its CPU threads.

The checks run before a run starts, so a setting over the budget is refused with one that fits
instead of exhausting a shared machine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cache

from linecnn.errors import Message, Size, UserError
from linecnn.train.config import ModelConfig, RunConfig, TrainLimits
from linecnn.train.model import build_model, count_parameters


def step_memory_bytes(model: ModelConfig, batch: int) -> int:
    """Rough bytes of the activations one training step keeps for backward, plus their gradients.

    Per image, in floats: conv1 and its ReLU (2 x 8w x 8 x 8), the same per extra conv, the
    pooled map (8w x 4 x 4), conv2 and its ReLU (2 x 16w x 4 x 4) and its pool (16w x 2 x 2);
    doubled for the gradients backward creates. Good to a factor of ~2, enough to refuse
    settings that would exhaust memory.
    """
    c1, c2 = 8 * model.width, 16 * model.width
    floats = 2 * c1 * 64 * (1 + model.extra_convs) + c1 * 16 + 2 * c2 * 16 + c2 * 4
    return 2 * 4 * floats * batch


def format_size(count: int) -> Size:
    """Bytes for a sentence, e.g. '35.2 GiB' (MiB below 1 GiB); inside a Message, in the reader's language."""
    return Size(count)


@cache
def parameter_count(model: ModelConfig) -> int:
    """Trainable parameters of a model of this shape, counted once per shape: building a model to count
    them seeds torch's generators, which costs milliseconds on every Start that checks the limits."""
    return count_parameters(build_model(model))


def run_memory_bytes(config: RunConfig) -> int:
    """Rough bytes a run holds on its device: images and labels (plus the shuffled copy mini-batches
    take each epoch), the model with its gradients and Adam's two moments, and one step's activations."""
    per_image = 8 * 8 * 4 + 8  # float32 pixels and an int64 label
    data = per_image * 3 * (config.data.per_class + config.data.val_per_class)
    if config.step_size < config.data.train_size:
        data += per_image * config.data.train_size
    model = 4 * 4 * parameter_count(config.model)
    return data + model + step_memory_bytes(config.model, config.step_size)


def largest_batch(config: RunConfig, fits: Callable[[RunConfig], bool], choices: Sequence[int]) -> int | None:
    """The largest of ``choices`` (below the full set) whose config ``fits``, or None."""
    for size in sorted(choices, reverse=True):
        if size < config.data.train_size and fits(
            replace(config, train=replace(config.train, batch_size=size))
        ):
            return size
    return None


POWERS_OF_TWO = tuple(2**k for k in range(23))  # batch sizes suggested when the caller has no list


def check_step_memory(
    config: RunConfig, max_bytes: int, batch_choices: Sequence[int] = POWERS_OF_TWO
) -> None:
    """Raise ValueError when one training step of ``config`` would keep more than ``max_bytes``."""
    needed = step_memory_bytes(config.model, config.step_size)
    if needed <= max_bytes:
        return
    size = largest_batch(
        config, lambda c: step_memory_bytes(c.model, c.step_size) <= max_bytes, batch_choices
    )
    advice = (
        f"Choose batch size {size:,} or smaller, or a smaller width." if size else "Choose a smaller width."
    )
    raise ValueError(
        f"A step of {config.step_size:,} images at width {config.model.width} needs about "
        f"{format_size(needed)} of memory, more than allowed ({format_size(max_bytes)}). {advice}"
    )


def check_limits(
    config: RunConfig, limits: TrainLimits, batch_choices: Sequence[int] = POWERS_OF_TWO
) -> None:
    """Raise ValueError, naming a setting that fits, when ``config`` is over the work or memory budget."""
    images, epochs = config.data.train_size, config.train.epochs
    work = epochs * images
    if work > limits.max_image_epochs:
        options = []
        if limits.max_image_epochs // images >= 1:
            options.append(Message("at_most_epochs", count=limits.max_image_epochs // images))
        if limits.max_image_epochs // (3 * epochs) >= 1:
            options.append(Message("at_most_per_class", count=limits.max_image_epochs // (3 * epochs)))
        either = options[0] if len(options) == 1 else Message("either", first=options[0], second=options[1])
        limit = limits.max_image_epochs
        raise UserError("over_work", epochs=epochs, images=images, work=work, limit=limit, options=either)
    needed = run_memory_bytes(config)
    if needed <= limits.max_bytes:
        return

    def fits(candidate: RunConfig) -> bool:
        return run_memory_bytes(candidate) <= limits.max_bytes

    size = largest_batch(config, fits, batch_choices)
    if size is not None:
        advice = Message("choose_batch", size=size)
    else:
        per_class = largest_per_class(config, fits)
        advice = Message("choose_per_class", count=per_class) if per_class else Message("choose_width")
    raise UserError(
        "over_memory", needed=format_size(needed), limit=format_size(limits.max_bytes), advice=advice
    )


def largest_per_class(config: RunConfig, fits: Callable[[RunConfig], bool]) -> int:
    """The most training images per class (up to the config's own) that ``fits``; 0 if none."""
    low, high = 0, config.data.per_class
    while low < high:
        middle = (low + high + 1) // 2
        if fits(replace(config, data=replace(config.data, per_class=middle))):
            low = middle
        else:
            high = middle - 1
    return low


SMALL_STEP_BYTES = 32 << 20  # steps under ~32 MiB of activations train on one CPU thread


def cpu_threads_for(config: RunConfig) -> int | None:
    """CPU threads for a run shown live in a browser: 1 for small steps, None (torch's default)
    for bigger ones. Pages train inside ``device.cpu_threads`` with it; the CLI does not.

    A small step's ops last well under a millisecond, and when the browser redraws on one of the
    cores, every op split over two threads waits for its descheduled second thread; one thread
    does not wait. docs/measurements.md gives the figures (``scripts/bench_train_page.py``)."""
    return 1 if step_memory_bytes(config.model, config.step_size) <= SMALL_STEP_BYTES else None
