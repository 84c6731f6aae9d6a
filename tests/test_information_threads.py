"""The information criteria give the same selection, bit for bit, whatever ``n_jobs``.

The threads split the rows of the coding pass and of every counting pass (integer
histograms, summed: exact) or the features (each thread its own outputs); the tests
force those parallel paths on small tables and compare every fitted array with the
one-thread fit, and with numpy's counts.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fsel
import fsel.kernels._counting as counting
import fsel.kernels.discretize as discretize
import fsel.kernels.lazy_cmim as lazy_cmim
import fsel.kernels.packed_codes as packed_codes
import fsel.kernels.pair_step as pair_step
from _criteria import INFORMATION_CRITERIA

pytest.importorskip("numba")


@pytest.fixture
def parallel_paths(monkeypatch):
    """Every table takes the compiled, threaded paths (not the small-table numpy one)."""
    monkeypatch.delenv("FSEL_DISABLE_NUMBA", raising=False)
    monkeypatch.setattr(counting, "SMALL_TABLE_CELLS", 0)
    monkeypatch.setattr(discretize, "SMALL_TABLE_CELLS", 0)
    monkeypatch.setattr(counting, "_ROW_SPLIT_MIN_ROWS", 1)
    monkeypatch.setattr(discretize, "_ROWS_PER_THREAD", 1)
    monkeypatch.setattr(pair_step, "_MIN_ROWS_PER_THREAD", 1)
    monkeypatch.setattr(packed_codes, "_ROWS_PER_THREAD", 1)
    monkeypatch.setattr(lazy_cmim, "ROWS_PER_THREAD", 1)  # CMIM's terms split by rows


def _table(seed: int, n: int, d: int, levels: int, classes: int, dtype):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, (n, d)).astype(dtype)
    X[:, 0] = X[:, 0] * 3 + 2  # gaps and an offset: the coding pass remaps
    y = (X[:, 1].astype(int) + X[:, 2] + rng.integers(0, 2, n)) % classes
    return X, y.astype(np.int64)


def _fitted(est):
    return (
        est.selection_order_.tolist(),
        est.scores_.tobytes(),
        est.selection_scores_.tobytes(),
        est.relevance_.tobytes(),
    )


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(40, 700),
    d=st.integers(3, 11),
    levels=st.integers(2, 7),
    classes=st.integers(2, 3),
    dtype=st.sampled_from([np.uint8, np.int64, np.int16]),
    name=st.sampled_from(["JMI", "MIM", "MRMR", "CMIM", "DISR"]),
)
def test_same_selection_for_every_n_jobs(parallel_paths, seed, n, d, levels, classes, dtype, name):
    X, y = _table(seed, n, d, levels, classes, dtype)
    cls = getattr(fsel, name)
    one = _fitted(cls(min(5, d), discretize=None, n_jobs=1).fit(X, y))
    for n_jobs in (2, 3, -1):
        assert _fitted(cls(min(5, d), discretize=None, n_jobs=n_jobs).fit(X, y)) == one


@pytest.mark.parametrize("name", INFORMATION_CRITERIA)
def test_every_criterion_threads_alike(parallel_paths, name):
    X, y = _table(7, 900, 9, 5, 3, np.uint8)
    cls = getattr(fsel, name)
    one = _fitted(cls(4, n_jobs=1).fit(X, y))
    assert _fitted(cls(4, n_jobs=2).fit(X, y)) == one


def test_threaded_counts_equal_numpy_counts(parallel_paths, monkeypatch):
    rng = np.random.default_rng(0)
    C = rng.integers(0, 6, (9, 5000)).astype(np.uint8)
    z = rng.integers(0, 8, 5000).astype(np.uint8)
    table = counting.nlogn_table(5000, 3)
    packed = counting.pack_pairs(C)
    got = counting.paired_nlogn(C, packed, z, 8, 2, table, n_jobs=3)
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")
    want = counting.grouped_nlogn(C, z.astype(np.int64), 8, 2, table)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
