"""Classify one 8x8 image with a trained model, and the default model the Draw page uses.

Pure: no Streamlit. The caller's model is never changed: inference runs on a copy moved
to the requested device, so a model shared between sessions stays read-only.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import partial

import torch

from linecnn.classroom.gpu_use import GPU_USE
from linecnn.device import cpu_threads
from linecnn.device_ops import synced_seconds, synchronize
from linecnn.train.config import RunConfig
from linecnn.train.data import CLASS_NAMES
from linecnn.train.model import LineCNN
from linecnn.train.trainer import fit

# The default model: the lesson's CNN trained on hand-drawn-like strokes. 4,000 images per
# class in mini-batches of 256 show it enough variety to read real strokes, in a few seconds
# of one CPU core. The lesson's recipe (full-batch epochs on its one-pixel, edge-to-edge lines)
# never sees a short, thick, tilted or edge stroke. Learning rate and seed are the lesson's.
DEFAULT_CONFIG = RunConfig.from_flat(
    per_class=4000, val_per_class=300, data_mode="varied", epochs=20, batch_size=256
)


@dataclass(frozen=True)
class Prediction:
    """What the model said about one image, and where and how fast it said it."""

    probabilities: tuple[float, ...]  # softmax over CLASS_NAMES
    conv1: torch.Tensor  # (C1, 8, 8) post-ReLU maps of the first convolution, on the CPU
    conv2: torch.Tensor  # (C2, 4, 4) post-ReLU maps of the second convolution, on the CPU
    device: str  # where the forward pass ran, e.g. "cpu" or "cuda:0"
    seconds: float  # one forward pass and softmax, read back; after a warm-up, feature maps excluded

    @property
    def label(self) -> int:
        """Index of the most likely class."""
        return max(range(len(self.probabilities)), key=self.probabilities.__getitem__)

    @property
    def name(self) -> str:
        """Name of the most likely class: vertical, horizontal or diagonal."""
        return CLASS_NAMES[self.label]

    @property
    def confidence(self) -> float:
        """Probability of the most likely class."""
        return self.probabilities[self.label]


def train_default_model(device: torch.device | str = "cpu") -> LineCNN:
    """Train the default model (a few seconds on a CPU) and return it on the CPU in eval mode."""
    with cpu_threads(device, 1):
        return fit(DEFAULT_CONFIG, device).model.to("cpu").eval()


def predict(model: LineCNN, image: torch.Tensor, device: torch.device | str = "cpu") -> Prediction:
    """Class probabilities and feature maps of ``image`` (1, 1, 8, 8), computed on ``device``."""
    if image.shape != (1, 1, 8, 8):
        raise ValueError(f"The model reads one 8x8 image shaped (1, 1, 8, 8); got {tuple(image.shape)}.")
    device = torch.device(device)
    with cpu_threads(device, 1), GPU_USE.using(device):  # a benchmark's GPU cell sees it as a disturbance
        runner = copy.deepcopy(model).to(device)  # the caller's model, maybe shared, stays as it was
        runner.eval()
        x = image.to(device, dtype=torch.float32)
        with torch.inference_mode():
            runner(x)  # warm-up: first-call costs (allocations, kernel choice) are not the model's speed
            probabilities, seconds = synced_seconds(
                lambda: torch.softmax(runner(x), dim=1)[0].tolist(), partial(synchronize, device)
            )
            conv1, conv2 = runner.activations(x)  # for the feature-map view; not the model's speed
    return Prediction(
        probabilities=tuple(probabilities),
        conv1=conv1[0].cpu(),
        conv2=conv2[0].cpu(),
        device=str(device),
        seconds=seconds,
    )
