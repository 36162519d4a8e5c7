"""Trusting a benchmark: disturbed cells, the suggested command, the session's share and the queue."""

from __future__ import annotations

import json
import shlex
import threading
from dataclasses import replace

import pytest

from linecnn.bench.command import cli_line
from linecnn.bench.config import BenchConfig
from linecnn.bench.document import BenchDocument
from linecnn.bench.factors import FACTORS
from linecnn.bench.noise import add_reason, mark
from linecnn.bench.plan import Caps, SweepRequest
from linecnn.bench.results import CellResult
from linecnn.bench.sweep import retimed
from linecnn.classroom.allowance import Allowance, Ledger
from linecnn.classroom.bench_turns import bench_turns
from linecnn.cli.bench import plan_from
from linecnn.cli.main import build_parser
from tests.bench_fixture import fake_gpu_document
from tests.helpers import ManualClock


def timed(median: float = 10.0, p25: float = 9.0, p75: float = 11.0) -> CellResult:
    """A timed CPU cell of the lesson's size."""
    return CellResult(
        "cpu", "CPU", BenchConfig(), times_ms=(p25, median, p75), median_ms=median, p25_ms=p25, p75_ms=p75,
        samples_per_s=1.0,
    )  # fmt: skip


def test_a_cell_is_disturbed_by_its_spread_or_a_load_above_the_cores():
    """Spread above 1.5x, load above the core count, a Train run: each is a reason, kept in order."""
    assert mark(timed(), load=1.9, cores=2).disturbed == ()
    assert mark(timed(), load=2.5, cores=2).disturbed == ("load",)
    assert mark(timed(p25=5.0, p75=12.0), load=None, cores=2).disturbed == ("spread",)
    both = add_reason(mark(timed(p25=5.0, p75=12.0), load=3.0, cores=2), "training")
    assert both.disturbed == ("spread", "load", "training") and both.load_average == 3.0


def test_disturbed_cells_survive_json_and_old_files_have_their_spread_judged():
    """The reasons round-trip through the JSON; a file from before them gets 'spread' from its quartiles."""
    document = fake_gpu_document(gpu_only=False, largest=400)
    for result in document["results"]:  # as linecnn wrote them before it kept the reasons
        del result["disturbed"], result["load_average"]
    document["results"][0].update(p25_ms=1.0, median_ms=2.0, p75_ms=4.0)
    old = BenchDocument.from_dict(document)
    assert old.results[0].disturbed == ("spread",) and old.results[1].disturbed == ()
    marked = replace(old, results=(old.results[0], add_reason(old.results[1], "training"), *old.results[2:]))
    again = BenchDocument.from_json(marked.to_json())
    assert again.results[1].disturbed == ("training",) and again.results[0].disturbed == ("spread",)
    assert again == marked


def test_an_unknown_reason_is_refused_with_its_place():
    """A file may only name the known reasons."""
    document = fake_gpu_document(gpu_only=False, largest=400)
    document["results"][0]["disturbed"] = ["cosmic rays"]
    with pytest.raises(ValueError, match=r'result 1\'s disturbed\.0 is "cosmic rays", not one of spread'):
        BenchDocument.from_json(json.dumps(document))


@pytest.mark.parametrize(
    "request_",
    [
        SweepRequest(BenchConfig(), FACTORS["data"], ("cpu",), up_to=36_000),
        SweepRequest(
            BenchConfig.from_flat(per_class=400, batch_size=64, width=2, extra_convs=1, warmup=3, repeats=7),
            FACTORS["batch"],
            ("cpu",),
            up_to=1_024,
            compare_eager=False,
        ),
        SweepRequest(BenchConfig.from_flat(amp="bf16", compile=True, channels_last=True), FACTORS["width"]),
    ],
)
def test_the_suggested_command_plans_exactly_the_pages_sweep(request_):
    """The CLI parses the page's line into the same cells (factor, sizes, warm-up, repeats, faster paths)."""
    words = shlex.split(cli_line(request_))
    assert words[:4] == ["python", "-m", "linecnn", "bench"] and "--no-save" in words
    args = build_parser().parse_args([*words[3:], "--devices", "cpu"])
    plan, _ = plan_from(args)
    page = request_.plan(Caps(max_step_bytes=1 << 30))
    assert plan.cells() == page.cells()


def test_a_retimed_run_keeps_its_other_cells():
    """Re-timing one cell replaces it (same device, variant, size) and keeps every other cell in place."""
    document = BenchDocument.from_dict(fake_gpu_document(gpu_only=False, largest=400))
    again = replace(document.results[2], median_ms=1.0, p25_ms=1.0, p75_ms=1.0)
    merged = retimed(document, [again], document.env)
    assert merged.results[2] is again
    assert merged.results[:2] == document.results[:2] and merged.results[3:] == document.results[3:]


def test_a_sessions_share_is_spent_and_returns_as_the_window_slides():
    """600 s an hour: after 590 s used only 10 s are left, and a run is possible again once time frees up."""
    clock = ManualClock()
    ledger, allowance = Ledger(clock), Allowance(seconds=600.0, window=3_600.0)
    ledger.record("ana", 300.0)
    clock.now += 1_000
    ledger.record("ana", 298.0)
    assert ledger.left("ana", allowance) == pytest.approx(2.0)
    assert ledger.left("bea", allowance) == 600.0
    wait = ledger.ready_in("ana", allowance)
    assert 0 < wait < 3_600
    clock.now += wait + 0.01
    assert ledger.left("ana", allowance) >= 5.0
    assert ledger.left("ana", Allowance(seconds=None)) is None


def test_the_share_follows_the_host_settings(monkeypatch):
    """The host sets the share and window; 'none' lifts it; a typo falls back to the default."""
    monkeypatch.setenv("LINECNN_BENCH_SESSION_SECONDS", "120")
    monkeypatch.setenv("LINECNN_BENCH_WINDOW_SECONDS", "900")
    assert Allowance.from_env() == Allowance(120.0, 900.0)
    monkeypatch.setenv("LINECNN_BENCH_SESSION_SECONDS", "none")
    assert Allowance.from_env().seconds is None
    monkeypatch.setenv("LINECNN_BENCH_SESSION_SECONDS", "ten minutes")
    assert Allowance.from_env().seconds == 600.0


def test_the_benchmark_queue_is_first_come_first_served_and_shows_who_waits():
    """Three sessions queue behind a holder: they get turns in arrival order; waiters() lists them."""
    turns, order, holding = bench_turns(), [], threading.Event()
    release = threading.Event()

    def take(who: str) -> None:
        with turns.hold(who, poll=0.01):
            order.append(who)

    with turns.hold("holder", poll=0.01):
        threads = []
        for who in ("first", "second", "third"):
            thread = threading.Thread(target=take, args=(who,))
            thread.start()
            threads.append(thread)
            while who not in [w.who for w in turns.waiters()]:
                holding.wait(0.01)
        [holder], waiting = turns.holders(), turns.waiters()
        assert holder.who == "holder" and [w.who for w in waiting] == ["first", "second", "third"]
        assert waiting[0].seconds >= waiting[-1].seconds >= 0
        release.set()
    for thread in threads:
        thread.join(10)
    assert order == ["first", "second", "third"] and not turns.busy
    assert turns.holders() == turns.waiters() == []
