"""One truth across pages: a Train run's ms per epoch against the benchmark cell of the same settings.

The sentence's logic (``bench.agree``), the cell each Train run is matched with, and both pages
(AppTest): the Train summary under its speed line, the Benchmark under its results.
"""

from __future__ import annotations

import pytest

from linecnn.bench.agree import AGREEMENT, compare, same_settings
from linecnn.bench.config import BenchConfig
from linecnn.train.config import RunConfig

LESSON = RunConfig()


def test_within_twenty_percent_is_agreement_whatever_the_threads():
    """1.2x either way agrees; a thread count alone gives no sentence when the figures agree."""
    assert AGREEMENT == 0.2
    assert compare(12.0, 10.0, 1, 2).reason is None
    assert compare(8.0, 10.0, 1, 1).reason is None


def test_the_newcomers_case_is_the_thread_count():
    """14.7 ms on Train (1 thread) against 246 ms on the Benchmark (2 threads): the threads, said first."""
    verdict = compare(14.7, 246.0, 1, 2)
    assert verdict.reason == "threads" and verdict.ratio == pytest.approx(14.7 / 246.0)


def test_a_longer_train_epoch_on_the_same_threads_is_its_validation():
    """15 ms against 10 ms on one thread each: the validation (and first epochs), a third of the figure."""
    verdict = compare(15.0, 10.0, 1, 1)
    assert verdict.reason == "validation" and verdict.validation_share == pytest.approx(1 / 3)


def test_a_shorter_train_epoch_on_the_same_threads_is_the_machines_load():
    """Train 5 ms against a cell of 10 ms on the same threads, or on a GPU: no setting explains it."""
    assert compare(5.0, 10.0, 1, 1).reason == "load"
    assert compare(5.0, 10.0, None, None).reason == "load"
    assert compare(15.0, 10.0, None, None).reason == "validation"


def test_an_empty_time_is_refused_with_a_sentence():
    with pytest.raises(ValueError, match="must be positive"):
        compare(0.0, 10.0, 1, 1)


def test_a_cell_has_the_same_settings_when_it_trains_the_same_images_model_and_steps():
    """Seed and learning rate do not matter; images, width, steps and the faster paths do."""
    cell = BenchConfig(run=LESSON)
    assert same_settings(LESSON, cell)
    assert same_settings(RunConfig.from_flat(seed=7, lr=0.1), cell)
    assert not same_settings(RunConfig.from_flat(per_class=240), cell)
    assert not same_settings(RunConfig.from_flat(width=2), cell)
    assert not same_settings(RunConfig.from_flat(batch_size=32), cell)
    assert not same_settings(LESSON, BenchConfig(run=LESSON, amp="bf16"))
    # A full batch above the benchmark's step bound is cut into steps: not the same epoch.
    big = RunConfig.from_flat(per_class=2000)
    assert not same_settings(big, BenchConfig(run=big))


def _pages_state() -> None:
    """A Train run of the lesson's settings at 14.7 ms per epoch on 1 thread, and a Benchmark run whose
    lesson cell took 246 ms on 2 threads, kept in this session; then the Train summary's line and the
    Benchmark's note, as the pages draw them."""
    import streamlit as st

    from linecnn.bench.config import BenchConfig
    from linecnn.bench.document import BenchDocument, BenchEnv
    from linecnn.bench.factors import FACTORS
    from linecnn.bench.results import CellResult
    from linecnn.train.config import RunConfig
    from linecnn.train.trainer import EpochRecord
    from linecnn.ui import state
    from linecnn.ui.agree import show_on_bench, show_on_train
    from linecnn.ui.bench.state import UNSAVED, shown_runs

    config = RunConfig.from_flat(epochs=3)
    history = tuple(EpochRecord(e, 3, 1.0, 0.5, 1.0, 0.5, 0.0147, 0.0147 * e, "cpu") for e in (1, 2, 3))
    record = state.RunRecord(1, config, "cpu", history, [[0] * 3] * 3, model=None, threads=1)
    st.session_state[state.RUNS] = [record]
    cell_ms = st.session_state.get("cell_ms", 246.0)
    cell = CellResult("cpu", "CPU", BenchConfig(run=config), median_ms=cell_ms, times_ms=(cell_ms,))
    env = BenchEnv(torch_threads=st.session_state.get("cell_threads", 2))
    st.session_state[UNSAVED] = [BenchDocument(FACTORS["data"], (cell,), env=env)]
    show_on_train(record)
    show_on_bench(shown_runs())


@pytest.mark.parametrize(
    ("language", "threads_said", "cell_said"),
    [
        ("en", "ran on 2 threads and the Train run on 1 thread", "246.00 ms"),
        ("es", "usó 2 hilos y la ejecución de Entrenar 1 hilo", "246,00 ms"),
    ],
)
def test_both_pages_say_why_the_newcomers_figures_differ(language, threads_said, cell_said):
    """Train summary and Benchmark: one sentence naming the thread counts, in the reader's language."""
    from streamlit.testing.v1 import AppTest

    from linecnn.ui import i18n

    at = AppTest.from_function(_pages_state)
    at.session_state[i18n.LANGUAGE] = language
    at.run()
    assert not at.exception
    train, bench = (c.value for c in at.caption)
    assert threads_said in train and cell_said in train and "14" in train
    assert bench.endswith(train) and ("Run 1" in bench or "Ejecución 1" in bench)


def test_agreeing_figures_say_so_and_a_validation_gap_gives_its_share():
    """A cell of 14 ms on 1 thread agrees with 14.7 ms; one of 10 ms leaves the validation, 32 % of it."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_pages_state)
    at.session_state["cell_ms"], at.session_state["cell_threads"] = 14.0, 1
    at.run()
    assert not at.exception
    assert "within 20 % of the Train page's 14.70 ms" in at.caption[0].value
    at.session_state["cell_ms"] = 10.0
    at.run()
    share = "also validates every epoch and counts its first ones: about 32% of its figure"
    assert share in at.caption[0].value


def test_the_thread_sentence_fits_which_side_had_more_threads():
    """More threads on the Benchmark: contention when it was slower, sharing when faster; fewer: plain."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_thread_sentences).run()
    assert not at.exception
    slower, faster, fewer = (c.value for c in at.caption)
    assert "wait for whichever thread the machine set aside" in slower
    assert "shared each step over 2 threads where the Train run had 1 thread" in faster
    assert "it ran on 1 thread and the Train run on 2 threads" in fewer


def _thread_sentences() -> None:
    """The three thread sentences, as captions."""
    import streamlit as st

    from linecnn.bench.agree import compare
    from linecnn.ui.agree import sentence

    for train_ms, cell_ms, threads, cell_threads in ((10, 100, 1, 2), (100, 10, 1, 2), (10, 100, 2, 1)):
        st.caption(sentence(compare(train_ms, cell_ms, threads, cell_threads), threads, cell_threads))


def test_a_run_without_a_matching_cell_adds_nothing():
    """A Train run of another width: no cell to compare with, no sentence on either page."""
    from linecnn.ui.agree import matching_cell
    from linecnn.ui.state import RunRecord

    record = RunRecord(1, RunConfig.from_flat(width=2), "cpu", (), [[0] * 3] * 3, model=None, threads=1)
    assert matching_cell(record, []) is None
