"""The compiled (numba) kernels of distances, neighbours, Gaussian sums and
classifiability against plain loops: each called compiled and as its Python source
(``py_func``). Part of the check of :mod:`test_compiled_kernels`, which lists these
kernels among those tested directly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _compiled import both
from fsel.utils.parallel import numba_available

pytestmark = pytest.mark.skipif(not numba_available(), reason="numba is not installed")

# ----------------------------------------------------------------------- distances

mats = st.tuples(st.integers(1, 12), st.integers(1, 12), st.integers(1, 5), st.integers(0, 99))


@settings(max_examples=25, deadline=None)
@given(mats)
def test_distance_kernels_against_loops(case):
    from fsel.kernels import _numba_distances as nd

    n, m, d, seed = case
    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    ref = np.array([[sum(abs(a - b)) for b in B] for a in A])
    for kernel in both(nd.manhattan):
        out = np.empty((n, m))
        kernel(A, B, out)
        np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)
    assert nd.l1.py_func(A[0], B[0]) == pytest.approx(ref[0, 0])
    refA = np.array([[sum(abs(a - b)) for b in A] for a in A])
    for kernel in both(nd.manhattan_upper):
        out = np.full((n, n), np.nan)
        kernel(A, 0, n, out)
        np.testing.assert_allclose(out, refA, rtol=1e-12, atol=1e-12)
    sq = np.einsum("ij,ij->i", A, A)
    ref2 = np.array([[np.sum((a - b) ** 2) for b in A] for a in A])
    for kernel, root in [(nd.gram_upper, False), (nd.gram_upper.py_func, True)]:
        G = A @ A.T
        kernel(G, sq, 0, n, root)
        np.testing.assert_allclose(G, np.sqrt(ref2) if root else ref2, atol=1e-9)
        np.testing.assert_array_equal(G, G.T)
    for s, x, y_, sym, want in [(1.0, 0.5, 0.25, False, 1.0625), (1.0, 2.0, 3.0, True, 2.0)]:
        assert nd.sq_delta_add.py_func(s, x, y_, sym) == want


# ---------------------------------------------------------------------- neighbours


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 15), st.integers(1, 3), st.integers(1, 3), st.integers(0, 99))
def test_neighbour_kernels_against_loops(n, C, k, seed):
    from fsel.kernels import _numba_neighbors as nn

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, 2)).astype(np.float64)  # ties on purpose
    y = np.sort(rng.integers(0, C, n)).astype(np.intp)
    D = np.abs(X[:, None, :] - X[None, :, :]).sum(axis=2)
    run_end = np.empty(n, np.intp)
    for j in range(n):
        e = j
        while e < n and y[e] == y[j]:
            e += 1
        run_end[j] = e
    selfs = np.arange(n, dtype=np.intp)
    for kernel in both(nn.knn_block):
        idx = np.full((n, C, k), -1, np.intp)
        dist = np.full((n, C, k), np.inf)
        kernel(D, selfs, y, run_end, k, 1e-12, idx, dist)
        for i in range(n):
            for c in range(C):
                cand = sorted((D[i, j], j) for j in range(n) if j != i and y[j] == c)[:k]
                assert [j for _, j in cand] == idx[i, c, : len(cand)].tolist()
                assert (idx[i, c, len(cand) :] == -1).all()
    A = rng.normal(size=(n, n))
    ref = np.array([sum(A[i, j] * np.abs(X[i] - X[j]) for j in range(n)) for i in range(n)])
    for kernel in both(nn.absdiff_rows):
        out = np.zeros((n, 2))
        kernel(X, 0, A, out)
        np.testing.assert_allclose(out, ref, atol=1e-9)
    idx = rng.integers(-1, n, (n, 3)).astype(np.intp)
    coef = rng.normal(size=(n, 3))
    ref_s = np.zeros((n, 2))
    for i in range(n):
        for t in range(3):
            if idx[i, t] >= 0:
                ref_s[i] += coef[i, t] * np.abs(X[i] - X[idx[i, t]])
    for kernel in both(nn.absdiff_sparse):
        out = np.zeros((n, 2))
        kernel(X, selfs, idx, coef, out)
        np.testing.assert_allclose(out, ref_s, atol=1e-9)
    for kernel in both(nn.row_mean_std):
        mu, sd = np.empty(n), np.empty(n)
        kernel(D, 0, mu, sd)
        others = [np.delete(D[i], i) for i in range(n)]
        np.testing.assert_allclose(mu, [o.mean() for o in others], atol=1e-12)
        np.testing.assert_allclose(sd, [o.std() for o in others], atol=1e-12)
    T = rng.uniform(0, 4, n)
    for kernel in both(nn.radius_counts):
        cnt = np.zeros((n, C))
        kernel(D, 0, T, y, run_end, cnt)
        want = [
            [sum(1 for j in range(n) if j != i and D[i, j] < T[i] and y[j] == c) for c in range(C)]
            for i in range(n)
        ]
        np.testing.assert_array_equal(cnt, want)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(-20, 20), min_size=1, max_size=25), st.integers(1, 3))
def test_gauss_sums_against_the_exact_sum(values, C):
    from fsel.kernels import _numba_gaussian_sums as ng
    from fsel.kernels.gaussian_sums import GAUSS_L, GAUSS_P, GAUSS_TOL, _sqrt_factorials

    t = np.unique(np.asarray(values))
    cnt = np.arange(t.size * C, dtype=np.float64).reshape(t.size, C) % 3 + 1
    ref = np.exp(-0.5 * (t[:, None] - t[None, :]) ** 2) @ cnt
    for kernel in both(ng.gauss_sums):
        G = np.zeros_like(cnt)
        kernel(t, cnt, GAUSS_P, GAUSS_L, _sqrt_factorials(GAUSS_P), G)
        np.testing.assert_allclose(G, ref, atol=GAUSS_TOL * cnt.sum() * 10, rtol=1e-9)


# ------------------------------------------------------------------ classifiability


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 12), st.integers(1, 3), st.integers(1, 3), st.integers(0, 99))
def test_classifiability_dense_scans_against_loops(n, k, C, seed):
    from fsel.kernels import _numba_classifiability as nk

    rng = np.random.default_rng(seed)
    Xf = rng.integers(0, 3, (n, k)) / 2.0
    sym = rng.integers(0, 2, k).astype(np.bool_)
    y = rng.integers(0, C, n).astype(np.intp)

    def d2(i, j):
        return sum(
            float(Xf[i, f] != Xf[j, f]) if sym[f] else (Xf[i, f] - Xf[j, f]) ** 2 for f in range(k)
        )

    nn2 = np.array([min(d2(i, j) for j in range(n) if j != i) for i in range(n)])
    theta = nn2 + 0.3
    counts = np.array(
        [
            [
                sum(1.0 for j in range(n) if j != i and d2(i, j) <= theta[i] and y[j] == c)
                for c in range(C)
            ]
            for i in range(n)
        ]
    )
    purity = ((counts / counts.sum(axis=1, keepdims=True)) ** 2).sum(axis=1)
    for kernel in both(nk.dense_nn):
        out = np.empty(n)
        kernel(Xf, sym, out)
        np.testing.assert_allclose(out, nn2, atol=1e-12)
    for kernel in both(nk.dense_count):
        cnt = np.zeros((n, C))
        kernel(Xf, sym, theta, y, cnt)
        np.testing.assert_array_equal(cnt, counts)
    for kernel in both(nk.dense_purity):
        out = np.empty(n)
        kernel(Xf, sym, theta, y, C, out)
        np.testing.assert_allclose(out, purity, atol=1e-12)


def test_expected_table_transpose():
    from fsel.kernels import _numba_relief_margins as nr

    W = np.arange(2 * 33 * 40, dtype=np.float64).reshape(2, 33, 40)
    for kernel in both(nr.transpose):
        V = np.empty((2, 40, 33))
        kernel(W, V)
        np.testing.assert_array_equal(V, W.transpose(0, 2, 1))
