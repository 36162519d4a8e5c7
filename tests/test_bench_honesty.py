"""Fast honesty check: bench's CPU ms/epoch agrees with torch.utils.benchmark.Timer on the same epoch.

The full version, with a bigger cell and more rounds, is scripts/bench_honesty.py.
"""

from __future__ import annotations

from linecnn.bench import BenchConfig
from scripts.bench_honesty import TOLERANCE, compare


def test_bench_agrees_with_torch_timer_on_the_seed_cell():
    """On the lesson's cell bench's median and Timer's, taken in alternating rounds, agree within 20 %."""
    # A shared 2-core machine can be hit by a neighbour's long burst: allow more tries, each one whole.
    tries = []
    for _ in range(3):
        tries.append(compare(BenchConfig(warmup=2, repeats=5), rounds=6))
        if tries[-1]["agree"]:
            break
    assert abs(tries[-1]["ratio"] - 1) <= TOLERANCE, tries
