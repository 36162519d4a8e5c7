"""The Benchmark page against hostile imports, a corrupt history, and widgets touched mid-run (AppTest)."""

from __future__ import annotations

import json
import re
import sqlite3
import threading

import pytest

import linecnn.bench.store
import linecnn.jobs.sweep
from linecnn.bench.results import CellResult
from linecnn.bench.store import History
from linecnn.bench.sweep import CellProgress
from linecnn.classroom.bench_turns import BENCH_TURNS
from linecnn.stop import Stopped, StopReason
from linecnn.ui.format import escape_markdown
from tests.bench_fixture import HOSTILE, hostile_document, hostile_imports
from tests.helpers import app_test, shown
from tests.test_bench_page import PAGE, finish, in_process, run_button
from tests.test_store import corrupt


@pytest.fixture(autouse=True)
def private_history(tmp_path, monkeypatch):
    """Every test gets its own empty history."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))


def texts(at) -> list[str]:
    """Every markdown source on the page: text, captions, alerts (expanders included)."""
    kinds = ("markdown", "caption", "warning", "success", "info", "error", "subheader")
    return [element.value for kind in kinds for element in at.get(kind)]


def upload(at, data: bytes | str, name: str = "run.json"):
    """Upload ``data`` as a JSON file on the History section and rerun."""
    raw = data.encode() if isinstance(data, str) else data
    return at.file_uploader(key="bench.upload").set_value((name, raw, "application/json")).run()


def test_markdown_and_html_in_every_string_field_render_as_text():
    """A file whose names, notes and env hold links, images and HTML is stored, and shown only as text."""
    at = upload(app_test(PAGE), json.dumps(hostile_document()))
    assert not at.exception
    assert len(History().runs()) == 1 and at.multiselect(key="bench.shown").value == [1]
    shown = texts(at)
    assert sum(escape_markdown(HOSTILE) in text for text in shown) >= 5  # names, notes, env, verdict
    for text in shown:  # no link, image, tag or colour directive whose opening character is not escaped
        assert not re.search(r"(?<!\\)(\]\(|<img|<a |:red\[|!\[)", text), text
        assert not re.search("://|www[.]", text.replace("\\", "")), text  # nor a bare URL GFM links
    charts = [chart for chart in at.get("plotly_chart") if chart.key != "bench.board_chart"]
    assert len(charts) == 2  # where the time goes, and the sweep (the class board's bars name no file text)
    for spec in (chart.proto.spec for chart in charts):
        assert "evil.example" in spec  # the hostile series are drawn...
        assert "<a href" not in spec and "<img" not in spec  # ...with their HTML escaped
        assert "&lt;a href" in spec


@pytest.mark.parametrize(("name", "case"), hostile_imports().items(), ids=list(hostile_imports()))
def test_a_hostile_import_is_refused_on_the_page(name, case):
    """Each hostile file is refused with its sentence on screen; nothing is stored; the page goes on."""
    text, message = case
    at = upload(app_test(PAGE), text)
    assert not at.exception
    [error] = at.error
    assert message in re.sub(r"\\(.)", r"\1", error.value)  # read as shown: Markdown's escapes removed
    assert History().runs() == []
    at.run()
    assert not at.exception


def test_an_imported_refusal_echoes_no_markdown():
    """A format or status taken from the file is echoed in the refusal, escaped."""
    document = hostile_document()
    document["results"][0]["status"] = "![x](http://evil.example/p.png)"
    at = upload(app_test(PAGE), json.dumps(document))
    [error] = at.error
    assert "\\!\\[x\\]\\(http" in error.value and not re.search(r"(?<!\\)\]\(", error.value)


def test_a_user_can_delete_a_run_after_confirming():
    """The delete control needs a run and a tick; then the run is gone for everyone and off screen."""
    run_id = History().import_json(json.dumps(hostile_document()))
    at = app_test(PAGE)
    at.session_state["bench.shown"] = [run_id]
    at.run()
    button = at.button(key="bench.delete")
    assert button.disabled
    at.selectbox(key="bench.delete.run").set_value(run_id).run()
    assert at.button(key="bench.delete").disabled  # not confirmed yet
    at.checkbox(key="bench.delete.sure").check().run()
    at.button(key="bench.delete").click().run()
    assert not at.exception
    assert History().runs() == []
    assert any(f"Run #{run_id} was deleted" in info.value for info in at.info)
    assert not at.get("plotly_chart")


def read_only(monkeypatch) -> None:
    """Open every history read-only, as SQLite does for a file the server may not write."""
    real = sqlite3.connect
    monkeypatch.setattr(
        sqlite3, "connect", lambda path, timeout: real(f"file:{path}?mode=ro", uri=True, timeout=timeout)
    )


@pytest.fixture
def broken(request, tmp_path, monkeypatch):
    """The history spoilt as ``request.param`` says; yields whether the page can still list it."""
    path = tmp_path / "bench.sqlite3"
    how = request.param
    if how == "read-only database":
        History(path).runs()
        read_only(monkeypatch)
    elif how == "locked database":
        monkeypatch.setattr(linecnn.bench.store, "LOCK_TIMEOUT", 0.2)
        monkeypatch.setattr(linecnn.bench.store, "READ_TIMEOUT", 0.05)  # the page reads it several times
        History(path).runs()
        holder = sqlite3.connect(path, check_same_thread=False)
        holder.execute("BEGIN EXCLUSIVE")
        request.addfinalizer(holder.close)
    else:
        corrupt(path, how)
    return how


CORRUPT = ["garbage bytes", "empty file", "foreign schema", "truncated database", "read-only database"]


@pytest.mark.parametrize("broken", [*CORRUPT, "locked database"], indirect=True)
def test_a_broken_history_never_loses_a_benchmark(broken, monkeypatch):
    """The page renders with a sentence; Run benchmark still shows its results, from memory if need be.

    The cell is timed in this process: the history is what is tested here, and a worker process
    costs each case a torch import (tests/test_bench_page.py runs the page's worker)."""
    monkeypatch.setattr(linecnn.jobs.sweep, "run_in_worker", in_process)
    at = app_test(PAGE, timeout=60)
    assert not at.exception
    if broken in ("garbage bytes", "foreign schema", "truncated database", "locked database"):
        assert any("This server's history cannot be used" in error.value for error in at.error), texts(at)
    at.segmented_control(key="bench.factor").set_value("none").run()
    at.text_input(key="bench.warmup.text").input("1")
    at.text_input(key="bench.repeats.text").input("1")
    finish(run_button(at).click().run())
    assert not at.exception
    table = shown(at.dataframe[0])
    assert list(table["Device"]) == ["cpu"] and list(table["Status"]) == ["ok"]
    labels = [d.proto.label for d in at.get("download_button")]
    if broken == "empty file":  # an empty file is a new history: saved as usual
        assert labels[-1] == "Download JSON of run #1"
    else:
        assert any("could not be saved" in text and "from memory" in text for text in texts(at)), texts(at)
        assert labels[-1] == "Download JSON of run unsaved 1"
    at.run()  # and it stays on screen
    assert shown(at.dataframe[0])["Status"].tolist() == ["ok"]


class GatedSweep:
    """A stand-in for run_in_worker whose cells end only when the test says: threads ordered by events."""

    def __init__(self) -> None:
        self.open = threading.Event()  # set: every cell ends at once
        self.first_done = threading.Event()  # set once the first cell's result was taken

    def __call__(self, plan, *, caps, progress, cancel, on_env=None, watch=None):  # noqa: ANN001, ANN204
        cells = plan.cells()
        for index, (config, device) in enumerate(cells, start=1):
            progress(CellProgress(index, len(cells), device, config, "timing", 0, config.repeats))
            while index > 1 and not self.open.is_set():
                if cancel.is_set():  # where a cancel lands, as after every step of a real cell
                    raise Stopped(StopReason.CANCELLED)
                self.open.wait(0.01)
            ms = 1.0 + index
            timings = dict(median_ms=ms, p25_ms=ms, p75_ms=ms, samples_per_s=1000 * config.images / ms)
            yield CellResult(device, f"CPU · {device}", config, times_ms=(ms,), **timings)
            self.first_done.set()


@pytest.fixture
def gated(monkeypatch):
    """run_in_worker replaced by a GatedSweep for the page."""
    sweep = GatedSweep()
    monkeypatch.setattr(linecnn.jobs.sweep, "run_in_worker", sweep)
    return sweep


def start_two_cells(at):
    """Start a CPU data sweep of two sizes."""
    at.multiselect(key="bench.devices").set_value(["cpu"])
    at.selectbox(key="bench.up_to.data").set_value(1_200)
    return run_button(at).click().run()


def test_touching_widgets_during_a_benchmark_does_not_stop_it(gated):
    """Reruns from other widgets leave the sweep running under the lock; it ends, is saved and shown."""
    at = start_two_cells(app_test(PAGE))
    job = at.session_state["bench.running"]
    assert gated.first_done.wait(10)
    at.text_input(key="bench.width.text").input("2").run()
    at.segmented_control(key="bench.factor").set_value("batch").run()
    at.switch_page("pages/1_Train.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert not job.done.is_set() and not job.cancel.is_set() and BENCH_TURNS.busy
    assert any(p.proto.text.startswith("Cell 2 of 2") for p in at.get("progress"))
    gated.open.set()
    finish(at)
    assert not BENCH_TURNS.busy
    assert any("Benchmark done" in text for text in texts(at))
    assert list(shown(at.dataframe[0])["Images"]) == ["360", "1,200"]
    beneath = at.dataframe[0].value  # numbers, so that a click on a header sorts them by size, not as text
    assert list(beneath["Images"]) == [360, 1200] and beneath["Median (ms)"].dtype.kind == "f"
    assert len(History().runs()) == 1


def test_cancel_lands_within_a_step_and_keeps_the_cells_done(gated):
    """Cancel during the second cell: the sweep stops there, the first cell is saved and the page says so."""
    at = start_two_cells(app_test(PAGE))
    job = at.session_state["bench.running"]
    assert gated.first_done.wait(10)
    at.button(key="bench.cancel").click().run()
    said = [i.value for i in at.info]  # the click's own rerun shows the end if the thread was quick
    assert job.done.wait(10)
    said += [i.value for i in at.run().info]
    assert "Benchmark cancelled after 1 of 2 cells; those are run #1." in said
    assert [r.config.images for r in History().load(1).results] == [360]
    assert list(shown(at.dataframe[0])["Images"]) == ["360"]


@pytest.mark.parametrize(
    "text",
    ["saved at 10:06:33 on 2026-12-06T10:06", r"C:\tmp\bench.json", "ratio 3:2, note: keep", "@name said"],
)
def test_escaping_keeps_what_a_reader_copies_where_no_markdown_could_act(text: str):
    """A time, a path or an ordinary colon gets no invisible character: copied, it is what the file held."""
    assert "\u2060" not in escape_markdown(text)


@pytest.mark.parametrize(
    "text",
    ["https://example.com", "www.example.org", "ada@example.org", ":material/home:", ":smile:", ":100:"],
)
def test_escaping_breaks_every_autolink_and_shortcode(text: str):
    """Where markdown would make a link, an icon or an emoji of plain text, an invisible joiner stops it."""
    assert "\u2060" in escape_markdown(text)


def test_an_empty_json_is_said_to_be_empty_not_broken_at_line_1_column_1():
    """A 0-byte JSON (a download that failed), imported: the file is said to be empty."""
    at = upload(app_test(PAGE), b"", "empty.json")
    assert not at.exception
    said = "is not valid JSON (the file is empty)."
    assert any(said in text for text in texts(at)), texts(at)
    assert not History().runs()
