"""A benchmark run as one typed document, and its JSON form: what the CLI prints, the page downloads,
the history stores and a bundled reference holds.

Inside linecnn a run is a ``BenchDocument``; JSON exists only at the edges (files, the history's
rows), through ``to_json``/``from_json``. Reading validates by construction: every field is read
with its type checked, the configs validate themselves, and what is wrong is named in a sentence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime

from linecnn.bench.factors import FACTORS, Factor
from linecnn.bench.jsonfields import Fields, echo, parse_json
from linecnn.bench.results import CellResult
from linecnn.device import environment
from linecnn.device_ops import float32_precision
from linecnn.errors import Figure, Message, UserError, said

FORMAT = "linecnn.bench/1"  # the "format" of a benchmark JSON document
MAX_RESULTS = 2_000  # the largest sweep the page or the CLI makes has under 200 cells


@dataclass(frozen=True)
class DeviceEntry:
    """A device of the machine a run was measured on."""

    key: str | None = None  # e.g. "cuda:0"
    kind: str | None = None  # "cpu", "cuda" or "mps"
    name: str | None = None  # e.g. "NVIDIA H200"
    memory_bytes: int | None = None  # its memory (system RAM for the CPU), when known


@dataclass(frozen=True)
class BenchEnv:
    """The machine and software a run was measured with; any field may be unknown in an imported file."""

    torch_version: str | None = None
    cuda_version: str | None = None  # CUDA runtime torch was built with
    cudnn_version: int | None = None
    python_version: str | None = None
    platform: str | None = None
    cpu_model: str | None = None
    cpu_count: int | None = None  # logical CPUs
    torch_threads: int | None = None  # torch's intra-op CPU threads
    devices: tuple[DeviceEntry, ...] = ()
    cuda_note: str | None = None  # why CUDA was not offered
    date: str | None = None  # when the run started (UTC, ISO 8601)
    float32: str | None = None  # what CUDA ran float32 matmuls and convolutions in (TF32 or not)

    @classmethod
    def here(cls) -> BenchEnv:
        """This machine now."""
        values = environment().as_dict()
        values["devices"] = tuple(DeviceEntry(**device) for device in values["devices"])
        return cls(
            **values, date=datetime.now(UTC).isoformat(timespec="seconds"), float32=float32_precision()
        )

    @property
    def gpus(self) -> list[str]:
        """The names of its accelerators."""
        return [device.name or "?" for device in self.devices if device.kind != "cpu"]

    @property
    def machine(self) -> str:
        """CPU model and accelerator names, e.g. 'AMD EPYC 7B13 · NVIDIA H200'."""
        return " · ".join([self.cpu_model or "unknown CPU", *self.gpus])

    def to_dict(self) -> dict:
        """The JSON form."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return {**values, "devices": [vars(device) for device in self.devices]}

    @classmethod
    def from_dict(cls, env: Fields) -> BenchEnv:
        """An environment read from a file."""
        devices = [
            DeviceEntry(d.text("key"), d.text("kind"), d.text("name"), d.whole("memory_bytes"))
            for d in env.children("devices")
        ]
        return cls(  # texts, then counts: a file with several bad fields is refused for the first of them
            torch_version=env.text("torch_version"),
            cuda_version=env.text("cuda_version"),
            python_version=env.text("python_version"),
            platform=env.text("platform"),
            cpu_model=env.text("cpu_model"),
            cuda_note=env.text("cuda_note"),
            date=env.text("date"),
            float32=env.text("float32"),
            cudnn_version=env.whole("cudnn_version"),
            cpu_count=env.whole("cpu_count"),
            torch_threads=env.whole("torch_threads"),
            devices=tuple(devices),
        )


@dataclass(frozen=True)
class BenchDocument:
    """One benchmark run: the swept factor, the machine, and one result per cell in run order."""

    factor: Factor  # the factor swept (its name is "sweep" in JSON)
    results: tuple[CellResult, ...]
    env: BenchEnv = field(default_factory=BenchEnv)
    devices: tuple[str, ...] = ()  # the devices asked for, e.g. ("cpu", "cuda:0")
    notes: tuple[str, ...] = ()  # sentences about cells left out (caps)
    created: str | None = None  # when it ran (UTC, ISO 8601)

    def __post_init__(self) -> None:
        if not isinstance(self.factor, Factor):
            raise ValueError(f"A benchmark document needs a sweep factor; got {echo(self.factor)}.")

    def x(self, result: CellResult) -> float:
        """A result's swept value: images, batch size, width or conv layers."""
        return self.factor.x(result.config)

    def to_dict(self) -> dict:
        """The JSON form (``linecnn.bench/1``): each result repeats the factor, its x and the environment."""
        env = self.env.to_dict()
        return {
            "format": FORMAT,
            "created": self.created,
            "sweep": self.factor.name,
            "devices": list(self.devices),
            "notes": list(self.notes),
            "env": env,
            "results": [{**result.to_dict(self.factor), "env": env} for result in self.results],
        }

    def to_json(self, indent: int | None = None) -> str:
        """The JSON text; keys sorted, so that one run always gives the same text."""
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> BenchDocument:
        """Parse and read a benchmark JSON file's text; ValueError with a sentence when it is not one."""
        return cls.from_dict(parse_json(text))

    @classmethod
    def from_dict(cls, document: object) -> BenchDocument:
        """Read a parsed benchmark JSON; ValueError with a sentence when it is not one."""
        if not isinstance(document, dict) or not str(document.get("format", "")).startswith("linecnn.bench/"):
            raise UserError("bench_not_ours")
        if document["format"] != FORMAT:
            raise UserError("bench_format", format=echo(document["format"]), expected=repr(FORMAT))
        results = document.get("results")
        if not isinstance(results, list) or not results:
            raise UserError("bench_no_results")
        if len(results) > MAX_RESULTS:
            problem = Message("json.results", count=len(results), limit=MAX_RESULTS)
            raise UserError("bench_unusable", problem=problem)
        if document.get("sweep") not in FACTORS:
            raise UserError("bench_unknown_sweep", sweep=echo(document.get("sweep")))
        try:
            read = _read(Fields(document))
        except ValueError as error:
            raise UserError("bench_unusable", problem=said(error)) from None
        return read


def _read(top: Fields) -> BenchDocument:
    """The document's fields, each checked; then no cell may appear twice."""
    document = BenchDocument(
        factor=FACTORS[top.values["sweep"]],
        results=tuple(CellResult.from_dict(result) for result in top.children("results", required=True)),
        env=BenchEnv.from_dict(top.child("env")),
        devices=top.texts("devices"),
        notes=top.texts("notes"),
        created=top.text("created"),
    )
    repeated = repeated_cell(document)
    if repeated:
        raise UserError(repeated.key, **repeated.values)
    return document


def repeated_cell(document: BenchDocument) -> Message | None:
    """A sentence naming the first cell measured twice (same device, variant and x), or None.

    Each (series, x) must be one point: the page lines series up by x to compute speed-ups.
    """
    seen: dict[tuple, int] = {}
    for number, result in enumerate(document.results, start=1):
        x = document.x(result)
        for name, device in (("device", result.device), ("name", result.device_name)):
            cell = (name, device, result.config.variant, x)
            if cell in seen:
                numbers = {"number": str(number), "first": str(seen[cell])}  # 'result 1500', as place() says
                cell_said = {"device": device, "variant": result.config.variant, "x": Figure(x)}
                return Message("json.repeated", **numbers, **cell_said)
            seen[cell] = number
    return None
