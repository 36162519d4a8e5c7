"""What reading an uploaded file costs in memory, for hostile shapes at and within each upload's limit.

    python scripts/upload_memory.py [--json]

Each case is a file a user could upload (a run history, a benchmark JSON), built to cost the most
Python memory per byte: tiny objects, empty lists, short strings, floats, one long string. The
reader the page calls parses or refuses it under tracemalloc; the peak of Python's allocations
is reported beside the file's size and its upload limit. A real history at the largest size a
session keeps comes first, for scale.
"""

from __future__ import annotations

import argparse
import json
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from linecnn.bench.document import BenchDocument  # noqa: E402
from linecnn.bench.jsonfields import MAX_FILE_BYTES, MAX_VALUES  # noqa: E402
from linecnn.checkpoint.history import (  # noqa: E402
    MAX_HISTORY_BYTES,
    MAX_HISTORY_EPOCHS,
    MAX_HISTORY_RUNS,
    MAX_HISTORY_VALUES,
    load_history,
)
from linecnn.untrusted import value_bound  # noqa: E402


def real_history() -> bytes:
    """The largest history a session keeps: MAX_HISTORY_RUNS runs sharing MAX_HISTORY_EPOCHS epochs."""
    epochs = MAX_HISTORY_EPOCHS // MAX_HISTORY_RUNS
    config = {"per_class": 120, "val_per_class": 60, "data_mode": "lesson", "width": 1, "extra_convs": 0}
    config |= {"epochs": epochs, "lr": 0.01, "batch_size": None, "seed": 24}
    record = {"epochs": epochs, "train_loss": 0.123456789, "train_acc": 0.987654321, "val_loss": 0.2345678}
    record |= {
        "val_acc": 0.96666666,
        "epoch_seconds": 0.00812345,
        "elapsed_seconds": 1.23456,
        "device": "cpu",
    }
    run = {"config": config, "device": "cpu", "threads": 2, "confusion": [[60, 0, 0], [0, 60, 0], [0, 0, 60]]}
    runs = [
        {**run, "number": n + 1, "epochs": [{**record, "epoch": e + 1} for e in range(epochs)]}
        for n in range(MAX_HISTORY_RUNS)
    ]
    document = {"format": "linecnn-history", "format_version": 1, "created": "2026-01-01T00:00:00+00:00"}
    return json.dumps({**document, "runs": runs}, indent=1).encode()


def within(values: int, item: bytes, pad: int = 0) -> bytes:
    """A list of ``item`` (each followed by ``pad`` spaces) with at most ``values`` values in all."""
    count = (values - 2) // value_bound(item + b",")
    return b'{"runs": [' + b",".join([item + b" " * pad] * count) + b"]}"


def history_cases() -> dict[str, bytes]:
    """Hostile histories: the issue's 7.5 MB of tiny objects, then each shape at the value limit."""
    limit = MAX_HISTORY_VALUES
    strings = b",".join(b'"%05d"' % (n % 100_000) for n in range(limit - 2))
    return {
        "a real history (20 runs, 20,000 epochs)": real_history(),
        "7.5 MB of tiny objects (the issue's file)": b'{"runs": [' + b"{}," * 2_500_000 + b"{}]}",
        "tiny objects at the value limit": within(limit, b"{}"),
        "tiny objects, 30 spaces each": within(limit, b"{}", 30),
        "empty lists at the value limit": within(limit, b"[]"),
        "one-key objects at the value limit": within(limit, b'{"a":1}'),
        "floats at the value limit": within(limit, b"0.5"),
        "short strings at the value limit": b'{"runs": [' + strings + b"]}",
        "one ASCII string at the size limit": b'{"runs": ["' + b"x" * (MAX_HISTORY_BYTES - 16) + b'"]}',
        "one non-ASCII string at the size limit": (
            b'{"runs": ["\xf0\x9f\xa6\x93' + b"x" * (MAX_HISTORY_BYTES - 20) + b'"]}'
        ),
    }


def bench_cases() -> dict[str, bytes]:
    """Hostile benchmark JSON: each shape at the value limit or the size limit."""
    return {
        "tiny objects at the value limit": within(MAX_VALUES, b"{}"),
        "one-key objects at the value limit": within(MAX_VALUES, b'{"a":1}'),
        "floats at the value limit": within(MAX_VALUES, b"0.5"),
        "one ASCII string at the size limit": b'{"runs": ["' + b"x" * (MAX_FILE_BYTES - 16) + b'"]}',
    }


def peak(read: Callable[[bytes], object], data: bytes) -> tuple[int, str]:
    """Python's peak allocation while ``read`` takes ``data``, and how it ended."""
    tracemalloc.start()
    try:
        read(data)
        ended = "read"
    except ValueError as error:
        ended = "refused: " + str(error)[:70]
    finally:
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return top, ended


def measure() -> list[dict]:
    """One row per case: its reader, size, limit, peak and how it ended."""
    rows = []
    readers = (
        ("history", load_history, history_cases(), MAX_HISTORY_BYTES),
        ("benchmark", BenchDocument.from_json, bench_cases(), MAX_FILE_BYTES),
    )
    for kind, read, cases, limit in readers:
        for name, data in cases.items():
            top, ended = peak(read, data)
            rows.append(
                {"file": kind, "case": name, "bytes": len(data), "limit": limit, "peak": top, "ended": ended}
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    rows = measure()
    if parser.parse_args().json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'file':9} {'case':42} {'MB':>6} {'peak MB':>8} {'x size':>7} {'x limit':>8}  ended")
    for row in rows:
        size, top = row["bytes"], row["peak"]
        print(
            f"{row['file']:9} {row['case']:42} {size / 1e6:6.2f} {top / 1e6:8.1f} "
            f"{top / size:7.1f} {top / row['limit']:8.2f}  {row['ended']}"
        )


if __name__ == "__main__":
    main()
