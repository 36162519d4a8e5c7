"""The GPU lesson's code, section by section, and a runner that executes it for real on a device.

Each snippet is stored once per language: the same code with its comments in English or Spanish.
What the Lesson page shows is exactly the text :func:`run` executes, in a fresh namespace where
the name ``device`` is bound to the device the reader picked. ``print`` writes into the outcome,
not to the server's stdout, so sessions running snippets at once never mix their output.
"""

from __future__ import annotations

import io
import time
import tokenize
from dataclasses import dataclass

import torch

from linecnn.device import cpu_threads, synchronize

LANGUAGES = ("en", "es")  # every snippet has its code in each


@dataclass(frozen=True)
class Snippet:
    """One runnable piece of code of a lesson section."""

    key: str  # unique name, e.g. "mismatch.mistake"
    code: dict[str, str]  # language -> the code as shown, its comments in that language
    needs_accelerator: bool = False  # its point only shows with the model on a GPU (on the CPU it runs fine)
    expects_error: bool = False  # the mistake itself: the error it raises is its real output

    def text(self, language: str) -> str:
        """The code shown (and run) for ``language``; English when that language has none."""
        return self.code.get(language, self.code["en"])


@dataclass(frozen=True)
class Section:
    """One section of the lesson: a name and the snippets it runs."""

    key: str  # catalog key and page anchor, e.g. "mismatch"
    snippets: tuple[Snippet, ...]


@dataclass(frozen=True)
class Outcome:
    """What one run of a snippet really did."""

    device: str  # where it ran, e.g. "cpu" or "cuda:0"
    output: str  # everything the code printed
    error: str | None  # "RuntimeError: ..." when the code raised, else None
    seconds: float  # wall time of the run, synchronised with the device


def run(code: str, device: torch.device | str) -> Outcome:
    """Execute ``code`` with ``device`` bound, capture what it prints, and return what happened.

    An exception the code raises is part of the outcome (the lesson shows a real error on
    purpose), never raised to the caller.
    """
    device = torch.device(device)
    buffer = io.StringIO()

    def capture(*values: object, sep: str | None = " ", end: str | None = "\n", **_: object) -> None:
        print(*values, sep=sep, end=end, file=buffer)

    namespace = {"__name__": "__lesson__", "device": device, "print": capture}
    error = None
    start = time.perf_counter()
    with cpu_threads(device, None):
        try:
            exec(compile(code, "<lesson>", "exec"), namespace)
            synchronize(device)
        except Exception as exc:  # the lesson's mistake raises on purpose; any other failure is shown too
            error = f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    return Outcome(device=str(device), output=buffer.getvalue(), error=error, seconds=seconds)


def code_tokens(code: str) -> list[tuple[int, str]]:
    """The code's tokens without its comments: equal for two translations of one snippet."""
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return [(token.type, token.string) for token in tokens if token.type not in skip]


def snippet(key: str) -> Snippet:
    """The snippet called ``key``; ValueError names the known ones."""
    for section in SECTIONS:
        for candidate in section.snippets:
            if candidate.key == key:
                return candidate
    known = ", ".join(s.key for section in SECTIONS for s in section.snippets)
    raise ValueError(f"There is no lesson snippet {key!r}; the snippets are: {known}.")


DEVICE = Snippet(
    "device",
    {
        "en": """\
import torch

x = torch.zeros(2, 3)  # a new tensor starts on the CPU
print("x lives on:", x.device)

x = x.to(device)  # .to() returns a copy on the chosen device
print("after .to(device):", x.device)
print("kind of device:", device.type)
""",
        "es": """\
import torch

x = torch.zeros(2, 3)  # un tensor nuevo nace en la CPU
print("x lives on:", x.device)

x = x.to(device)  # .to() devuelve una copia en el dispositivo elegido
print("after .to(device):", x.device)
print("kind of device:", device.type)
""",
    },
)

DETECT = Snippet(
    "detect",
    {
        "en": """\
import torch

print("CUDA available:", torch.cuda.is_available())
print("GPUs visible:", torch.cuda.device_count())
if torch.cuda.is_available():
    print("GPU 0:", torch.cuda.get_device_name(0))
# None here means a CPU-only build of PyTorch
print("PyTorch", torch.__version__, "built for CUDA", torch.version.cuda)
""",
        "es": """\
import torch

print("CUDA available:", torch.cuda.is_available())
print("GPUs visible:", torch.cuda.device_count())
if torch.cuda.is_available():
    print("GPU 0:", torch.cuda.get_device_name(0))
# None aquí significa una compilación de PyTorch solo para CPU
print("PyTorch", torch.__version__, "built for CUDA", torch.version.cuda)
""",
    },
)

MOVE = Snippet(
    "move",
    {
        "en": """\
from linecnn.config import DataConfig
from linecnn.data import make_dataset
from linecnn.model import build_model

data = make_dataset(DataConfig(per_class=120, val_per_class=60), seed=24)
X, y = data.train_x, data.train_y  # 360 images and their labels, on the CPU
print("before:", X.device, y.device)

X = X.to(device)  # the data to the device...
y = y.to(device)
model = build_model().to(device)  # ...and the model to the same one
print("after:", X.device, y.device, next(model.parameters()).device)
print("images:", tuple(X.shape))
""",
        "es": """\
from linecnn.config import DataConfig
from linecnn.data import make_dataset
from linecnn.model import build_model

data = make_dataset(DataConfig(per_class=120, val_per_class=60), seed=24)
X, y = data.train_x, data.train_y  # 360 imágenes y sus etiquetas, en la CPU
print("before:", X.device, y.device)

X = X.to(device)  # los datos al dispositivo...
y = y.to(device)
model = build_model().to(device)  # ...y el modelo al mismo
print("after:", X.device, y.device, next(model.parameters()).device)
print("images:", tuple(X.shape))
""",
    },
)

MISTAKE = Snippet(
    "mismatch.mistake",
    {
        "en": """\
import torch
from linecnn.model import build_model

model = build_model().to(device)  # the model moves to the GPU
x = torch.rand(4, 1, 8, 8)  # but new data is born on the CPU
logits = model(x)  # model and data on different devices
print(logits.shape)
""",
        "es": """\
import torch
from linecnn.model import build_model

model = build_model().to(device)  # el modelo pasa a la GPU
x = torch.rand(4, 1, 8, 8)  # pero los datos nuevos nacen en la CPU
logits = model(x)  # modelo y datos en dispositivos distintos
print(logits.shape)
""",
    },
    needs_accelerator=True,
    expects_error=True,
)

FIX = Snippet(
    "mismatch.fix",
    {
        "en": """\
import torch
from linecnn.model import build_model

model = build_model().to(device)
x = torch.rand(4, 1, 8, 8).to(device)  # the fix: data where the model is
logits = model(x)
print("logits on", logits.device, "with shape", tuple(logits.shape))
""",
        "es": """\
import torch
from linecnn.model import build_model

model = build_model().to(device)
x = torch.rand(4, 1, 8, 8).to(device)  # la solución: los datos donde está el modelo
logits = model(x)
print("logits on", logits.device, "with shape", tuple(logits.shape))
""",
    },
)

EVALUATE = Snippet(
    "evaluate",
    {
        "en": """\
import torch
from linecnn.config import DataConfig
from linecnn.data import make_dataset
from linecnn.model import build_model

data = make_dataset(DataConfig(), seed=24, device=device)
model = build_model().to(device)

model.eval()  # evaluation mode
with torch.no_grad():  # no gradients: less memory, less work
    logits = model(data.val_x)
accuracy = (logits.argmax(dim=1) == data.val_y).float().mean().item()
print("validation images:", len(data.val_y), "on", data.val_x.device)
print("accuracy before training:", round(accuracy, 3))
print("gradients tracked:", logits.requires_grad)
""",
        "es": """\
import torch
from linecnn.config import DataConfig
from linecnn.data import make_dataset
from linecnn.model import build_model

data = make_dataset(DataConfig(), seed=24, device=device)
model = build_model().to(device)

model.eval()  # modo evaluación
with torch.no_grad():  # sin gradientes: menos memoria y menos trabajo
    logits = model(data.val_x)
accuracy = (logits.argmax(dim=1) == data.val_y).float().mean().item()
print("validation images:", len(data.val_y), "on", data.val_x.device)
print("accuracy before training:", round(accuracy, 3))
print("gradients tracked:", logits.requires_grad)
""",
    },
)

PORTABLE = Snippet(
    "portable",
    {
        "en": """\
import torch
from torch import nn
from linecnn.config import DataConfig
from linecnn.data import make_dataset
from linecnn.model import build_model

# The lesson's one line: the GPU when there is one, else the CPU
auto = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("the pattern picks:", auto, "| the sidebar picked:", device)

# From here on one name, so the same code runs on either device
data = make_dataset(DataConfig(), seed=24, device=device)
model = build_model().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(1, 31):
    model.train()
    loss = loss_fn(model(data.train_x), data.train_y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")
""",
        "es": """\
import torch
from torch import nn
from linecnn.config import DataConfig
from linecnn.data import make_dataset
from linecnn.model import build_model

# La línea de la lección: la GPU si la hay, si no la CPU
auto = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("the pattern picks:", auto, "| the sidebar picked:", device)

# Desde aquí un solo nombre: el mismo código corre en cualquier dispositivo
data = make_dataset(DataConfig(), seed=24, device=device)
model = build_model().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(1, 31):
    model.train()
    loss = loss_fn(model(data.train_x), data.train_y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")
""",
    },
)

SPEED = Snippet(
    "speed",
    {
        "en": """\
import time
import torch
from linecnn.device import synchronize
from linecnn.model import build_model

model = build_model().to(device)
for n in (100, 10_000):  # a tiny batch, then one a hundred times bigger
    x = torch.rand(n, 1, 8, 8, device=device)
    model(x).sum().backward()  # warm-up: the first call pays one-time costs
    synchronize(device)  # a GPU works in the background: wait before reading the clock
    start = time.perf_counter()
    for _ in range(3):
        model(x).sum().backward()
    synchronize(device)
    ms = (time.perf_counter() - start) / 3 * 1000
    print(f"{n:>6,} images: {ms:8.2f} ms per step, {n / ms * 1000:>11,.0f} images/s")
""",
        "es": """\
import time
import torch
from linecnn.device import synchronize
from linecnn.model import build_model

model = build_model().to(device)
for n in (100, 10_000):  # un lote diminuto y luego uno cien veces mayor
    x = torch.rand(n, 1, 8, 8, device=device)
    model(x).sum().backward()  # calentamiento: la primera llamada paga costos únicos
    synchronize(device)  # la GPU trabaja en segundo plano: esperarla antes de leer el reloj
    start = time.perf_counter()
    for _ in range(3):
        model(x).sum().backward()
    synchronize(device)
    ms = (time.perf_counter() - start) / 3 * 1000
    print(f"{n:>6,} images: {ms:8.2f} ms per step, {n / ms * 1000:>11,.0f} images/s")
""",
    },
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
