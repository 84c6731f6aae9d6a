"""Peak memory of a JMI fit, measured in a fresh process (issue: at most 1.5x the table).

JMI on 4,000,000 x 100 ``uint8`` codes (10 levels, binary ``int64`` target, default
settings) may raise the process's peak resident set by at most 1.5 times the table's
bytes, numba's own import included (the measurement of
``benchmarks/bench_memory.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def test_jmi_peak_rss_rise_is_at_most_1_5x_the_table():
    if not Path("/proc/self/clear_refs").exists():
        pytest.skip("needs Linux /proc to reset and read the peak resident set")
    pytest.importorskip("numba")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        from bench_memory import measure
    finally:
        sys.path.pop(0)
    run = measure(4_000_000, warm=False)
    assert set(run["selection"][:5]) == {0, 1, 2, 3, 4}  # the informative columns
    assert run["ratio"] <= 1.5, f"peak RSS rose by {run['ratio']:.2f}x the table"
