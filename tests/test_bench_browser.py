"""The Benchmark page in a real browser: a small sweep, its table, chart and CSV; two users queue."""

from __future__ import annotations

import csv
import io
import json
import re
import uuid

import pytest
from playwright.sync_api import expect

from linecnn.bench.store import History
from tests.bench_fixture import fake_gpu_document
from tests.helpers import wait_for_app

pytestmark = pytest.mark.browser


def open_benchmark(page, server, up_to: str, repeats: str) -> None:
    """Open the page and set a data sweep up to ``up_to`` with one warm-up epoch."""
    page.goto(f"{server.url}/Benchmark")
    wait_for_app(page)
    page.get_by_label("Sweep data size up to").click()
    page.get_by_role("option", name=up_to, exact=True).click()
    # .first: the sweep's form; the Processes / GPUs section below has fields of the same names.
    for label, value in (("Warm-up epochs", "1"), ("Timed epochs", repeats)):
        field = page.get_by_label(label, exact=True).first
        field.fill(value)
        field.press("Tab")  # commit the value without submitting the form


def test_a_sweep_shows_table_chart_csv_and_where_the_time_goes_in_both_languages(page, server):
    """A three-size CPU sweep: the device column, charts, table and CSV; the fixed and per-image costs
    explained; a reload keeps the run on screen, and Spanish reads it too."""
    open_benchmark(page, server, "3,600 images", "2")
    page.get_by_role("button", name="Run benchmark").click()
    page.get_by_text("Benchmark done in").wait_for(timeout=120_000)
    wait_for_app(page)
    # Two charts and a table below the cards: on a busy machine Plotly takes seconds to draw them.
    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_be_visible(timeout=30_000)
    expect(page.locator('[data-testid="stDataFrame"]').first).to_be_visible(timeout=30_000)
    expect(page.get_by_text("median per epoch").first).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download CSV").click()
    assert download.value.suggested_filename.endswith(".csv")
    with open(download.value.path(), encoding="utf-8") as file:
        rows = list(csv.DictReader(io.StringIO(file.read())))
    assert [row["images"] for row in rows] == ["360", "1200", "3600"]
    assert all(row["status"] == "ok" and float(row["median_ms"]) > 0 for row in rows)

    # How well the fit holds is a measurement: a busy machine makes the page call its split rough,
    # or too noisy to give at all; each is a true outcome, and each must read as it should.
    either = re.compile(r"each step costs about .+ whatever its size|too noisy to split")
    explanation = page.get_by_text(either)
    explanation.first.wait_for(timeout=30_000)
    text = explanation.first.inner_text()
    split = "too noisy to split" not in text
    if split:
        share = r"[Aa]t 360 images \(steps per epoch: 1\),? (about )?\d+% of the epoch is fixed per-step cost"
        assert re.search(share, text), text
        assert re.search(
            r"within \d+\.\d% of every measured point \(3 points\)"
            r"|misses a measured point by up to [\d.]+% \(3 points\)",
            text,
        ), text
    else:
        assert re.search(r"misses a measured epoch by [\d.]+% \(3 points\)", text), text
    expect(page.get_by_text("Why a GPU loses on tiny problems").first).to_be_visible()
    expect(page.get_by_text("none is bundled", exact=False).first).to_be_visible()

    page.reload()  # a return: a new session opens on the newest stored run
    wait_for_app(page)
    expect(page.get_by_text("Where the time goes").first).to_be_visible(timeout=30_000)
    page.goto(f"{server.url}/Benchmark?lang=es")
    wait_for_app(page)
    expect(page.get_by_text("Adónde va el tiempo").first).to_be_visible(timeout=30_000)
    if split:
        spanish = page.get_by_text(re.compile(r"cada paso cuesta unos .+ sea cual sea su tamaño")).first
        assert "con 360 imágenes (pasos por época: 1)" in spanish.inner_text().lower()
    else:
        expect(page.get_by_text("demasiado ruido para repartir", exact=False).first).to_be_visible()
    expect(page.get_by_role("button", name="Medir")).to_be_visible()


def cell_number(tab) -> int:
    """The number of the furthest cell the page shows, timed now or done."""
    lines = tab.get_by_text(re.compile(r"^Cell \d+ of \d+ ·")).all_inner_texts()
    return max(int(re.match(r"Cell (\d+)", line).group(1)) for line in lines)


def test_a_second_user_queues_a_setting_changed_mid_run_cancels_nothing_and_cancel_ends_it(tabs, server):
    """While one session benchmarks, another is told it is queued. The first changes a setting outside
    the form (a full rerun): its benchmark goes on to the next cell. Its Cancel then ends it with the
    finished cells kept, and the queued benchmark runs at once.

    Nothing here waits on the size of the work: the first sweep, up to 360,000 images, would take
    minutes, and it ends when the test presses Cancel."""
    first, second = tabs.lend(), tabs.lend()
    open_benchmark(first, server, "360,000 images", "10")
    open_benchmark(second, server, "360 images", "1")
    first.get_by_role("button", name="Run benchmark").click()
    first.get_by_text(re.compile(r"^Cell 1 of \d")).wait_for(timeout=60_000)
    second.get_by_role("button", name="Run benchmark").click()
    second.get_by_text("Queued.").wait_for(timeout=30_000)

    before = cell_number(first)
    first.get_by_role("radio", name="Model width").click()  # a widget outside the form: a full rerun
    expect(first.get_by_label("Sweep model width up to")).to_be_visible(timeout=30_000)
    later = "|".join(str(cell) for cell in range(before + 1, 100))
    first.get_by_text(re.compile(rf"^Cell ({later}) of \d+ ·")).first.wait_for(timeout=120_000)
    assert first.get_by_text(re.compile(r"^Benchmark (done|cancelled)")).count() == 0

    first.get_by_role("button", name="Cancel").click()
    ended = first.get_by_text(re.compile(r"^Benchmark cancelled after \d+ of \d+ cells"))
    ended.wait_for(timeout=60_000)
    second.get_by_text("Benchmark done in").wait_for(timeout=60_000)
    wait_for_app(first)
    expect(first.locator('[data-testid="stDataFrame"]').first).to_be_visible(timeout=30_000)


def another_sessions_run() -> str:
    """A benchmark JSON no session has stored yet (a note makes each one new)."""
    document = fake_gpu_document(largest=1_000)
    document["results"][0]["notes"] = [f"stored by another session {uuid.uuid4().hex[:8]}"]
    return json.dumps(document)


def test_the_history_follows_a_run_stored_by_another_session_unclicked(page, server, server_env, monkeypatch):
    """A teacher's open page: another session imports a run, and the count follows by itself."""
    monkeypatch.setenv("LINECNN_DATA_DIR", server_env["LINECNN_DATA_DIR"])
    added = [] if History().runs() else [History().import_json(another_sessions_run())]  # a count to read
    try:
        page.goto(f"{server.url}/Benchmark")
        wait_for_app(page)
        counted = re.compile(r"^([\d,]+) runs? in this server's history\.$")
        caption = page.get_by_text(counted)
        expect(caption).to_be_visible(timeout=30_000)
        before = int(counted.match(caption.inner_text()).group(1).replace(",", ""))
        added.append(History().import_json(another_sessions_run()))
        after = page.get_by_text(f"{before + 1:,} runs in this server's history.")
        expect(after).to_be_visible(timeout=20_000)
    finally:
        for run_id in added:  # the other browser tests find the shared server's history as they left it
            History().delete(run_id)
