"""Integer input straight to packed codes (:mod:`fsel.kernels.packed_codes`): the same
bytes as coding the table (``np.unique`` per column) and packing the codes in place,
for any dtype, offset, gaps, odd or even width and number of threads; and the fits
that take this path select what the general path selects."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel
import fsel.kernels._counting as counting
import fsel.kernels.packed_codes as packed_codes

pytest.importorskip("numba")


def _reference(X):
    C = np.array(
        [np.unique(X[:, j], return_inverse=True)[1].reshape(-1) for j in range(X.shape[1])]
    )
    levels = np.array([np.unique(X[:, j]).size for j in range(X.shape[1])])
    return C.astype(np.uint8), levels


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 300),
    d=st.integers(2, 9),
    levels=st.integers(1, 8),
    threads=st.integers(1, 4),
    dtype=st.sampled_from([np.uint8, np.int8, np.int16, np.int64, np.uint64, np.bool_]),
)
def test_packed_codes_equal_coded_then_packed(seed, n, d, levels, threads, dtype):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, (n, d))
    if dtype is not np.bool_:
        X = X * rng.integers(1, 3, d) + rng.integers(-3, 4, d) * (
            dtype not in (np.uint8, np.uint64)
        )
        X = X.astype(dtype)
    else:
        X = (X % 2).astype(bool)
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(counting, "SMALL_TABLE_CELLS", 0)
        mp.setattr(packed_codes, "_ROWS_PER_THREAD", 1)
        got = packed_codes.packed_integer_codes(X, threads)
    finally:
        mp.undo()
    C, lv = _reference(X)
    if int(np.ptp(X.astype(np.int64), axis=0).max()) + 1 > 16:
        assert got is None
        return
    pc, got_levels = got
    want = counting.pack_pairs_in_place(C.copy(), top=int(lv.max()) - 1)
    np.testing.assert_array_equal(got_levels, lv)
    assert pc.a == want.a and pc.shape == want.shape and pc.max() == want.max()
    np.testing.assert_array_equal(pc.packed, want.packed)
    np.testing.assert_array_equal(np.asarray(pc), C)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_levels_the_sample_misses(threads, monkeypatch):
    """The pass packs with the ranges of 4,096 evenly spaced rows: a column whose
    largest or smallest value, or a level inside its range, shows up only in rows
    off the sample gives the same bytes as coding the whole table (row 1 is never in
    the sample of 20,000 rows: the sampled rows step by about 4.9)."""
    monkeypatch.setattr(packed_codes, "_ROWS_PER_THREAD", 1)
    monkeypatch.setattr(counting, "SMALL_TABLE_CELLS", 0)
    rng = np.random.default_rng(3)
    n = 20_000
    base = rng.integers(0, 4, (n, 6)).astype(np.int16)
    base[:, 4] = rng.integers(0, 2, n) * 2  # levels 0 and 2: 1 only off the sample
    for row, col, value in [(1, 2, 9), (1, 3, -2), (1, 4, 1), (n - 2, 5, 15), (None, 0, 0)]:
        X = base.copy()
        if row is not None:
            X[row, col] = value
        got = packed_codes.packed_integer_codes(X, threads)
        C, lv = _reference(X)
        pc, got_levels = got
        want = counting.pack_pairs_in_place(C.copy(), top=int(lv.max()) - 1)
        np.testing.assert_array_equal(got_levels, lv)
        assert pc.a == want.a
        np.testing.assert_array_equal(pc.packed, want.packed)
    X = base.copy()
    X[1, 1] = 40  # off the sample, and too wide to pack
    assert packed_codes.packed_integer_codes(X, threads) is None


@pytest.mark.parametrize("layout", ["F", "strided"])
def test_any_memory_layout(layout, monkeypatch):
    """A Fortran-ordered table or a strided view (no flat view: the ranges go a row at
    a time) gives the bytes of its C-ordered copy."""
    monkeypatch.setattr(counting, "SMALL_TABLE_CELLS", 0)
    monkeypatch.setattr(packed_codes, "_ROWS_PER_THREAD", 1)
    rng = np.random.default_rng(4)
    big = rng.integers(0, 7, (6001, 14)).astype(np.int32)
    X = np.asfortranarray(big[:, :7]) if layout == "F" else big[::2, 1::2]
    assert not X.flags.c_contiguous
    for threads in (1, 3):
        got, got_levels = packed_codes.packed_integer_codes(X, threads)
        want, want_levels = packed_codes.packed_integer_codes(np.ascontiguousarray(X), 1)
        np.testing.assert_array_equal(got.packed, want.packed)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        np.testing.assert_array_equal(got_levels, want_levels)
        np.testing.assert_array_equal(np.asarray(got), _reference(X)[0])


def test_wide_or_small_tables_take_the_general_path():
    X = np.arange(40_000 * 4).reshape(-1, 4) % 17  # 17 values: too many to pack
    assert packed_codes.packed_integer_codes(X) is None
    assert packed_codes.packed_integer_codes(X[:10] % 3) is None  # small: numpy's path
    assert packed_codes.packed_integer_codes(np.zeros((50_000, 1), np.uint8)) is None


@pytest.mark.parametrize("discretize", [None, "quantile"])
@pytest.mark.parametrize("name", ["JMI", "MRMR", "DISR", "CMI", "MIM"])
def test_fits_on_packed_codes_equal_the_general_path(name, discretize, monkeypatch):
    rng = np.random.default_rng(5)
    n, d = 50_000, 9
    X = rng.integers(0, 6, (n, d)).astype(np.int32)
    X[:, 2] = X[:, 2] * 2 + 7  # gaps and an offset
    y = (X[:, 0] + X[:, 1] // 2 + rng.integers(0, 2, n)) % 3
    cls = getattr(fsel, name)
    taken = []
    real = packed_codes.packed_integer_codes
    monkeypatch.setattr(
        packed_codes, "packed_integer_codes", lambda v, n_jobs=1: taken.append(1) or real(v, n_jobs)
    )
    fast = cls(4, discretize=discretize, n_jobs=2).fit(X, y)  # "auto": 18 bins, >= 16
    assert taken  # the packed path ran
    monkeypatch.setattr(packed_codes, "packed_integer_codes", lambda values, n_jobs=1: None)
    slow = cls(4, discretize=discretize, n_jobs=1).fit(X, y)
    assert fast.selection_order_.tolist() == slow.selection_order_.tolist()
    assert fast.scores_.tobytes() == slow.scores_.tobytes()
    np.testing.assert_array_equal(fast.n_levels_, slow.n_levels_)
    assert fast.bin_edges_ == slow.bin_edges_


def test_few_bins_keep_the_binning_rule():
    """With fewer than 16 bins an integer column with more distinct values than bins is
    binned (a number): the packed path stays out of the way."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 12, (50_000, 4)).astype(np.int32)
    y = X[:, 0] > 5
    est = fsel.JMI(2, discretize="uniform", n_bins=5).fit(X, y)
    assert est.n_levels_.max() <= 5 and est.bin_edges_[0] is not None
