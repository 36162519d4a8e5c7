"""Training: the generator's records, learnability, determinism, pausing and mini-batches."""

import dataclasses
import math
import re

import pytest

from linecnn.device import DEFAULT_CPU_THREADS, cpu_threads
from linecnn.train import limits as run_limits
from linecnn.train.config import RunConfig, TrainLimits
from linecnn.train.diagnosis import diagnose
from linecnn.train.epoch import batch_slices
from linecnn.train.limits import check_limits, check_step_memory, cpu_threads_for, run_memory_bytes
from linecnn.train.model import build_model, count_parameters
from linecnn.train.trainer import EpochRecord, Trainer, fit


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


def test_a_run_over_the_work_budget_is_refused_with_settings_that_fit():
    limits = TrainLimits(max_image_epochs=36_000)
    check_limits(RunConfig.from_flat(epochs=100), limits)  # 100 x 360 = 36,000: just fits
    with pytest.raises(ValueError, match=r"Choose at most 100 epochs or at most 100 images per class\."):
        check_limits(RunConfig.from_flat(epochs=120), limits)


def test_a_run_over_the_memory_budget_is_refused_with_a_batch_or_data_size_that_fits():
    config = RunConfig.from_flat(per_class=20_000, width=16)  # a full batch of 60,000 at width 16
    with pytest.raises(ValueError, match=r"Choose batch size 1,024 or smaller\.") as refused:
        check_limits(config, TrainLimits(), batch_choices=(8, 64, 1024))
    assert "GiB of memory" in str(refused.value)
    fitting = dataclasses.replace(config, train=dataclasses.replace(config.train, batch_size=1024))
    assert run_memory_bytes(fitting) <= TrainLimits().max_bytes
    huge = RunConfig.from_flat(per_class=2_000_000, batch_size=8)  # the images alone are too many
    with pytest.raises(ValueError, match=r"Choose at most [\d,]+ images per class\.") as refused:
        check_limits(huge, TrainLimits(max_image_epochs=10**12))
    per_class = int(re.search(r"at most ([\d,]+) images", str(refused.value)).group(1).replace(",", ""))
    smaller = dataclasses.replace(huge, data=dataclasses.replace(huge.data, per_class=per_class))
    assert run_memory_bytes(smaller) <= TrainLimits().max_bytes


def test_the_step_guard_names_a_batch_that_fits():
    check_step_memory(RunConfig(), 1 << 30)
    with pytest.raises(ValueError, match=r"needs about 77\.\d GiB.*Choose batch size 65,536 or smaller"):
        check_step_memory(RunConfig.from_flat(per_class=2_000_000), 1 << 30)


def test_a_time_capped_run_stops_before_an_epoch_that_would_pass_the_cap():
    trainer = Trainer(RunConfig.from_flat(epochs=50, per_class=10), "cpu", max_seconds=1e-9)
    assert len(list(trainer.run())) == 1 and trainer.out_of_time and trainer.ended and not trainer.done
    assert trainer.step() is None and trainer.epoch == 1


def record(epoch: int, loss: float, acc: float) -> EpochRecord:
    return EpochRecord(epoch, 10, loss, acc, loss, acc, 0.01, 0.01 * epoch, "cpu")


def test_diagnosis_names_chance_accuracy_and_divergence_and_suggests_a_smaller_rate():
    assert diagnose([record(1, 1.1, 0.4), record(2, 0.1, 0.99)], 0.01) is None
    chance = diagnose([record(1, 1.1, 0.33), record(2, 1.09, 0.333)], 1.0)
    assert "no better than guessing" in chance and "smaller learning rate than 1, such as 0.01" in chance
    assert "NaN" in diagnose([record(1, 1.1, 0.4), record(2, math.nan, 0.333)], 5.0)
    assert "diverged" in diagnose([record(1, 1.1, 0.4), record(2, 40.0, 0.6)], 0.5)
    assert "more epochs" in diagnose([record(1, 1.1, 0.33)], 0.01)


def test_the_memory_check_builds_no_model_once_the_shape_is_counted(monkeypatch):
    """Start checks a run's memory before building it: counting the model's parameters once per shape
    spares every later Start a model built (and torch's generators seeded) just to be counted."""
    config = RunConfig.from_flat(width=2)
    expected = count_parameters(build_model(config.model))
    run_limits.parameter_count.cache_clear()
    builds = []
    monkeypatch.setattr(run_limits, "build_model", lambda model: builds.append(model) or build_model(model))
    first, second = run_memory_bytes(config), run_memory_bytes(config)
    assert first == second and len(builds) == 1 and run_limits.parameter_count(config.model) == expected
