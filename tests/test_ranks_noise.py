"""A data-parallel run timed on a busy machine is flagged, and no winner is stated from such a comparison.

Runs are faked (no torchrun), as is the load average each one sees: the rule is ``noise.overloaded``,
the one a sweep cell's ``load`` reason keeps.
"""

from __future__ import annotations

import pytest

from linecnn.parallel import series as series_module
from linecnn.parallel.config import RanksConfig
from linecnn.parallel.results import RanksRow, Series, make_row
from linecnn.parallel.series import run_series
from tests.test_ranks_budget import result

AUTO = RanksConfig.from_flat(per_class=5, warmup=1, repeats=2)  # on 2 cores: 1×2, 1×1, then 2×1
# The walk's series: 1 process × 2 threads took 473 ms at a load of 8.6, the others were quick.
TIMES = {(1, 2): 473.0, (1, 1): 14.0, (2, 1): 13.25}


def faked(monkeypatch, loads: dict[tuple[int, int], float]) -> Series:
    """run_series on 2 cores, each run seeing the load average ``loads`` gives it (0.5 between runs)."""
    now = {"load": 0.5}

    def run_ranks(config: RanksConfig, ranks: int, progress=None, deadline=None) -> dict:  # noqa: ANN001
        now["load"] = loads[ranks, config.threads]
        if progress is not None:
            progress(None)  # an event in the middle of the run: the load is sampled then
        now["load"] = 0.5
        return result(ranks, config.threads, TIMES[ranks, config.threads])

    monkeypatch.setattr(series_module, "run_ranks", run_ranks)
    monkeypatch.setattr(series_module, "reference_loss", lambda config, after_step=None: 1.0)
    monkeypatch.setattr(series_module, "load_average", lambda: now["load"])
    monkeypatch.setattr("linecnn.parallel.config.os.cpu_count", lambda: 2)
    return run_series(AUTO, [1, 2], progress=lambda launch: None)


BUSY = {(1, 2): 8.6, (1, 1): 1.2, (2, 1): 1.9}  # only the 2-thread baseline ran on a busy machine
QUIET = {(1, 2): 1.8, (1, 1): 1.2, (2, 1): 1.9}


def test_each_run_keeps_the_highest_load_seen_while_it_ran_and_is_flagged_above_the_cores(monkeypatch):
    """The load of the middle of each run and the machine's cores are kept; 8.6 on 2 cores is disturbed."""
    series = faked(monkeypatch, BUSY)
    assert [(row.load_average, row.cores) for row in series.rows] == [(8.6, 2), (1.2, 2), (1.9, 2)]
    assert [row.disturbed for row in series.rows] == [True, False, False]
    assert {"load_average": 8.6, "cores": 2}.items() <= series.rows[0].as_dict().items()


def test_a_disturbed_baseline_refuses_the_winner(monkeypatch):
    """35.71× "processes won" came from a baseline timed at load 8.6: the outcome is "disturbed"."""
    series = faked(monkeypatch, BUSY)
    two = series.headline
    assert two is not None and two.budget_speedup == pytest.approx(473.0 / 13.25)
    assert not two.disturbed and series.budget_outcome(two) == "disturbed"
    assert series.budget_load(two) == 8.6


def test_a_quiet_series_keeps_its_winner(monkeypatch):
    """The same times on a machine below its core count: processes won, as before."""
    series = faked(monkeypatch, QUIET)
    assert not any(row.disturbed for row in series.rows)
    assert series.budget_outcome(series.headline) == "processes"


def test_a_row_saved_before_the_load_was_kept_loads_and_is_not_flagged():
    """An older row's JSON, without load_average and cores, loads; it is simply not flagged."""
    old = make_row(result(2, 1, 10.0), 1.0, base_ms=12.0, budget_ms=90.2).as_dict()
    del old["load_average"], old["cores"]
    row = RanksRow(**old)
    assert row.load_average is None and not row.disturbed
    series = Series(AUTO, reference_loss=1.0, rows=[row])
    assert series.budget_outcome(row) == "processes"


def test_the_cli_warns_of_the_busy_machine_instead_of_a_winner(monkeypatch):
    """The CLI flags the disturbed run and says the comparison has no winner; a quiet series names it."""
    from linecnn.cli.ranks import explain

    lines = explain(faked(monkeypatch, BUSY))
    flagged = "! The run of ranks 1, threads 2 was disturbed while timed: load average 8.6 on 2 cores"
    [warning] = [line for line in lines if line.startswith("!")]
    assert warning.startswith(flagged)
    verdict = next(line for line in lines if line.startswith("Same 2 threads"))
    assert "no winner" in verdict and "8.6 on 2 cores" in verdict and "quieter" in verdict
    assert not any("processes beat threads" in line for line in lines)
    quiet = explain(faked(monkeypatch, QUIET))
    assert any("processes beat threads" in line for line in quiet) and not any("!" in line for line in quiet)


def _busy_cards() -> None:
    """The walk's series, its 2-thread baseline timed at load 8.6 on 2 cores, rendered as the page does."""
    from linecnn.ui.bench.data_parallel.results import render_series
    from tests.test_ranks_budget import series_of

    times = {(1, 2): 473.0, (1, 1): 14.0, (2, 1): 13.25}
    render_series(series_of(times, loads={(1, 2): 8.6, (1, 1): 1.2, (2, 1): 1.9}))


@pytest.mark.parametrize(
    ("language", "card", "verdict", "won"),
    [
        ("en", "Disturbed while timed:** load average 8.6 on 2 cores", "but no winner", "processes won"),
        ("es", "Perturbada mientras se cronometraba:** carga media de 8,6 en 2", "sin ganador", "ganan"),
    ],
)
def test_the_page_flags_the_busy_run_and_states_no_winner(language, card, verdict, won):
    """The 1 × 2 card is flagged as a disturbed sweep cell is; the verdict is a warning, not a winner."""
    from streamlit.testing.v1 import AppTest

    from linecnn.ui import i18n

    at = AppTest.from_function(_busy_cards)
    at.session_state[i18n.LANGUAGE] = language
    at.run()
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert sum(card in w for w in warnings) == 1, warnings
    [sentence] = [w for w in warnings if verdict in w]
    assert ("8,6 en 2 núcleos" if language == "es" else "8.6 on 2 cores") in sentence
    assert ("35,70×" if language == "es" else "35.70×") in sentence
    assert not any(won in i.value for i in at.info)
