"""The Draw page's default model as shipped: DEFAULT_CONFIG's trained weights in a file beside this module.

Training it takes seconds of a core, which every fresh server paid on its first Draw visit behind a
spinner; the weights are read instead. ``python -m linecnn.draw.default_weights`` trains the model
again and rewrites the file, with the recipe it was trained from beside it (``default_model.json``).
A test checks that recipe against DEFAULT_CONFIG, and that a fresh training run here gives a model
that reads the validation images as the shipped one does.
"""

from __future__ import annotations

import json
import logging
import pickle
import sys
from pathlib import Path

import torch

from linecnn.draw.predict import DEFAULT_CONFIG, train_default_model
from linecnn.train.model import LineCNN, build_model

WEIGHTS_FILE = Path(__file__).with_name("default_model.pt")  # a state_dict, about 10 KB
RECIPE_FILE = WEIGHTS_FILE.with_suffix(".json")  # DEFAULT_CONFIG.as_dict() when the weights were trained

_LOG = logging.getLogger(__name__)


def load_default_model(path: Path = WEIGHTS_FILE) -> LineCNN | None:
    """The shipped default model on the CPU in eval mode; None (and a logged reason) if the file is
    missing or does not hold DEFAULT_CONFIG's weights, so the caller can train it instead."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        model = build_model(DEFAULT_CONFIG.model, DEFAULT_CONFIG.seed)
        model.load_state_dict(state, strict=True)
    except (OSError, RuntimeError, ValueError, TypeError, AttributeError, pickle.UnpicklingError) as error:
        _LOG.warning("The default model in %s cannot be read (%s); training it instead", path, error)
        return None
    return model.eval()


def write_default_weights(path: Path = WEIGHTS_FILE) -> Path:
    """Train the default model, save its weights to ``path`` and its recipe beside them (``.json``)."""
    torch.save(train_default_model("cpu").state_dict(), path)
    path.with_suffix(".json").write_text(json.dumps(DEFAULT_CONFIG.as_dict(), indent=2) + "\n")
    return path


def main() -> int:
    """Rewrite the shipped weights file (after a change to DEFAULT_CONFIG, the model or training)."""
    print(write_default_weights())
    return 0


if __name__ == "__main__":
    sys.exit(main())
