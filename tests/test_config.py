"""Config defaults are the lesson's, and bad values raise ValueError with a readable sentence."""

import pytest

from linecnn.train.config import DataConfig, ModelConfig, RunConfig, TrainConfig


def test_defaults_are_the_lessons():
    """The default run is the lesson's: 120/60 per class, seed 24, 120 full-batch epochs, Adam 0.01."""
    config = RunConfig()
    assert (config.data.per_class, config.data.val_per_class, config.data.mode) == (120, 60, "lesson")
    assert (config.train.epochs, config.train.lr, config.train.batch_size) == (120, 0.01, None)
    assert (config.model.width, config.model.extra_convs, config.seed) == (1, 0, 24)


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: DataConfig(per_class=0), "Images per class"),
        (lambda: DataConfig(per_class=2.5), "whole number"),
        (lambda: DataConfig(val_per_class=-1), "Validation images"),
        (lambda: DataConfig(mode="wiggly"), "Data mode"),
        (lambda: ModelConfig(width=0), "Model width"),
        (lambda: ModelConfig(extra_convs=99), "Extra conv layers"),
        (lambda: TrainConfig(epochs=0), "Epochs"),
        (lambda: TrainConfig(lr=0.0), "Learning rate"),
        (lambda: TrainConfig(lr="fast"), "Learning rate"),
        (lambda: TrainConfig(batch_size=0), "Batch size"),
        (lambda: RunConfig(seed=-3), "Seed"),
        (lambda: DataConfig(per_class=True), "whole number"),
    ],
)
def test_bad_values_raise_a_sentence(build, words):
    """Each bad field names itself in a full sentence."""
    with pytest.raises(ValueError, match=words) as caught:
        build()
    assert str(caught.value).endswith(".")


def test_configs_are_frozen():
    """A config cannot be changed after it is built."""
    config = RunConfig()
    with pytest.raises(AttributeError):
        config.seed = 1


def test_flat_round_trip():
    """as_dict and from_flat are inverses, which the CLI and history rely on."""
    config = RunConfig.from_flat(
        per_class=7, epochs=3, lr=0.1, batch_size=16, width=2, data_mode="varied", seed=5
    )
    assert RunConfig.from_flat(**config.as_dict()) == config


def test_old_files_data_mode_seed_reads_as_lesson():
    """Settings saved when the lesson's data mode was called "seed" still load, under its new name;
    "seed" is no data mode of a new config."""
    old = {**RunConfig().as_dict(), "data_mode": "seed"}
    assert RunConfig.from_flat(**old).data.mode == "lesson"
    with pytest.raises(ValueError, match="Data mode must be one of lesson, varied"):
        DataConfig(mode="seed")


def test_from_flat_refuses_unknown_keys_and_defaults_the_rest():
    """A key from_flat does not know is an error, not silently dropped; missing keys take RunConfig()'s."""
    with pytest.raises(TypeError, match="unexpected keys: colour"):
        RunConfig.from_flat(colour="red")
    assert RunConfig.from_flat() == RunConfig()
    assert RunConfig.from_flat(epochs=7) == RunConfig(train=TrainConfig(epochs=7))
