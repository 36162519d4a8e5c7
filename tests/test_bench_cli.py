"""`python -m linecnn bench`: the JSON fields, the human table, one-line errors."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
import threading

import pytest

from linecnn.bench.config import BenchConfig
from linecnn.bench.document import BenchDocument
from linecnn.bench.factors import FACTORS
from linecnn.bench.plan import SweepRequest
from linecnn.cli.main import main
from linecnn.cli.table import DISTURBED, bench_table, disturbed_lines
from linecnn.device import cuda_available
from tests.bench_fixture import fake_gpu_document

FIELDS = ("device", "config", "median_ms", "p25_ms", "p75_ms", "samples_per_s", "env")


def test_json_has_one_result_per_device_and_size(tmp_path, monkeypatch, capsys):
    """A data sweep prints one result per size, each with the documented fields and the date."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))
    argv = ["bench", "--json", "--devices", "cpu", "--sweep", "data", "--up-to", "1200", "--warmup", "1"]
    assert main([*argv, "--repeats", "2", "--batch-size", "256", "--width", "2"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "linecnn.bench/1" and document["sweep"] == "data"
    results = document["results"]
    assert [r["config"]["images"] for r in results] == [360, 1_200]
    for result in results:
        assert all(key in result for key in FIELDS)
        assert result["config"]["width"] == 2 and result["config"]["batch_size"] == 256
        assert result["env"]["date"] and result["env"]["cpu_model"] and result["env"]["torch_version"]
    assert (tmp_path / "bench.sqlite3").exists()  # saved to the history by default


SMALL_RUN = [sys.executable, "-m", "linecnn", "bench", "--devices", "cpu", "--per-class", "20", "--no-save"]


def on_a_terminal(command: list[str]) -> tuple[subprocess.CompletedProcess, str]:
    """Run ``command`` with its stderr on a terminal (a pty), as a person running it sees it; its
    result and what the terminal showed."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # a window's size
    shown: list[bytes] = []

    def read() -> None:
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed: the command has ended
                return
            if not chunk:
                return
            shown.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=follower, text=True, timeout=120)
    finally:
        os.close(follower)
        reader.join(timeout=10)
        os.close(leader)
    return result, b"".join(shown).decode("utf-8", errors="replace")


def test_human_output_is_a_table_with_a_progress_bar(tmp_path):
    """Without --json: a table on stdout, a tqdm bar on a terminal's stderr, and where the JSON went."""
    pytest.importorskip("tqdm")  # installed with linecnn; a bare GPU machine prints the table alone
    out = tmp_path / "run.json"
    result, terminal = on_a_terminal([*SMALL_RUN, "--warmup", "1", "--repeats", "2", "--out", str(out)])
    assert result.returncode == 0, terminal
    assert "median ms" in result.stdout and "samples/s" in result.stdout and str(out) in result.stdout
    assert "cell 1/1" in terminal
    assert json.loads(out.read_text())["results"][0]["status"] == "ok"


def test_a_run_kept_in_a_file_with_its_stderr_has_the_table_on_lines_of_its_own(tmp_path):
    """`linecnn bench ... 2>&1 | tee run.txt`: with stderr not a terminal no bar is drawn, so no redraws
    (carriage returns, no newline) share a line with the table's header."""
    log = tmp_path / "run.txt"
    with log.open("w", encoding="utf-8") as file:
        command = [*SMALL_RUN, "--warmup", "1", "--repeats", "1"]
        result = subprocess.run(command, stdout=file, stderr=subprocess.STDOUT, timeout=120)
    text = log.read_text(encoding="utf-8")
    assert result.returncode == 0, text
    assert "\r" not in text and "cell 1/1" not in text
    assert text.startswith("device ") and "median ms" in text.splitlines()[0]


def test_a_bad_choice_ends_with_one_line(capsys):
    """An unknown sweep is an argparse error: exit status 2, one line on stderr."""
    with pytest.raises(SystemExit) as exited:
        main(["bench", "--sweep", "epochs"])
    err = capsys.readouterr().err.strip()
    assert exited.value.code == 2 and "invalid choice" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--warmup", "0"], "Warm-up epochs must be"), (["--devices", "gpu"], "Unknown device")],
)
def test_bad_values_end_with_one_line(argv, message, capsys):
    """Values the core refuses exit with status 2 and its sentence, on one line."""
    assert main(["bench", "--no-save", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


@pytest.mark.skipif(cuda_available(), reason="checks the message shown when CUDA is absent")
def test_asking_for_cuda_without_it_says_why(capsys):
    """--devices cpu,cuda on a machine without CUDA is a one-line error that says why."""
    assert main(["bench", "--no-save", "--devices", "cpu,cuda"]) == 2
    assert "CUDA was requested" in capsys.readouterr().err


def test_json_is_printed_even_when_the_history_cannot_be_opened(tmp_path, monkeypatch, capsys):
    """A history under a plain file: the JSON still prints and --out is written, one warning, exit 0."""
    (tmp_path / "notadir").write_text("")
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path / "notadir" / "sub"))
    out = tmp_path / "run.json"
    argv = ["bench", "--json", "--devices", "cpu", "--per-class", "20", "--warmup", "1", "--repeats", "1"]
    assert main([*argv, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["results"][0]["status"] == "ok" and json.loads(out.read_text()) == document
    [warning] = captured.err.strip().splitlines()
    assert warning.startswith("linecnn bench: warning: not saved to the history: Cannot open")


def test_the_cli_progress_bar_redraws_once_per_epoch_not_per_step(tmp_path, monkeypatch, capsys):
    """The bar redraws at each phase and epoch, not at each of the 75 steps of an epoch."""
    pytest.importorskip("tqdm")
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # the bar draws on a terminal only
    argv = ["bench", "--devices", "cpu", "--per-class", "400", "--batch-size", "16", "--warmup", "1"]
    assert main([*argv, "--repeats", "1", "--no-save"]) == 0
    captured = capsys.readouterr()
    assert "median ms" in captured.out
    assert 0 < captured.err.count("cpu · 1,200 images") < 20  # 75 steps per epoch, a handful of redraws


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--out", "/nonexistent-folder/run.json"], "the folder /nonexistent-folder does not exist"),
        (["--seed", "99999999999999999999999"], "Seed must be a whole number"),
        (["--max-seconds", "-1"], "--max-seconds must be a number of seconds above 0"),
        (["--max-seconds", "nan"], "--max-seconds must be a number of seconds above 0"),
    ],
)
def test_bad_bench_options_fail_at_once_in_one_line(tmp_path, monkeypatch, capsys, option, message):
    """Checked before the sweep runs: nothing is timed, nothing is saved, one line on stderr."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))
    import linecnn.bench.sweep

    monkeypatch.setattr(linecnn.bench.sweep, "run_sweep", lambda *a, **k: pytest.fail("the sweep ran"))
    assert main(["bench", "--devices", "cpu", *option]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("linecnn bench: error:") and message in line
    assert not (tmp_path / "bench.sqlite3").exists()


def test_a_step_above_the_memory_cap_is_refused_like_on_the_page(tmp_path, monkeypatch, capsys):
    """1 M images in one batch of 1 M would keep ~13 GiB per step: refused before anything runs."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))
    import linecnn.bench.sweep

    monkeypatch.setattr(linecnn.bench.sweep, "run_sweep", lambda *a, **k: pytest.fail("the sweep ran"))
    argv = ["bench", "--devices", "cpu", "--per-class", "333334", "--batch-size", "1000002"]
    assert main(argv) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "above the CLI's cap of 1.0 GiB per step" in line and "--max-step-bytes none" in line


def test_the_step_cap_leaves_out_big_cells_and_says_which(tmp_path, monkeypatch, capsys):
    """A batch sweep under a 10 MB cap leaves out the batches above it, lists them, and times the rest."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))
    argv = ["bench", "--json", "--no-save", "--devices", "cpu", "--sweep", "batch", "--per-class", "120"]
    argv += ["--width", "4", "--warmup", "1", "--repeats", "1"]
    assert main([*argv, "--max-step-bytes", "1e7"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert [r["config"]["step_size"] for r in document["results"]] == [16, 64]
    [note] = captured.err.strip().splitlines()
    assert note.startswith("linecnn bench: note: Cells whose training step would keep more than")
    assert "a batch of 256" in note and "a batch of 360" in note and document["notes"] == [note[21:]]


def test_the_step_cap_can_be_lifted(monkeypatch):
    """--max-step-bytes none plans every cell, however big its step (interrupted before it runs)."""
    import linecnn.bench.sweep

    planned = []

    def interrupt(plan, **kwargs):
        planned.append(plan)
        raise KeyboardInterrupt

    monkeypatch.setattr(linecnn.bench.sweep, "run_sweep", interrupt)
    argv = ["bench", "--devices", "cpu", "--per-class", "333334", "--batch-size", "1000002"]
    assert main([*argv, "--no-save", "--max-step-bytes", "none"]) == 130
    assert [c.step_size for c in planned[0].configs] == [1_000_002]


def test_an_up_to_below_the_sweep_times_its_smallest_cell_and_says_so():
    """--sweep data --up-to 10 cannot sweep anything below 360 images: it plans that cell, with a note."""
    plan = SweepRequest(BenchConfig(), FACTORS["data"], ("cpu",), up_to=10).plan()
    assert [c.images for c in plan.configs] == [360]
    assert [str(note) for note in plan.notes] == [
        "No cell of this sweep is as small as 10: only its smallest cell, 360 images, is timed."
    ]
    assert not SweepRequest(BenchConfig(), FACTORS["data"], ("cpu",), up_to=360).plan().notes


def test_the_table_marks_a_disturbed_cell_and_says_what_that_means():
    """A cell timed under load says so on its line, and one sentence under the table says what to do."""
    document = fake_gpu_document(gpu_only=False, largest=400)
    document["results"][0] |= {"load_average": 5.25, "disturbed": ["load"]}
    parsed = BenchDocument.from_dict(document)
    table = bench_table(parsed).splitlines()
    assert table[1].endswith("ok, disturbed: load average 5.2 on 16 cores")
    assert not any("disturbed" in line for line in table[2:])
    assert disturbed_lines(parsed) == [DISTURBED] and "repeat it when the machine is quiet" in DISTURBED
    quiet = fake_gpu_document(gpu_only=False, largest=400)
    assert disturbed_lines(BenchDocument.from_dict(quiet)) == []


def test_threads_times_the_cells_on_that_many_pinned_threads_and_says_so(tmp_path):
    """--threads 1: the cells run on one torch thread, pinned to one core, and each result says so."""
    command = [sys.executable, "-m", "linecnn", "bench", "--json", "--devices", "cpu", "--warmup", "1"]
    command += ["--repeats", "2", "--threads", "1", "--no-save"]
    env = {**os.environ, "LINECNN_DATA_DIR": str(tmp_path)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=240, check=True)
    document = json.loads(done.stdout)
    [result] = document["results"]
    cores = len(os.sched_getaffinity(0))
    assert (result["threads"], result["cores"], result["machine_cores"]) == (1, 1, cores)
    assert "mode" not in result and result["run_queue"] is not None
    assert document["env"]["torch_threads"] == 1
    assert "1/1 of" in bench_table(BenchDocument.from_json(done.stdout))


@pytest.mark.parametrize("threads", ["0", "999"])
def test_threads_beyond_the_cores_end_with_one_line(threads, capsys):
    """More threads than cores (or none) is refused before anything is timed."""
    assert main(["bench", "--devices", "cpu", "--threads", threads, "--no-save"]) != 0
    err = capsys.readouterr().err.strip()
    assert "--threads must be a whole number from 1 to" in err and len(err.splitlines()) == 1
