"""One benchmark cell's outcome, typed: its status, its timings, and its JSON form (``to_dict``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from linecnn.bench.config import AMP_MODES, FASTER_PATHS, BenchConfig
from linecnn.bench.factors import Factor
from linecnn.bench.jsonfields import Fields, echo, place
from linecnn.errors import Clause, Figure, Message, UserError, said
from linecnn.train.config import RENAMED_DATA_MODES
from linecnn.train.lines import DATA_MODES

MAX_EPOCH_MS = 86_400_000.0  # a day: any epoch time above it in an imported file is a typo or a forgery
MIN_EPOCH_MS = 1e-6  # a nanosecond: below it a speed-up (a ratio of medians) would not stay finite
COSTS = ("first_epoch_ms", "context_ms", "setup_ms", "autotune_ms", "compile_ms")  # one-time costs, ms
WIDE_SPREAD = 1.5  # p75 above 1.5 × p25: the slow half of the epochs ran half as slow again as the fast half
# Why a timed cell is not to be trusted, as JSON writes it (``linecnn.bench.noise`` decides):
# its spread is too wide, the load average was above the core count, a Train run shared its cores,
# its threads waited for a core too long (``linecnn.bench.runqueue``).
DISTURBANCES = ("spread", "load", "training", "cores")
CORE_MODES = ("split", "alone")  # how a server kept a cell's cores its own (``linecnn.classroom.cores``)
# What a cell had and cost: written only when known, so a document without them reads back the same.
HAD = ("threads", "cores", "machine_cores", "mode", "waited_runs", "waited_seconds", "run_queue")


class CellStatus(Enum):
    """How a cell ended. Only OK has timings."""

    OK = "ok"
    OUT_OF_MEMORY = "out of memory"
    FAILED = "failed"  # an error; the reason holds it
    STOPPED = "stopped"  # running when the time cap was reached; the reason says which cap
    SKIPPED = "skipped"  # never started: the time cap came first


REASONED = (CellStatus.FAILED, CellStatus.STOPPED, CellStatus.SKIPPED)  # written "status: reason" in JSON
TIME_CAP = "time cap"  # the reason of a cell skipped at the time cap


@dataclass(frozen=True)
class CellResult:
    """One cell measured on one device. Times are None unless the status is OK."""

    device: str  # "cpu", "cuda:0", "mps"
    device_name: str  # e.g. "CUDA:0 · NVIDIA H200"
    config: BenchConfig  # what was timed, after dropping options that do not apply here
    status: CellStatus = CellStatus.OK
    reason: str = ""  # why a cell has no timings: the error, "time cap of 15 s", "time cap"
    times_ms: tuple[float, ...] = ()  # every timed epoch, in order
    median_ms: float | None = None
    p25_ms: float | None = None
    p75_ms: float | None = None
    samples_per_s: float | None = None
    first_epoch_ms: float | None = None  # the first warm-up epoch: caches, allocator growth, lazy init
    context_ms: float | None = None  # CUDA context creation; None when already paid in this process
    setup_ms: float | None = None  # generating the images on the device, building and moving the model
    autotune_ms: float | None = None  # first eager step per batch shape: cuDNN autotune, lazy kernel loading
    compile_ms: float | None = None  # first compiled step per batch shape; None when not compiling
    peak_memory_bytes: int | None = None  # GPU: peak tensor memory; CPU: the process's peak RSS so far
    notes: tuple[str, ...] = field(default_factory=tuple)  # options dropped on this device, and why
    load_average: float | None = None  # highest 1-minute load average seen while it ran; None: not known
    disturbed: tuple[str, ...] = ()  # DISTURBANCES that make its timing doubtful; () = none seen
    # What the cell had and what it cost; None: not known (a file from before they were kept).
    threads: int | None = None  # torch CPU threads it ran on (CPU cells)
    cores: int | None = None  # cores it owned (its affinity) while timed
    machine_cores: int | None = None  # cores of the machine (the server's, or the CLI's process)
    mode: str | None = None  # CORE_MODES: split (the server on other cores), alone (training waited)
    waited_runs: int | None = None  # training runs of the server that waited while it was timed
    waited_seconds: float | None = None  # seconds they waited, all together
    run_queue: float | None = (
        None  # its threads' time waiting for a core, a share of (timed wall time x threads)
    )

    @property
    def ok(self) -> bool:
        """True when the cell has timings."""
        return self.status is CellStatus.OK

    @property
    def wide_spread(self) -> bool:
        """True when the cell was timed and its p75 is above WIDE_SPREAD × its p25."""
        p25, p75 = self.p25_ms, self.p75_ms
        return self.ok and p25 is not None and p75 is not None and p75 > WIDE_SPREAD * p25

    @property
    def kind(self) -> str:
        """The device's kind: 'cpu', 'cuda' or 'mps'."""
        return self.device.split(":")[0]

    @property
    def status_text(self) -> str:
        """The status as JSON writes it: 'ok', 'out of memory', 'failed: <error>'…"""
        return f"{self.status.value}: {self.reason}" if self.status in REASONED else self.status.value

    def to_dict(self, factor: Factor) -> dict:
        """The JSON form, with the swept value ``x`` of a sweep over ``factor``."""
        values = {name: getattr(self, name) for name in self.__dataclass_fields__}
        del values["reason"]
        for name in HAD:
            if values[name] is None:
                del values[name]
        return {
            **values,
            "config": self.config.to_flat(),
            "status": self.status_text,
            "times_ms": list(self.times_ms),
            "notes": list(self.notes),
            "disturbed": list(self.disturbed),
            "factor": factor.name,
            "x": factor.x(self.config),
        }

    @classmethod
    def from_dict(cls, fields: Fields) -> CellResult:
        """A result read from a file; ValueError saying where it is wrong. ``x`` is recomputed, not read."""
        device = fields.text("device", required=True)
        name = fields.text("device_name") or device
        config = read_config(fields.child("config", required=True))
        status, reason = read_status(fields)
        result = cls(
            device=device,
            device_name=name,
            config=config,
            status=status,
            reason=reason,
            times_ms=fields.numbers("times_ms"),
            median_ms=fields.number("median_ms"),
            p25_ms=fields.number("p25_ms"),
            p75_ms=fields.number("p75_ms"),
            samples_per_s=fields.number("samples_per_s"),
            first_epoch_ms=fields.number("first_epoch_ms"),
            context_ms=fields.number("context_ms"),
            setup_ms=fields.number("setup_ms"),
            autotune_ms=fields.number("autotune_ms"),
            compile_ms=fields.number("compile_ms"),
            peak_memory_bytes=fields.whole("peak_memory_bytes"),
            notes=fields.texts("notes"),
            load_average=fields.number("load_average"),
            threads=fields.whole("threads", low=1),
            cores=fields.whole("cores", low=1),
            machine_cores=fields.whole("machine_cores", low=1),
            mode=read_mode(fields),
            waited_runs=fields.whole("waited_runs"),
            waited_seconds=fields.number("waited_seconds"),
            run_queue=fields.number("run_queue"),
        )
        check_timings(result, place(fields.path))
        return replace(result, disturbed=read_disturbed(fields, result))


def read_disturbed(fields: Fields, result: CellResult) -> tuple[str, ...]:
    """A cell's reasons to be distrusted; its spread is judged from its quartiles whatever the file says
    (a file from before the reasons were kept has none)."""
    reasons = fields.texts("disturbed") + (("spread",) if result.wide_spread else ())
    for number, reason in enumerate(reasons):
        if reason not in DISTURBANCES:
            where = place((*fields.path, "disturbed", number))
            raise UserError("json.not_one_of", where=where, value=echo(reason), allowed=DISTURBANCES)
    return tuple(reason for reason in DISTURBANCES if reason in reasons and result.ok)


def read_mode(fields: Fields) -> str | None:
    """How a server kept a cell's cores, one of CORE_MODES; None when not said."""
    mode = fields.text("mode")
    if mode not in (None, *CORE_MODES):
        where = place((*fields.path, "mode"))
        raise UserError("json.not_one_of", where=where, value=echo(mode), allowed=str(CORE_MODES))
    return mode


def read_status(fields: Fields) -> tuple[CellStatus, str]:
    """The status and reason of a result, from 'ok', 'out of memory' or 'failed: <reason>' and the like."""
    text = fields.text("status", required=True)
    head, _, reason = text.partition(":")
    for status in CellStatus:
        if text == status.value or (status in REASONED and head == status.value):
            return status, reason.strip()
    raise UserError("json.status", where=place((*fields.path, "status")), value=echo(text))


DERIVED_SIZES = ("images", "step_size", "steps", "conv_layers")  # ``BenchConfig.to_flat``'s own counts


def read_config(fields: Fields) -> BenchConfig:
    """A result's flat config (``BenchConfig.to_flat``); its derived sizes are recomputed, not read."""
    for key, allowed in (("data_mode", (*DATA_MODES, *RENAMED_DATA_MODES)), ("amp", AMP_MODES)):
        if fields.text(key) not in (None, *allowed):
            where, value = place((*fields.path, key)), echo(fields.values[key])
            raise UserError("json.not_one_of", where=where, value=value, allowed=str(allowed))
    for key in DERIVED_SIZES:  # recomputed below, but a file that writes one must write a count
        fields.whole(key)
    try:
        return BenchConfig.from_flat(
            **{
                key: fields.whole(key, required=True) for key in ("per_class", "width", "extra_convs", "seed")
            },
            **{key: fields.whole(key, low=1, required=True) for key in ("warmup", "repeats")},
            batch_size=fields.whole("batch_size", low=1),
            lr=fields.number("lr", required=True),
            data_mode=fields.text("data_mode", required=True),
            amp=fields.text("amp", required=True),
            **{name: fields.flag(name) for name in FASTER_PATHS},
        )
    except ValueError as error:
        problem = said(error)
        if problem.startswith(place(fields.path)):
            raise
        problem = Clause(problem) if isinstance(problem, Message) else problem.rstrip(".")
        raise UserError("json.bad_config", where=place(fields.path), problem=problem) from None


def check_timings(result: CellResult, where: Message) -> None:
    """An OK result has a median above MIN_EPOCH_MS, with p25 <= median <= p75 under a day; others none."""
    if not result.ok:
        return
    median, p25, p75 = result.median_ms, result.p25_ms, result.p75_ms
    if median is None or p25 is None or p75 is None or result.samples_per_s is None:
        raise UserError("json.no_timings", where=where)
    if median < MIN_EPOCH_MS:
        raise UserError("json.tiny_median", where=where, limit=Figure(MIN_EPOCH_MS))
    if not p25 <= median <= p75 <= MAX_EPOCH_MS:
        quartiles = {"p25": Figure(p25), "median": Figure(median), "p75": Figure(p75)}
        raise UserError("json.quartiles", where=where, **quartiles)
