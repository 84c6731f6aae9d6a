"""Tests of the one distance kernel, ``fsel.kernels.distances``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fsel.kernels.distances import (
    METRICS,
    block_rows_for_budget,
    distance_block,
    distance_blocks,
    full_distance_matrix,
    mixed_sq_distances,
    numba_available,
    numba_sq_delta_add,
    sq_delta,
)

needs_numba = pytest.mark.skipif(not numba_available(), reason="numba absent or disabled")


def _loops(X, Y, metric):
    out = np.zeros((X.shape[0], Y.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            diff = X[i] - Y[j]
            if metric == "manhattan":
                out[i, j] = np.sum(np.abs(diff))
            elif metric == "euclidean":
                out[i, j] = np.sqrt(np.sum(diff * diff))
            else:
                out[i, j] = np.sum(diff * diff)
    return out


def test_hand_computed():
    X = np.array([[0.0, 0.0], [3.0, 4.0]])
    assert distance_block(X, X, metric="manhattan").tolist() == [[0.0, 7.0], [7.0, 0.0]]
    np.testing.assert_allclose(distance_block(X, X, metric="euclidean"), [[0, 5], [5, 0]])
    np.testing.assert_allclose(distance_block(X, X, metric="sqeuclidean"), [[0, 25], [25, 0]])


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("use_numba", [True, False, None])
def test_blocks_cover_all_rows_and_match_loops(metric, use_numba):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(23, 4))
    Y = rng.normal(size=(7, 4))
    ref = _loops(X, X, metric)
    budget = 2 * 8 * 23 * 5  # 5 rows per block
    blocks = list(distance_blocks(X, metric=metric, memory_budget=budget, use_numba=use_numba))
    assert [b[0] for b in blocks] == [0, 5, 10, 15, 20]
    full = np.vstack([b[2] for b in blocks])
    np.testing.assert_allclose(full, ref, atol=1e-10)
    assert np.all(np.diag(full) == 0)
    cross = np.vstack([b[2] for b in distance_blocks(X, Y, metric=metric, use_numba=use_numba)])
    np.testing.assert_allclose(cross, _loops(X, Y, metric), atol=1e-10)


def test_input_not_modified_and_errors():
    X = np.random.default_rng(1).random((5, 3))
    X0 = X.copy()
    list(distance_blocks(X, metric="manhattan"))
    distance_block(X, X, metric="euclidean")
    np.testing.assert_array_equal(X, X0)
    with pytest.raises(ValueError, match="metric"):
        list(distance_blocks(X, metric="cosine"))
    with pytest.raises(ValueError, match="metric"):
        distance_block(X, X, metric="chebyshev")
    with pytest.raises(ValueError, match="memory_budget"):
        block_rows_for_budget(3, 0)


@settings(max_examples=30, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(2, 8), st.integers(1, 5)), elements=st.floats(-100, 100)
    )
)
def test_metric_properties(X):
    D = distance_block(X, X, metric="manhattan", use_numba=False)
    np.testing.assert_allclose(D, D.T)
    assert np.all(D >= 0)
    E = distance_block(X, X, metric="euclidean")
    # L2 <= L1 <= sqrt(d) L2 (up to the rounding of the BLAS form)
    tol = 1e-6 * (1 + np.abs(X).max() ** 2)
    assert np.all(E <= D + tol)
    assert np.all(D <= np.sqrt(X.shape[1]) * E + np.sqrt(tol) * 10 + tol)


# ---------------------------------------------- primitives against plain-loop references
# Python floats are IEEE doubles: a loop doing the same operations in the same order
# gives the very same bits, so these comparisons are exact.


def _mixed_data(seed=0, n=17, d=6):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    symbolic = np.zeros(d, dtype=bool)
    symbolic[[1, 4]] = True
    X[:, symbolic] = rng.integers(0, 3, size=(n, int(symbolic.sum())))
    X[3] = X[5]  # duplicate rows: exact zeros
    return X, symbolic


def _delta_loop(a, b, sym):
    if sym:
        return 1.0 if a != b else 0.0
    d = a - b
    return d * d


def test_sq_delta_equals_loop():
    X, symbolic = _mixed_data()
    for f in range(X.shape[1]):
        z = X[:, f].tolist()
        got = sq_delta(X[:, f, None], X[None, :, f], bool(symbolic[f]))
        ref = [[_delta_loop(a, b, bool(symbolic[f])) for b in z] for a in z]
        assert got.tolist() == ref


@pytest.mark.parametrize("rows", [slice(None), slice(0, 5), slice(9, 17)])
def test_mixed_sq_distances_equal_loop(rows):
    X, symbolic = _mixed_data()
    features = [4, 0, 2, 1, 5]  # not sorted: accumulated in list order
    got = mixed_sq_distances(X, symbolic, features, rows)
    a, b, _ = rows.indices(X.shape[0])
    ref = []
    for i in range(a, b):
        row = []
        for j in range(X.shape[0]):
            s = 0.0
            for f in features:
                s += _delta_loop(float(X[i, f]), float(X[j, f]), bool(symbolic[f]))
            row.append(s)
        ref.append(row)
    assert got.tolist() == ref
    # the incremental update D2(v + f) = D2(v) + delta_f gives the same bits
    inc = np.zeros((b - a, X.shape[0]))
    for f in features:
        inc += sq_delta(X[rows, f, None], X[None, :, f], bool(symbolic[f]))
    np.testing.assert_array_equal(inc, got)


@needs_numba
def test_numba_sq_delta_add_equals_loop():
    add = numba_sq_delta_add()
    X, symbolic = _mixed_data(seed=1)
    for f in range(X.shape[1]):
        sym = bool(symbolic[f])
        for a in X[:, f].tolist():
            for b, s in zip(X[:, f].tolist(), X[:, 0].tolist(), strict=True):
                assert add(s, a, b, sym) == s + _delta_loop(a, b, sym)


def test_numpy_manhattan_equals_loop():
    X, _ = _mixed_data(seed=2)
    ref = []
    for i in range(X.shape[0]):
        row = []
        for j in range(X.shape[0]):
            s = 0.0
            for k in range(X.shape[1]):
                s += abs(float(X[i, k]) - float(X[j, k]))
            row.append(s)
        ref.append(row)
    assert distance_block(X, X, metric="manhattan", use_numba=False).tolist() == ref
    assert full_distance_matrix(X, metric="manhattan", use_numba=False).tolist() == ref


@needs_numba
@pytest.mark.parametrize("n_jobs", [None, 2])
def test_numba_manhattan_tilings_agree_exactly(n_jobs):
    # the block kernel and the upper-triangle kernel share one per-pair primitive
    X = np.random.default_rng(3).normal(size=(150, 37))
    block = distance_block(X, X, metric="manhattan", use_numba=True)
    np.fill_diagonal(block, 0.0)
    full = full_distance_matrix(X, metric="manhattan", n_jobs=n_jobs, use_numba=True)
    np.testing.assert_array_equal(full, block)
    np.testing.assert_allclose(full, _loops(X, X, "manhattan"), rtol=1e-12)


@pytest.mark.parametrize("budget", [256 * 2**20, 1000])  # with and without the G table
@pytest.mark.parametrize("use_numba", [True, False])
@pytest.mark.parametrize("metric", ["manhattan", "sqeuclidean", "euclidean"])
def test_expected_distances_and_margins_match_brute_force(budget, use_numba, metric):
    from tests.test_relief_missing import _Brute

    from fsel.kernels.distances import numba_available
    from fsel.kernels.neighbors import expected_absdiff
    from fsel.kernels.relief_margins import ExpectedDiff, expected_distance_block

    if use_numba and not numba_available():
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(11)
    n, d = 14, 4
    X = rng.random((n, d))
    X[rng.random((n, d)) < 0.3] = np.nan
    X[2:5, 1] = np.nan
    y = rng.integers(0, 2, n)
    y[:3] = 1  # class 1 has row 2 missing feature 1; class 0 keeps observed values
    ed = ExpectedDiff(X, y, 2, memory_budget=budget)
    assert ed.has_table == (budget > 1000)
    b = _Brute(X, y)
    rows = np.array([0, 2, 3, 9])
    D = expected_distance_block(ed, rows, metric=metric, use_numba=use_numba)
    for r, i in enumerate(rows):
        for j in range(n):
            if metric == "manhattan":
                ref = sum(b.diff(k, i, j) for k in range(d))
            else:
                ref = sum(b.diff(k, i, j, sq=True) for k in range(d))
                ref = math.sqrt(ref) if metric == "euclidean" else ref
            assert D[r, j] == pytest.approx(ref, rel=1e-10, abs=1e-12)
    idx = rng.integers(-1, n, (rows.size, 3))
    coef = rng.standard_normal((rows.size, 3))
    got = expected_absdiff(ed, rows, idx, coef, use_numba=use_numba)
    A = rng.standard_normal((rows.size, n))
    dense = expected_absdiff(ed, rows, None, A, use_numba=use_numba)
    for r, i in enumerate(rows):
        ref = sum(coef[r, t] * b.vec(i, j) for t, j in enumerate(idx[r]) if j >= 0 and j != i)
        np.testing.assert_allclose(got[r], ref + np.zeros(d), rtol=1e-10, atol=1e-12)
        ref = sum(A[r, j] * b.vec(i, j) for j in range(n) if j != i)
        np.testing.assert_allclose(dense[r], ref, rtol=1e-10, atol=1e-12)
