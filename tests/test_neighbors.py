"""Tests of the neighbour/margin kernels: numba and numpy paths against loops and
against each other, tie-breaking, blocking and the P-Relief Gaussian sums."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel.kernels.distances as distances
from fsel.kernels.distances import (
    effective_n_jobs,
    fits_full,
    full_distance_matrix,
    map_distance_rows,
    rows_per_block,
)
from fsel.kernels.neighbors import (
    GAUSS_TOL,
    absdiff_rows,
    absdiff_sparse,
    gaussian_class_sums,
    knn_by_class,
    radius_coefficients,
    radius_margin_rows,
    radius_margin_sum,
    row_mean_std,
)

BOTH = [True, False]


def _loops_l1(X):
    n = X.shape[0]
    return np.array([[sum(abs(X[i] - X[j])) for j in range(n)] for i in range(n)])


def _brute_knn(D, y, k, C):
    n = D.shape[0]
    idx = np.full((n, C, k), -1)
    for i in range(n):
        for c in range(C):
            js = sorted((j for j in range(n) if j != i and y[j] == c), key=lambda j: (D[i, j], j))
            idx[i, c, : len(js[:k])] = js[:k]
    return idx


@pytest.mark.parametrize("use_numba", BOTH)
@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
def test_full_matrix_and_blocks(use_numba, metric):
    rng = np.random.default_rng(0)
    X = rng.random((70, 9))
    ref = _loops_l1(X) if metric == "manhattan" else np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    D = full_distance_matrix(X, metric=metric, use_numba=use_numba, n_jobs=2)
    np.testing.assert_allclose(D, ref, atol=1e-12)
    assert np.all(np.diag(D) == 0)
    if metric == "manhattan" or use_numba:
        # numba: Manhattan's upper triangle and Euclidean's fused Gram pass are mirrored
        np.testing.assert_array_equal(D, D.T)
    for budget in (10**9, 3 * 8 * 70 * 5):
        parts = map_distance_rows(
            X,
            lambda a, b, B: (a, b, B.copy()),
            metric=metric,
            memory_budget=budget,
            use_numba=use_numba,
        )
        assert parts[0][0] == 0 and parts[-1][1] == 70
        assert len(parts) == (1 if budget > 10**6 else 14)
        np.testing.assert_allclose(np.vstack([p[2] for p in parts]), ref, atol=1e-12)


def test_numba_and_numpy_agree_on_manhattan_blocks():
    X = np.random.default_rng(1).normal(size=(50, 300))
    a = distances.distance_block(X[:7], X, metric="manhattan", use_numba=True)
    b = distances.distance_block(X[:7], X, metric="manhattan", use_numba=False)
    np.testing.assert_allclose(a, b, rtol=1e-13)
    # the one distance kernel keeps its meaning
    for s, e, D in distances.distance_blocks(X, metric="manhattan", memory_budget=8 * 50 * 2 * 8):
        np.testing.assert_allclose(D, b[s:e] if e <= 7 else D, rtol=1e-13)


@pytest.mark.parametrize("use_numba", BOTH)
def test_knn_by_class_against_loops_with_ties(use_numba):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, size=(60, 3)).astype(float)  # many exact ties
    y = rng.integers(0, 3, size=60)
    D = _loops_l1(X)
    ref = _brute_knn(D, y, 5, 3)
    for budget, jobs in ((10**9, None), (3 * 8 * 60 * 4, 2)):
        idx, dist = knn_by_class(X, y, 5, use_numba=use_numba, memory_budget=budget, n_jobs=jobs)
        np.testing.assert_array_equal(idx, ref)
        ok = idx >= 0
        np.testing.assert_allclose(
            dist[ok],
            np.take_along_axis(
                np.broadcast_to(D[:, None, :], (60, 3, 60)), np.maximum(idx, 0), axis=2
            )[ok],
        )


def test_knn_small_class_is_padded():
    X = np.array([[0.0], [1.0], [2.0], [5.0]])
    idx, dist = knn_by_class(X, np.array([0, 0, 0, 1]), 3)
    assert idx[3, 1].tolist() == [-1, -1, -1]  # the lone sample has no other member
    assert np.isinf(dist[3, 1]).all()
    assert idx[0, 0].tolist() == [1, 2, -1]
    with pytest.raises(ValueError, match="n_neighbors"):
        knn_by_class(X, np.array([0, 0, 0, 1]), 0)


@pytest.mark.parametrize("use_numba", BOTH)
def test_absdiff_kernels_against_loops(use_numba):
    rng = np.random.default_rng(3)
    X = rng.random((30, 4))
    A = rng.normal(size=(6, 30)) * (rng.random((6, 30)) < 0.5)
    ref = np.array([sum(A[r, j] * np.abs(X[5 + r] - X[j]) for j in range(30)) for r in range(6)])
    np.testing.assert_allclose(absdiff_rows(X, 5, A, use_numba=use_numba), ref, atol=1e-13)
    idx = rng.integers(-1, 30, size=(30, 3))
    coef = rng.normal(size=(30, 3))
    ref = np.array(
        [
            sum(coef[i, m] * np.abs(X[i] - X[idx[i, m]]) for m in range(3) if idx[i, m] >= 0)
            for i in range(30)
        ]
    )
    np.testing.assert_allclose(absdiff_sparse(X, idx, coef, use_numba=use_numba), ref, atol=1e-13)


@pytest.mark.parametrize("use_numba", BOTH)
def test_row_mean_std_and_radius_margins(use_numba):
    rng = np.random.default_rng(4)
    X = rng.random((25, 3))
    y = rng.integers(0, 3, size=25)
    priors = np.bincount(y) / 25
    D = _loops_l1(X)
    m, s = row_mean_std(D[4:9], 4, use_numba=use_numba)
    for r in range(5):
        others = np.delete(D[4 + r], 4 + r)
        assert m[r] == pytest.approx(others.mean(), abs=1e-13)
        assert s[r] == pytest.approx(others.std(), abs=1e-13)
    T = m - s / 2
    out = radius_margin_rows(X, 4, D[4:9], T, y, priors, use_numba=use_numba)
    for r in range(5):
        n = 4 + r
        near = [j for j in range(25) if j != n and D[n, j] < T[r]]
        ref = np.zeros(3)
        for c in range(3):
            js = [j for j in near if y[j] == c]
            coef = -1.0 if c == y[n] else priors[c] / (1 - priors[y[n]])
            for j in js:
                ref += coef * np.abs(X[n] - X[j]) / len(js)
        np.testing.assert_allclose(out[r], ref, atol=1e-13)


def _brute_radius_total(X, D, T, y, priors):
    """sum_n m_n with loops over every ordered pair (SPEC's SURF-type margin)."""
    n = X.shape[0]
    total = np.zeros(X.shape[1])
    for i in range(n):
        near = [j for j in range(n) if j != i and D[i, j] < T[i]]
        for c in range(priors.size):
            js = [j for j in near if y[j] == c]
            coef = -1.0 if c == y[i] else priors[c] / (1 - priors[y[i]])
            for j in js:
                total += coef * np.abs(X[i] - X[j]) / len(js)
    return total


@pytest.mark.parametrize("use_numba", BOTH)
@pytest.mark.parametrize("d", [4, 600])  # 600 features: several column tiles of 54 rows
def test_radius_margin_sum_against_loops(use_numba, d):
    rng = np.random.default_rng(8)
    n = 130
    X = rng.random((n, d))
    X[7] = X[3]  # a duplicate sample: distance 0, inside every radius
    y = rng.integers(0, 3, size=n)  # unsorted labels: runs of length 1-4
    priors = np.bincount(y) / n
    D = _loops_l1(X) if d < 10 else full_distance_matrix(X, metric="manhattan", use_numba=False)
    m, s = row_mean_std(D, 0)
    T = m - s / 2
    T[5] = 0.0  # a sample with no neighbour at all
    ref = _brute_radius_total(X, D, T, y, priors)
    got = radius_margin_sum(X, D, T, y, priors, use_numba=use_numba)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    # threads split the rows, never a row's sum: bit-identical for every n_jobs
    np.testing.assert_array_equal(
        radius_margin_sum(X, D, T, y, priors, n_jobs=3, use_numba=use_numba), got
    )
    # grouping the samples by class (as the selectors do) gives the same sum
    o = np.argsort(y, kind="stable")
    got_sorted = radius_margin_sum(X[o], D[np.ix_(o, o)], T[o], y[o], priors, use_numba=use_numba)
    np.testing.assert_allclose(got_sorted, ref, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 40),
    C=st.integers(2, 4),
    seed=st.integers(0, 2**16),
    frac=st.floats(0.0, 1.5),
)
def test_radius_margin_sum_is_the_sum_of_the_row_margins(n, C, seed, frac):
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((n, 3)), 1)  # coarse values: ties at the radius
    y = rng.integers(0, C, size=n)
    priors = np.bincount(y, minlength=C) / n
    priors = np.where(priors == 1.0, 0.5, priors)  # a single class present: no misses
    D = _loops_l1(X)
    T = frac * np.quantile(D, 0.5, axis=1)
    # half the radii equal to a distance in their row: "inside" is strict
    at = rng.random(n) < 0.5
    T[at] = D[np.arange(n), rng.integers(0, n, size=n)][at]
    rows = radius_margin_rows(X, 0, D, T, y, priors, use_numba=False).sum(axis=0)
    for use_numba in BOTH:
        np.testing.assert_allclose(
            radius_margin_sum(X, D, T, y, priors, use_numba=use_numba), rows, atol=1e-12
        )
    for use_numba in BOTH:
        np.testing.assert_allclose(
            radius_coefficients(D, 0, T, y, priors, use_numba=use_numba),
            radius_coefficients(D, 0, T, y, priors, use_numba=not use_numba),
            rtol=0,
            atol=0,
        )


def _brute_gauss(X, y, sigma, C):
    n, d = X.shape
    S = np.zeros((d, C, C))
    for k in range(d):
        for i in range(n):
            for j in range(n):
                S[k, y[i], y[j]] += math.exp(-((X[i, k] - X[j, k]) ** 2) / (2 * sigma[k] ** 2))
    return S


@pytest.mark.parametrize("use_numba", BOTH)
def test_gaussian_class_sums_within_tolerance(use_numba):
    rng = np.random.default_rng(5)
    X = rng.random((80, 4))
    X[:, 1] = np.round(X[:, 1] * 4) / 4  # repeated values
    X[:, 2] = X[:, 2] * 1e-3  # all values within a fraction of sigma
    y = rng.integers(0, 2, size=80)
    counts = np.bincount(y)
    for sig in (0.003, 0.05, 0.7, 10.0):
        sigma = np.full(4, sig)
        S = gaussian_class_sums(X, y, sigma, use_numba=use_numba)
        ref = _brute_gauss(X, y, sigma, 2)
        # every class-pair kernel mean within the documented tolerance
        mean_err = np.abs(S - ref) / (counts[None, :, None] * counts[None, None, :])
        assert mean_err.max() < GAUSS_TOL


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(-50, 50, allow_nan=False), min_size=3, max_size=25),
    st.floats(0.01, 30.0),
)
def test_gaussian_sums_property(values, sig):
    x = np.array(values)[:, None]
    y = np.arange(x.shape[0]) % 2
    S = gaussian_class_sums(x, y, np.array([sig]), use_numba=False)
    ref = _brute_gauss(x, y, np.array([sig]), 2)
    np.testing.assert_allclose(S, ref, atol=1e-11 * x.shape[0] ** 2)
    np.testing.assert_allclose(S[0], S[0].T, atol=1e-11 * x.shape[0] ** 2)  # symmetry


def test_gaussian_sums_bad_sigma():
    with pytest.raises(ValueError, match="sigma"):
        gaussian_class_sums(np.zeros((3, 1)), np.array([0, 1, 0]), np.array([0.0]))


def test_budget_helpers():
    assert fits_full(100, 12 * 100 * 100)
    assert not fits_full(100, 12 * 100 * 100 - 1)
    assert rows_per_block(1000, 3 * 8 * 1000 * 10) == 10
    assert rows_per_block(1000, 3 * 8 * 1000 * 10, n_workers=2) == 5
    with pytest.raises(ValueError, match="memory_budget"):
        rows_per_block(10, 0)
    with pytest.raises(ValueError, match="n_jobs"):
        effective_n_jobs(0)


def _bounded_memory_run(n, budget):
    import tracemalloc

    rng = np.random.default_rng(0)
    X = rng.random((n, 2))
    y = (X[:, 0] > 0.5).astype(np.intp)
    assert not fits_full(n, budget)
    tracemalloc.start()
    idx, _ = knn_by_class(X[:, :1], y, 1, memory_budget=budget)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # the budget plus the O(N) inputs/outputs; the full matrix would be 8 N^2 bytes
    assert peak < budget + 100 * n
    assert idx.shape == (n, 2, 1)
    # the nearest hit of a sorted 1-D sample is an adjacent value
    assert np.all(y[idx[:, 0, 0]] == 0)


def test_many_rows_run_in_bounded_memory():
    _bounded_memory_run(12_000, 16 * 2**20)  # full matrix: 1.15 GB


@pytest.mark.slow
def test_fifty_thousand_rows_run_in_bounded_memory():
    _bounded_memory_run(50_000, 64 * 2**20)  # full matrix: 20 GB


def test_reference_rows_streamed_neighbours_match_all_rows():
    # knn_by_class(rows=...) (streamed with numba, blocks without) against the rows of
    # the all-samples result: the same neighbours, distances to rounding
    from fsel.kernels.neighbors import knn_by_class

    rng = np.random.default_rng(0)
    X = rng.random((300, 6))
    X[10] = X[20]  # an exact tie
    y = rng.integers(0, 3, 300)
    rows = np.unique(np.r_[rng.choice(300, 40, replace=False), 10, 20])
    full_idx, full_dist = knn_by_class(X, y, 4)
    for use_numba in (None, False):
        for n_jobs in (1, 2):
            idx, dist = knn_by_class(X, y, 4, rows=rows, n_jobs=n_jobs, use_numba=use_numba)
            np.testing.assert_array_equal(idx, full_idx[rows])
            np.testing.assert_allclose(dist, full_dist[rows], rtol=1e-14)
