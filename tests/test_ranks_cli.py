"""``python -m linecnn bench --ranks``: the data-parallel benchmark from the command line."""

from __future__ import annotations

import json
import os

import pytest

from linecnn.cli.main import main


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
