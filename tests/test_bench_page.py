"""AppTest of the Benchmark page on the CPU: renders, runs a small sweep, shows imports and caps."""

from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import closing

import pytest

from linecnn.bench.store import History
from linecnn.bench.sweep import run_sweep
from linecnn.ui import i18n
from linecnn.ui.bench.state import server_caps
from linecnn.ui.format import escape_markdown
from tests.bench_fixture import bad_documents, cpu_document, fake_gpu_document
from tests.helpers import app_test, shown

PAGE = "pages/2_Benchmark.py"


@pytest.fixture(autouse=True)
def private_history(tmp_path, monkeypatch):
    """Every test gets its own empty history."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))


def in_process(plan, *, caps, progress, cancel, on_env=None, watch=None):  # noqa: ANN001, ANN201
    """The page's sweep run in this process (run_sweep) instead of a worker (run_in_worker's arguments)."""
    return run_sweep(plan, caps=caps, progress=progress, cancel=cancel)


def run_button(at):
    """The form's submit button."""
    return next(b for b in at.button if b.label == "Run benchmark")


def finish(at, timeout: float = 120):
    """Wait until the benchmark started on ``at`` has ended in its thread, then rerun the page.

    A job that fails at once (a stand-in compiler that raises) can end before the click's run
    reaches its progress fragment; that fragment then reruns the page, which takes the job out of
    the session and shows its end already.
    """
    try:
        job = at.session_state["bench.running"]
    except KeyError:
        return at
    assert job.done.wait(timeout), "the benchmark did not end in time"
    return at.run()


def small_sweep(at, up_to: int = 1_200):
    """Pick a data sweep up to ``up_to`` images with one warm-up and two timed epochs, run it to its end."""
    at.selectbox(key="bench.up_to.data").set_value(up_to)
    at.text_input(key="bench.warmup.text").input("1")
    at.text_input(key="bench.repeats.text").input("2")
    return finish(run_button(at).click().run())


@pytest.mark.parametrize("reason", ["No NVIDIA driver was found in this test", None])
def test_page_renders_and_says_plainly_when_cuda_is_absent(monkeypatch, reason):
    """The page renders without an exception; where CUDA is absent its column says why, and where
    it is present no such column shows (both checked on any machine: the reason is set here)."""
    monkeypatch.setattr("linecnn.ui.bench.results.cards.cuda_unavailable_reason", lambda: reason)
    at = app_test(PAGE)
    assert not at.exception
    assert at.title[0].value == "Benchmark"
    absent = [info.value for info in at.info if "Not available here" in info.value]
    expected = [] if reason is None else [reason]
    assert [text for text in expected if any(text in shown for shown in absent)] == expected
    assert len(absent) == len(expected), absent


def test_a_small_sweep_fills_the_table_and_the_history():
    """Running a two-size data sweep shows a success message, device metrics and a results table."""
    at = small_sweep(app_test(PAGE, timeout=120))
    assert not at.exception
    # A warning when the shared machine made the spread wide; done either way.
    assert any("Benchmark done" in s.value for s in [*at.success, *at.warning])
    table = shown(at.dataframe[0])
    assert list(table["Images"]) == ["360", "1,200"] and (table["Status"] == "ok").all()
    assert any(m.label == "median per epoch" for m in at.metric)
    assert len(History().runs()) == 1 and at.multiselect(key="bench.shown").value == [1]


def test_an_imported_gpu_run_shows_beside_the_cpu_with_the_crossover():
    """An imported GPU document gets its own column, speed-ups and the 'GPU faster above' sentence."""
    run_id = History().import_json(json.dumps(fake_gpu_document(gpu_only=False)))
    at = app_test(PAGE)
    at.session_state["bench.shown"] = [run_id]
    at.run()
    assert not at.exception
    verdicts = [s.value for s in at.success]
    assert any("GPU faster above ≈" in v and "images" in v for v in verdicts), verdicts
    labels = [m.label for m in at.metric]
    assert labels.count("speed-up vs CPU") == 1 and labels.count("baseline") == 1
    assert (shown(at.dataframe[0])["× vs CPU"] != "").all()


def test_the_server_time_cap_stops_a_sweep_with_a_message(monkeypatch):
    """With a one-millisecond cap the cells are stopped or skipped and the page says the cap was hit."""
    monkeypatch.setenv("LINECNN_BENCH_MAX_SECONDS", "0.001")
    at = small_sweep(app_test(PAGE, timeout=60))
    assert any("time cap" in w.value for w in at.warning)
    statuses = list(shown(at.dataframe[0])["Status"])
    assert statuses[0].startswith("stopped: time cap")
    assert statuses[1].startswith("skipped: the server's time cap")


def test_a_benchmarks_end_message_follows_a_switch_of_language(monkeypatch):
    """The message on how a benchmark ended is worded again in the language the reader switches to."""
    monkeypatch.setenv("LINECNN_BENCH_MAX_SECONDS", "0.001")  # ends at once, with a message of several parts
    at = small_sweep(app_test(PAGE, timeout=60))
    assert any(w.value.startswith("Benchmark done") and "time cap" in w.value for w in at.warning)
    at.session_state[i18n.LANGUAGE] = "es"
    at.run()
    assert not at.exception
    said = [w.value for w in at.warning]
    spanish = [s for s in said if s.startswith("Medición terminada") and "límite de tiempo del servidor" in s]
    assert spanish, said
    assert not any("time cap" in s for s in said)


def test_run_benchmark_is_greyed_out_in_the_rerun_that_started_it(monkeypatch):
    """The form is drawn again once the benchmark has begun: Run is disabled, not offered for a refused
    second run until something else reruns the page."""
    import threading

    import streamlit as st

    from linecnn.ui.bench.sweep import running

    class InFlight:  # a benchmark still running, as the page sees one
        done = threading.Event()

    started = lambda *_, **__: st.session_state.__setitem__(running.RUNNING, InFlight())  # noqa: E731
    monkeypatch.setattr(running, "start_benchmark", started)
    monkeypatch.setattr(running, "render_job", lambda: None)  # no progress to poll for a stand-in
    at = run_button(app_test(PAGE)).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert run_button(at).disabled


def test_the_server_size_cap_limits_the_sweep(monkeypatch):
    """A host's image cap removes bigger sizes from the choices and is stated on the page."""
    monkeypatch.setenv("LINECNN_BENCH_MAX_IMAGES", "2000")
    at = app_test(PAGE)
    assert at.selectbox(key="bench.up_to.data").options == ["360 images", "1,200 images"]
    assert any("above 2,000 images" in c.value for c in at.caption)


def test_a_faster_path_is_shown_beside_eager():
    """With channels_last on, each cell is also timed in eager and the page shows the ratio."""
    at = app_test(PAGE, timeout=120)
    at.segmented_control(key="bench.factor").set_value("none").run()
    at.text_input(key="bench.repeats.text").input("2")
    at.text_input(key="bench.warmup.text").input("1")
    at.toggle(key="bench.channels_last").set_value(True)
    finish(run_button(at).click().run())
    assert not at.exception
    table = shown(at.dataframe[0])
    assert list(table["Faster paths"]) == ["eager", "channels_last"]
    assert [value == "" for value in table["× vs eager"]] == [True, False]
    assert any("the speed of plain eager" in m.value for m in at.markdown)


def store_unchecked(document: dict) -> int:
    """Put a document into the history the way an older linecnn could have: no validation at all."""
    store = History()
    store.runs()  # creates the file and the table
    with closing(sqlite3.connect(store.path)) as connection, connection:
        cursor = connection.execute(
            "INSERT INTO runs (created, saved, source, sweep, devices, machine, cells, digest, document)"
            " VALUES ('2026-01-01T00:00:00', '2026-01-01T00:00:00', 'import', 'data', 'cpu', '?', 1, ?, ?)",
            (uuid.uuid4().hex, json.dumps(document)),
        )
        return cursor.lastrowid


@pytest.mark.parametrize(("name", "case"), bad_documents().items(), ids=list(bad_documents()))
def test_a_malformed_import_is_refused_on_the_page(name, case):
    """Uploading a malformed file shows why it is refused; the page keeps working and stores nothing."""
    document, message = case
    at = app_test(PAGE)
    upload = ("bad.json", json.dumps(document).encode(), "application/json")
    at.file_uploader(key="bench.upload").set_value(upload).run()
    assert not at.exception
    assert any(escape_markdown(message) in e.value for e in at.error), [e.value for e in at.error]
    assert History().runs() == []
    at.run()  # and the next rerun is fine too
    assert not at.exception


def test_a_file_that_is_not_json_is_refused_by_name():
    """The uploader lets any file through; one not named .json is refused with a sentence naming it."""
    at = app_test(PAGE)
    at.file_uploader(key="bench.upload").set_value(("chart.png", b"\x89PNG\r\n", "image/png")).run()
    assert not at.exception
    [error] = at.error
    said = escape_markdown("chart.png is not a JSON file (.json): import the file that python -m linecnn")
    assert error.value.startswith(f"This file cannot be imported. {said}")
    assert History().runs() == []
    at.run()  # a rerun with the file still in the uploader still says why it was refused
    assert [e.value for e in at.error] == [error.value]


def test_unreadable_stored_runs_are_left_out_with_a_warning():
    """Rows an older linecnn stored without checks are each left out with a warning; good runs still show."""
    good = History().import_json(json.dumps(fake_gpu_document(gpu_only=False)))
    bad = [store_unchecked(document) for document, _ in bad_documents().values()]
    at = app_test(PAGE)
    at.session_state["bench.shown"] = [good, *bad]
    at.run()
    assert not at.exception
    left_out = [w.value for w in at.warning if "is left out" in w.value]
    assert len(left_out) == len(bad)
    for run_id, (_, message) in zip(bad, bad_documents().values(), strict=True):
        assert any(f"Run #{run_id} is left out" in w and escape_markdown(message) in w for w in left_out)
    assert [m.label for m in at.metric].count("median per epoch") == 2  # both series of the good run
    at.run()
    assert not at.exception


def test_a_step_above_the_memory_cap_is_refused_before_running():
    """Width 64 with 16 extra convs would keep ~3 GiB per step even at the lesson's size: refused, not run."""
    at = app_test(PAGE)
    at.segmented_control(key="bench.factor").set_value("none").run()
    at.text_input(key="bench.width.text").input("64")
    at.text_input(key="bench.extra.text").input("16")
    run_button(at).click().run()
    assert not at.exception
    assert any("above this server's cap of 1.0 GiB per step" in e.value for e in at.error)
    assert History().runs() == []


def test_the_step_memory_cap_follows_the_environment(monkeypatch):
    """The host sets the per-step cap with LINECNN_BENCH_MAX_STEP_BYTES; it defaults to 1 GiB."""
    assert server_caps().max_step_bytes == 1 << 30
    monkeypatch.setenv("LINECNN_BENCH_MAX_STEP_BYTES", str(64 << 20))
    assert server_caps().max_step_bytes == 64 << 20
    at = app_test(PAGE)
    assert any("more than 64.0 MiB of activations" in c.value for c in at.caption)


def test_every_shown_run_can_be_downloaded_and_summaries_load_once(monkeypatch):
    """Two runs shown: one JSON download per run, the training-only caption, and one history listing."""
    first = History().import_json(json.dumps(fake_gpu_document(gpu_only=False)))
    second = History().import_json(json.dumps(fake_gpu_document(largest=4_000)))
    listings = []
    real_runs = History.runs
    monkeypatch.setattr(History, "runs", lambda self, *a: listings.append(1) or real_runs(self, *a))
    at = app_test(PAGE)
    at.session_state["bench.shown"] = [first, second]
    listings.clear()
    at.run()
    assert not at.exception
    labels = [d.proto.label for d in at.get("download_button")]
    assert labels == ["Download CSV", f"Download JSON of run #{first}", f"Download JSON of run #{second}"]
    assert any("training epoch only" in c.value for c in at.caption)
    assert len(listings) == 2  # shown_runs once, the history list once: not once per shown run


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("LINECNN_BENCH_MAX_IMAGES", "300"),
        ("LINECNN_BENCH_MAX_IMAGES", "inf"),
        ("LINECNN_BENCH_MAX_IMAGES", "lots"),
        ("LINECNN_BENCH_MAX_SECONDS", "-1"),
        ("LINECNN_BENCH_MAX_SECONDS", "0"),
        ("LINECNN_BENCH_MAX_SECONDS", "nan"),
        ("LINECNN_BENCH_MAX_STEP_BYTES", "inf"),
        ("LINECNN_BENCH_MAX_STEP_BYTES", "10"),
    ],
)
def test_a_host_cap_the_page_cannot_use_falls_back_to_the_default(monkeypatch, name, value):
    """Caps that are not numbers, not finite or too small for the lesson's set are ignored, not fatal."""
    default = server_caps()
    monkeypatch.setenv(name, value)
    assert server_caps() == default
    at = app_test(PAGE)
    assert not at.exception


def test_an_infinite_time_cap_means_none(monkeypatch):
    """LINECNN_BENCH_MAX_SECONDS=inf lifts the time cap, and the page says so."""
    monkeypatch.setenv("LINECNN_BENCH_MAX_SECONDS", "inf")
    assert server_caps().max_seconds is None
    at = app_test(PAGE)
    assert not at.exception
    assert any("has no time cap" in c.value for c in at.caption)


def test_a_benchmark_where_every_cell_failed_says_so(monkeypatch):
    """A host without a C++ compiler cannot torch.compile: the page says the run failed, and why."""
    import torch

    def no_compiler(model, **kwargs):
        raise RuntimeError("InvalidCxxCompiler: No working C++ compiler found")

    monkeypatch.setattr(torch, "compile", no_compiler)
    # The page times in a worker process, which this test's stand-in compiler cannot reach: the
    # sweep runs in this process here (test_bench_worker covers the worker itself).
    monkeypatch.setattr("linecnn.jobs.sweep.run_in_worker", in_process)
    at = app_test(PAGE, timeout=60)
    at.segmented_control(key="bench.factor").set_value("none").run()
    at.text_input(key="bench.warmup.text").input("1")
    at.text_input(key="bench.repeats.text").input("1")
    at.toggle(key="bench.compile").set_value(True)
    at.toggle(key="bench.compare").set_value(False)
    finish(run_button(at).click().run())
    assert not at.exception and not at.success
    assert any("No cell was timed" in e.value and "InvalidCxxCompiler" in e.value for e in at.error)
    failed = "No timing: " + escape_markdown("failed: RuntimeError: InvalidCxxCompiler")
    assert any(failed in w.value for w in at.warning)


def test_a_gpu_as_fast_as_the_cpu_is_not_called_faster():
    """Within 5 % of the CPU the card says 'about the same' instead of a green 'faster'."""
    document = fake_gpu_document(gpu_only=False, largest=400)
    by_size = {r["config"]["images"]: r for r in document["results"] if r["device"] == "cpu"}
    for result in document["results"]:
        if result["device"] != "cpu":
            cpu = by_size[result["config"]["images"]]
            for key in ("times_ms", "median_ms", "p25_ms", "p75_ms", "samples_per_s"):
                result[key] = cpu[key]
    run_id = History().import_json(json.dumps(document))
    at = app_test(PAGE)
    at.session_state["bench.shown"] = [run_id]
    at.run()
    deltas = [m.proto.delta for m in at.metric if m.label == "speed-up vs CPU"]
    assert "about the same" in deltas and "faster" not in deltas


def test_the_sweep_range_lists_exact_sizes():
    """Batch sizes read 256 and 4,096, not the two-digit roundings a crossover sentence uses."""
    at = app_test(PAGE)
    at.segmented_control(key="bench.factor").set_value("batch").run()
    options = at.selectbox(key="bench.up_to.batch").options
    assert "a batch of 256" in options and "a batch of 4,096" in options


def test_a_cell_disturbed_while_timed_is_flagged():
    """p75 far above p25 means the machine was busy: the card says so instead of showing it as normal."""
    document = fake_gpu_document(gpu_only=False, largest=400)
    for result in document["results"]:
        result.update(p25_ms=result["median_ms"] / 2, p75_ms=result["median_ms"] * 3)
    run_id = History().import_json(json.dumps(document))
    at = app_test(PAGE)
    at.session_state["bench.shown"] = [run_id]
    at.run()
    assert any(w.value.startswith("**Disturbed while timed:** wide spread") for w in at.warning)
    calm_id = History().import_json(json.dumps(fake_gpu_document(largest=400)))
    calm = app_test(PAGE)
    calm.session_state["bench.shown"] = [calm_id]
    calm.run()
    assert not any("Disturbed while timed" in w.value for w in calm.warning)


def test_two_runs_of_the_same_cpu_are_not_called_cpu_faster_than_cpu():
    """A second run of the same CPU, 24x slower, reads '24× slower', never 'CPU 24× faster'."""
    first = History().import_json(json.dumps(cpu_document(1.0)))
    second = History().import_json(json.dumps(cpu_document(24.0)))
    at = app_test(PAGE)
    at.session_state["bench.shown"] = [first, second]
    at.run()
    assert not at.exception
    deltas = [m.proto.delta for m in at.metric if m.proto.delta]
    assert not any("CPU" in delta for delta in deltas), deltas
    assert any("24× slower" in delta for delta in deltas), deltas
    labels = [m.label for m in at.metric]
    assert "speed-up vs CPU" not in labels and any(f"#{first}" in label for label in labels), labels


def test_a_number_out_of_range_is_refused_with_the_pages_own_words():
    """50 warm-up epochs (the form allows 20): Run benchmark starts nothing and names the box and range."""
    at = app_test(PAGE)
    at.text_input(key="bench.warmup.text").input("50")
    at = run_button(at).click().run()
    assert not at.exception
    assert "bench.running" not in at.session_state or at.session_state["bench.running"] is None
    said = [e.value for e in at.error]
    assert said == ["**Warm-up epochs**: 50 is outside the allowed range. Enter a number from 1 to 20."]


def test_a_cancel_in_the_queue_is_said_apart_from_one_before_the_first_cell():
    """Cancelled while waiting for the lock: 'while it waited for its turn'; once running: 'before its
    first cell finished'."""
    from types import SimpleNamespace

    from linecnn.ui.bench.sweep.outcome import outcome

    plan = SimpleNamespace(cells=lambda: [1, 2])
    run = SimpleNamespace(results=[], plan=plan, run_id=None, save_error=None)
    ended = {"result": run, "cancelled": True, "error": None, "reserved": None, "abandoned": False}
    queued = SimpleNamespace(**ended, in_turn=False)
    running = SimpleNamespace(**ended, in_turn=True)
    assert outcome(queued) == ("info", "Benchmark cancelled while it waited for its turn: nothing was timed.")
    assert outcome(running) == ("info", "Benchmark cancelled before its first cell finished.")


def test_a_shown_run_deleted_elsewhere_leaves_the_screen_without_a_warning():
    """A teacher deleted the only run a student was looking at: the student's next rerun said, in English
    on any page, 'Run #1 is left out: There is no benchmark run #1 in the history.'"""
    run_id = History().import_json(json.dumps(fake_gpu_document(gpu_only=False)))
    at = app_test(PAGE)
    at.session_state["bench.shown"] = [run_id]
    at.run()
    assert [m.label for m in at.metric].count("median per epoch") == 2
    History().delete(run_id)  # in another session
    at.run()
    assert not at.exception and not [w.value for w in at.warning if "is left out" in w.value]
    assert at.session_state["bench.shown"] == []


def test_enter_in_a_number_box_takes_the_number_and_starts_nothing():
    """Enter in a box of the benchmark's and the data-parallel forms submitted them, so a student who
    pressed it to confirm a warm-up count started a benchmark; as on the Train page, only Run runs."""
    at = app_test(PAGE)
    forms = {}

    def collect(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "form") and proto.HasField("form"):
            forms[proto.form.form_id] = proto.form.enter_to_submit
        for child in getattr(node, "children", {}).values():
            collect(child)

    collect(at._tree)
    assert forms == {"bench.settings": False, "ddp.settings": False}


def _repeat_refused() -> None:
    """AppTest script: Re-time pressed while a teacher with Markdown characters in the name holds it."""
    from linecnn.ui import notice
    from linecnn.ui.bench.state import MESSAGE
    from linecnn.ui.bench.where_time_goes import repeat

    repeat._repeat(None, [])
    notice.show(MESSAGE)


def test_a_re_time_refusal_shows_the_teachers_name_without_backslashes(monkeypatch):
    """The refusal comes as Markdown with the name escaped once; escaped again, backslashes showed."""
    from streamlit.testing.v1 import AppTest

    from linecnn.ui.bench.sweep import running
    from linecnn.ui.bench.where_time_goes import repeat
    from linecnn.ui.i18n import t

    def refuse(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - start_benchmark's signature
        raise ValueError(t("bench.reserve.refused", teacher=escape_markdown("Dr. Ada_L"), until="10:00"))

    monkeypatch.setattr(repeat, "repeat_plan", lambda document, results: None)
    monkeypatch.setattr(running, "start_benchmark", refuse)
    at = AppTest.from_function(_repeat_refused).run()
    assert not at.exception
    [error] = at.error
    assert "Run refused: Dr\\. Ada\\_L has reserved" in error.value
    assert "\\\\" not in error.value


def test_a_worker_that_cannot_start_is_said_in_words_without_the_servers_paths(monkeypatch, tmp_path, caplog):
    """The server may not run its interpreter: the page says the benchmark could not start its worker,
    with no path and no Python exception; the path goes to the server's log."""
    interpreter = tmp_path / "not-executable-python"
    interpreter.write_text("")
    monkeypatch.setattr("linecnn.bench.in_worker.sys.executable", str(interpreter))
    at = small_sweep(app_test(PAGE, timeout=60))
    assert not at.exception
    said = " ".join(message.value for message in [*at.error, *at.warning])
    assert "could not start its worker process" in said, said
    assert str(tmp_path) not in said and "PermissionError" not in said and "Errno" not in said
    assert str(interpreter) in caplog.text
