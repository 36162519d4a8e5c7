"""AppTest of a Benchmark page a class can trust: disturbed cells, too-noisy splits, imports, fair shares."""

from __future__ import annotations

import json
import re

import pytest

from linecnn.bench.document import BenchDocument
from linecnn.bench.store import History
from linecnn.classroom.allowance import LEDGER
from linecnn.classroom.bench_turns import BENCH_TURNS
from tests.bench_fixture import fake_gpu_document
from tests.helpers import app_test, shown
from tests.test_bench_hostile import texts, upload
from tests.test_bench_page import PAGE, finish, run_button

MEDIANS = {360: 12.0, 1_200: 1.0, 3_600: 40.0}  # far from any line of a fixed plus a per-image cost


@pytest.fixture(autouse=True)
def private_history(tmp_path, monkeypatch):
    """Every test gets its own empty history."""
    monkeypatch.setenv("LINECNN_DATA_DIR", str(tmp_path))


def noisy_cpu_run() -> dict:
    """A CPU data sweep of three sizes whose medians no fit explains; the 1,200-image cell ran under load."""
    document = fake_gpu_document(gpu_only=False, largest=1_200)
    document["results"] = [r for r in document["results"] if r["device"] == "cpu"]
    document["devices"] = ["cpu"]
    for result in document["results"]:
        ms = MEDIANS[result["config"]["images"]]
        result.update(median_ms=ms, p25_ms=ms, p75_ms=ms, times_ms=[ms] * 5, samples_per_s=1000.0)
        result["disturbed"] = ["load"] if result["config"]["images"] == 1_200 else []
        result["load_average"] = 5.0 if result["config"]["images"] == 1_200 else 0.5
    return document


def opened(run_ids: list[int], language: str = "en"):
    """The page showing ``run_ids``."""
    at = app_test(PAGE, timeout=60)
    at.session_state["bench.shown"] = run_ids
    if language != "en":
        at.query_params["lang"] = language
    return at.run()


def test_a_disturbed_cell_says_why_on_its_card_and_in_the_table():
    """The 1,200-image cell ran under load: its card and the table say 'load average 5.0 on 16 cores'."""
    run_id = History().save(BenchDocument.from_dict(noisy_cpu_run()), "page")
    at = opened([run_id])
    at.select_slider[0].set_value(1_200.0).run()
    assert any(
        "**Disturbed while timed:** load average 5.0 on 16 cores" in w.value for w in at.warning
    ), texts(at)
    assert "load average 5.0 on 16 cores" in " ".join(shown(at.dataframe[0])["Disturbed"])


def test_a_fit_too_noisy_to_split_says_so_and_offers_to_repeat_the_disturbed_cells():
    """No shares and no bold figures: the run is too noisy to split; one click re-times the disturbed cell."""
    run_id = History().save(BenchDocument.from_dict(noisy_cpu_run()), "page")
    at = opened([run_id])
    assert any("too noisy to split" in w.value for w in at.warning), texts(at)
    assert not any("each step costs" in m.value for m in at.markdown)
    repeat = next(b for b in at.button if b.label.startswith("Re-time the disturbed cells of"))
    finish(repeat.click().run())
    assert not at.exception
    runs = History().runs()
    assert len(runs) == 2
    again = History().load(runs[0].id)
    assert [r.config.images for r in again.results] == [360, 1_200, 3_600]
    assert again.results[1].median_ms != 1.0 and again.results[0].median_ms == 12.0


def test_a_close_fit_on_calm_cells_keeps_its_bold_figures_and_a_rough_one_loses_them():
    """Bold shares only when the line fits within 25 % and no cell was disturbed."""
    calm = History().import_json(json.dumps(fake_gpu_document(gpu_only=False, largest=1_200)))
    at = opened([calm])
    assert any("each step costs about **" in m.value for m in at.markdown)
    document = fake_gpu_document(gpu_only=False, largest=1_200)
    document["results"][0]["disturbed"] = ["load"]
    rough = History().import_json(json.dumps(document))
    at = opened([rough])
    lines = [m.value for m in at.markdown if "each step costs about" in m.value]
    assert lines and "so this split is rough" in lines[0] and "**" not in lines[0].split("Roughly")[1]
    # Rough for its disturbed epoch, not for the fit: it must not say the line misses anything.
    assert "1 of those epochs were timed while the machine was disturbed" in lines[0]
    assert "misses" not in lines[0]


def test_a_split_of_two_sizes_says_its_exact_fit_proves_nothing():
    """Two sizes: a line of two costs passes through both, so the page says the closeness proves nothing."""
    two = History().import_json(json.dumps(fake_gpu_document(gpu_only=False, largest=400)))
    at = opened([two])
    lines = [m.value for m in at.markdown if "each step costs about" in m.value]
    assert lines and "(2 points)" in lines[0], texts(at)
    assert all("so that closeness proves nothing" in line for line in lines), lines


def test_the_cuda_card_shows_the_command_for_the_forms_sweep(monkeypatch):
    """Without CUDA the card shows one copyable line that times exactly the sweep set in the form."""
    monkeypatch.setattr("linecnn.ui.bench.results.cards.cuda_unavailable_reason", lambda: "no GPU (test).")
    at = app_test(PAGE)
    [code] = [c.value for c in at.code]
    assert code.startswith("python -m linecnn bench --sweep data --up-to 36000 --per-class 120")
    monkeypatch.setattr("linecnn.ui.bench.sweep.running.start_benchmark", lambda *a, **k: None)
    at.selectbox(key="bench.up_to.data").set_value(12_000)
    at.text_input(key="bench.repeats.text").input("7")
    run_button(at).click().run()
    [code] = [c.value for c in at.code]
    assert "--up-to 12000" in code and "--warmup 2 --repeats 7" in code
    assert code.endswith("--out gpu.json --no-save")


def test_importing_a_run_already_in_the_history_says_so():
    """The CLI saved the run; uploading its file names that run instead of saying nothing."""
    text = json.dumps(fake_gpu_document(gpu_only=False, largest=400))
    first = History().save(BenchDocument.from_json(text), "cli")
    at = upload(app_test(PAGE), text)
    assert not at.exception
    assert any(
        f"already in this server's history, as #{first} (made by the command line" in i.value for i in at.info
    ), texts(at)
    assert len(History().runs()) == 1
    fresh = upload(app_test(PAGE), json.dumps(fake_gpu_document(largest=400)), "gpu.json")
    assert any("Imported as run #2" in s.value for s in fresh.success), texts(fresh)


def test_an_import_that_lines_up_in_part_says_which_cells_do_not():
    """A GPU file up to 1,200 images beside a CPU run up to 400: the 3,600-image cell is the GPU's alone."""
    cpu = fake_gpu_document(gpu_only=False, largest=400)
    cpu["results"] = [r for r in cpu["results"] if r["device"] == "cpu"]
    first = History().save(BenchDocument.from_dict(cpu), "page")
    gpu = History().import_json(json.dumps(fake_gpu_document(largest=1_200)))
    at = opened([first, gpu])
    said = [i.value for i in at.info if "lines up with" in i.value]
    assert said and "alone: 3,600 images" in said[0], texts(at)
    single = fake_gpu_document(largest=120)
    single["sweep"] = "none"
    for result in single["results"]:
        result["factor"] = "none"
    other = History().import_json(json.dumps(single))
    at = opened([first, other])
    assert any("is a single cell, not a data sweep" in w.value for w in at.warning), texts(at)


def test_a_session_past_its_share_is_told_when_it_can_run_again():
    """600 s used within the hour: Run benchmark is refused with the wait, and no benchmark starts."""
    at = app_test(PAGE)
    at.session_state["bench.session"] = "spent1"
    LEDGER.record("spent1", 600.0)
    at.run()
    assert any("Each session may benchmark for 10 min" in c.value for c in at.caption), texts(at)
    run_button(at).click().run()
    assert any("You have used your share of the benchmark" in e.value for e in at.error), texts(at)
    assert "bench.running" not in at.session_state


def test_a_queued_session_sees_who_runs_and_who_waits():
    """Behind another session's benchmark, the queue names it with its time, and this session as 'you'."""
    at = app_test(PAGE)
    at.selectbox(key="bench.up_to.data").set_value(360)
    with BENCH_TURNS.hold("other1"):
        run_button(at).click().run()
        job = at.session_state["bench.running"]
        while job.waited is None:
            job.done.wait(0.05)
        at.run()
        assert any(c.value.startswith("Benchmark now: other1 (") and "you (" in c.value for c in at.caption)
        at.button(key="bench.cancel").click().run()
    assert job.done.wait(30) and job.cancelled


def test_the_class_boards_axis_and_hover_write_rates_the_readers_way():
    """In Spanish the board's rate axis reads whole numbers ('20.000', not Plotly's '10k' then '2 3 4 5')
    and its hover number takes Spanish marks."""
    run = History().import_json(json.dumps(fake_gpu_document(gpu_only=False, largest=400)))
    at = opened([run], "es")
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    [board] = [spec for spec in specs if spec["data"][0].get("type") == "bar"]  # the page's only bars here
    axis = board["layout"]["xaxis"]
    assert board["layout"]["separators"] == ",."
    whole = re.compile(r"\d{1,4}|\d{1,3}(\.\d{3})+")  # Spanish groups thousands from 10.000 on
    assert axis["ticktext"] and all(whole.fullmatch(text) for text in axis["ticktext"]), axis
    assert len(axis["tickvals"]) == len(axis["ticktext"])
