"""The command line: JSON output, human output, and one-line errors."""

import json
import subprocess
import sys

import pytest

from linecnn.bench.config import BenchConfig
from linecnn.cli.bench import bench_config_from
from linecnn.cli.main import build_parser, main
from linecnn.cli.train import run_config_from
from linecnn.train.config import RunConfig


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """The command as a user runs it, in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "linecnn", *args], capture_output=True, text=True, timeout=120
    )


def run_main(capsys, *args: str) -> tuple[int, str]:
    """The command's exit status and stderr, run in this process (argparse's errors exit too)."""
    try:
        status = main(list(args))
    except SystemExit as exit_:
        status = exit_.code
    return status, capsys.readouterr().err


def test_train_json_with_defaults_matches_the_lesson():
    """`train --device cpu --json` prints one JSON object with the required fields, and the lesson's own
    config reaches validation and training accuracy >= 0.99 and a validation loss under 0.05 on the CPU,
    as the lesson does (the one 120-epoch default run of the fast tier: the core's learning is checked
    here, through the command that reports it)."""
    result = run_cli("train", "--device", "cpu", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    for key in (
        "device",
        "epochs",
        "train_loss",
        "val_loss",
        "train_acc",
        "val_acc",
        "train_seconds",
        "ms_per_epoch",
    ):
        assert key in report
    assert report["device"] == "cpu" and report["epochs"] == 120 and report["val_acc"] >= 0.99
    assert report["train_acc"] >= 0.99 and report["val_loss"] < 0.05
    assert report["ms_per_epoch"] == pytest.approx(1000 * report["train_seconds"] / 120)
    assert report["config"]["seed"] == 24 and report["env"]["torch_version"]


def test_option_defaults_are_the_run_configs():
    """With no options, train builds RunConfig() and bench builds BenchConfig(), whose run is RunConfig()."""
    assert run_config_from(build_parser().parse_args(["train"])) == RunConfig()
    assert bench_config_from(build_parser().parse_args(["bench"])) == BenchConfig()
    assert BenchConfig().run == RunConfig()


def test_human_output_is_a_table(capsys):
    """Without --json the command prints a header, rows every 10 epochs and a summary."""
    assert main(["train", "--device", "cpu", "--epochs", "20", "--per-class", "30"]) == 0
    out = capsys.readouterr().out
    assert "train loss" in out and "val acc" in out and "Done in" in out
    assert [line.split()[0] for line in out.splitlines() if line.strip()[:1].isdigit()] == ["1", "10", "20"]


def test_a_run_kept_in_a_file_with_its_stderr_has_its_rows_on_lines_of_their_own(tmp_path):
    """`linecnn train ... 2>&1 | tee run.txt`: no progress bar redraws (carriage returns) among the rows."""
    log = tmp_path / "run.txt"
    options = ["--device", "cpu", "--epochs", "10", "--per-class", "30"]
    command = [sys.executable, "-m", "linecnn", "train", *options]
    with log.open("w", encoding="utf-8") as file:
        result = subprocess.run(command, stdout=file, stderr=subprocess.STDOUT, timeout=120)
    text = log.read_text(encoding="utf-8")
    assert result.returncode == 0, text
    assert "\r" not in text and "epoch/s" not in text
    assert [line.split()[0] for line in text.splitlines() if line.strip()[:1].isdigit()] == ["1", "10"]


def test_options_reach_the_config(capsys):
    """Every documented option is applied."""
    argv = [
        "train",
        "--device",
        "cpu",
        "--json",
        "--epochs",
        "2",
        "--lr",
        "0.05",
        "--per-class",
        "9",
        "--val-per-class",
        "4",
        "--seed",
        "3",
        "--batch-size",
        "8",
        "--width",
        "2",
        "--data-mode",
        "varied",
    ]
    assert main(argv) == 0
    config = json.loads(capsys.readouterr().out)["config"]
    assert config == {
        "per_class": 9,
        "val_per_class": 4,
        "data_mode": "varied",
        "width": 2,
        "extra_convs": 0,
        "epochs": 2,
        "lr": 0.05,
        "batch_size": 8,
        "seed": 3,
    }


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["train", "--epochs", "abc"], "invalid int value"),
        (["train", "--epochs", "0"], "Epochs must be"),
        (["train", "--lr", "-1"], "Learning rate must be"),
        (["train", "--batch-size", "lots"], "whole number or 'full'"),
        (["train", "--batch-size", "0"], "Batch size must be"),
        (["train", "--device", "tpu"], "Unknown device"),
        (["train", "--data-mode", "wiggly"], "invalid choice"),
        (["fly"], "invalid choice"),
    ],
)
def test_bad_options_exit_2_with_one_line(capsys, args, words):
    """Bad input ends with exit status 2 and a single line on stderr, never a traceback."""
    status, stderr = run_main(capsys, *args)
    assert status == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in stderr


def test_running_out_of_memory_is_one_line_with_advice(monkeypatch, capsys):
    """An allocation the machine refuses ends in one line that says what to shrink, exit status 2."""
    import linecnn.cli.train as cli

    def refuse(*args, **kwargs):
        raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate 78 GB")

    monkeypatch.setattr(cli, "Trainer", refuse)
    argv = [
        "train",
        "--device",
        "cpu",
        "--per-class",
        "200000",
        "--width",
        "64",
        "--json",
        "--no-memory-check",
    ]
    assert main(argv) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("linecnn train: error: out of memory") and "smaller width" in line


def test_a_step_too_big_for_memory_is_refused_unless_the_check_is_turned_off(monkeypatch, capsys):
    """Two million images per class in one full batch would need ~77 GiB: one line, exit status 2."""
    status, stderr = run_main(capsys, "train", "--device", "cpu", "--per-class", "2000000")
    assert status == 2 and "Traceback" not in stderr
    [line] = stderr.strip().splitlines()
    assert "needs about 77." in line and "Choose batch size 65,536 or smaller" in line
    assert "--no-memory-check" in line
    import linecnn.cli.train as cli

    built = []
    monkeypatch.setattr(cli, "Trainer", lambda config, device: built.append(config) or exit_early())
    with pytest.raises(SystemExit):
        main(["train", "--device", "cpu", "--per-class", "2000000", "--no-memory-check", "--json"])
    assert built and built[0].data.per_class == 2_000_000


def exit_early():
    raise SystemExit(0)


def test_a_reader_that_went_away_gets_no_traceback():
    """`train --json | head -c 10`: the reader can close before the JSON is written; exit quietly.

    ``true`` exits at once, long before training ends, so the write always meets a closed pipe.
    """
    command = f"{sys.executable} -m linecnn train --device cpu --epochs 3 --json"
    shell = f"{command} | true; echo ${{PIPESTATUS[0]}}"
    result = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120)
    assert result.stderr == ""
    assert result.stdout.strip() in ("0", "141")
