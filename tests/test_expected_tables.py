"""The compiled build of :class:`fsel.kernels.relief_margins.ExpectedDiff` (sorted segments,
the tables ``H``, ``W``, ``V`` and the derived ``G``) and the table margin kernel,
against plain-loop references written here and against the numpy build."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsel.kernels.distances import map_distance_rows, numba_available
from fsel.kernels.relief_margins import (
    ExpectedDiff,
    _v_table,
    expected_absdiff,
    expected_distance_block,
)

pytestmark = pytest.mark.skipif(not numba_available(), reason="numba is not installed")


def _table(seed: int, n: int, d: int, C: int, p_hole: float = 0.3):
    """Values on a coarse grid (many ties), holes, every class present."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, d)) / 3.0
    X[rng.random((n, d)) < p_hole] = np.nan
    y = np.arange(n) % C
    rng.shuffle(y)
    return X, y


def _observed(X, y, rows_of, k):
    return sorted(X[j, k] for j in rows_of if not np.isnan(X[j, k]))


def _reference_segments(X, y, C):
    """Per segment (e, k), e = C the pooled rows: sorted observed values (features with
    holes only), prefix sums from 0, mean and population variance; plain loops."""
    n, d = X.shape
    has = [bool(np.isnan(X[:, k]).any()) for k in range(d)]
    segs = {}
    for e in range(C + 1):
        rows_of = range(n) if e == C else [j for j in range(n) if y[j] == e]
        for k in range(d):
            v = _observed(X, y, rows_of, k) if has[k] else []
            cum = [0.0]
            for x in v:
                cum.append(cum[-1] + x)
            mu = sum(v) / len(v) if v else 0.0
            var = sum((x - mu) ** 2 for x in v) / len(v) if v else 0.0
            segs[e, k] = (v, cum, mu, var)
    return segs


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(3, 25),
    d=st.integers(1, 5),
    C=st.integers(1, 3),
)
def test_compiled_segments_match_plain_loops(seed, n, d, C):
    X, y = _table(seed, n, d, C)
    miss = np.isnan(X)
    ed = ExpectedDiff(X, y, C)
    vals, cum, off, mu, var = ed.vals, ed.cum, ed.off, ed.mu, ed.var
    cnt = ed.cnt.reshape(C + 1, d)
    ref = _reference_segments(X, y, C)
    for e in range(C + 1):
        for k in range(d):
            s = e * d + k
            v, c, m, w = ref[e, k]
            assert cnt[e, k] == len(v)
            assert off[s + 1] - off[s] == len(v)
            assert vals[off[s] : off[s + 1]].tolist() == v
            assert cum[off[s] + s : off[s] + s + len(v) + 1].tolist() == pytest.approx(c, abs=1e-12)
            assert mu[e, k] == pytest.approx(m, abs=1e-12)
            assert var[e, k] == pytest.approx(w, abs=1e-12)
            if e < C:
                assert ed.eff[e, k] == (e if cnt[e, k] else C)
    # the compiled and the numpy builds hold the same segments
    plain = ExpectedDiff.__new__(ExpectedDiff)
    plain.y = y.astype(np.intp)
    nv, ncum, noff, ncnt, nmu, nvar = plain._segments_numpy(X, C, miss.any(axis=0))
    np.testing.assert_array_equal(vals, nv)
    np.testing.assert_array_equal(off, noff)
    np.testing.assert_array_equal(cnt, ncnt)
    np.testing.assert_allclose(cum, ncum, atol=1e-12)
    np.testing.assert_allclose(mu, nmu, atol=1e-12)
    np.testing.assert_allclose(var, nvar, atol=1e-12)


def _expected_one(X, y, c, k, v):
    """E|X_ck - v| over class c's observed values of feature k (pooled if none)."""
    own = _observed(X, y, [j for j in range(len(y)) if y[j] == c], k)
    xs = own or _observed(X, y, range(len(y)), k)
    return sum(abs(x - v) for x in xs) / len(xs)


def _expected_both(X, y, c1, c2, k):
    n = len(y)
    a = _observed(X, y, [j for j in range(n) if y[j] == c1], k) or _observed(X, y, range(n), k)
    b = _observed(X, y, [j for j in range(n) if y[j] == c2], k) or _observed(X, y, range(n), k)
    return sum(abs(u - v) for u in a for v in b) / (len(a) * len(b))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(3, 20),
    d=st.integers(1, 4),
    C=st.integers(1, 3),
)
def test_compiled_tables_match_plain_loops(seed, n, d, C):
    X, y = _table(seed, n, d, C)
    for k in range(d):  # every feature keeps one observed value
        if np.isnan(X[:, k]).all():
            X[0, k] = 0.5
    ed = ExpectedDiff(X, y, C)
    assert ed.has_table == bool(np.isnan(X).any())
    if not ed.has_table:
        return
    W, V, G = ed._W, _v_table(ed), ed.G
    for k in range(d):
        if not np.isnan(X[:, k]).any():
            assert not W[:, k].any() and not ed.H[:, :, k].any()
            continue
        for c1 in range(C):
            for c2 in range(C):
                assert ed.H[c1, c2, k] == pytest.approx(_expected_both(X, y, c1, c2, k), abs=1e-12)
        for c in range(C):
            for j in range(n):
                if np.isnan(X[j, k]):
                    ref = 0.5 * _expected_both(X, y, c, y[j], k)
                    assert G[c, j, k] == 0.0
                else:
                    ref = _expected_one(X, y, c, k, X[j, k]) - abs(X[j, k])
                    assert G[c, j, k] == pytest.approx(ref, abs=1e-12)
                assert W[c, k, j] == pytest.approx(ref, abs=1e-12)
                assert V[c, j, k] == W[c, k, j]


def test_compiled_tables_agree_with_numpy_build(monkeypatch):
    X, y = _table(3, 40, 6, 3)
    X[:, 2] = np.nan  # a feature without any observed value contributes 0
    fast = ExpectedDiff(X, y, 3)
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")
    slow = ExpectedDiff(X, y, 3)
    monkeypatch.delenv("FSEL_DISABLE_NUMBA")
    np.testing.assert_allclose(fast.H, slow.H, atol=1e-12)
    np.testing.assert_allclose(fast.G, slow.G, atol=1e-12)
    assert not fast.H[:, :, 2].any() and not fast._W[:, 2].any()
    # a model built without numba gets its W and V on demand, the same values
    np.testing.assert_allclose(_v_table(slow), _v_table(fast), atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(3, 20),
    d=st.integers(1, 5),
    C=st.integers(1, 3),
    m=st.integers(1, 4),
)
def test_table_margin_kernel_agrees_with_search_kernel_and_numpy(seed, n, d, C, m):
    X, y = _table(seed, n, d, C)
    for k in range(d):
        if np.isnan(X[:, k]).all():
            X[0, k] = 0.25
    rng = np.random.default_rng(seed + 1)
    rows = rng.choice(n, size=min(n, 4), replace=False)
    idx = rng.integers(-1, n, (rows.size, m))
    coef = rng.standard_normal((rows.size, m))
    coef[:, 0] = 0.0  # skipped
    A = rng.standard_normal((rows.size, n))
    with_table = ExpectedDiff(X, y, C)
    no_table = ExpectedDiff(X, y, C, memory_budget=8 * C * n * d * 8 - 1)
    assert with_table.has_table == bool(np.isnan(X).any())
    assert not no_table.has_table
    for ix, cf in ((idx, coef), (None, A)):
        got = expected_absdiff(with_table, rows, ix, cf, use_numba=True)
        search = expected_absdiff(no_table, rows, ix, cf, use_numba=True)
        plain = expected_absdiff(no_table, rows, ix, cf, use_numba=False)
        np.testing.assert_allclose(got, search, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got, plain, rtol=1e-10, atol=1e-12)


def test_compiled_distances_with_many_holes_per_row_agree_with_numpy():
    # rows with more than eight holes take the compiled kernels' eight-at-a-time sums
    X, y = _table(5, 70, 30, 3, p_hole=0.45)
    assert (np.isnan(X).sum(axis=1) >= 12).sum() > 10
    ed = ExpectedDiff(X, y, 3)
    rows = np.arange(0, 70, 3)
    fast = expected_distance_block(ed, rows, use_numba=True)
    slow = expected_distance_block(ed, rows, use_numba=False)
    np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-12)
    # the full matrix (each unordered pair once) equals the row blocks
    full = np.vstack(map_distance_rows(X, lambda a, b, D: D.copy(), expected=ed))
    block = expected_distance_block(ed, np.arange(70), use_numba=False)
    np.fill_diagonal(block, 0.0)
    np.testing.assert_allclose(full, block, rtol=1e-10, atol=1e-12)
