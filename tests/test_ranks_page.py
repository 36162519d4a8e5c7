"""AppTest of the Benchmark page's Processes / GPUs factor: 1 and 2 CPU processes through torchrun."""

from __future__ import annotations

import os

import pytest

from tests.helpers import app_test, shown

PAGE = "pages/2_Benchmark.py"


@pytest.fixture(autouse=True)
def private_history(tmp_path, monkeypatch):
    """The page's history lives in a temporary folder."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))


@pytest.mark.slow  # a torchrun process group
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="two CPU processes need two cores")
def test_the_factor_runs_one_and_two_processes_and_shows_their_efficiency():
    """Run 1 and 2 processes from the page: a success message, a card per run, the same-threads headline."""
    at = app_test(PAGE, timeout=60)
    assert not at.exception
    at.multiselect(key="ddp.ranks").set_value([1, 2])
    at.text_input(key="ddp.per_class.text").input("20")
    at.text_input(key="ddp.warmup.text").input("1")
    at.text_input(key="ddp.repeats.text").input("2")
    at = next(b for b in at.button if b.label == "Run data-parallel").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    job = at.session_state["ddp.running"]
    assert job.done.wait(400), "the data-parallel runs did not end in time"
    at.run()
    assert not at.exception
    assert any("Data-parallel benchmark done" in s.value for s in at.success), [e.value for e in at.error]
    frame = next(d for d in at.dataframe if "processes" in d.value.columns)
    table = frame.value
    # 1 process of every core, 1 process of each of 2 processes' share, then 2 processes.
    cores, half = os.cpu_count(), os.cpu_count() // 2
    assert list(table["processes"]) == [1, 1, 2] and list(table["threads each"]) == [cores, half, half]
    assert list(table["backend"]) == ["gloo"] * 3
    # The number its text shows beneath it, so its header sorts by size and a screen reader hears 100, not 1.
    assert table["efficiency"].iloc[0] == 100.0
    written = shown(frame)["efficiency"]
    assert written.iloc[0] == "100%" and written.iloc[2].endswith("%")
    budget = f"{2 * half} {'thread' if 2 * half == 1 else 'threads'}"
    headlines = [m for m in at.metric if m.label == f"vs 1 process × {budget}"]
    assert headlines[0].value == "1.00×" and headlines[-1].value.endswith("×")
    assert any("Scaling efficiency against 1 process ×" in c.value for c in at.caption)
    # On a busy machine the verdict is a warning that names no winner, still of the same budget.
    verdicts = [*at.info, *at.warning]
    assert any(f"The same {budget}" in i.value and "2 processes of" in i.value for i in verdicts)


def test_cancel_ends_the_page_job_and_every_process_of_its_run():
    """The Cancel button's event ends the series from the progress callback: cancelled, no process left."""
    from linecnn.jobs.job import Job
    from linecnn.jobs.ranks import ranks_work
    from linecnn.parallel.config import RanksConfig
    from linecnn.procs.groups import group_alive
    from linecnn.ui.bench.state import server_caps

    config = RanksConfig.from_flat(per_class=5, warmup=1, repeats=1, threads=1)
    job = Job("test", ranks_work(config, [1], server_caps()))
    started: list[int] = []
    original = job.report

    def report(fraction: float, launch) -> None:  # noqa: ANN001 - a launch.Launch
        started.append(launch.pid)
        job.cancel.set()  # as the button does, from another thread, while the run is in flight
        original(fraction, launch)

    job.report = report
    job.run()
    assert job.done.is_set() and job.cancelled and job.error is None
    assert started and not group_alive(started[0])


def test_a_number_out_of_range_is_refused_with_the_pages_own_words():
    """500 timed epochs (the form allows 100): Run data-parallel starts nothing and says why."""
    at = app_test(PAGE, timeout=60)
    at.text_input(key="ddp.repeats.text").input("500")
    at = next(b for b in at.button if b.label == "Run data-parallel").click().run()
    assert not at.exception
    assert "ddp.running" not in at.session_state or at.session_state["ddp.running"] is None
    assert [e.value for e in at.error] == [
        "**Timed epochs**: 500 is outside the allowed range. Enter a number from 1 to 100."
    ]
