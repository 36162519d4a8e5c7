"""``python -m linecnn bench --ranks``: the data-parallel benchmark from the command line."""

from __future__ import annotations

import json
import os
import time

import pytest

from linecnn.cli.main import main
from linecnn.parallel import memory


@pytest.mark.slow  # a torchrun process group
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="two CPU processes need two cores")
def test_bench_ranks_prints_one_json_document_with_each_count(capsys):
    """--ranks 2 --json: one document with the row of 2 gloo ranks, equivalent to one device."""
    status = main(
        ["bench", "--ranks", "2", "--per-class", "5", "--warmup", "1", "--repeats", "2", "--json"]
    )
    out = capsys.readouterr().out
    assert status == 0
    document = json.loads(out)
    (row,) = document["rows"]
    assert row["ranks"] == 2 and row["backend"] == "gloo" and row["threads"] == max(1, os.cpu_count() // 2)
    assert row["loss_error"] <= document["loss_tolerance"] and document["mismatch"] == []
    assert document["env"]["torch_version"]


@pytest.mark.slow  # a few seconds of a big single-device epoch
def test_the_time_cap_ends_a_big_epoch_within_a_few_seconds(capsys):
    """--max-seconds 3 on an epoch of 900,000 images in steps of 8 (about a minute on an idle machine):
    the cap acts inside the single-device reference's first epoch, and the command ends soon after 3 s."""
    started = time.monotonic()
    big = ["--per-class", "300000", "--batch-size", "8"]
    status = main(["bench", "--ranks", "1", *big, "--max-seconds", "3", "--json"])
    took = time.monotonic() - started
    document = json.loads(capsys.readouterr().out)
    assert status == 0 and document["rows"] == []
    assert "time cap of 3 s ended the series during the single-device reference" in document["stopped"]
    assert took < 3 + 10, took  # building 900,000 images takes seconds on a loaded machine


def test_a_series_too_big_for_free_memory_is_refused_before_anything_is_built(capsys, monkeypatch):
    """With little memory free, --ranks refuses on one line, naming a per-class that fits."""
    monkeypatch.setattr(memory, "available_bytes", lambda: 2 << 30)
    status = main(["bench", "--ranks", "1,2", "--per-class", "2000000", "--batch-size", "64", "--no-save"])
    err = capsys.readouterr().err
    assert status == 2 and "the largest run (2 at once) needs about" in err and "Choose at most" in err
    assert err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--ranks", "1,x"], "expected numbers of processes such as 1,2,4"),
        (["--ranks", "1", "--compile"], "leave out --compile"),
        (["--ranks", "1", "--sweep", "data"], "leave out --sweep"),
        (["--ranks", "0"], "at least 1"),
        (["--ranks", "65"], "CPU cores"),
        (["--ranks", "2", "--per-class", "1", "--batch-size", "1"], "cannot be shared by 2 processes"),
    ],
)
def test_bad_rank_options_end_with_one_line(capsys, argv, message):
    """Options --ranks cannot honour end with one line on stderr and status 2, before any launch."""
    try:
        status = main(["bench", *argv, "--no-save"])
    except SystemExit as exit_:
        status = exit_.code
    err = capsys.readouterr().err
    assert status == 2 and message in err and err.count("\n") == 1, err
