"""The data-adaptive binning rules: n_bins="auto", exact quantiles on sparse and Dask
input, and the crowded-bin check."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel
from fsel.kernels.binning import (
    auto_n_bins,
    check_n_bins,
    crowded_columns,
    dask_quantiles,
    quantile_fractions,
    sparse_quantile_edges,
)
from fsel.kernels.discretize import discretize
from fsel.kernels.discretize_sparse import discretize_sparse


def test_auto_rule_is_the_stated_cube_root():
    for n in (1, 7, 64, 100, 999, 2000, 8000, 10**5, 10**7, 10**12):
        by_hand = max(2, min(64, round(n ** (1 / 3) / 2)))
        assert auto_n_bins(n) == by_hand
    assert auto_n_bins(8000) == 10  # cube root 20, halved
    assert [auto_n_bins(n) for n in (10, 10**3, 10**6)] == [2, 5, 50]


@pytest.mark.parametrize("bad", [1, 0, -3, 2.5, "many", None, True])
def test_n_bins_is_validated(bad):
    with pytest.raises(ValueError, match="n_bins must be an integer >= 2 or 'auto'"):
        check_n_bins(bad, 100)


def test_auto_bins_through_discretize_equal_the_count_given_explicitly():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 3))
    b = auto_n_bins(3000)
    for strategy in ("uniform", "quantile"):
        c_auto, lev_auto, _e_auto = discretize(X, None, "auto", strategy)
        c_int, _lev_int, _e_int = discretize(X, None, b, strategy)
        np.testing.assert_array_equal(c_auto, c_int)
        assert lev_auto.tolist() == [b] * 3


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False, width=32), min_size=0, max_size=40),
    st.integers(0, 30),
    st.integers(2, 9),
)
def test_sparse_quantile_edges_equal_those_of_the_expanded_column(stored, n_zeros, n_bins):
    vals = np.asarray([v for v in stored if v != 0.0], dtype=np.float64)
    if vals.size + n_zeros == 0:
        return
    dense = np.concatenate([vals, np.zeros(n_zeros)])
    np.testing.assert_array_equal(
        sparse_quantile_edges(vals, n_zeros, n_bins), plain_quantile_edges(dense, n_bins)
    )


def plain_quantile_edges(col: np.ndarray, n_bins: int) -> np.ndarray:
    """The documented rule written out plainly: the distinct quantiles at ``1/B ..
    (B-1)/B``; a value two of them equal, or the column's minimum where it is an edge,
    also gets an edge at the smallest value above it (if any); an edge at the minimum
    (it separates nothing) is dropped."""
    qs = np.quantile(col, quantile_fractions(n_bins)).tolist()
    low = float(np.min(col))
    tied = {v for v in qs if qs.count(v) > 1} | ({low} & set(qs))
    edges = set(qs)
    for v in tied:
        higher = [u for u in col.tolist() if u > v]
        edges |= {min(higher)} if higher else set()
    return np.asarray(sorted(edges - {low}), dtype=np.float64)


def test_sparse_quantile_codes_equal_dense_codes_with_zero_in_its_bin():
    rng = np.random.default_rng(2)
    X = rng.lognormal(0, 2, size=(400, 6)) * (rng.random((400, 6)) < 0.3)
    X[:, 1] -= 0.5 * (X[:, 1] != 0) * rng.random(400)  # negatives and positives
    for bins in (3, 5, "auto"):
        dense_codes, dense_levels, dense_edges = discretize(X, None, bins, "quantile")
        sc, levels, edges = discretize_sparse(sp.csc_matrix(X), None, bins, "quantile")
        np.testing.assert_array_equal(sc.toarray(), dense_codes)
        np.testing.assert_array_equal(levels, dense_levels)
        for a, b in zip(dense_edges, edges, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("chunk", [97, 500, 2500])
def test_dask_quantiles_equal_numpy_on_heavy_tails_ties_and_holes(chunk):
    dask = pytest.importorskip("dask")
    rng = np.random.default_rng(3)
    n = 6000
    X = np.exp(3 * rng.normal(size=(n, 5)))
    X[rng.random((n, 5)) < 0.02] = 999999.0  # outlier cells
    X[:, 2] = rng.integers(0, 4, n)  # heavy ties
    X[rng.random(n) < 0.2, 3] = np.nan  # holes
    X[:, 4] = 7.0  # constant
    blocks = [dask.delayed(X[i : i + chunk]) for i in range(0, n, chunk)]
    for bins in (2, 5, 17):
        qs = quantile_fractions(bins)
        got = dask_quantiles(blocks, np.arange(5), qs)
        for c in range(5):
            v = X[:, c][~np.isnan(X[:, c])]
            np.testing.assert_array_equal(got[c], np.quantile(v, qs))


def test_dask_auto_quantile_fit_equals_in_memory():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(4)
    X = np.exp(3 * rng.normal(size=(3000, 8)))
    y = (np.log(X[:, 1]) + np.log(X[:, 5]) > 0).astype(int)
    X[rng.random(X.shape) < 0.1] = np.nan
    mem = fsel.JMI(4, discretize="quantile", n_bins="auto").fit(X, y)
    dsk = fsel.JMI(4, discretize="quantile", n_bins="auto").fit(
        da.from_array(X, chunks=(700, 8)), y
    )
    np.testing.assert_array_equal(mem.selection_order_, dsk.selection_order_)
    np.testing.assert_allclose(mem.scores_, dsk.scores_, rtol=1e-10, atol=1e-12)
    for a, b in zip(mem.bin_edges_, dsk.bin_edges_, strict=True):
        np.testing.assert_array_equal(a, b)
    assert set(mem.selection_order_[:2].tolist()) == {1, 5}


def test_crowded_columns_flags_outlier_set_bins_only():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(500, 4))
    X[3, 1] = 1e6  # one outlier: every other row in the first equal-width bin
    X[:, 2] = np.where(rng.random(500) < 0.97, 0.0, rng.normal(size=500))  # 97% one value
    X[:, 3] = np.exp(4 * rng.normal(size=500))  # heavy tail
    codes, levels, edges = discretize(X, None, 5, "uniform")
    assert crowded_columns(codes, levels, edges, X) == [1, 3]
    with pytest.MonkeyPatch.context() as mp:  # the code counts in threads, however small
        mp.setattr("fsel.kernels.binning.n_threads_for", lambda nbytes, jobs: jobs)
        assert crowded_columns(codes, levels, edges, X, n_jobs=3) == [1, 3]
    codes, levels, edges = discretize(X, None, 5, "quantile")
    assert crowded_columns(codes, levels, edges, X) == []
    # sparse: the same columns, read from the stored entries
    sc, levels, edges = discretize_sparse(sp.csc_matrix(X), None, 5, "uniform")
    assert crowded_columns(sc, levels, edges, sp.csc_matrix(X)) == [1, 3]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(2, 80),
    strategy=st.sampled_from(["quantile", "uniform"]),
    holes=st.sampled_from(["none", "some", "every"]),
    code_col=st.booleans(),
    n_jobs=st.integers(2, 5),
)
def test_discretize_in_threads_gives_the_one_thread_codes(
    seed, n, strategy, holes, code_col, n_jobs
):
    """The quantile edges (threads over columns), the binning and the coding (threads
    over rows) give the same edges, codes and levels for any ``n_jobs``; here every
    table, however small, is split (the threshold of bytes a thread is lifted)."""
    import fsel.kernels.discretize as dz

    rng = np.random.default_rng(seed)
    X = np.round(rng.standard_cauchy((n, 5)), 1)
    X[:, 3] = rng.integers(0, 4, n)
    discrete = np.array([False, False, False, code_col, False])
    missing = None
    if holes != "none":
        cols = [0, 1, 2, 3, 4] if holes == "every" else [1, 3]
        for j in cols:
            X[rng.random(n) < 0.2, j] = np.nan
        missing = np.isnan(X).any(axis=0)
    before = X.copy()
    one = discretize(X, discrete, 3, strategy, missing)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dz, "n_threads_for", lambda nbytes, jobs: jobs)
        mp.setattr("fsel.kernels.quantiles.n_threads_for", lambda nbytes, jobs: jobs)
        many = discretize(X, discrete, 3, strategy, missing, n_jobs=n_jobs)
    np.testing.assert_array_equal(many[0], one[0])
    np.testing.assert_array_equal(many[1], one[1])
    assert [None if e is None else e.tolist() for e in many[2]] == [
        None if e is None else e.tolist() for e in one[2]
    ]
    np.testing.assert_array_equal(X, before)  # the input is not modified


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(2, 60), nan_bin=st.booleans())
def test_apply_bin_edges_is_the_same_with_and_without_numba(seed, n, nan_bin):
    """The compiled binary search and numpy's edge-by-edge count bin alike: values on
    the edges, infinities, NaN (bin 0, or one above every bin), code columns kept."""
    import fsel.kernels.discretize as dz

    rng = np.random.default_rng(seed)
    X = np.round(rng.standard_cauchy((n, 4)), 0)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[rng.random(X.shape) < 0.05] = np.inf
    edges = [np.unique(rng.integers(-3, 4, k).astype(float)) for k in (3, 1, 6)] + [None]
    X[:, 3] = rng.integers(0, 5, n)  # a code column
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dz, "SMALL_TABLE_CELLS", 0)  # every table large enough to compile for
        compiled = dz.apply_bin_edges(X, edges, nan_bin=nan_bin, n_jobs=2)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dz, "numba_available", lambda: False)
        plain = dz.apply_bin_edges(X, edges, nan_bin=nan_bin)
    assert compiled.dtype == plain.dtype
    np.testing.assert_array_equal(compiled, plain)


# ------------------------------------------- in memory: the compiled radix selection


def _spread(rng: np.random.Generator, kind: str, n: int, big: int = 300) -> np.ndarray:
    """Columns that exercise every path of the selection: heavy tails, ties, signed
    zeros, one value, values packed within a few units of the last place (many
    counting levels), magnitudes from ``10**-big`` to ``10**big``."""
    if kind == "tails":
        return rng.standard_t(1.5, n)
    if kind == "ties":
        return rng.integers(-3, 4, n).astype(np.float64)
    if kind == "zeros":
        x = np.where(rng.random(n) < 0.5, 0.0, rng.standard_normal(n))
        x[rng.random(n) < 0.3] = -0.0
        return x
    if kind == "one":
        return np.full(n, 2.5)
    if kind == "packed":  # 1 + k ulp for a handful of k: all keys share 40+ bits
        return 1.0 + rng.integers(0, 2 ** rng.integers(1, 50), n) * np.finfo(float).eps
    return rng.standard_normal(n) * 10.0 ** rng.integers(-big, big, n)


KINDS = ["tails", "ties", "zeros", "one", "packed", "magnitudes"]


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 3000),
    kind=st.sampled_from(KINDS),
    n_ranks=st.integers(1, 120),
)
def test_radix_selection_equals_a_sort_of_the_keys(seed, n, kind, n_ranks):
    """The compiled selection (numba) against ``np.sort``: the keys at the wanted
    ranks; and the keys order the values as the floats do (``-0.0`` as ``0.0``)."""
    from fsel.kernels import _numba_select as k

    rng = np.random.default_rng(seed)
    x = _spread(rng, kind, n)
    if kind == "tails":
        x[rng.random(n) < 0.1] = np.nan  # NaN is skipped
    keys = np.empty((1, n), dtype=np.uint64)
    count = np.zeros(1, dtype=np.int64)
    k.float_keys(x.reshape(-1, 1), 0, keys, count)
    obs = x[~np.isnan(x)]
    assert count[0] == obs.size
    m = obs.size
    if m == 0:
        return
    key = keys[0, :m].copy()
    order = np.argsort(key, kind="stable")
    assert np.all(np.diff(obs[order]) >= 0)  # the keys sort the values
    assert np.array_equal(np.argsort(obs, kind="stable"), order) or np.any(obs == 0)
    ranks = np.unique(rng.integers(0, m, n_ranks))
    out = np.empty(ranks.size, dtype=np.uint64)
    k.select_keys(keys[0], m, ranks, out, np.empty(m, dtype=np.uint64))
    np.testing.assert_array_equal(out, np.sort(key)[ranks])


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 500),
    d=st.integers(1, 9),
    dtype=st.sampled_from([np.float64, np.float32]),
    holes=st.booleans(),
    n_bins=st.integers(2, 70),
    n_jobs=st.integers(1, 3),
)
def test_column_quantiles_equal_numpy_bit_for_bit(seed, n, d, dtype, holes, n_bins, n_jobs):
    """``column_quantiles`` (compiled: keys, selection, numpy's interpolation) equals
    ``np.quantile`` of each column's observed values bit for bit (a float32 column's
    values read as float64, as everywhere in fsel), whatever the columns chosen and
    the threads."""
    from fsel.kernels.quantiles import column_quantiles

    rng = np.random.default_rng(seed)
    big = 300 if dtype == np.float64 else 30
    X = np.column_stack([_spread(rng, KINDS[j % len(KINDS)], n, big) for j in range(d)])
    X = X.astype(dtype)
    if holes:
        X[rng.random(X.shape) < 0.3] = np.nan
    cols = np.sort(rng.choice(d, int(rng.integers(1, d + 1)), replace=False))
    qs = quantile_fractions(n_bins)
    before = X.copy()
    found = column_quantiles(X, cols, qs, n_jobs=n_jobs)
    for j, got in zip(cols.tolist(), found, strict=True):
        c = X[:, j][~np.isnan(X[:, j])].astype(np.float64)
        want = np.quantile(c, qs) if c.size else np.zeros(0)
        assert got.dtype == want.dtype
        assert np.array_equal(got, want), (j, got, want)
    np.testing.assert_array_equal(X, before)


def test_column_quantiles_by_hand():
    """Five values 1, 2, 3, 7, 10: the 0.25 quantile sits at position 1 (2.0), the 0.9
    quantile at 3.6, its weight 0.6 >= 0.5, so numpy's ``10 - (10 - 7) * (1 - 0.6)``
    (8.8 up to rounding); a column of holes has none."""
    from fsel.kernels.quantiles import column_quantiles

    X = np.array([[3.0, np.nan], [1, np.nan], [10, np.nan], [7, np.nan], [2, np.nan]])
    got = column_quantiles(X, [0, 1], [0.25, 0.5, 0.9])
    g = 4 * 0.9 - 3
    assert got[0].tolist() == [2.0, 3.0, 10 - (10 - 7) * (1 - g)]
    assert abs(got[0][2] - 8.8) < 1e-12
    assert got[1].size == 0


@pytest.mark.parametrize("holes", ["none", "some", "every"])
def test_quantile_edges_of_large_tables_equal_the_numpy_path(holes):
    """Through ``discretize``: the compiled quantiles (float tables above the small-table
    size) give the same edges and codes as numpy's partition (numba disabled), the
    columns with holes read in place among complete ones."""
    import fsel.kernels.discretize as dz

    rng = np.random.default_rng(7)
    X = rng.standard_t(2, (3000, 6))
    X[:, 4] = np.round(X[:, 4])
    missing = None
    if holes != "none":
        holed = X if holes == "every" else X[:, [1, 4]]
        holed[rng.random(holed.shape) < 0.2] = np.nan
        if holes == "some":
            X[:, [1, 4]] = holed
        missing = np.isnan(X).any(axis=0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dz, "SMALL_TABLE_CELLS", 0)
        mp.setattr("fsel.kernels.quantiles.SMALL_TABLE_CELLS", 0)
        fast = discretize(X, np.zeros(6, bool), 12, "quantile", missing, n_jobs=2)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dz, "numba_available", lambda: False)
        mp.setattr("fsel.kernels.quantiles.numba_available", lambda: False)
        plain = discretize(X, np.zeros(6, bool), 12, "quantile", missing)
    np.testing.assert_array_equal(fast[0], plain[0])
    assert [e.tolist() for e in fast[2]] == [e.tolist() for e in plain[2]]


# ------------------------------------------------ float32 tables: read, not copied


def _float32_table(rng: np.random.Generator, n: int) -> np.ndarray:
    """Heavy tails, a float column of a few values (kept as codes), a constant column,
    ties, outliers and, in two columns, holes."""
    X = rng.standard_t(2, (n, 7)).astype(np.float32)
    X[:, 1] = rng.integers(0, 3, n)  # three values: taken as codes
    X[:, 2] = 4.5  # constant
    X[:, 3] = np.round(X[:, 3], 1)  # ties
    X[rng.random(n) < 0.02, 4] = 3e30  # outlier cells
    X[rng.random(n) < 0.1, 5] = np.nan
    X[rng.random(n) < 0.1, 6] = np.nan
    return X


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.sampled_from([40, 700, 24000]),  # 24,000 x 7: above the small-table size
    criterion=st.sampled_from(["JMI", "MIM", "CMIM", "MRMR"]),
    discretize=st.sampled_from(["quantile", "uniform"]),
)
def test_a_float32_table_fits_as_its_float64_copy(seed, n, criterion, discretize):
    """A float32 X is read where it is (no float64 copy of the table) and binned as its
    exact float64 values: the same edges, levels, picks and scores as the fit on
    ``X.astype(np.float64)``, on both the numpy (small) and compiled (large) paths."""
    rng = np.random.default_rng(seed)
    X = _float32_table(rng, n)
    y = (np.nan_to_num(X[:, 0]) + rng.standard_normal(n) > 0).astype(int)
    before = X.copy()
    kw = {"n_features_to_select": 4, "discretize": discretize, "n_jobs": 2}
    said = []
    for table in (X, X.astype(np.float64)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            said.append((getattr(fsel, criterion)(**kw).fit(table, y), caught))
    (a, warned_a), (b, warned_b) = said
    assert [str(w.message) for w in warned_a] == [str(w.message) for w in warned_b]
    assert [None if e is None else e.tolist() for e in a.bin_edges_] == [
        None if e is None else e.tolist() for e in b.bin_edges_
    ]
    np.testing.assert_array_equal(a.n_levels_, b.n_levels_)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(X, before)


def test_float32_table_is_a_read_only_view_not_a_copy():
    from fsel.utils.validation import check_table

    X = np.random.default_rng(0).standard_normal((50, 3)).astype(np.float32)
    kept = check_table(X, read_only=True, any_float_layout=True)
    assert kept.values.dtype == np.float32 and np.shares_memory(kept.values, X)
    assert not kept.values.flags.writeable and X.flags.writeable
    copied = check_table(X, read_only=True)  # without any_float_layout: a float64 copy
    assert copied.values.dtype == np.float64 and not np.shares_memory(copied.values, X)


@pytest.mark.parametrize("holes", [False, True])
@pytest.mark.parametrize("n", [300, 30000])
def test_float32_codes_fit_as_their_float64_copy(holes, n):
    """Integer-valued float32 columns taken as codes (``discretize=None``): the compiled
    compaction (large) and numpy's (small) read them as float64 values alike."""
    rng = np.random.default_rng(n)
    X = rng.integers(-3, 5, size=(n, 5)).astype(np.float32)
    if holes:
        X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.integers(0, 2, n) > 1).astype(int)
    a = fsel.JMI(3, discretize=None).fit(X, y)
    b = fsel.JMI(3, discretize=None).fit(X.astype(np.float64), y)
    np.testing.assert_array_equal(a.n_levels_, b.n_levels_)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_array_equal(a.scores_, b.scores_)


@pytest.mark.parametrize(
    "codes, want",
    [
        ([0.0, 3, 200], np.uint8),  # bins and codes within 0..255
        ([-1.0, 3, 9], np.int16),  # a negative code
        ([0.0, 3, 70000], np.int32),
        ([0.0, 3, 2.0**40], np.int64),
        ([0.0, 3.5, 9], np.float64),  # not integers: kept as they are
    ],
)
def test_binned_matrix_takes_the_smallest_type_of_bins_and_codes(codes, want):
    """``apply_bin_edges`` writes the smallest integer type holding the bin numbers and
    the code columns' values (the compiled and numpy paths alike), the values exact."""
    import fsel.kernels.discretize as dz

    X = np.column_stack([np.array([0.5, 2.5, 9.5]), np.array(codes)])
    edges = [np.array([1.0, 2.0, 3.0]), None]
    plain = dz.apply_bin_edges(X, edges)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dz, "SMALL_TABLE_CELLS", 0)
        compiled = dz.apply_bin_edges(X, edges, n_jobs=2)
    for out in (plain, compiled):
        assert out.dtype == want
        assert out[:, 0].tolist() == [0, 2, 3]
        assert out[:, 1].tolist() == codes


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.sampled_from([30, 400, 30000]),  # 30,000 x 5: the compiled paths
    holed=st.lists(st.booleans(), min_size=5, max_size=5),
    strategy=st.sampled_from(["quantile", "uniform"]),
)
def test_holes_in_some_columns_code_as_each_column_alone(seed, n, holed, strategy):
    """A table whose binned columns have holes in some columns only (and a complete
    code column, copied): each binned column's
    codes are the dense ranks of its observed values' bins (edges by
    ``searchsorted``), its holes the extra last level, and a flagged column without
    holes gets that level empty; the same as the column discretized alone."""
    rng = np.random.default_rng(seed)
    X = rng.standard_t(2, (n, 6))
    X[:, 5] = rng.integers(-2, 3, n)  # a complete code column (five values)
    for j in range(5):
        if holed[j]:
            X[rng.random(n) < 0.15, j] = np.nan
    missing = np.isnan(X).any(axis=0)
    missing[0] = True  # flagged, whether or not it has a hole
    codes, levels, edges = discretize(X, np.zeros(6, bool), 7, strategy, missing, n_jobs=2)
    assert edges[5] is None
    np.testing.assert_array_equal(codes[5], X[:, 5] + 2)  # its values, from 0
    for j in range(5):
        col = X[:, j]
        obs = ~np.isnan(col)
        bins = np.searchsorted(edges[j], col[obs], side="right")
        present, ranks = np.unique(bins, return_inverse=True)
        want = np.full(n, present.size)
        want[obs] = ranks
        np.testing.assert_array_equal(codes[j], want)
        assert levels[j] == present.size + missing[j]
        c1, l1, e1 = discretize(X[:, [j]], np.zeros(1, bool), 7, strategy, missing[[j]])
        np.testing.assert_array_equal(codes[j], c1[0])
        assert levels[j] == l1[0]
        assert edges[j].tolist() == e1[0].tolist()


def _zero_inflated(seed: int, n: int = 2000, zero_share: float = 0.97):
    """20 noise columns; column 19 an amount that is zero in ``zero_share`` of the
    rows, and whose presence moves ``P(y = 1)`` from 0.3 to 0.9."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 20))
    present = rng.random(n) > zero_share
    X[:, 19] = np.where(present, rng.lognormal(1.0, 1.0, n), 0.0)
    y = (rng.random(n) < np.where(present, 0.9, 0.3)).astype(np.int8)
    return X, y, present


@pytest.mark.parametrize("zero_share", [0.5, 0.855, 0.974])
def test_a_tied_smallest_value_is_a_bin_of_its_own(zero_share):
    """A zero-inflated amount (its zeros a share of the rows above ``1/n_bins``) keeps
    its zeros apart from the amounts above them: its relevance is that of the 0/1
    presence indicator or more, never 0, and MIM picks it first (it is the only
    relevant column). Before, every quantile edge of the 97% column was 0, which
    separates nothing: one bin, relevance exactly 0."""
    X, y, present = _zero_inflated(1, zero_share=zero_share)
    sel = fsel.MIM(1).fit(X, y)
    flag = fsel.MIM(1, discretize=None).fit(present[:, None].astype(np.int8), y)
    assert sel.bin_edges_[19][0] == X[present, 19].min()  # zeros | the amounts
    assert sel.relevance_[19] >= flag.relevance_[0] - 1e-12 > 0
    assert sel.selection_order_.tolist() == [19]


@settings(max_examples=80, deadline=None)
@given(
    low=st.sampled_from([-2.5, 0.0, 3.0]),
    ties=st.integers(0, 60),
    mode=st.integers(0, 60),
    rest=st.lists(st.floats(-10, 10, allow_nan=False, width=32), min_size=1, max_size=30),
    n_bins=st.integers(2, 8),
)
def test_dense_quantile_edges_follow_the_plain_rule(low, ties, mode, rest, n_bins):
    """The dense edges (:func:`discretize`, NaN rows left out) are the plain rule's on
    columns with a tied smallest value and a tied value inside the range (a mode)."""
    above = [v for v in rest if v > low]
    inner = [above[0]] * mode if above else []
    vals = np.asarray(above + inner + [low] * (ties + 1), dtype=np.float64)
    if np.unique(vals).size <= n_bins:
        return
    col = np.concatenate([vals, [np.nan, np.nan]])
    _codes, _levels, edges = discretize(col[:, None], None, n_bins, "quantile")
    np.testing.assert_array_equal(edges[0], plain_quantile_edges(vals, n_bins))


def test_zero_inflated_columns_bin_alike_dense_sparse_and_dask():
    """The same edges, codes and picks from a dense array, a CSR matrix (the zeros
    implicit) and Dask chunks (an extra pass finds the values above the tied ones)."""
    da = pytest.importorskip("dask.array")
    X, y, _ = _zero_inflated(4, n=3000)
    X[:, 3] = np.where(X[:, 3] > 1.2, X[:, 3], 0.0)  # ~89% zeros, negative values none
    X[:, 5] = np.where(X[:, 5] < -1.0, X[:, 5], 0.0)  # the minimum negative, zeros above
    X[:, 7] = np.where(np.abs(X[:, 7]) < 0.6, 0.5, X[:, 7])  # a mode inside the range
    dense = fsel.JMI(4).fit(X, y)
    sparse = fsel.JMI(4).fit(sp.csr_matrix(X), y)
    lazy = fsel.JMI(4).fit(da.from_array(X, chunks=(700, 20)), y)
    assert dense.selection_order_[0] == 19
    for other in (sparse, lazy):
        assert other.selection_order_.tolist() == dense.selection_order_.tolist()
        for a, b in zip(dense.bin_edges_, other.bin_edges_, strict=True):
            np.testing.assert_array_equal(a, b)
    assert dense.bin_edges_[3][0] == X[X[:, 3] > 0, 3].min()
    assert dense.bin_edges_[5][-1] == 0.0  # the zeros above every negative: the top bin
    assert 0.5 in dense.bin_edges_[7] and X[X[:, 7] > 0.5, 7].min() in dense.bin_edges_[7]
