"""A run's model file: safetensors weights, with the run's config and how it ended as metadata.

Reading one checks the header, the metadata and every weight's name, shape, dtype and
finiteness before a model is built.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_tensors
from safetensors.torch import save as save_tensors

from linecnn.checkpoint.checks import (
    FORMAT_VERSION,
    MAX_NAMES,
    MAX_TEXT,
    RunLike,
    check_size,
    confusion_matrix,
    device_name,
    epoch_record,
    fail,
    joined,
    now,
    parse_json,
    reject_constant,
    run_config,
    thread_count,
    timestamp,
    whole_number,
)
from linecnn.errors import Message
from linecnn.train.config import RunConfig
from linecnn.train.model import LineCNN, build_model
from linecnn.train.trainer import EpochRecord

MODEL_FORMAT = "linecnn-model"  # the metadata's "format" tag of a model file
# The Train page's widest model (width 16) has 559,619 float32 parameters: a 2.24 MB file with its
# header. 3 MB holds it with room to spare and refuses anything much bigger before it is parsed; in
# decimal megabytes, as the browser's upload check counts them.
MAX_MODEL_BYTES = 3_000_000
MAX_METADATA_VALUES = 1_000  # JSON values in one metadata entry; the confusion matrix, the largest, has 21
MAX_HEADER_BYTES = 64 << 10  # a model file's JSON header: the tensor table and the metadata


@dataclass(frozen=True)
class ModelInfo:
    """A model file's metadata, checked: how the run that made it ended."""

    device: str  # where it trained, e.g. "cpu" or "cuda:0"
    threads: int | None  # CPU threads it trained on; None for GPUs
    final: EpochRecord  # its last epoch: metrics and times
    confusion: list[list[int]]  # validation [true][predicted] at the end
    created: str  # when the file was written, ISO 8601 in UTC

    @property
    def epochs_done(self) -> int:
        """Epochs the saved weights were trained for."""
        return self.final.epoch


def save_model(run: RunLike) -> bytes:
    """The run's final weights as safetensors bytes, with its config and how it ended as metadata."""
    if not run.history:
        fail("no_epochs_to_save")
    tensors = {
        name: tensor.detach().to(device="cpu", dtype=torch.float32).contiguous()
        for name, tensor in run.model.state_dict().items()
    }
    final = run.history[-1]
    metadata = {
        "format": MODEL_FORMAT,
        "format_version": str(FORMAT_VERSION),
        "config": json.dumps(run.config.as_dict()),
        "device": run.device,
        "threads": json.dumps(run.threads),
        "epochs_done": str(final.epoch),
        "final_metrics": json.dumps(final.as_dict()),
        "confusion": json.dumps(run.confusion),
        "created": now(),
    }
    return save_tensors(tensors, metadata=metadata)


def read_header(data: bytes) -> dict:
    """The JSON header of a safetensors file: tensor table plus ``__metadata__``."""
    not_safetensors = "not_safetensors"
    if len(data) < 8:
        fail(not_safetensors)
    (length,) = struct.unpack("<Q", data[:8])
    if length > min(MAX_HEADER_BYTES, len(data) - 8) or data[8:9] != b"{":
        fail(not_safetensors)
    try:
        header = json.loads(data[8 : 8 + length], parse_constant=reject_constant)
    except (ValueError, RecursionError):
        fail(not_safetensors)
    if not isinstance(header, dict):
        fail(not_safetensors)
    return header


def _metadata(header: dict) -> dict[str, str]:
    """The metadata strings, with the format tag and version checked."""
    metadata = header.get("__metadata__")
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        fail("no_metadata")
    if metadata.get("format") != MODEL_FORMAT:
        fail("wrong_model_tag")
    if metadata.get("format_version") != str(FORMAT_VERSION):
        version = str(metadata.get("format_version"))[:MAX_TEXT]
        fail("model_version", version=version, expected=FORMAT_VERSION)
    keys = ("config", "device", "threads", "epochs_done", "final_metrics", "confusion", "created")
    missing = [key for key in keys if key not in metadata]
    if missing:
        fail("metadata_lacks", names=", ".join(missing))
    return metadata


def _info(metadata: Mapping[str, str], config: RunConfig) -> ModelInfo:
    final = epoch_record(_entry(metadata["final_metrics"], "final_metrics"), config)
    epochs = config.train.epochs
    epochs_done = whole_number(_entry(metadata["epochs_done"], "epochs_done"), "epochs_done", 1, epochs)
    if epochs_done != final.epoch:
        fail("epochs_mismatch", epochs=epochs_done)
    return ModelInfo(
        device=device_name(metadata["device"]),
        threads=thread_count(_entry(metadata["threads"], "thread_count")),
        final=final,
        confusion=confusion_matrix(_entry(metadata["confusion"], "confusion")),
        created=timestamp(metadata["created"]),
    )


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(repr(str(name)[:40]) for name in sorted(names)[:MAX_NAMES])
    more = len(names) - min(len(names), MAX_NAMES)
    return Message("and_more", names=shown, count=more) if more > 0 else shown


def _check_tensors(header: Mapping[str, object], config: RunConfig) -> None:
    """Compare the tensor table with a model of ``config`` built on the meta device (no memory)."""
    with torch.device("meta"):
        expected = {name: tuple(t.shape) for name, t in LineCNN(config.model).state_dict().items()}
    found = {name: entry for name, entry in header.items() if name != "__metadata__"}
    missing, unexpected = expected.keys() - found.keys(), found.keys() - expected.keys()
    if missing or unexpected:
        parts = [Message("missing", names=_names(list(missing)))] if missing else []
        parts += [Message("unexpected", names=_names(list(unexpected)))] if unexpected else []
        fail("weights_mismatch", width=config.model.width, detail=joined(parts))
    for name, shape in expected.items():
        entry = found[name]
        if not isinstance(entry, dict):
            fail("weight_damaged", name=name)
        if entry.get("dtype") != "F32":
            fail("weight_dtype", name=name, dtype=str(entry.get("dtype"))[:12])
        if entry.get("shape") != list(shape):
            found_shape = str(entry.get("shape"))[:40]
            width = config.model.width
            fail("weight_shape", name=name, shape=found_shape, width=width, expected=list(shape))


def _entry(text: str, what: str) -> object:
    """One metadata entry's JSON, parsed within MAX_METADATA_VALUES values."""
    return parse_json(text, what, MAX_METADATA_VALUES)


def load_model(data: bytes) -> tuple[RunConfig, LineCNN, ModelInfo]:
    """Config, CPU model in eval mode and metadata of a model file, every part checked first."""
    check_size(data, MAX_MODEL_BYTES, "model_file")
    header = read_header(bytes(data))
    metadata = _metadata(header)
    config = run_config(_entry(metadata["config"], "run_settings"))
    info = _info(metadata, config)
    _check_tensors(header, config)
    try:
        tensors = load_tensors(bytes(data))
    except (SafetensorError, ValueError, RuntimeError) as error:
        fail("model_damaged", detail=str(error)[:80])
    for name, tensor in tensors.items():
        if not torch.isfinite(tensor).all():
            fail("weight_not_finite", name=name)
    model = build_model(config.model, config.seed)
    model.load_state_dict(tensors, strict=True)
    return config, model.eval(), info
