"""Training: the generator's records, learnability, determinism, pausing and mini-batches."""

import dataclasses
import math

import pytest

from linecnn.config import RunConfig
from linecnn.device import DEFAULT_CPU_THREADS, cpu_threads
from linecnn.train import Trainer, batch_slices, cpu_threads_for, fit


def test_default_run_learns_the_lines():
    """The seed's own config reaches validation accuracy >= 0.99 on the CPU, as the lesson does."""
    trainer = fit(RunConfig(), "cpu")
    last = trainer.history[-1]
    assert last.epoch == 120 and last.val_acc >= 0.99 and last.train_acc >= 0.99
    assert last.val_loss < 0.05


def test_short_varied_run_learns_too():
    """Hand-drawn-like strokes are learnable: 80 epochs reach >= 0.9 validation accuracy."""
    last = fit(RunConfig.from_flat(data_mode="varied", epochs=80), "cpu").history[-1]
    assert last.val_acc >= 0.9


def test_one_frozen_record_per_epoch_with_consistent_times():
    """Each epoch yields a frozen record; elapsed time is the running sum of epoch times."""
    trainer = Trainer(RunConfig.from_flat(epochs=5), "cpu")
    records = list(trainer.run())
    assert [r.epoch for r in records] == [1, 2, 3, 4, 5] and all(r.epochs == 5 for r in records)
    assert all(r.device == "cpu" and r.epoch_seconds > 0 for r in records)
    assert math.isclose(records[-1].elapsed_seconds, sum(r.epoch_seconds for r in records))
    with pytest.raises(dataclasses.FrozenInstanceError):
        records[0].epoch = 9
    for r in records:
        assert all(math.isfinite(v) for v in (r.train_loss, r.val_loss))
        assert 0 <= r.train_acc <= 1 and 0 <= r.val_acc <= 1


def test_same_seed_same_curves():
    """Two runs with one seed give identical losses: data, weights and order are all seeded."""
    config = RunConfig.from_flat(epochs=8, batch_size=64)
    a = [r.val_loss for r in fit(config).history]
    b = [r.val_loss for r in fit(config).history]
    c = [r.val_loss for r in fit(dataclasses.replace(config, seed=25)).history]
    assert a == b and a != c


def test_pausing_between_epochs_changes_nothing():
    """Running 3 epochs, stopping the generator, then resuming equals one straight run."""
    config = RunConfig.from_flat(epochs=6)
    straight = [r.val_loss for r in fit(config).history]
    paused = Trainer(config, "cpu")
    for record in paused.run():
        if record.epoch == 3:
            break  # like a Pause or Stop click: the generator is abandoned between epochs
    assert paused.epoch == 3 and not paused.done
    list(paused.run(max_epochs=1))
    list(paused.run())
    assert [r.val_loss for r in paused.history] == straight and paused.done


def test_mini_batches_cover_the_set():
    """Batch slices cover every image once, the last one possibly short."""
    assert batch_slices(10, None) == [slice(0, 10)]
    assert batch_slices(10, 4) == [slice(0, 4), slice(4, 8), slice(8, 10)]
    assert batch_slices(3, 100) == [slice(0, 3)]
    last = fit(RunConfig.from_flat(epochs=15, batch_size=32)).history[-1]
    assert last.val_acc >= 0.99


def test_confusion_matrix_counts_the_validation_set():
    """Rows sum to the validation images per class."""
    matrix = fit(RunConfig.from_flat(epochs=3, val_per_class=7)).confusion_matrix()
    assert [sum(row) for row in matrix] == [7, 7, 7]


def test_a_cpu_run_records_the_threads_it_ran_on():
    """The record is what the loop used, not what a policy meant it to use."""
    trainer = Trainer(RunConfig.from_flat(epochs=2, per_class=10), "cpu")
    assert trainer.cpu_threads is None  # nothing ran yet
    with cpu_threads("cpu", 1):
        next(trainer.run())
    assert trainer.cpu_threads == 1
    next(trainer.run())
    assert trainer.cpu_threads == DEFAULT_CPU_THREADS


def test_small_steps_train_on_one_cpu_thread_big_ones_on_the_default():
    """The lesson's tiny full batch gets one thread; a wide model on thousands of images keeps torch's."""
    assert cpu_threads_for(RunConfig()) == 1
    assert cpu_threads_for(RunConfig.from_flat(per_class=20_000, width=8)) is None
    assert cpu_threads_for(RunConfig.from_flat(per_class=20_000, width=8, batch_size=64)) == 1
