"""The GPU lesson's code, section by section, each snippet stored once.

A snippet's code is written once, with English comments and printed texts; the reader's language
changes those words only, from ``linecnn.lesson.comments``. The lesson's settings in the code
(images per class, seed, learning rate) are filled in from ``RunConfig()``. What the Lesson page
shows is exactly the text :func:`linecnn.lesson.run.run` executes.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template

from linecnn.lesson.comments import COMMENTS, PRINTS
from linecnn.lesson.translate import translate_comments, translate_prints
from linecnn.train.config import RunConfig

LANGUAGES = ("en", "es")  # every snippet reads in each: the code once, its comments and prints translated


@dataclass(frozen=True)
class Snippet:
    """One runnable piece of code of a lesson section."""

    key: str  # unique name, e.g. "mismatch.mistake"
    code: str  # the code as it runs, with English comments and printed texts
    needs_accelerator: bool = False  # its point only shows with the model on a GPU (on the CPU it runs fine)
    expects_error: bool = False  # the mistake itself: the error it raises is its real output

    def text(self, language: str) -> str:
        """The code shown (and run) for ``language``: the same code, its words in that language."""
        code = translate_prints(self.code, PRINTS.get(language, {}))
        return translate_comments(code, COMMENTS.get(language, {}))


@dataclass(frozen=True)
class Section:
    """One section of the lesson: a name and the snippets it runs."""

    key: str  # catalog key and page anchor, e.g. "mismatch"
    snippets: tuple[Snippet, ...]


def snippet(key: str) -> Snippet:
    """The snippet called ``key``; ValueError names the known ones."""
    for section in SECTIONS:
        for candidate in section.snippets:
            if candidate.key == key:
                return candidate
    known = ", ".join(s.key for section in SECTIONS for s in section.snippets)
    raise ValueError(f"There is no lesson snippet {key!r}; the snippets are: {known}.")


def _with_settings(template: str) -> str:
    """The code with ``$per_class``, ``$val_per_class``, ``$seed`` and ``$lr`` set to the lesson's."""
    lesson = RunConfig()
    return Template(template).substitute(
        per_class=lesson.data.per_class,
        val_per_class=lesson.data.val_per_class,
        seed=lesson.seed,
        lr=lesson.train.lr,
    )


def _snippet(key: str, template: str, **flags: bool) -> Snippet:
    return Snippet(key, _with_settings(template), **flags)


DEVICE = _snippet(
    "device",
    """\
import torch

x = torch.zeros(2, 3)  # a new tensor starts on the CPU
print("x lives on:", x.device)

x = x.to(device)  # .to() returns a copy on the chosen device
print("after .to(device):", x.device)
print("kind of device:", device.type)
""",
)

DETECT = _snippet(
    "detect",
    """\
import torch

print("CUDA available:", torch.cuda.is_available())
print("GPUs visible:", torch.cuda.device_count())
if torch.cuda.is_available():
    print("GPU 0:", torch.cuda.get_device_name(0))
# None here means a CPU-only build of PyTorch
print("PyTorch", torch.__version__, "built for CUDA", torch.version.cuda)
""",
)

MOVE = _snippet(
    "move",
    """\
from linecnn.train.config import DataConfig
from linecnn.train.data import make_dataset
from linecnn.train.model import build_model

data = make_dataset(DataConfig(per_class=$per_class, val_per_class=$val_per_class), seed=$seed)
X, y = data.train_x, data.train_y  # the training images and their labels, on the CPU
print("before:", X.device, y.device)

X = X.to(device)  # the data to the device...
y = y.to(device)
model = build_model().to(device)  # ...and the model to the same one
print("after:", X.device, y.device, next(model.parameters()).device)
print("images:", tuple(X.shape))
""",
)

MISTAKE = _snippet(
    "mismatch.mistake",
    """\
import torch
from linecnn.train.model import build_model

model = build_model().to(device)  # the model moves to the GPU
x = torch.rand(4, 1, 8, 8)  # but new data is born on the CPU
logits = model(x)  # model and data on different devices
print(logits.shape)
""",
    needs_accelerator=True,
    expects_error=True,
)

FIX = _snippet(
    "mismatch.fix",
    """\
import torch
from linecnn.train.model import build_model

model = build_model().to(device)
x = torch.rand(4, 1, 8, 8).to(device)  # the fix: data where the model is
logits = model(x)
print("logits on", logits.device, "with shape", tuple(logits.shape))
""",
)

EVALUATE = _snippet(
    "evaluate",
    """\
import torch
from linecnn.train.config import DataConfig
from linecnn.train.data import make_dataset
from linecnn.train.model import build_model

data = make_dataset(DataConfig(), seed=$seed, device=device)
model = build_model().to(device)

model.eval()  # evaluation mode
with torch.no_grad():  # no gradients: less memory, less work
    logits = model(data.val_x)
accuracy = (logits.argmax(dim=1) == data.val_y).float().mean().item()
print("validation images:", len(data.val_y), "on", data.val_x.device)
print(f"accuracy before training: {accuracy:.0%}")
print("gradients tracked:", logits.requires_grad)
""",
)

PORTABLE = _snippet(
    "portable",
    """\
import torch
from torch import nn
from linecnn.train.config import DataConfig
from linecnn.train.data import make_dataset
from linecnn.train.model import build_model

# The lesson's one line: the GPU when there is one, else the CPU
auto = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("the pattern picks:", auto, "| the sidebar picked:", device)

# From here on one name, so the same code runs on either device
data = make_dataset(DataConfig(), seed=$seed, device=device)
model = build_model().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=$lr)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(1, 31):
    model.train()
    loss = loss_fn(model(data.train_x), data.train_y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch}: loss", round(loss.item(), 4))
""",
)

SPEED = _snippet(
    "speed",
    """\
import time
import torch
from linecnn.device_ops import synchronize
from linecnn.train.model import build_model

model = build_model().to(device)
for n in (100, 10_000):  # a tiny batch, then one a hundred times bigger
    x = torch.rand(n, 1, 8, 8, device=device)
    model(x).sum().backward()  # warm-up: the first call pays one-time costs
    synchronize(device)  # a GPU works in the background: wait before reading the clock
    start = time.perf_counter()
    for _ in range(3):
        model(x).sum().backward()
    synchronize(device)
    us = (time.perf_counter() - start) / 3 * 1e6  # microseconds per step
    print(n, "images:", round(us), "µs per step,", round(n / us * 1e6), "images/s")
""",
)

# The lesson in order: what a device is, finding the GPU, moving things there, the classic
# mistake and its fix, evaluating, the portable pattern, and when the GPU is worth it.
SECTIONS = (
    Section("device", (DEVICE,)),
    Section("detect", (DETECT,)),
    Section("move", (MOVE,)),
    Section("mismatch", (MISTAKE, FIX)),
    Section("evaluate", (EVALUATE,)),
    Section("portable", (PORTABLE,)),
    Section("speed", (SPEED,)),
)
