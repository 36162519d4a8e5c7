"""AppTest of teacher and student on the Benchmark page, the class board, and no server path on any page."""

from __future__ import annotations

import json

import pytest

from linecnn.bench.document import BenchDocument
from linecnn.bench.store import History
from linecnn.classroom import reservation
from tests.bench_fixture import fake_gpu_document
from tests.helpers import ROOT, shown
from tests.test_auth import ADA, AUTH
from tests.test_board import laptop_document

PAGE = "pages/2_Benchmark.py"
GRACE = {"is_logged_in": True, "name": "Grace Hopper", "email": "grace@school.edu", "email_verified": True}
CLASS_TOOLS = ("Delete a run", "Class controls")


@pytest.fixture(autouse=True)
def class_server(tmp_path, monkeypatch):
    """Every test gets its own empty history, Ada as the class's teacher, and no reservation left over."""
    for name in ("LINECNN_HOSTED", "LINECNN_VIEWERS_MAY_DELETE", "LINECNN_TEACHER_GROUP"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("LINECNN_TEACHERS", "ada@school.edu")
    reservation.release()
    yield
    reservation.release()


def bench_as(user: dict | None, page: str = PAGE):
    """``page`` in AppTest, signed in as ``user`` (sign-in on), or without sign-in when None."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    if user is not None:
        at.secrets = {"auth": AUTH}
        at.user = user
    at.run()
    return at.switch_page(page).run() if page != "app.py" else at


def expanders(at) -> list[str]:
    return [expander.label for expander in at.expander]


def button_labels(at) -> list[str]:
    return [button.label for button in at.button]


def store_runs() -> tuple[int, int]:
    """A run Ada made on the page and a laptop run Grace imported."""
    store = History()
    ada = store.save(
        BenchDocument.from_dict(fake_gpu_document(gpu_only=False)), "page", ADA["email"], "Ada Lovelace"
    )
    grace = store.import_json(json.dumps(laptop_document()), GRACE["email"], "Grace Hopper")
    return ada, grace


def test_a_student_cannot_delete_clear_or_reserve_and_lists_only_their_runs():
    """Grace sees her own run in History and no Delete, Clear or Reserve; Ada, the teacher, sees all."""
    ada_run, grace_run = store_runs()
    at = bench_as(GRACE)
    assert not at.exception
    assert not set(CLASS_TOOLS) & set(expanders(at)), expanders(at)
    assert not {"Delete run", "Reserve", "Clear the history"} & set(button_labels(at))
    options = at.multiselect(key="bench.shown").options
    assert len(options) == 1 and options[0].startswith(f"#{grace_run} "), options
    assert any("1 of your runs in this server's history" in c.value for c in at.caption)
    assert any("Only the class's teachers may delete runs" in c.value for c in at.caption)

    teacher = bench_as(ADA)
    assert set(CLASS_TOOLS) <= set(expanders(teacher))
    assert {"Delete run", "Reserve", "Clear the history"} <= set(button_labels(teacher))
    assert len(teacher.multiselect(key="bench.shown").options) == 2


def test_a_teachers_reservation_refuses_a_students_run_saying_until_when():
    """Ada reserves; Grace is told who holds it and until when, and her Run starts nothing."""
    teacher = bench_as(ADA)
    teacher.button(key="bench.reserve").click().run()
    held = reservation.current()
    assert held is not None and held.by == "Ada Lovelace"
    until = held.until.strftime("%H:%M UTC")
    assert any(f"reserved until {until}" in s.value for s in teacher.info), [s.value for s in teacher.info]

    at = bench_as(GRACE)
    assert any(f"Ada Lovelace has reserved the benchmark until {until}" in s.value for s in at.info)
    at.segmented_control(key="bench.factor").set_value("none").run()
    next(b for b in at.button if b.label == "Run benchmark").click().run()
    refusal = [e.value for e in at.error]
    assert any(f"Run refused: Ada Lovelace has reserved the benchmark until {until}" in e for e in refusal)
    assert "bench.running" not in at.session_state or at.session_state["bench.running"] is None

    teacher.button(key="bench.reserve.release").click().run()
    assert reservation.current() is None


@pytest.mark.parametrize(
    ("hosted", "viewers_delete", "offered"),
    [(None, None, True), ("1", None, False), ("1", "1", True), ("0", None, True)],
)
def test_without_sign_in_deletion_follows_the_host(monkeypatch, hosted, viewers_delete, offered):
    """A laptop offers Delete and Clear; a hosted server does not, unless the host turns them on."""
    for name, value in (("LINECNN_HOSTED", hosted), ("LINECNN_VIEWERS_MAY_DELETE", viewers_delete)):
        if value is not None:
            monkeypatch.setenv(name, value)
    store_runs()
    at = bench_as(None)
    assert not at.exception
    assert (set(CLASS_TOOLS) <= set(expanders(at))) is offered, expanders(at)
    assert any("Runs are not deleted from the page" in c.value for c in at.caption) is not offered
    assert ("Reserve" in button_labels(at)) is False, "reserving needs a signed-in teacher"


def test_the_board_shows_an_imported_laptop_run_beside_the_servers():
    """Grace imports her laptop's JSON: the board lists it, by her, beside the server's GPU and CPU."""
    History().save(BenchDocument.from_dict(fake_gpu_document(gpu_only=False)), "page")
    at = bench_as(GRACE)
    raw = json.dumps(laptop_document()).encode()
    at.file_uploader(key="bench.upload").set_value(("laptop.json", raw, "application/json")).run()
    assert not at.exception
    table = next(frame for frame in at.dataframe if "Who" in frame.value.columns)
    rows = shown(table).to_dict("records")
    assert [(row["Who"], row["CPU"]) for row in rows] == [
        ("Grace Hopper", "Laptop 4-core CPU"),
        ("this server", "Imaginary 16-core CPU (test fixture)"),
        ("this server", "Imaginary 16-core CPU (test fixture)"),
    ]
    assert rows[0]["Lesson: img/s"] != "-" and rows[0]["GPU vs CPU"] == "-"
    assert rows[1]["GPU vs CPU"].startswith("GPU faster above ≈")
    assert table.value["Lesson: img/s"].dtype.kind == "f"  # a number, so its header sorts by size
    assert int(rows[1]["Largest (images)"].replace(",", "")) > 360
    bars = [json.loads(chart.proto.spec)["data"][0] for chart in at.get("plotly_chart")]
    bars = [bar for bar in bars if bar.get("type") == "bar"]
    assert len(bars) == 1 and len(bars[0]["y"]) == 3, "one bar per device at the lesson's size"
    assert any(label.startswith("Grace Hopper · ") for label in bars[0]["y"])


def test_the_same_file_imported_twice_is_said_not_added():
    """A second upload of the same run names the run it already is; the history keeps one copy."""
    at = bench_as(GRACE)
    raw = json.dumps(laptop_document()).encode()
    at.file_uploader(key="bench.upload").set_value(("laptop.json", raw, "application/json")).run()
    again = json.dumps(laptop_document(), indent=2).encode()  # the same run, written differently
    at.file_uploader(key="bench.upload").set_value(("copy.json", again, "application/json")).run()
    assert not at.exception
    notes = [s.value for s in at.info]
    assert any("already in this server's history, as #1" in note for note in notes), notes
    assert len(History().runs()) == 1


def page_text(at) -> str:
    """Everything the page sends to the browser, every element's whole message (labels, help, values)."""
    found: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            found.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(found)


@pytest.mark.parametrize("page", ["app.py", PAGE, "pages/1_Train.py", "pages/3_Draw.py", "pages/4_Lesson.py"])
def test_no_page_shows_where_the_server_keeps_its_files(tmp_path, page):
    """With runs stored, no page names the data directory or the app's folder on the server."""
    store_runs()
    at = bench_as(None, page)
    assert not at.exception
    text = page_text(at)
    assert str(tmp_path) not in text and str(ROOT) not in text


def test_a_broken_history_is_called_this_servers_history_not_its_path(tmp_path):
    """A history that cannot be opened is named 'this server's history'; its path stays in the log."""
    (tmp_path / "bench.sqlite3").write_bytes(b"this is not an SQLite file at all" * 100)
    at = bench_as(None)
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("This server's history cannot be used" in error for error in errors), errors
    assert str(tmp_path) not in page_text(at)


def test_a_refused_run_is_not_shown_under_the_last_runs_done_message():
    """Grace's earlier run said 'Benchmark done'; Ada reserves; Grace's next Run shows the refusal alone."""
    at = bench_as(GRACE)
    at.session_state["bench.message"] = lambda: ("success", "Benchmark done in 2 s: CPU, 1 cell.")
    at.session_state["ddp.message"] = lambda: ("success", "Processes done: 2 ranks.")
    at.run()
    assert any("Benchmark done" in s.value for s in at.success)
    reservation.reserve("Ada Lovelace", 30)
    at.segmented_control(key="bench.factor").set_value("none").run()
    next(b for b in at.button if b.label == "Run benchmark").click().run()
    assert not at.exception
    assert any("Run refused: Ada Lovelace has reserved" in e.value for e in at.error)
    assert not [s.value for s in at.success if "Benchmark done" in s.value], "a stale 'done' beside 'refused'"
    next(b for b in at.button if b.label == "Run data-parallel").click().run()
    assert not at.exception
    assert not [s.value for s in at.success if "Processes done" in s.value]


def test_look_inside_during_a_reservation_is_refused_on_screen_not_with_an_error_page():
    """Grace's 'Look inside one step' while Ada holds the benchmark says why; the page keeps working."""
    at = bench_as(GRACE)
    reservation.reserve("Ada Lovelace", 30)
    at.button(key="inside.run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert any("Run refused: Ada Lovelace has reserved" in e for e in errors), errors
    assert "inside.running" not in at.session_state or at.session_state["inside.running"] is None


def test_a_teacher_imports_the_classs_files_at_once_and_each_bad_one_is_named():
    """Ada drops three students' files in one go: the two good ones are stored and shown, the bad one is
    refused under its own name, and each file's line is in the page's language."""
    other = laptop_document()
    other["env"] = {**other["env"], "cpu_model": "Laptop 8-core CPU"}
    files = [
        ("ana.json", json.dumps(laptop_document()).encode(), "application/json"),
        ("broken.json", b"{not json", "application/json"),
        ("luis.json", json.dumps(other).encode(), "application/json"),
    ]
    at = bench_as(ADA)
    at.file_uploader(key="bench.upload").set_value(files).run()
    assert not at.exception
    assert len(History().runs()) == 2
    assert len(at.multiselect(key="bench.shown").value) == 2, "both imported runs are on screen"
    done = [s.value for s in at.success]
    assert [line.split(":")[0] for line in done] == [r"**ana\.json**", r"**luis\.json**"], done
    assert all("Imported as run #" in line for line in done), done
    [error] = [e.value for e in at.error]
    assert error.startswith(r"**broken\.json**: This file cannot be imported."), error
    at.run()  # a rerun imports nothing again and still says what each file did
    assert len(History().runs()) == 2 and len(at.success) == 2 and len(at.error) == 1
    at.session_state["language"] = "es"
    at.run()
    assert [e.value for e in at.error][0].startswith(r"**broken\.json**: Este archivo no se puede importar.")


def test_a_students_second_tab_shares_the_first_ones_benchmark_share_and_the_queue_shows_names():
    """Signed in, a student is one person in every tab: a fresh tab brings no fresh share, and the queue
    names the person (never by e-mail or a random code) who runs the benchmark now."""
    from linecnn.classroom.allowance import LEDGER
    from linecnn.classroom.bench_turns import BENCH_TURNS

    linus = {**GRACE, "name": "Linus Tabs", "email": "linus.tabs@school.edu"}
    first = bench_as(linus)
    assert not first.exception
    assert any("Each person may benchmark for 10 min" in c.value for c in first.caption)
    LEDGER.record("linus.tabs@school.edu", 600.0)  # what the first tab's sweeps took
    second = bench_as(linus)  # a new tab: a new Streamlit session of the same student
    second.segmented_control(key="bench.factor").set_value("none").run()
    next(b for b in second.button if b.label == "Run benchmark").click().run()
    assert any("You have used your share of the benchmark" in e.value for e in second.error)
    assert "bench.running" not in second.session_state or second.session_state["bench.running"] is None

    with BENCH_TURNS.hold("linus.tabs@school.edu"):
        teacher = bench_as(ADA)
        queue = [c.value for c in teacher.caption if "Benchmark now:" in c.value]
    assert queue and "Benchmark now: Linus Tabs (" in queue[0], queue


def test_a_reservation_takes_students_queued_runs_out_of_line_but_not_the_teachers():
    """Grace and Ada wait behind another benchmark; Ada reserves: Grace's run leaves the line saying why
    (it would start in the middle of Ada's demonstration), Ada's keeps its place."""
    from linecnn.classroom.bench_turns import BENCH_TURNS

    student, teacher = bench_as(GRACE), bench_as(ADA)
    for at in (student, teacher):
        at.segmented_control(key="bench.factor").set_value("none").run()
    with BENCH_TURNS.hold("other1"):
        jobs = []
        for at in (student, teacher):
            next(b for b in at.button if b.label == "Run benchmark").click().run()
            jobs.append(at.session_state["bench.running"])
        while any(job.waited is None for job in jobs):
            jobs[0].done.wait(0.05)
        reservation.reserve("Ada Lovelace", 30)
        assert jobs[0].done.wait(30), "the student's queued run leaves the line"
        assert not jobs[1].done.is_set() and jobs[1].waited is not None, "the teacher's run keeps its place"
        teacher.button(key="bench.cancel").click().run()
    assert jobs[1].done.wait(30)
    student.run()
    until = reservation.current().until.strftime("%H:%M UTC")
    said = [i.value for i in student.info]
    why = f"Ada Lovelace reserved the benchmark while it waited, until {until}; nothing was timed"
    left = "Your run left the line before its turn: "
    assert any(line.startswith(left) and why in line for line in said), said
    assert not jobs[0].in_turn and not jobs[0].result.results, "nothing was timed"


def test_a_reservation_ends_at_the_time_on_the_classrooms_clock(monkeypatch):
    """A class in Madrid reads '09:06 (08:06 UTC)', not a bare UTC time an hour off its wall clock;
    a browser in UTC, or one that reports no zone, reads '08:06 UTC'."""
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from linecnn.classroom.reservation import Reservation
    from linecnn.ui import roles

    held = Reservation("Ada Lovelace", datetime(2026, 12, 3, 8, 6, tzinfo=UTC))
    for zone, said in (("Europe/Madrid", "09:06 (08:06 UTC)"), ("America/Bogota", "03:06 (08:06 UTC)")):
        monkeypatch.setattr(roles, "browser_zone", lambda zone=zone: ZoneInfo(zone))
        assert roles.until_text(held) == said
    for zone in (ZoneInfo("UTC"), None):
        monkeypatch.setattr(roles, "browser_zone", lambda zone=zone: zone)
        assert roles.until_text(held) == "08:06 UTC"
