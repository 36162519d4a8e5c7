"""The lesson's tiny CNN, with a width multiplier and optional extra conv layers.

Pure: no I/O and no device logic. Build it, then move it where you want it.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from linecnn.train.config import ModelConfig

NUM_CLASSES = 3


class LineCNN(nn.Module):
    """Conv(1->8) ReLU Pool, Conv(8->16) ReLU Pool, Linear(64->16) ReLU, Linear(16->3)."""

    def __init__(self, config: ModelConfig | None = None) -> None:
        super().__init__()
        config = config or ModelConfig()
        c1, c2, hidden = 8 * config.width, 16 * config.width, 16 * config.width
        self.conv1 = nn.Conv2d(1, c1, kernel_size=3, padding=1)
        # More convolution work at full 8x8 resolution, for the benchmark's "conv" factor.
        self.extra = nn.ModuleList(
            nn.Conv2d(c1, c1, kernel_size=3, padding=1) for _ in range(config.extra_convs)
        )
        self.conv2 = nn.Conv2d(c1, c2, kernel_size=3, padding=1)
        self.fc1 = nn.Linear(c2 * 2 * 2, hidden)
        self.fc2 = nn.Linear(hidden, NUM_CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits (B, 3) for images (B, 1, 8, 8).

        Each block pools before its ReLU. ReLU is monotone, so relu(pool(z)) equals the
        lesson's pool(relu(z)) exactly, with a quarter of the ReLU work forward and backward.
        """
        x = self.conv1(x)  # (B, 8w, 8, 8)
        for conv in self.extra:
            x = conv(F.relu(x))
        x = F.relu(F.max_pool2d(x, 2))  # (B, 8w, 4, 4)
        x = F.relu(F.max_pool2d(self.conv2(x), 2))  # (B, 16w, 2, 2)
        x = torch.flatten(x, start_dim=1)  # (B, 64w)
        return self.fc2(F.relu(self.fc1(x)))

    def activations(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Post-ReLU maps of conv1 (B, 8w, 8, 8) and conv2 (B, 16w, 4, 4): what the filters see."""
        a1 = F.relu(self.conv1(x))  # (B, 8w, 8, 8)
        for conv in self.extra:
            a1 = F.relu(conv(a1))
        a2 = F.relu(self.conv2(F.max_pool2d(a1, 2)))  # (B, 16w, 4, 4)
        return a1, a2


def build_model(config: ModelConfig | None = None, seed: int = 24) -> LineCNN:
    """A LineCNN on the CPU whose initial weights depend only on ``seed``."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return LineCNN(config)


def count_parameters(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
