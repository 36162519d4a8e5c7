"""The Benchmark page in a real browser: a small sweep, its table, chart and CSV; two users queue."""

from __future__ import annotations

import csv
import io
import re

import pytest
from playwright.sync_api import expect

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


def test_small_benchmark_shows_table_chart_and_downloads_csv(page, server):
    """Run a three-size sweep, see the device column, the chart and the table, and download the CSV."""
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


def test_two_users_benchmarks_run_one_after_the_other(browser, server):
    """While one session benchmarks, a second one is told it is queued, then runs once the first ends."""
    first = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    second = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    try:
        open_benchmark(first, server, "36,000 images", "10")  # seconds long, so the second one must wait
        open_benchmark(second, server, "360 images", "1")
        first.get_by_role("button", name="Run benchmark").click()
        first.get_by_text("Cell 1 of").wait_for(timeout=60_000)
        second.get_by_role("button", name="Run benchmark").click()
        second.get_by_text("Queued.").wait_for(timeout=30_000)
        first.get_by_text("Benchmark done in").wait_for(timeout=180_000)
        second.get_by_text("Benchmark done in").wait_for(timeout=60_000)
    finally:
        first.context.close()
        second.context.close()


def test_changing_a_setting_mid_run_does_not_cancel_the_benchmark(page, server):
    """Clicking another sweep factor while cells are timed reruns the page; the benchmark runs to its end."""
    open_benchmark(page, server, "1,200 images", "1")
    page.get_by_role("button", name="Run benchmark").click()
    page.get_by_text(re.compile(r"^Cell 1 of \d")).wait_for(timeout=60_000)
    page.get_by_role("radio", name="Model width").click()  # a widget outside the form: a full rerun
    expect(page.get_by_label("Sweep model width up to")).to_be_visible(timeout=30_000)
    ended = page.get_by_text(re.compile(r"^Benchmark (done|cancelled)"))
    ended.wait_for(timeout=180_000)
    assert ended.inner_text().startswith("Benchmark done in")
    wait_for_app(page)
    expect(page.locator('[data-testid="stDataFrame"]').first).to_be_visible(timeout=30_000)


def test_where_the_time_goes_after_a_cpu_sweep_kept_on_reload_and_in_spanish(page, server):
    """A CPU-only sweep explains its fixed and per-image costs; a reload keeps it; Spanish reads it too."""
    open_benchmark(page, server, "1,200 images", "2")
    page.get_by_role("button", name="Run benchmark").click()
    page.get_by_text("Benchmark done in").wait_for(timeout=120_000)
    wait_for_app(page)
    explanation = page.get_by_text(re.compile(r"each step costs about .+ whatever its size")).first
    explanation.wait_for(timeout=30_000)
    text = explanation.inner_text()
    assert re.search(
        r"At 360 images \(steps per epoch: 1\) \d+% of the epoch is fixed per-step cost", text
    ), text
    assert re.search(r"within \d+\.\d% of every measured point \(2 points\)", text), text
    expect(page.get_by_text("Why a GPU loses on tiny problems").first).to_be_visible()
    expect(page.get_by_text("none is bundled", exact=False).first).to_be_visible()
    page.reload()  # a return: a new session opens on the newest stored run
    wait_for_app(page)
    expect(page.get_by_text("Where the time goes").first).to_be_visible(timeout=30_000)
    page.goto(f"{server.url}/Benchmark?lang=es")
    wait_for_app(page)
    expect(page.get_by_text("Adónde va el tiempo").first).to_be_visible(timeout=30_000)
    spanish = page.get_by_text(re.compile(r"cada paso cuesta unos .+ sea cual sea su tamaño")).first
    assert "Con 360 imágenes (pasos por época: 1)" in spanish.inner_text()
    expect(page.get_by_role("button", name="Medir")).to_be_visible()
