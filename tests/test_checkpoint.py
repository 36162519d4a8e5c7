"""Model and history files: round trips, and every kind of bad file refused with a clear message."""

from __future__ import annotations

import copy
import csv
import io
import json
import sys
from dataclasses import dataclass, replace

import pytest
import torch
from safetensors.torch import save as save_tensors
from torch import nn

from linecnn.checkpoint.history import (
    MAX_HISTORY_BYTES,
    MAX_HISTORY_EPOCHS,
    MAX_HISTORY_RUNS,
    history_csv,
    history_json,
    load_history,
    matching_run,
)
from linecnn.checkpoint.model_file import MAX_MODEL_BYTES, load_model, read_header, save_model
from linecnn.device import cpu_threads
from linecnn.train.config import ModelConfig, RunConfig
from linecnn.train.model import build_model
from linecnn.train.trainer import EpochRecord, Trainer, fit


@dataclass(frozen=True)
class Run:
    """A finished run as the Train page keeps it (the fields ``checkpoint.RunLike`` asks for)."""

    number: int
    config: RunConfig
    device: str
    history: tuple[EpochRecord, ...]
    confusion: list[list[int]]
    model: nn.Module
    threads: int | None = 1


@pytest.fixture(scope="module")
def run() -> Run:
    """A short stopped-early run: 4 of 6 planned epochs, not the default settings."""
    config = RunConfig.from_flat(per_class=20, epochs=6, lr=0.02, batch_size=16, width=2, seed=7)
    trainer = Trainer(config, "cpu")
    with cpu_threads("cpu", 1):
        for _ in trainer.run(max_epochs=4):
            pass
    return Run(3, config, "cpu", tuple(trainer.history), trainer.confusion_matrix(), trainer.model.eval())


@pytest.fixture(scope="module")
def model_file(run: Run) -> bytes:
    return save_model(run)


def parts(data: bytes) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """A model file's tensors and metadata, to craft bad files from a good one."""
    from safetensors.torch import load

    return load(data), dict(read_header(data)["__metadata__"])


def refused(data: bytes, *fragments: str) -> str:
    """Assert load_model refuses ``data`` with a message holding every fragment; return it."""
    with pytest.raises(ValueError) as caught:
        load_model(data)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message
    return message


def test_round_trip_keeps_config_metadata_and_weights(run: Run, model_file: bytes):
    config, model, info = load_model(model_file)
    assert config == run.config
    assert (info.device, info.threads, info.epochs_done) == ("cpu", 1, 4)
    assert info.final == run.history[-1] and info.confusion == run.confusion
    original = run.model.state_dict()
    for name, tensor in model.state_dict().items():
        assert torch.equal(tensor, original[name])
    assert not model.training


def test_round_trip_gives_identical_logits(run: Run, model_file: bytes):
    _, model, _ = load_model(model_file)
    reference = copy.deepcopy(run.model).to(memory_format=torch.contiguous_format)
    x = torch.rand(16, 1, 8, 8, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert torch.equal(model(x), reference(x))


def test_the_widest_train_page_model_fits_the_size_cap(run: Run):
    config = RunConfig.from_flat(width=16, epochs=6)
    wide = replace(run, config=config, model=build_model(ModelConfig(width=16)))
    data = save_model(wide)
    assert 2_000_000 < len(data) < MAX_MODEL_BYTES
    assert load_model(data)[0] == config


def test_a_run_without_epochs_cannot_be_saved(run: Run):
    with pytest.raises(ValueError, match="no trained model"):
        save_model(replace(run, history=()))


def with_metadata(data: bytes, **changes: str | None) -> bytes:
    """The file again with metadata keys changed (None removes a key)."""
    tensors, metadata = parts(data)
    for key, value in changes.items():
        if value is None:
            metadata.pop(key)
        else:
            metadata[key] = value
    return save_tensors(tensors, metadata=metadata)


def with_tensors(data: bytes, change) -> bytes:
    """The file again with its tensor dict passed through ``change``."""
    tensors, metadata = parts(data)
    return save_tensors(change(dict(tensors)), metadata=metadata)


def config_json(run: Run, **changes) -> str:
    return json.dumps({**run.config.as_dict(), **changes})


def test_not_safetensors_is_refused():
    refused(b"PK\x03\x04 a zip, not a model", "not in the safetensors format")
    refused(b"", "not in the safetensors format")
    refused(json.dumps({"runs": []}).encode(), "not in the safetensors format")


def test_a_truncated_file_is_refused(model_file: bytes):
    refused(model_file[:-7], "damaged or cut short")
    refused(model_file[:40], "not in the safetensors format")


def test_an_oversize_file_is_refused_before_parsing():
    refused(b"\0" * (MAX_MODEL_BYTES + 1), "at most 3.0 MB")


def test_a_header_claiming_more_than_the_file_is_refused(model_file: bytes):
    refused((10**12).to_bytes(8, "little") + model_file[8:], "not in the safetensors format")


def test_safetensors_without_linecnn_metadata_is_refused(model_file: bytes):
    tensors, _ = parts(model_file)
    refused(save_tensors(tensors), "no linecnn metadata")
    refused(with_metadata(model_file, format="other-tool"), "format tag")
    refused(with_metadata(model_file, format_version="2"), "format version 2")
    refused(with_metadata(model_file, created=None), "lacks created")


def test_missing_and_unexpected_weights_are_named(model_file: bytes):
    def swap(tensors):
        tensors["decoder.weight"] = tensors.pop("fc2.weight")
        return tensors

    message = refused(with_tensors(model_file, swap), "missing 'fc2.weight'", "unexpected 'decoder.weight'")
    assert "width 2" in message


def test_wrong_shapes_are_refused(run: Run, model_file: bytes):
    wider = save_model(replace(run, model=build_model(ModelConfig(width=4))))  # config says width 2
    refused(wider, "has shape [32, 1, 3, 3]", "needs [16, 1, 3, 3]")


def test_a_wrong_dtype_is_refused(model_file: bytes):
    def double(tensors):
        tensors["conv1.weight"] = tensors["conv1.weight"].double()
        return tensors

    refused(with_tensors(model_file, double), "conv1.weight is stored as F64", "32-bit floats")


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_weights_are_refused(model_file: bytes, value: float):
    def spoil(tensors):
        tensors["fc1.bias"] = tensors["fc1.bias"].clone()
        tensors["fc1.bias"][3] = value
        return tensors

    refused(with_tensors(model_file, spoil), "fc1.bias holds NaN or infinite values")


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"config": "{not json"}, "run settings is not valid JSON"),
        ({"config": "[1, 2]"}, "run settings must be a JSON object"),
        ({"final_metrics": '{"epoch": NaN}'}, "not valid JSON"),
        ({"confusion": "[[1, 2], [3]]"}, "3 rows of 3 counts"),
        ({"confusion": "[[1,2,3],[4,5,6],[7,8,-9]]"}, "count must be a whole number"),
        ({"device": "cuda:0; rm -rf"}, "not one like 'cpu'"),
        ({"device": "x" * 500}, "has 500 characters; at most 64"),
        ({"threads": '"many"'}, "thread count must be a whole number"),
        ({"epochs_done": "3"}, "final metrics are of another epoch"),
        ({"created": "yesterday"}, "not an ISO 8601"),
    ],
)
def test_bad_metadata_is_refused(model_file: bytes, changes: dict, fragment: str):
    refused(with_metadata(model_file, **changes), fragment)


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"width": 999}, "Model width must be a whole number from 1 to 64"),
        ({"lr": -1}, "Learning rate must be a number above 0"),
        ({"data_mode": "photos"}, "Data mode must be one of"),
        ({"epochs": "6"}, "Epochs must be a whole number"),
        ({"seed": 2**70}, "Seed must be a whole number"),
        ({"colour": "red"}, "unknown colour"),
    ],
)
def test_out_of_range_config_is_refused(run: Run, model_file: bytes, changes: dict, fragment: str):
    refused(with_metadata(model_file, config=config_json(run, **changes)), "run settings", fragment)


def test_fewer_planned_epochs_than_done_is_refused(run: Run, model_file: bytes):
    refused(with_metadata(model_file, config=config_json(run, epochs=2)), "epoch number must be")


def test_history_json_round_trip(run: Run):
    [saved] = load_history(history_json([run]))
    assert saved.config == run.config and saved.history == run.history
    assert (saved.number, saved.device, saved.threads, saved.confusion) == (3, "cpu", 1, run.confusion)
    assert matching_run([saved], run.config, run.history[-1]) is saved
    assert matching_run([saved], run.config, run.history[-2]) is None


def test_history_csv_has_one_row_per_epoch_per_run(run: Run):
    other = replace(run, number=4, history=run.history[:2], threads=None)
    rows = list(csv.DictReader(io.StringIO(history_csv([run, other]).decode())))
    assert len(rows) == 4 + 2
    assert [(row["run"], row["epoch"]) for row in rows] == [
        ("3", "1"), ("3", "2"), ("3", "3"), ("3", "4"), ("4", "1"), ("4", "2")
    ]  # fmt: skip
    first = rows[0]
    assert (first["width"], first["batch_size"], first["epochs"], first["threads"]) == ("2", "16", "6", "1")
    assert float(first["val_acc"]) == run.history[0].val_acc
    assert rows[-1]["threads"] == ""


def history_with(run: Run, change) -> bytes:
    """A history JSON of ``run`` passed through ``change`` (which edits the parsed document)."""
    document = json.loads(history_json([run]))
    change(document)
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # a hostile file's integer may be longer than Python prints by default
    try:
        return json.dumps(document).encode()
    finally:
        sys.set_int_max_str_digits(limit)


def set_path(*path_and_value):
    *path, key, value = path_and_value

    def change(document):
        target = document
        for step in path:
            target = target[step]
        target[key] = value

    return change


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (set_path("format", "something"), "not a linecnn run history"),
        (set_path("format_version", 9), "format version 9"),
        (set_path("runs", []), "1 to 20 runs"),
        (
            set_path("runs", 0, "epochs", 1, "val_acc", 1.5),
            "validation accuracy must be a number from 0 to 1",
        ),
        (set_path("runs", 0, "epochs", 1, "train_loss", "0.5"), "training loss must be a number"),
        (set_path("runs", 0, "epochs", 1, "epoch", 3), "numbered 1, 2, 3"),
        (set_path("runs", 0, "epochs", 0, "device", "x" * 100_000), "has 100,000 characters; at most 64"),
        (set_path("runs", 0, "config", "width", 0), "Model width must be"),
        (set_path("runs", 0, "threads", 0), "thread count"),
        (set_path("runs", 0, "epochs", []), "no list of epochs"),
        (set_path("runs", 0, "extra", 1), "unknown extra"),
        (set_path("runs", 0, "epochs", 0, "val_loss", 10**400), "validation loss must be a number"),
        (set_path("runs", 0, "config", "lr", 10**400), "Learning rate must be a number"),
        (set_path("runs", 0, "epochs", 0, "device", "cpu\udfff"), "cannot be shown (\\udfff)"),
        (set_path("runs", 0, "epochs", 0, "epoch", "1"), 'the file has "1".'),
        (set_path("runs", 0, "epochs", 0, "epoch", True), "the file has true."),
        (set_path("runs", 0, "epochs", 0, "val_loss", 10**300), "the file has 1000000000000…."),
        (set_path("runs", 0, "epochs", 0, "val_loss", 10**5000), "a 5,001-digit number, too large"),
    ],
)
def test_bad_history_is_refused(run: Run, change, fragment: str):
    with pytest.raises(ValueError) as caught:
        load_history(history_with(run, change))
    assert fragment in str(caught.value)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"not json at all", "not valid JSON"),
        (b"\xff\xfe\x00", "other than ASCII"),  # refused before parsing: linecnn writes ASCII
        (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
        (b'{"format": NaN}', "not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b" " * (MAX_HISTORY_BYTES + 1), "at most 8.0 MB"),
    ],
)
def test_unreadable_history_is_refused(data: bytes, fragment: str):
    with pytest.raises(ValueError) as caught:
        load_history(data)
    assert fragment in str(caught.value)


def test_histories_with_too_many_runs_or_epochs_are_refused(run: Run):
    many_runs = [replace(run, number=n) for n in range(1, MAX_HISTORY_RUNS + 2)]
    with pytest.raises(ValueError, match="1 to 20 runs"):
        load_history(history_json(many_runs))
    long_config = RunConfig.from_flat(epochs=MAX_HISTORY_EPOCHS + 1)
    record = run.history[0]
    long_history = tuple(
        replace(record, epoch=n, epochs=long_config.train.epochs) for n in range(1, MAX_HISTORY_EPOCHS + 2)
    )
    with pytest.raises(ValueError, match="holds 20,001 epochs; at most 20,000"):
        load_history(history_json([replace(run, config=long_config, history=long_history)]))


def test_default_training_run_round_trips():
    """The lesson's default run (full batch, width 1) saves and loads like any other."""
    with cpu_threads("cpu", 1):
        trainer = fit(RunConfig.from_flat(epochs=2, per_class=10))
    run = Run(1, trainer.config, "cpu", tuple(trainer.history), trainer.confusion_matrix(), trainer.model)
    config, _, info = load_model(save_model(run))
    assert config == trainer.config and info.epochs_done == 2
