"""Sparse input in the Relief family (SPEC section 11): results identical to
``X.toarray()``, distances and margins from the non-zeros, never a dense copy of X."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from fsel.kernels.distances import distance_block, sparse_distance_block
from fsel.kernels.neighbors import absdiff_rows, absdiff_sparse, sparse_absdiff_dense
from fsel.selectors.relief import SURF, IRelief, MRelief, MultiSURF, PRelief, Relief, ReliefF

# these tests check weights on small or noisy tables, where fewer weights than the
# count to select are often positive: the warning about that is tested in
# test_relief_ties.py
pytestmark = pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning")

sp = pytest.importorskip("scipy.sparse")

ALL = (Relief, ReliefF, MRelief, SURF, MultiSURF, PRelief, IRelief)


def _sparse_data(seed, n, d, density, negative=False):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    if negative:
        X -= 0.3
    X[rng.random((n, d)) >= density] = 0.0
    X[1] = 0.0  # an all-zero row
    X[:, d - 1] = 0.0  # an all-zero column
    y = (rng.random(n) < 0.5).astype(int) + (X[:, 0] > 0.5)
    return X, y


@pytest.mark.parametrize("use_numba", [True, False])
@pytest.mark.parametrize("metric", ["manhattan", "euclidean", "sqeuclidean"])
@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(2, 30),
    d=st.integers(1, 12),
    density=st.sampled_from([0.0, 0.05, 0.3, 0.8, 1.0]),
)
def test_sparse_distance_block_matches_dense(use_numba, metric, seed, n, d, density):
    from fsel.kernels.distances import numba_available

    if use_numba and not numba_available():
        pytest.skip("numba is not installed")
    X, _ = _sparse_data(seed, n, d, density, negative=True)
    rows = np.arange(0, n, 2)
    got = sparse_distance_block(sp.csr_matrix(X), rows, metric=metric, use_numba=use_numba)
    ref = distance_block(X[rows], X, metric=metric, use_numba=False)
    # Euclidean: the square root turns a 1e-17 cancellation residue into 1e-9
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-7 if metric == "euclidean" else 1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 25), d=st.integers(1, 10))
def test_sparse_margin_accumulation_matches_dense(seed, n, d):
    X, _ = _sparse_data(seed, n, d, 0.3, negative=True)
    S = sp.csr_matrix(X)
    rng = np.random.default_rng(seed)
    m = min(3, n)
    A = rng.standard_normal((m, n))
    rows = rng.integers(0, n, m)
    dense = np.array([[np.sum(A[r] * np.abs(X[rows[r], k] - X[:, k])) for k in range(d)]
                      for r in range(m)])  # fmt: skip
    np.testing.assert_allclose(sparse_absdiff_dense(S, rows, A), dense, atol=1e-12)
    np.testing.assert_allclose(absdiff_rows(S, 0, A), absdiff_rows(X, 0, A), atol=1e-12)
    idx = rng.integers(-1, n, (n, 4))
    coef = rng.standard_normal((n, 4))
    np.testing.assert_allclose(
        absdiff_sparse(S, idx, coef), absdiff_sparse(X, idx, coef, use_numba=False), atol=1e-12
    )


@pytest.mark.parametrize("cls", ALL)
@settings(max_examples=6, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    density=st.sampled_from([0.02, 0.1, 0.4, 1.0]),
    fmt=st.sampled_from(["csr_matrix", "csc_matrix", "coo_matrix", "csr_array"]),
)
def test_estimators_on_sparse_equal_toarray(cls, seed, density, fmt):
    # non-negative data: the column minimum is the implicit 0, so the unshifted sparse
    # scaling is bit for bit the dense one; distances agree to rounding
    X, y = _sparse_data(seed, 40, 8, density)
    # one dense random column keeps every pair of rows at a distinct distance: with
    # exact ties (duplicate rows, or rows at exactly 1.0 after range scaling) the
    # dense and sparse neighbour searches may pick different, equally near neighbours
    X = np.hstack([X, np.random.default_rng(seed + 1).random((X.shape[0], 1))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dense = cls().fit(X, y)
        sparse = cls().fit(getattr(sp, fmt)(X), y)
    np.testing.assert_allclose(sparse.margin_, dense.margin_, rtol=1e-9, atol=1e-12)
    # the same ranking up to ties within rounding (e.g. several weights at 0)
    w = sparse.feature_importances_
    assert np.all(np.diff(w[dense.selection_order_]) <= 1e-9)


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
def test_negative_values_and_numpy_engine(cls, metric, monkeypatch):
    X, y = _sparse_data(3, 50, 6, 0.4, negative=True)
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dense = cls(metric=metric).fit(X, y).margin_
        sparse = cls(metric=metric).fit(sp.csr_matrix(X), y).margin_
    np.testing.assert_allclose(sparse, dense, rtol=1e-9, atol=1e-12)


def test_sparse_input_untouched_and_bad_cases():
    X, y = _sparse_data(0, 30, 5, 0.3)
    S = sp.csr_matrix(X)
    before = S.copy()
    ReliefF(sample_size=10, random_state=0).fit(S, y)
    assert (S != before).nnz == 0
    if np.unique(X[:, 0][X[:, 0] != 0]).size > 1:  # more than two levels: refused
        with pytest.raises(ValueError, match="categorical column 0 has more than two levels"):
            ReliefF(categorical=[0]).fit(S, y)
    S2 = S.copy().astype(float)
    S2.data[0] = np.nan
    with pytest.raises(ValueError, match="missing"):
        ReliefF().fit(S2, y)


@pytest.mark.parametrize("name", ["ReliefF", "MultiSURF", "IRelief"])
def test_sparse_never_densified(name):
    # 1500 x 4000 at 0.2% density: the dense copy would be 48 MB; the fit stays far
    # below that (budget 4 MiB + O(N) and O(nnz) arrays + the O(d) margins)
    from tests.test_relief import _traced_peak

    rng = np.random.default_rng(0)
    n, d = 1500, 4000
    S = sp.random(n, d, density=0.002, format="csr", random_state=1)
    y = rng.integers(0, 2, n)
    cls = {"ReliefF": ReliefF, "MultiSURF": MultiSURF, "IRelief": IRelief}[name]
    kw = {"max_iter": 1} if name == "IRelief" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        cls(**kw).fit(S[:100], y[:100])
        peak = _traced_peak(lambda: cls(memory_budget=4 * 2**20, **kw).fit(S, y))
    assert peak < 16 * 2**20, f"{name}: peak {peak / 2**20:.1f} MiB"


@pytest.mark.parametrize("seed", [338, 369, 376, 387, 398])
def test_rounding_noise_margins_get_no_weight(seed):
    # at 2% density most columns have one non-zero or none: their exact margin is 0,
    # but dense and sparse sums leave +-1e-17 of opposite signs. Such noise must not be
    # normalised into a unit weight (these seeds once gave a noise column weight 1.0)
    X, y = _sparse_data(seed, 40, 8, 0.02)
    X = np.hstack([X, np.random.default_rng(seed + 1).random((X.shape[0], 1))])
    dense = MultiSURF().fit(X, y)
    sparse = MultiSURF().fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.feature_importances_, dense.feature_importances_, atol=1e-9)
    np.testing.assert_array_equal(sparse.selection_order_, dense.selection_order_)
    noise = np.abs(dense.margin_) <= 1e-12
    assert np.all(dense.feature_importances_[noise] == 0.0)


@pytest.mark.parametrize("cls", [Relief, ReliefF, MRelief, SURF, MultiSURF])
@pytest.mark.parametrize("scaling", ["robust", "range", "rank"])
@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
def test_sparse_boolean_columns_as_dense_ones(cls, scaling, metric):
    # a sparse boolean matrix (CountVectorizer(binary=True, dtype=bool)) is categorical:
    # its two levels, 0 and 1, are taken unscaled, every change a difference of 1,
    # which is the dense fit's nominal difference
    rng = np.random.default_rng(0)
    Xb = rng.random((120, 5)) < 0.3
    y = (Xb[:, 0] ^ Xb[:, 1]).astype(int)
    dense = cls(2, scaling=scaling, metric=metric).fit(Xb, y)
    sparse = cls(2, scaling=scaling, metric=metric).fit(sp.csr_matrix(Xb), y)
    np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=0, atol=1e-12)
    assert sparse.selection_order_.tolist() == dense.selection_order_.tolist()
    # a 0/1 column declared categorical in a float matrix: the same
    F = np.c_[Xb[:, :2].astype(float), rng.normal(size=(120, 2))]
    want = cls(2, scaling=scaling, metric=metric, categorical=[0, 1]).fit(F, y).scores_
    got = cls(2, scaling=scaling, metric=metric, categorical=[0, 1]).fit(sp.csc_matrix(F), y)
    np.testing.assert_allclose(got.scores_, want, rtol=0, atol=1e-12)


def test_irelief_sparse_margins_stay_within_the_memory_budget():
    # I-Relief's margins of a sparse table are dense rows: made a few at a time within
    # memory_budget (the whole block's rows x features before: 400 x 20,000 floats,
    # 64 MB, for a table of a few thousand stored values), with the same weights
    import tracemalloc

    rng = np.random.default_rng(0)
    S = sp.random(400, 20_000, density=0.001, random_state=0, format="csr")
    y = rng.integers(0, 2, 400)
    kw = dict(max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        want = IRelief(5, **kw).fit(S, y).feature_importances_
        IRelief(5, memory_budget=1 << 21, **kw).fit(S[:40], y[:40])  # warm-up
        tracemalloc.start()
        got = IRelief(5, memory_budget=1 << 21, **kw).fit(S, y).feature_importances_
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    np.testing.assert_array_equal(got, want)
    assert peak < 24e6, peak
