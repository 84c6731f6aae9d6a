"""Yuan's ranking indices on sparse input: identical to the dense path (issue 13)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel
from fsel.kernels.ranking_indices import INDEX_NAMES, _sort, _sort_sparse, ranking_scores


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


def test_sparse_sort_is_the_stable_dense_argsort():
    """Zeros form one tied block, in row order, between negatives and positives."""
    dense = np.array([[0.0, 2.0], [-1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [-1.0, -5.0]])
    order, tie = _sort_sparse(sp.csc_matrix(dense))
    assert order.tolist() == [[1, 4, 0, 2, 3], [4, 1, 3, 0, 2]]
    ref_order, ref_tie = _sort(np.ascontiguousarray(dense.T), stable_ties=True)
    np.testing.assert_array_equal(order, ref_order)
    np.testing.assert_array_equal(tie, ref_tie)


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
