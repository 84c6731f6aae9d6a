"""Equal neighbour distances in the Relief family: the tie rule of
:func:`fsel.kernels.neighbors.tie_order` (distances within the tie tolerance are equal,
the smaller index wins), whatever the rounding of the distance sums.

Integer-valued tables are full of distances equal on paper that come out a rounding
step apart, depending on how they were summed: dense or sparse input, the column
order, the memory budget's blocks (Euclidean: BLAS), the compiled or numpy kernels.
Every one of these fits must find the neighbours of the exact computation
(:func:`exact_margin`, in fractions).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel
from fsel.kernels.neighbors import knn_by_class, tie_order, tie_tolerance
from fsel.kernels.scaling import ROBUST_QUANTILES, scale_dense, scale_sparse
from fsel.utils.parallel import numba_available

# most tests here check weights on tiny tables, where fewer weights than the count to
# select are often positive; the warning about that is tested at the end of this file
pytestmark = pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning")

ESTIMATORS = {
    "Relief": lambda **kw: fsel.Relief(1, **kw),
    "ReliefF": lambda **kw: fsel.ReliefF(1, n_neighbors=2, **kw),
    "MRelief": lambda **kw: fsel.MRelief(1, **kw),
}


# --------------------------------------------------------------- exact reference


def _quantile(values: list[Fraction], p: Fraction) -> Fraction:
    """numpy's linear quantile rule, in fractions."""
    v = sorted(values)
    h = (len(v) - 1) * p
    lo = math.floor(h)
    if lo + 1 >= len(v):
        return v[lo]
    return v[lo] + (h - lo) * (v[lo + 1] - v[lo])


def exact_scaled(X: np.ndarray, scaling: str) -> list[list[Fraction]]:
    """The scaling rules of :mod:`fsel.kernels.scaling` (range, robust) in fractions."""
    n, d = X.shape
    Z = [[Fraction(0)] * d for _ in range(n)]
    for j in range(d):
        col = [Fraction(int(v)) for v in X[:, j]]
        lo, hi = min(col), max(col)
        if hi == lo:
            continue
        if scaling == "robust":
            p_lo, p_hi = (Fraction(p).limit_denominator(100) for p in ROBUST_QUANTILES)
            q_lo, q_hi = _quantile(col, p_lo), _quantile(col, p_hi)
            if q_hi > q_lo:
                lo, hi = q_lo, q_hi
        for i in range(n):
            Z[i][j] = (min(max(col[i], lo), hi) - lo) / (hi - lo)
    return Z


def exact_margin(X: np.ndarray, y: np.ndarray, estimator: str, metric: str, scaling: str):
    """The mean margin of ``estimator`` from exact distances; the neighbours ordered by
    (distance, index): equal distances go to the smaller index."""
    Z = exact_scaled(X, scaling)
    n, d = X.shape
    y = [int(v) for v in y]
    classes = sorted(set(y))
    prior = {c: Fraction(y.count(c), n) for c in classes}

    def dist(i: int, j: int) -> Fraction:
        diffs = [abs(Z[i][f] - Z[j][f]) for f in range(d)]
        return sum(diffs) if metric == "manhattan" else sum(t * t for t in diffs)

    def nearest(i: int, members: list[int], k: int) -> list[int]:
        return sorted((j for j in members if j != i), key=lambda j: (dist(i, j), j))[:k]

    total = [Fraction(0)] * d
    for i in range(n):
        terms: list[tuple[int, Fraction]] = []
        own = [j for j in range(n) if y[j] == y[i]]
        others = [j for j in range(n) if y[j] != y[i]]
        if estimator == "ReliefF":
            hits = nearest(i, own, 2)
            terms += [(j, Fraction(-1, len(hits))) for j in hits]
            for c in classes:
                if c != y[i]:
                    miss = nearest(i, [j for j in range(n) if y[j] == c], 2)
                    w = prior[c] / (1 - prior[y[i]]) / len(miss)
                    terms += [(j, w) for j in miss]
        else:
            w_hit, w_miss = (-1, 1) if estimator == "Relief" else (prior[y[i]] - 1, prior[y[i]])
            terms += [(j, Fraction(w_hit)) for j in nearest(i, own, 1)]
            terms += [(j, Fraction(w_miss)) for j in nearest(i, others, 1)]
        for j, w in terms:
            for f in range(d):
                total[f] += w * abs(Z[i][f] - Z[j][f])
    return np.array([float(t / n) for t in total])


def exact_surf_margin(X: np.ndarray, y: np.ndarray, scaling: str) -> np.ndarray:
    """SURF's mean margin (Manhattan) from exact distances: the neighbours of a row are
    the other rows strictly nearer than the mean distance between two rows."""
    Z = exact_scaled(X, scaling)
    n, d = X.shape
    D = [[sum(abs(Z[i][f] - Z[j][f]) for f in range(d)) for j in range(n)] for i in range(n)]
    T = sum(map(sum, D)) / (n * (n - 1))
    prior = {c: Fraction(int(np.sum(y == c)), n) for c in set(y.tolist())}
    total = [Fraction(0)] * d
    for i in range(n):
        for c in prior:
            near = [j for j in range(n) if j != i and y[j] == c and D[i][j] < T]
            w = -1 if c == y[i] else prior[c] / (1 - prior[y[i]])
            for j in near:
                for f in range(d):
                    total[f] += Fraction(w) / len(near) * abs(Z[i][f] - Z[j][f])
    return np.array([float(t / n) for t in total])


def _has_exact_tie(X: np.ndarray, scaling: str, metric: str) -> bool:
    Z = exact_scaled(X, scaling)
    n, d = X.shape
    for i in range(n):
        seen = set()
        for j in range(n):
            if j != i:
                diffs = [abs(Z[i][f] - Z[j][f]) for f in range(d)]
                key = sum(diffs) if metric == "manhattan" else sum(t * t for t in diffs)
                if key in seen:
                    return True
                seen.add(key)
    return False


# ----------------------------------------------------------------------- tests


def test_tie_order_takes_distances_within_the_tolerance_as_equal():
    eps = tie_tolerance(3)
    d = np.array([[1.0 + 4e-16, 1.0, 0.5, 1.0 + 1e-6, np.inf]])
    idx = np.array([0, 1, 2, 3, -1])
    assert tie_order(d, idx, eps).tolist() == [[2, 0, 1, 3, 4]]
    assert tie_order(d, idx, 0.0).tolist() == [[2, 1, 0, 3, 4]]  # exact: the rounding
    assert tie_tolerance(3) == 3 * tie_tolerance(1) > 0


@pytest.mark.parametrize("use_numba", [False, True] if numba_available() else [False])
def test_the_kernels_pick_the_smaller_index_between_rounded_equal_distances(use_numba):
    """knn_block's scan and its numpy twin: a later sample nearer by a rounding step
    than a kept one is a tie, not a nearer neighbour."""
    from fsel.kernels import neighbors

    D = np.array([[0.0, 1.0 + 2.2e-16, 1.0, 3.0, 1.0 + 1e-3]])
    y = np.array([0, 0, 0, 0, 0], dtype=np.intp)
    eps = tie_tolerance(4)
    if use_numba:
        idx = np.full((1, 1, 3), -1, dtype=np.intp)
        dist = np.full((1, 1, 3), np.inf)
        neighbors._kernels().knn_block(D, np.array([0]), y, np.full(5, 5), 3, eps, idx, dist)
    else:
        idx, dist = neighbors._knn_block_numpy(D, np.array([0]), y, 1, 3, eps)
    assert idx[0, 0].tolist() == [1, 2, 4]


# the audit's table: sample 0's nearest misses, rows 4 and 5, are both at 53/36
REPRO_X = np.array(
    [[5, 3, 6], [5, 0, 0], [5, 6, 5], [0, 2, 1], [3, 1, 2], [3, 4, 1], [6, 0, 3]], float
)
REPRO_Y = np.array([1, 0, 1, 0, 0, 0, 1])


def test_dense_and_sparse_input_select_the_same_feature_on_tied_distances():
    dense = fsel.Relief(1).fit(REPRO_X, REPRO_Y)
    sparse = fsel.Relief(1).fit(sp.csr_matrix(REPRO_X), REPRO_Y)
    assert dense.selection_order_.tolist() == sparse.selection_order_.tolist() == [0]
    np.testing.assert_allclose(sparse.margin_, dense.margin_, rtol=0, atol=1e-12)
    assert sparse.nearest_misses_[0] == dense.nearest_misses_[0] == 4  # the smaller index
    want = exact_margin(REPRO_X, REPRO_Y, "Relief", "manhattan", "robust")
    np.testing.assert_allclose(dense.margin_, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
@pytest.mark.parametrize("scaling", ["range", "robust"])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_tiny_table_with_ties_against_exact_fractions(name, scaling, metric):
    """Sample 1 is at 12/7 from rows 2 and 3 (robust scaling, Manhattan): the exact
    distances and the smaller-index rule give the weights, in every column order and on
    sparse input."""
    X = np.array([[4, 6, 0], [3, 2, 2], [2, 4, 0], [4, 6, 1], [0, 4, 0], [3, 4, 0]], float)
    y = np.array([0, 0, 0, 0, 0, 1])
    assert _has_exact_tie(X, scaling, metric)
    want = exact_margin(X, y, name, metric, scaling)
    make = ESTIMATORS[name]
    for data, back in ((X, slice(None)), (X[:, ::-1], slice(None, None, -1))):
        for fit_on in (data, sp.csr_matrix(data)):
            got = make(metric=metric, scaling=scaling).fit(fit_on, y).margin_[back]
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


tables = st.tuples(
    st.integers(5, 12),  # rows
    st.integers(2, 4),  # features
    st.integers(2, 3),  # classes
    st.integers(0, 2**32 - 1),
)


def _table(case):
    n, d, C, seed = case
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 7, (n, d)).astype(float)
    X[rng.random((n, d)) < 0.4] = 0.0  # zeros: the sparse form has corrections to add
    y = np.arange(n) % C  # every class present
    rng.shuffle(y)
    return X, y


@settings(max_examples=25, deadline=None)
@given(tables, st.sampled_from(["manhattan", "euclidean"]))
def test_every_input_form_gives_the_exact_weights(case, metric):
    """dense == sparse == column-permuted (weights permuted back) == a small memory
    budget's row blocks == the exact fractions, for Relief, ReliefF and MRelief under
    the default scaling."""
    X, y = _table(case)
    perm = np.random.default_rng(case[-1]).permutation(X.shape[1])
    back = np.argsort(perm)
    for name, make in ESTIMATORS.items():
        want = exact_margin(X, y, name, metric, "robust")
        fits = {
            "dense": make(metric=metric).fit(X, y).margin_,
            "sparse": make(metric=metric).fit(sp.csr_matrix(X), y).margin_,
            "permuted": make(metric=metric).fit(X[:, perm], y).margin_[back],
            "budget": make(metric=metric, memory_budget=1024).fit(X, y).margin_,
        }
        for form, got in fits.items():
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"{name} {form}")


@settings(max_examples=25, deadline=None)
@given(tables, st.sampled_from(["manhattan", "euclidean"]))
def test_neighbour_lists_agree_across_kernels_and_input_forms(case, metric):
    """knn_by_class on the scaled table: compiled or numpy, dense or sparse, all rows
    or reference rows (the streamed Manhattan kernel), whole or in row blocks."""
    X, y = _table(case)
    C = int(y.max()) + 1
    Zd, _ = scale_dense(X, "robust")
    Zs, _ = scale_sparse(sp.csc_matrix(X), "robust")
    ref_idx, _ = knn_by_class(Zd, y, 2, metric=metric, use_numba=False)
    rows = np.arange(0, X.shape[0], 2)
    engines = [False, True] if numba_available() else [False]
    for use_numba in engines:
        for Z in (Zd, Zs):
            for budget in (2**20, 512):
                kw = {"metric": metric, "use_numba": use_numba, "memory_budget": budget}
                idx, _ = knn_by_class(Z, y, 2, n_classes=C, **kw)
                np.testing.assert_array_equal(idx, ref_idx)
                idx, _ = knn_by_class(Z, y, 2, n_classes=C, rows=rows, **kw)
                np.testing.assert_array_equal(idx, ref_idx[rows])


@pytest.mark.parametrize(
    ("X", "scaling"),
    [
        ([[0, 3, 1], [0, 2, 3], [3, 0, 3], [1, 2, 0]], "range"),
        ([[2, 1], [0, 2], [3, 2], [2, 3]], "robust"),
    ],
)
def test_surf_radius_takes_a_distance_equal_to_it_as_outside(X, scaling):
    """A distance equal on paper to SURF's radius (the mean distance) is not inside it,
    however the two were rounded: dense, sparse and column-reversed fits give the exact
    weights."""
    X, y = np.array(X, float), np.array([0, 1, 0, 1])
    want = exact_surf_margin(X, y, scaling)
    for data, back in ((X, slice(None)), (X[:, ::-1], slice(None, None, -1))):
        for fit_on in (data, sp.csr_matrix(data)):
            got = fsel.SURF(1, scaling=scaling).fit(fit_on, y).margin_[back]
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def _lung_like(seed=0):
    """Pure noise with many classes and few rows (as lung_discrete: 73 x 325, 7
    classes): almost no mean margin is positive."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(70, 60)).astype(float)
    y = np.repeat(np.arange(7), 10)
    return X, y


@pytest.mark.parametrize("name", ["MRelief", "MultiSURF"])
@pytest.mark.parametrize("sparse", [False, True])
def test_zero_weight_fill_warns(name, sparse):
    """Fewer positive weights than the count to select: the rest of the selection is
    weight-0 ties taken in column order, and fit says so in one warning."""
    X, y = _lung_like()
    k = 50
    est = getattr(fsel, name)(k)
    with pytest.warns(UserWarning, match="features have a positive weight") as record:
        est.fit(sp.csr_matrix(X) if sparse else X, y)
    messages = [str(w.message) for w in record if "positive weight" in str(w.message)]
    assert len(messages) == 1
    n_positive = int(np.count_nonzero(est.scores_ > 0))
    assert n_positive < k
    assert messages[0].startswith(f"{name}: only {n_positive} of 60 features")
    assert "column order" in messages[0] and "\n" not in messages[0]
    # the fill: after the positive weights, the lowest column indices of weight 0
    zero = np.flatnonzero(est.scores_ == 0)
    np.testing.assert_array_equal(est.selection_order_[n_positive:], zero[: k - n_positive])


def test_zero_weight_fill_warns_on_dask():
    da = pytest.importorskip("dask.array")
    X, y = _lung_like()
    est = fsel.ReliefF(30, sample_size=70, random_state=0)
    with pytest.warns(UserWarning, match="ReliefF: only .* positive weight"):
        est.fit(da.from_array(X, chunks=(35, 60)), da.from_array(y, chunks=35))


@pytest.mark.parametrize("name", ["Relief", "MRelief", "ReliefF", "SURF", "MultiSURF"])
def test_enough_positive_weights_do_not_warn(name):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 8))
    y = (X[:, 0] + X[:, 1] + X[:, 2] > 0).astype(int)
    est = getattr(fsel, name)(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.fit(X, y)
    assert np.count_nonzero(est.scores_ > 0) >= 3
    assert sorted(est.selection_order_.tolist()) == [0, 1, 2]
