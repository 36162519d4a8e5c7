"""The Draw page's default model ships as trained weights: they match a fresh training run, and a file
that cannot be read is reported and trained around."""

from __future__ import annotations

import logging

import torch

from linecnn.draw.default_weights import WEIGHTS_FILE, load_default_model, write_default_weights
from linecnn.draw.predict import DEFAULT_CONFIG, train_default_model
from linecnn.train.data import make_dataset


def test_the_shipped_weights_are_what_training_default_config_gives_today():
    """Retrained from DEFAULT_CONFIG, the model gives the shipped model's probabilities on the validation
    images to float tolerance (torch versions round differently): the file has not drifted from the code."""
    shipped = load_default_model()
    assert shipped is not None
    trained = train_default_model("cpu")
    images = make_dataset(DEFAULT_CONFIG.data, DEFAULT_CONFIG.seed).val_x
    with torch.inference_mode():
        expected = torch.softmax(trained(images), dim=1)
        got = torch.softmax(shipped(images), dim=1)
    assert torch.equal(got.argmax(dim=1), expected.argmax(dim=1))
    assert torch.allclose(got, expected, atol=1e-3), (got - expected).abs().max().item()


def test_a_missing_or_damaged_weights_file_is_logged_and_gives_none(tmp_path, caplog):
    """No file, or one not holding the model's state_dict: None (the page trains instead), and why, logged."""
    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes(b"not a state_dict")
    other = tmp_path / "other.pt"
    torch.save({"conv1.weight": torch.zeros(1)}, other)
    with caplog.at_level(logging.WARNING, logger="linecnn.draw.default_weights"):
        for path in (tmp_path / "missing.pt", damaged, other):
            assert load_default_model(path) is None
    assert len(caplog.records) == 3
    assert all("training it instead" in record.getMessage() for record in caplog.records)


def test_the_weights_file_is_small_and_rewritable(tmp_path, monkeypatch):
    """The shipped file is a state_dict of about 10 KB; write_default_weights writes one that loads back."""
    assert WEIGHTS_FILE.stat().st_size < 50_000
    shipped = load_default_model()
    monkeypatch.setattr("linecnn.draw.default_weights.train_default_model", lambda device: shipped)
    path = write_default_weights(tmp_path / "rewritten.pt")
    assert load_default_model(path) is not None
