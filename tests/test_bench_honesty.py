"""Fast honesty check: bench's CPU ms/epoch agrees with an independent loop timed by torch's Timer.

The reference (scripts/bench_honesty.py) has its own model, data and epoch loop, so a clock that
skips work, counts it twice or divides by the wrong number of epochs shows as a ratio off 1.
The full version, with a bigger cell and more rounds, is the script itself.
"""

from __future__ import annotations

from linecnn.bench import BenchConfig
from scripts.bench_honesty import TOLERANCE, compare


def test_bench_agrees_with_an_independent_loop_on_the_lessons_cell():
    """On the lesson's cell, bench's median and the reference's, in rounds of alternating order,
    agree within 20 %: measured once, no second try."""
    result = compare(BenchConfig(warmup=2, repeats=5), rounds=6)
    assert abs(result["ratio"] - 1) <= TOLERANCE, result
