"""The data-parallel headline compares equal thread budgets: N processes of T threads against 1 of N·T.

The classic efficiency T1 / (N·TN) stays, as a note, against 1 process of T threads. Runs are faked
here (no torchrun): the arithmetic, the plan of runs, the CLI's sentences and the page's cards.
"""

from __future__ import annotations

import pytest

from linecnn.parallel import series as series_module
from linecnn.parallel.config import RanksConfig
from linecnn.parallel.results import RanksRow, budget_winner, make_row
from linecnn.parallel.series import run_plan, run_series

AUTO = RanksConfig.from_flat(per_class=5, warmup=1, repeats=2)  # threads: the cores split evenly
ONE_EACH = RanksConfig.from_flat(per_class=5, warmup=1, repeats=2, threads=1)
# The newcomer's series: 1 process of 2 threads (slow, its threads waiting on each other), 1 of 1 thread,
# 2 processes of 1 thread each. Milliseconds per epoch by (processes, threads).
TIMES = {(1, 2): 90.2, (1, 1): 12.0, (2, 1): 10.0}


def result(ranks: int, threads: int, ms: float) -> dict:
    """Rank 0's JSON for a run of ``ranks`` processes of ``threads`` threads taking ``ms`` per epoch."""
    return {
        "ranks": ranks, "backend": "gloo", "threads": threads, "images": 15, "epoch_s": [ms / 1000],
        "comm_s": [0.0], "first_epoch_s": ms / 1000, "start_s": 1.0, "final_loss": 1.0,
    }


@pytest.fixture
def fake_runs(monkeypatch):
    """run_series on 2 cores with TIMES instead of torchrun; the runs it launched, in order."""
    launched: list[tuple[int, int]] = []

    def run_ranks(config: RanksConfig, ranks: int, progress=None, deadline=None) -> dict:  # noqa: ANN001
        launched.append((ranks, config.threads))
        return result(ranks, config.threads, TIMES[ranks, config.threads])

    monkeypatch.setattr(series_module, "run_ranks", run_ranks)
    monkeypatch.setattr(series_module, "reference_loss", lambda config, after_step=None: 1.0)
    monkeypatch.setattr("linecnn.parallel.config.os.cpu_count", lambda: 2)
    monkeypatch.setattr(series_module, "load_average", lambda: 0.5)  # a quiet machine: a winner is stated
    return launched


def test_the_plan_adds_the_one_process_runs_each_count_is_compared_with():
    """2 cores, counts 1 and 2: 1×2 (the counts' own), 1×1 (same threads per process), then 2×1."""
    assert run_plan(AUTO, [1, 2], cores=2) == [(1, 2), (1, 1), (2, 1)]
    assert run_plan(ONE_EACH, [1, 2], cores=2) == [(1, 1), (1, 2), (2, 1)]
    assert run_plan(AUTO, [1, 2, 4], cores=8) == [(1, 8), (1, 4), (1, 2), (2, 4), (4, 2)]
    assert run_plan(AUTO, [2], cores=2) == [(2, 1)]  # no 1 asked for: no baseline at all
    gpus = RanksConfig.from_flat(per_class=5, device="cuda")
    assert run_plan(gpus, [1, 2], cores=8) == [(1, 8), (2, 4)]  # a GPU is the unit, not a thread


def test_the_headline_is_the_same_thread_budget_and_the_old_figure_a_note(fake_runs):
    """2 processes × 1 thread against 1 process × 2 threads: 9.02× (was shown as 'efficiency 451 %');
    the efficiency is now taken against 1 process × 1 thread: 12 / (2·10) = 60 %."""
    series = run_series(AUTO, [1, 2])
    assert fake_runs == [(1, 2), (1, 1), (2, 1)]
    two = series.rows[-1]
    assert (two.ranks, two.threads, two.budget_threads) == (2, 1, 2)
    assert two.budget_speedup == pytest.approx(9.02)
    assert two.efficiency == pytest.approx(0.6) and two.speedup == pytest.approx(1.2)
    assert series.headline is two and series.worst is two
    assert series.single(1).median_ms == pytest.approx(12.0) and series.base.threads == 2
    for one in series.rows[:2]:  # each 1-process run against itself
        assert one.budget_speedup == pytest.approx(1.0) and one.efficiency == pytest.approx(1.0)


def test_threads_given_by_hand_also_get_their_equal_budget_baseline(fake_runs):
    """threads=1: 1×1 and 2×1 as before, and 1×2 added so that 2 processes have a like-with-like match."""
    series = run_series(ONE_EACH, [1, 2])
    assert fake_runs == [(1, 1), (1, 2), (2, 1)]
    two = series.rows[-1]
    assert two.budget_speedup == pytest.approx(9.02) and two.efficiency == pytest.approx(0.6)


def test_who_wins_at_the_same_budget():
    """Within 10 % of 1× it is a draw."""
    assert [budget_winner(x) for x in (9.02, 1.05, 0.95, 0.5)] == ["processes", "even", "even", "threads"]


def test_a_row_saved_before_the_budget_figures_still_loads():
    """A row of the older JSON (no budget keys) loads, with no equal-budget figures."""
    old = make_row(result(2, 1, 10.0), 1.0, base_ms=90.2).as_dict()
    del old["budget_threads"], old["budget_speedup"]
    row = RanksRow(**old)
    assert row.budget_speedup is None and row.efficiency == pytest.approx(4.51)


def test_the_cli_says_the_same_threads_verdict_first(fake_runs):
    """The CLI's lines name the like-with-like comparison, with its figure, and its table has the column."""
    from linecnn.cli.ranks import explain, ranks_table

    series = run_series(AUTO, [1, 2])
    lines = explain(series)
    verdict = next(line for line in lines if line.startswith("Same 2 threads"))
    assert "2 processes of 1 each ran 9.02x as fast as 1 process of 2" in verdict
    table = ranks_table(series)
    assert "same-threads" in table.splitlines()[0] and "9.02" in table.splitlines()[-1]


def series_of(times: dict, loads: dict | None = None):
    """A series of a 1x2, a 1x1 and a 2x1 run with these epoch times (ms), and load averages if given
    (on 2 cores), built as the runner builds it."""
    from linecnn.parallel.config import RanksConfig
    from linecnn.parallel.results import RanksRow, Series, make_row

    series = Series(RanksConfig.from_flat(per_class=5, warmup=1, repeats=2), reference_loss=1.0)
    for ranks, threads in ((1, 2), (1, 1), (2, 1)):
        run = result(ranks, threads, times[ranks, threads])
        row = make_row(run, 1.0, times[1, threads], times.get((1, ranks * threads)))
        if loads is not None:
            row = RanksRow(**(row.as_dict() | {"load_average": loads[ranks, threads], "cores": 2}))
        series.add(row)
    return series


def _cards() -> None:
    """The results of the newcomer's series, rendered as the page does."""
    from linecnn.ui.bench.data_parallel.results import render_series
    from tests.test_ranks_budget import series_of

    render_series(series_of({(1, 2): 90.2, (1, 1): 12.0, (2, 1): 10.0}))


@pytest.mark.parametrize(
    ("language", "label", "value", "note", "verdict"),
    [
        ("en", "vs 1 process × 2 threads", "9.02×", "against 1 process × 1 thread", "processes won"),
        ("es", "frente a 1 proceso × 2 hilos", "9,02×", "frente a 1 proceso × 1 hilo", "ganan los procesos"),
    ],
)
def test_the_page_heads_each_card_with_the_same_budget_and_notes_the_efficiency(
    language, label, value, note, verdict
):
    """The 2-process card shows 9.02× against 1 process × 2 threads, with 60 % efficiency beneath."""
    from streamlit.testing.v1 import AppTest

    from linecnn.ui import i18n

    at = AppTest.from_function(_cards)
    at.session_state[i18n.LANGUAGE] = language
    at.run()
    assert not at.exception
    headlines = [m for m in at.metric if m.label == label]
    assert [m.value for m in headlines] == ["1,00×" if language == "es" else "1.00×", value]
    assert not any("451" in m.value for m in at.metric)
    [caption] = [c.value for c in at.caption if note in c.value]
    assert "60" in caption and "T1 / (N · TN)" in caption
    assert any(verdict in i.value and ("9,02×" if language == "es" else "9.02×") in i.value for i in at.info)
