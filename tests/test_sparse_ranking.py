"""Yuan's ranking indices on sparse input: identical to the dense path (issue 13)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel
from fsel.kernels import ranking_sparse
from fsel.kernels.ranking_indices import DIFFERENCE_COEFFICIENTS, INDEX_NAMES, ranking_scores
from fsel.kernels.ranking_sparse import SPARSE_RANK_INDICES, _columns


def _matrix(seed: int, n: int, d: int, density: float, dtype):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        vals = np.round(rng.standard_normal((n, d)) * 2, 1)  # ties, negatives, positives
    else:
        vals = rng.integers(1, 4, (n, d))
    dense = np.where(rng.random((n, d)) < density, vals, 0).astype(dtype)
    dense[:, rng.integers(d)] = 0  # an all-zero column
    return dense


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(6, 50),
    d=st.integers(1, 8),
    density=st.sampled_from([0.0, 0.05, 0.3, 0.8, 1.0]),
    dtype=st.sampled_from([np.int8, np.uint16, np.float32, np.float64]),
    numeric_y=st.booleans(),
    fmt=st.sampled_from(["csr", "csc", "coo"]),
)
def test_every_index_sparse_equals_dense(seed, n, d, density, dtype, numeric_y, fmt):
    dense = _matrix(seed, n, d, density, dtype)
    rng = np.random.default_rng(seed + 7)
    y = rng.standard_normal(n) if numeric_y else rng.integers(0, 3, n).astype(float)
    y[:2] = [0.0, 1.0]
    X = sp.coo_matrix(dense).asformat(fmt)
    before = X.toarray().copy()
    a = ranking_scores(X, y, INDEX_NAMES)
    b = ranking_scores(dense, y, INDEX_NAMES)
    for name in INDEX_NAMES:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-12, atol=1e-12, err_msg=name)
    np.testing.assert_array_equal(X.toarray(), before)


def test_sparse_columns_place_the_zeros_by_counts():
    """The zeros are one tie group between the negatives and the positives: its mid
    position and group number come from counts, those of the stored values shift past
    it when positive."""
    dense = np.array([[0.0, 2.0], [-1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [-1.0, -5.0]])
    cols = _columns(sp.csc_matrix(dense), 0, 2)
    # column 0: -1 (rows 1, 4) at positions 0-1, zeros (rows 0, 2) at 2-3, 3 at 4
    # column 1: -5 at 0, zeros (rows 1, 3) at 1-2, 2 (rows 0, 2) at 3-4
    assert cols.two_mid.tolist() == [2, 9, 2, 8, 8, 1]
    assert cols.group.tolist() == [0, 2, 0, 2, 2, 0]
    assert cols.zero_two_mid.tolist() == [6, 4]
    assert cols.zero_group.tolist() == [1, 1]
    assert cols.n_distinct.tolist() == [3, 3]


def _random_sparse(draw_seed, n, d, density, scale, decimals):
    """A random sparse matrix: negative and positive stored values (ties when rounded),
    explicit stored zeros, an all-zero column; and its dense copy."""
    rng = np.random.default_rng(draw_seed)
    vals = np.round(rng.standard_normal((n, d)) * scale, decimals)
    mask = rng.random((n, d)) < density
    dense = np.where(mask, vals, 0.0)
    dense[:, rng.integers(d)] = 0.0
    r, c = np.nonzero(mask | (rng.random((n, d)) < 0.05))  # some stored zeros
    X = sp.coo_matrix((dense[r, c], (r, c)), shape=(n, d))
    return X, dense


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(3, 200),
    d=st.integers(1, 10),
    density=st.sampled_from([0.0, 0.01, 0.1, 0.5, 0.9, 1.0]),
    decimals=st.sampled_from([0, 1, 6]),
    target=st.sampled_from(["numeric", "classes", "tied"]),
    slices=st.tuples(st.integers(2, 12), st.integers(2, 8), st.integers(2, 8)),
    fmt=st.sampled_from(["csr", "csc", "coo"]),
)
def test_sparse_path_equals_dense(seed, n, d, density, decimals, target, slices, fmt):
    """Rank indices bit for bit (np.array_equal), difference indices to rounding."""
    X, dense = _random_sparse(seed, n, d, density, 2.0, decimals)
    rng = np.random.default_rng(seed + 1)
    if target == "numeric":
        y = rng.standard_normal(n)
    elif target == "classes":
        y = rng.integers(0, 3, n).astype(float)
    else:
        y = np.round(rng.standard_normal(n), 0)
    y[:2] = [0.0, 1.0]
    names = [
        nm
        for nm in INDEX_NAMES
        if nm not in DIFFERENCE_COEFFICIENTS or DIFFERENCE_COEFFICIENTS[nm][0].size <= n
    ]
    kw = dict(n_slices=slices[0], n_bins_x=slices[1], n_bins_y=slices[2])
    a = ranking_scores(X.asformat(fmt), y, names, **kw)
    b = ranking_scores(dense, y, names, **kw)
    for name in names:
        if name in SPARSE_RANK_INDICES:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)
        else:
            np.testing.assert_allclose(a[name], b[name], rtol=1e-10, atol=1e-12, err_msg=name)


def test_sparse_blocks_do_not_change_the_scores(monkeypatch):
    X, _ = _random_sparse(5, 120, 30, 0.2, 3.0, 1)
    y = np.random.default_rng(6).standard_normal(120)
    whole = ranking_scores(X, y, INDEX_NAMES)
    monkeypatch.setattr(ranking_sparse, "_BLOCK_ENTRIES", 40)  # a few columns a block
    blocked = ranking_scores(X, y, INDEX_NAMES)
    for name in INDEX_NAMES:
        np.testing.assert_array_equal(blocked[name], whole[name], err_msg=name)


def test_long_sparse_columns_are_scored_from_their_stored_values():
    """200,000 rows: the columns with a few stored values equal the dense ones (the
    zero block of the difference indices is summed from runs of rows)."""
    n, d = 200_000, 400
    rng = np.random.default_rng(8)
    rows, cols = rng.integers(0, n, 600), rng.integers(0, d, 600)
    X = sp.csc_matrix((rng.standard_normal(600), (rows, cols)), shape=(n, d))
    y = rng.standard_normal(n)
    y[rows[:50]] += 3.0 * np.sign(np.asarray(X[rows[:50], cols[:50]]).ravel())
    got = ranking_scores(X, y, INDEX_NAMES)
    pick = np.r_[np.unique(cols)[:6], np.setdiff1d(np.arange(d), cols)[:1]]
    ref = ranking_scores(X[:, pick].toarray(), y, INDEX_NAMES)
    for name in INDEX_NAMES:
        if name in SPARSE_RANK_INDICES:
            np.testing.assert_array_equal(got[name][pick], ref[name], err_msg=name)
        else:
            np.testing.assert_allclose(got[name][pick], ref[name], rtol=1e-10, err_msg=name)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(8, 120),
    density=st.sampled_from([0.05, 0.3, 0.9]),
    index=st.sampled_from(INDEX_NAMES),
)
def test_bootstrap_ranking_sparse_equals_dense(seed, n, density, index):
    X, dense = _random_sparse(seed, n, 6, density, 2.0, 6)
    y = np.random.default_rng(seed + 3).integers(0, 2, n).astype(float)
    y[:2] = [0.0, 1.0]
    kw = dict(index=index, n_features_to_select=3, n_resamples=5, random_state=seed)
    a = fsel.BootstrapRanking(**kw).fit(X.tocsr(), y)
    b = fsel.BootstrapRanking(**kw).fit(dense, y)
    if index in SPARSE_RANK_INDICES:
        np.testing.assert_array_equal(a.resample_scores_, b.resample_scores_)
        np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    else:
        np.testing.assert_allclose(a.resample_scores_, b.resample_scores_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("index", ["In", "K3", "mi"])
def test_selectors_on_sparse(index):
    rng = np.random.default_rng(3)
    dense = _matrix(3, 90, 12, 0.3, np.int8).astype(float)
    y = (dense[:, 4] > 0).astype(int) ^ (rng.random(90) < 0.1)
    y[:2] = [0, 1]
    X = sp.csr_matrix(dense)
    a = fsel.RankingIndex(4, index=index).fit(X, y)
    b = fsel.RankingIndex(4, index=index).fit(dense, y)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_allclose(a.index_values_, b.index_values_, atol=1e-12)
    kw = dict(index=index, n_features_to_select=4, n_resamples=8, random_state=0)
    c = fsel.BootstrapRanking(**kw).fit(X, y)
    e = fsel.BootstrapRanking(**kw).fit(dense, y)
    np.testing.assert_allclose(c.resample_scores_, e.resample_scores_, atol=1e-12)
    np.testing.assert_array_equal(c.selection_order_, e.selection_order_)


def test_sparse_nan_is_refused():
    X = sp.csr_matrix(np.array([[np.nan, 1.0], [0.0, 2.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="NaN"):
        ranking_scores(X, [0.0, 1.0, 0.0], "K3")
