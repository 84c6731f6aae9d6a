"""Neighbour search and margin accumulation for the Relief family.

Pure functions on validated float64 arrays (the estimators in
:mod:`fsel.selectors.relief` validate and scale first). This module computes no
distance: every distance comes from the one distance kernel,
:mod:`fsel.kernels.distances`, through :func:`~fsel.kernels.distances.map_distance_rows`
(the Relief selectors import the traversal from there too). Nothing materialises an
``N x N`` matrix larger than ``memory_budget`` bytes:

* when ``1.5 * N * N * 8`` bytes fit the budget, the whole distance matrix is
  computed once (Manhattan: only the upper triangle, mirrored; Euclidean: one BLAS
  product) and then processed in row chunks;
* otherwise rows are processed in blocks of ``rows x N`` distances that fit the budget
  (``n_jobs`` blocks in flight share it).

Every per-row result (neighbour lists, per-row margins) depends only on the row, never
on the block partition, so results are identical for every ``n_jobs`` and budget (up
to the last bit for Manhattan; Euclidean distances come from BLAS, whose rounding may
depend on the block shape, see :func:`fsel.kernels.distances.distance_blocks`). The
one exception is by design: with the full matrix, :func:`radius_margin_sum` adds the
SURF/MultiSURF margins pair by pair (each pair once, for both of its rows), the row
blocks row by row; the two sums agree to rounding (tested to 1e-12), and each is
bit-identical for every ``n_jobs``.

Ties between equal distances are broken by the smaller sample index.

numba is optional: each compiled kernel (``cache=True, nogil=True``, imported lazily)
has a pure-numpy twin computing the same quantity; tests check that both agree.

Functions
---------
knn_by_class
    The ``k`` nearest neighbours of every sample within each class.
absdiff_rows
    ``out[i] = sum_j A[i, j] * |x_i - x_j|`` for a dense coefficient block ``A`` (the
    per-feature Relief margin, a vector per row; not a distance).
absdiff_sparse
    ``out[i] = sum_m c[i, m] * |x_i - x_{idx[i, m]}|`` for neighbour lists.
relieff_coefficients
    ReliefF's weight of a neighbour by class (hits ``-1/k_h``, misses
    ``p_c / (1 - p_y) / k_c``), shared by ReliefF, SURF-type margins and Dask.
row_mean_std, radius_coefficients, radius_margin_rows
    MultiSURF's per-row radius, the SURF-type neighbour weights and margins of a
    distance block.
radius_margin_sum
    The summed SURF-type margins from the full matrix, each pair visited once.
gaussian_class_sums
    Per-feature class-by-class sums of the 1-D Gaussian kernel (P-Relief), exact to a
    stated tolerance in ``O(N p)`` per feature rather than ``O(N^2)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fsel.kernels.distances import (
    DEFAULT_MEMORY_BUDGET,
    _issparse,
    _use_numba,
    balanced_upper_chunks,
    effective_n_jobs,
    manhattan_knn_rows,
    map_distance_rows,
    rows_per_block,
    threaded_spans,
)

__all__ = [
    "GAUSS_L",
    "GAUSS_P",
    "GAUSS_TOL",
    "absdiff_rows",
    "absdiff_sparse",
    "expected_absdiff",
    "gaussian_class_sums",
    "gaussian_hit_total_sums",
    "knn_by_class",
    "radius_coefficients",
    "radius_margin_rows",
    "radius_margin_rows_at",
    "radius_margin_sum",
    "relieff_coefficients",
    "row_mean_std",
    "sparse_absdiff_dense",
]

_COMPILED: dict[str, Any] = {}


# ----------------------------------------------------------------------------- numba


def _numba_kernels() -> dict[str, Any]:
    """Compile (once; cached on disk) the numba kernels of this module."""
    if _COMPILED:
        return _COMPILED
    import numba

    @numba.njit(cache=True, nogil=True)
    def knn_block(D, selfs, y, run_end, k, idx, dist):  # pragma: no cover - compiled
        # idx/dist: (rows, n_classes, k), prefilled with -1 / inf. Columns are scanned
        # in index order, run by run of equal labels (run_end[j]: end of j's run), so
        # the k-th distance of the run's class stays in a register: most columns cost
        # one comparison
        rows, n = D.shape
        for r in range(rows):
            self_j = selfs[r]
            Dr = D[r]
            j = 0
            while j < n:
                e = run_end[j]
                c = y[j]
                kth = dist[r, c, k - 1]
                for jj in range(j, e):
                    dj = Dr[jj]
                    if dj < kth and jj != self_j:
                        pos = k - 1
                        while pos > 0 and dj < dist[r, c, pos - 1]:
                            dist[r, c, pos] = dist[r, c, pos - 1]
                            idx[r, c, pos] = idx[r, c, pos - 1]
                            pos -= 1
                        dist[r, c, pos] = dj
                        idx[r, c, pos] = jj
                        kth = dist[r, c, k - 1]
                j = e

    @numba.njit(cache=True, nogil=True, fastmath=True)
    def absdiff_rows(X, start, A, out):  # pragma: no cover - compiled
        # tiles of 64 rows x 32 columns; each row still adds its terms in column
        # order, so a row's result does not depend on the tiling or the block
        rows, n = A.shape
        d = X.shape[1]
        for i0 in range(0, rows, 64):
            i1 = min(i0 + 64, rows)
            for j0 in range(0, n, 32):
                j1 = min(j0 + 32, n)
                for r in range(i0, i1):
                    a = X[start + r]
                    o = out[r]
                    for j in range(j0, j1):
                        w = A[r, j]
                        if w != 0.0:
                            b = X[j]
                            for k in range(d):
                                o[k] += w * abs(a[k] - b[k])

    @numba.njit(cache=True, nogil=True, fastmath=True)
    def absdiff_sparse(X, rows_idx, idx, coef, out):  # pragma: no cover - compiled
        m = idx.shape[1]
        d = X.shape[1]
        for r in range(idx.shape[0]):
            a = X[rows_idx[r]]
            o = out[r]
            for t in range(m):
                j = idx[r, t]
                w = coef[r, t]
                if j >= 0 and w != 0.0:
                    b = X[j]
                    for k in range(d):
                        o[k] += w * abs(a[k] - b[k])

    @numba.njit(cache=True, nogil=True)
    def gauss_sums(t, cnt, p, L, sqrt_fact, G):  # pragma: no cover - compiled
        # t sorted ascending (units of sigma); cnt (U, C); G (U, C) output
        U, C = cnt.shape
        lo = t[0]
        nb = math.floor(t[U - 1] - lo) + 1
        M = np.zeros((nb, p, C))
        for s in range(U):
            b = math.floor(t[s] - lo)
            if b >= nb:
                b = nb - 1
            u = t[s] - (lo + b + 0.5)
            e = math.exp(-0.5 * u * u)
            pw = e
            for q in range(p):
                for c in range(C):
                    M[b, q, c] += pw * cnt[s, c] / sqrt_fact[q]
                pw *= u
        for s in range(U):
            bt = math.floor(t[s] - lo)
            if bt >= nb:
                bt = nb - 1
            for bb in range(max(0, bt - L), min(nb, bt + L + 1)):
                v = t[s] - (lo + bb + 0.5)
                pw = math.exp(-0.5 * v * v)
                for q in range(p):
                    f = pw / sqrt_fact[q]
                    for c in range(C):
                        G[s, c] += f * M[bb, q, c]
                    pw *= v

    @numba.njit(cache=True, nogil=True)
    def row_mean_std(D, start, out_mean, out_std):  # pragma: no cover - compiled
        rows, n = D.shape
        for r in range(rows):
            s = 0.0
            for j in range(n):
                if j != start + r:
                    s += D[r, j]
            m = s / (n - 1)
            v = 0.0
            for j in range(n):
                if j != start + r:
                    t = D[r, j] - m
                    v += t * t
            out_mean[r] = m
            out_std[r] = math.sqrt(v / (n - 1))

    @numba.njit(cache=True, nogil=True, fastmath=True)
    def radius_counts(D, start, T, y, run_end, cnt):  # pragma: no cover - compiled
        # cnt[r, c] = #{j != start + r: D[r, j] < T[r], y_j = c}, counted over the runs
        # of equal labels (run_end[j]: end of j's run), so the inner loop vectorises;
        # the counts are integers, exact in any order
        rows, n = D.shape
        for r in range(rows):
            t = T[r]
            Dr = D[r]
            j = 0
            while j < n:
                e = run_end[j]
                s = 0.0
                for jj in range(j, e):
                    s += 1.0 if Dr[jj] < t else 0.0
                cnt[r, y[j]] += s
                j = e
            if Dr[start + r] < t:
                cnt[r, y[start + r]] -= 1.0

    @numba.njit(cache=True, nogil=True, fastmath=True)
    def radius_rows(X, start, D, T, y, coef, out):  # pragma: no cover - compiled
        # out[r] = sum_{j in radius of row start + r} coef[r, y_j] |x_{start+r} - x_j|
        rows, n = D.shape
        d = X.shape[1]
        for i0 in range(0, rows, 64):
            i1 = min(i0 + 64, rows)
            for j0 in range(0, n, 32):
                j1 = min(j0 + 32, n)
                for r in range(i0, i1):
                    a = X[start + r]
                    o = out[r]
                    for j in range(j0, j1):
                        if j == start + r or not D[r, j] < T[r]:
                            continue
                        w = coef[r, y[j]]
                        if w != 0.0:
                            b = X[j]
                            for k in range(d):
                                o[k] += w * abs(a[k] - b[k])

    @numba.njit(cache=True, nogil=True, fastmath=True)
    def radius_pairs(X, D, T, y, coef, coefT, run_end, r0, r1, out):  # pragma: no cover
        # out[r - r0] = sum_{j > r} w_rj |x_r - x_j| for r0 <= r < r1, with the pair
        # weight w_rj = [D_rj < T_r] coef[r, y_j] + [D_rj < T_j] coef[j, y_r]: each
        # pair's |x_r - x_j| is computed once for both directions.
        # Rows go in groups of 16: first each row's nonzero weights are listed (a
        # branch-free pass over its run of equal labels, then a compaction), then the
        # group's lists are consumed tile by tile of X's rows, so a tile is read from
        # cache 16 times. Tiles lie on a global grid and each row's pairs are summed in
        # column order, four at a time from each tile's first, so out[r] does not
        # depend on (r0, r1).
        n, d = X.shape
        tile = max(32, min(512, 32768 // max(d, 1)))
        G = 16
        JS = np.empty((G, n), dtype=np.intp)
        WS = np.empty((G, n))
        M = np.zeros(G, dtype=np.intp)
        P = np.zeros(G, dtype=np.intp)
        tmp = np.empty(n)
        for g0 in range(r0, r1, G):
            g1 = min(g0 + G, r1)
            for r in range(g0, g1):
                tr = T[r]
                ct = coefT[y[r]]
                Dr = D[r]
                j = r + 1
                while j < n:
                    e = run_end[j]
                    cr = coef[r, y[j]]
                    for jj in range(j, e):
                        dr = Dr[jj]
                        tmp[jj] = cr * (dr < tr) + ct[jj] * (dr < T[jj])
                    j = e
                js = JS[r - g0]
                ws = WS[r - g0]
                m = 0
                for jj in range(r + 1, n):
                    w = tmp[jj]
                    js[m] = jj
                    ws[m] = w
                    m += w != 0.0
                M[r - g0] = m
                P[r - g0] = 0
            for t0 in range(((g0 + 1) // tile) * tile, n, tile):
                t1 = min(t0 + tile, n)
                for r in range(g0, g1):
                    js = JS[r - g0]
                    ws = WS[r - g0]
                    q = P[r - g0]
                    e = q
                    m = M[r - g0]
                    while e < m and js[e] < t1:
                        e += 1
                    P[r - g0] = e
                    a = X[r]
                    o = out[r - r0]
                    while q + 4 <= e:
                        b0, b1, b2, b3 = X[js[q]], X[js[q + 1]], X[js[q + 2]], X[js[q + 3]]
                        w0, w1, w2, w3 = ws[q], ws[q + 1], ws[q + 2], ws[q + 3]
                        for k in range(d):
                            ak = a[k]
                            o[k] += (w0 * abs(ak - b0[k]) + w1 * abs(ak - b1[k])) + (
                                w2 * abs(ak - b2[k]) + w3 * abs(ak - b3[k])
                            )
                        q += 4
                    while q < e:
                        b0 = X[js[q]]
                        w0 = ws[q]
                        for k in range(d):
                            o[k] += w0 * abs(a[k] - b0[k])
                        q += 1

    @numba.njit(cache=True, nogil=True, fastmath=True)
    def absdiff_csr(indptr, indices, data, rows_idx, idx, coef, out):  # pragma: no cover
        # out[r] += coef[r, t] |x_i - x_j| from the non-zeros: a merge of the two rows'
        # sorted column lists, O(nnz_i + nnz_j) per pair
        for r in range(idx.shape[0]):
            i = rows_idx[r]
            o = out[r]
            for t in range(idx.shape[1]):
                j = idx[r, t]
                w = coef[r, t]
                if j < 0 or w == 0.0:
                    continue
                p, pe = indptr[i], indptr[i + 1]
                q, qe = indptr[j], indptr[j + 1]
                while p < pe or q < qe:
                    if q >= qe or (p < pe and indices[p] < indices[q]):
                        o[indices[p]] += w * abs(data[p])
                        p += 1
                    elif p >= pe or indices[q] < indices[p]:
                        o[indices[q]] += w * abs(data[q])
                        q += 1
                    else:
                        o[indices[p]] += w * abs(data[p] - data[q])
                        p += 1
                        q += 1

    _COMPILED.update(
        absdiff_csr=absdiff_csr,
        row_mean_std=row_mean_std,
        radius_counts=radius_counts,
        radius_rows=radius_rows,
        radius_pairs=radius_pairs,
        knn_block=knn_block,
        absdiff_rows=absdiff_rows,
        absdiff_sparse=absdiff_sparse,
        gauss_sums=gauss_sums,
    )
    return _COMPILED


# --------------------------------------------------------------------- neighbour lists


def _knn_block_numpy(D: np.ndarray, selfs: np.ndarray, y: np.ndarray, n_classes: int, k: int):
    rows = D.shape[0]
    idx = np.full((rows, n_classes, k), -1, dtype=np.intp)
    dist = np.full((rows, n_classes, k), np.inf)
    r = np.arange(rows)
    own_class = y[selfs]
    for c in range(n_classes):
        cols = np.flatnonzero(y == c)
        if cols.size == 0:
            continue
        # a copy of the class's columns (no copy of the whole block, for the budget),
        # with each row's own sample masked out
        sub = D[:, cols]
        own = r[own_class == c]
        sub[own, np.searchsorted(cols, selfs[own])] = np.inf
        order = np.argsort(sub, axis=1, kind="stable")[:, :k]
        take = order.shape[1]
        idx[:, c, :take] = cols[order]
        dist[:, c, :take] = np.take_along_axis(sub, order, axis=1)
    bad = ~np.isfinite(dist)  # the sample itself (only member of its class)
    idx[bad] = -1
    return idx, dist


def knn_by_class(
    X: np.ndarray,
    y: np.ndarray,
    n_neighbors: int,
    *,
    n_classes: int | None = None,
    metric: str = "manhattan",
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    n_jobs: int | None = None,
    use_numba: bool | None = None,
    rows: np.ndarray | None = None,
    expected: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_neighbors`` nearest samples of each class, for every sample.

    The sample itself is never its own neighbour. Ties are broken by the smaller
    index, so the result is deterministic. Any label order is accepted; samples
    grouped by class (``y`` sorted) run fastest with the compiled kernel.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Class codes ``0..n_classes-1``.
    n_neighbors : int
        Neighbours per class, ``k >= 1``.
    rows : ndarray of int or None
        Only the neighbours of these samples (reference rows), searched among all
        samples; the results have ``len(rows)`` rows. None: every sample.
    expected : :class:`fsel.kernels.distances.ExpectedDiff` or None
        Missing values: distances with its expected differences for the holes
        (``X`` is then ignored in favour of the model's own copy).

    Returns
    -------
    indices : ndarray of shape (n, n_classes, n_neighbors), int
        ``indices[i, c]`` are the nearest samples of class ``c`` to sample ``i``,
        nearest first; ``-1`` where the class has fewer members.
    distances : ndarray of shape (n, n_classes, n_neighbors)
        Their distances (``inf`` where the index is ``-1``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> idx, dist = knn_by_class(X, np.array([0, 0, 1, 1]), 1)
    >>> idx[:, :, 0].tolist()
    [[1, 2], [0, 2], [1, 3], [1, 2]]
    """
    if not _issparse(X):
        X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.intp)
    k = int(n_neighbors)
    if k < 1:
        raise ValueError(f"n_neighbors must be at least 1, got {n_neighbors}")
    C = int(y.max()) + 1 if n_classes is None else int(n_classes)
    numba_on = _use_numba(use_numba)
    runs = _label_runs(y)

    ref = None if rows is None else np.ascontiguousarray(rows, dtype=np.intp)
    if ref is not None and expected is None and metric == "manhattan" and numba_on:
        if not _issparse(X):
            # reference rows: the distances streamed, X read once (no blocks)
            return manhattan_knn_rows(X, y, ref, k, C, n_jobs=n_jobs)

    def fn(a: int, b: int, D: np.ndarray):
        selfs = np.arange(a, b) if ref is None else ref[a:b]
        if numba_on:
            idx = np.full((b - a, C, k), -1, dtype=np.intp)
            dist = np.full((b - a, C, k), np.inf)
            _numba_kernels()["knn_block"](D, selfs, y, runs, k, idx, dist)
            return idx, dist
        return _knn_block_numpy(D, selfs, y, C, k)

    # Euclidean neighbours are ranked on squared distances (the same order, without a
    # square root over the whole n x n block); only the n x C x k kept distances are rooted
    root = metric == "euclidean"
    parts = map_distance_rows(
        X,
        fn,
        metric="sqeuclidean" if root else metric,
        memory_budget=memory_budget,
        n_jobs=n_jobs,
        use_numba=numba_on,
        expected=expected,
        rows=ref,
    )
    idx = np.concatenate([p[0] for p in parts])
    dist = np.concatenate([p[1] for p in parts])
    if root:
        np.sqrt(dist, out=dist)
    return idx, dist


# ---------------------------------------------------------------- margin accumulation


def absdiff_rows(
    X: np.ndarray,
    start: int,
    A: np.ndarray,
    *,
    use_numba: bool | None = None,
    expected: Any = None,
) -> np.ndarray:
    """``out[r] = sum_j A[r, j] * |X[start + r] - X[j]|`` (a vector per row).

    Zero coefficients are skipped; the result for a row does not depend on the other
    rows of the block. With ``expected`` (an
    :class:`~fsel.kernels.distances.ExpectedDiff`), a missing component contributes its
    expected absolute difference (``X`` is then the model's own filled copy).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 0.0]])
    >>> absdiff_rows(X, 0, np.array([[0.0, 1.0, -0.5]])).tolist()
    [[0.0, -0.5]]
    """
    if expected is not None:
        rows_idx = np.arange(start, start + np.shape(A)[0])
        return expected_absdiff(expected, rows_idx, None, A, use_numba=use_numba)
    if _issparse(X):
        return sparse_absdiff_dense(X, np.arange(start, start + np.shape(A)[0]), A)
    X = np.ascontiguousarray(X, dtype=np.float64)
    A = np.ascontiguousarray(A, dtype=np.float64)
    rows = A.shape[0]
    out = np.zeros((rows, X.shape[1]))
    if _use_numba(use_numba):
        _numba_kernels()["absdiff_rows"](X, int(start), A, out)
        return out
    tmp = np.empty_like(A)  # one block-sized work array, reused feature by feature
    for d in range(X.shape[1]):
        col = X[:, d]
        np.subtract(col[start : start + rows, None], col[None, :], out=tmp)
        np.abs(tmp, out=tmp)
        out[:, d] = np.einsum("rj,rj->r", A, tmp)
    return out


def absdiff_sparse(
    X: np.ndarray,
    idx: np.ndarray,
    coef: np.ndarray,
    *,
    rows: np.ndarray | None = None,
    use_numba: bool | None = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    expected: Any = None,
) -> np.ndarray:
    """``out[r] = sum_m coef[r, m] * |X[rows[r]] - X[idx[r, m]]|``, skipping ``idx < 0``.

    ``rows`` defaults to ``0..len(idx)-1``. With ``expected`` (an
    :class:`~fsel.kernels.distances.ExpectedDiff`), a missing component contributes its
    expected absolute difference.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 0.0]])
    >>> absdiff_sparse(X, np.array([[1, 2]]), np.array([[1.0, -1.0]])).tolist()
    [[-2.0, -1.0]]
    """
    if not _issparse(X):
        X = np.ascontiguousarray(X, dtype=np.float64)
    idx = np.ascontiguousarray(idx, dtype=np.intp)
    coef = np.ascontiguousarray(coef, dtype=np.float64)
    rows_idx = np.arange(idx.shape[0]) if rows is None else np.asarray(rows, dtype=np.intp)
    if _issparse(X):
        Xs = X.tocsr()
        if not Xs.has_sorted_indices:
            Xs = Xs.sorted_indices()
        d = Xs.shape[1]
        m = max(idx.shape[1], 1)
        out = np.zeros((idx.shape[0], d))
        if _use_numba(use_numba):
            # from the non-zeros: a merge of each pair's sorted column lists
            _numba_kernels()["absdiff_csr"](
                np.asarray(Xs.indptr, dtype=np.intp),
                np.asarray(Xs.indices, dtype=np.intp),
                np.asarray(Xs.data, dtype=np.float64),
                rows_idx,
                idx,
                coef,
                out,
            )
            return out
        # numpy: each span's rows and neighbours densified (never the whole matrix)
        step = max(1, int(memory_budget // (8 * (m + 1) * (d + 2))))
        for a in range(0, idx.shape[0], step):
            b = min(a + step, idx.shape[0])
            ii = idx[a:b]
            cc = np.where(ii >= 0, coef[a:b], 0.0)
            diff = Xs[np.maximum(ii, 0).ravel()].toarray().reshape(b - a, ii.shape[1], d)
            np.subtract(Xs[rows_idx[a:b]].toarray()[:, None, :], diff, out=diff)
            np.abs(diff, out=diff)
            out[a:b] = np.einsum("rm,rmd->rd", cc, diff)
        return out
    if expected is not None:
        return expected_absdiff(
            expected, rows_idx, idx, coef, use_numba=use_numba, memory_budget=memory_budget
        )
    out = np.zeros((idx.shape[0], X.shape[1]))
    if _use_numba(use_numba):
        _numba_kernels()["absdiff_sparse"](X, rows_idx, idx, coef, out)
        return out
    m = max(idx.shape[1], 1)
    # per span one (rows, m, d) work array, differenced in place, and the (rows, m)
    # coefficients
    step = max(1, int(memory_budget // (8 * m * (max(X.shape[1], 1) + 2))))
    for a in range(0, idx.shape[0], step):
        b = min(a + step, idx.shape[0])
        ii = idx[a:b]
        cc = np.where(ii >= 0, coef[a:b], 0.0)
        diff = X[np.maximum(ii, 0)]
        np.subtract(X[rows_idx[a:b], None, :], diff, out=diff)
        np.abs(diff, out=diff)
        out[a:b] = np.einsum("rm,rmd->rd", cc, diff)
    return out


def sparse_absdiff_dense(X: Any, rows: np.ndarray, A: np.ndarray) -> np.ndarray:
    """``out[r] = sum_j A[r, j] |x_{rows[r]} - x_j|`` for a sparse ``X`` (a vector per
    row), from the non-zeros.

    Where ``x_{rows[r], k} = 0`` the sum is ``(A |X|)[r, k]`` (one sparse product);
    each non-zero ``x_{rows[r], k}`` instead takes ``A[r] . |x_{rows[r], k} - X[:, k]|``
    with column ``k`` densified (``N`` values). ``X`` is never densified whole.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 0.0]]))
    >>> sparse_absdiff_dense(X, np.array([0]), np.array([[0.0, 1.0, -0.5]])).tolist()
    [[0.0, -0.5]]
    """
    Xs = X.tocsr()
    rows = np.asarray(rows, dtype=np.intp)
    A = np.asarray(A, dtype=np.float64)
    out = np.asarray(abs(Xs).T @ A.T).T.copy()
    block = Xs[rows].tocoo()
    if block.nnz == 0:
        return out
    Xc = Xs.tocsc()
    order = np.argsort(block.col, kind="stable")
    r_all, k_all, v_all = block.row[order], block.col[order], block.data[order]
    cuts = np.flatnonzero(np.diff(k_all)) + 1
    for rs, ks, vs in zip(
        np.split(r_all, cuts), np.split(k_all, cuts), np.split(v_all, cuts), strict=True
    ):
        k = int(ks[0])
        col = Xc[:, [k]].toarray().ravel()
        out[rs, k] = np.einsum("rj,rj->r", A[rs], np.abs(vs[:, None] - col[None, :]))
    return out


def expected_absdiff(
    ed: Any,
    rows: np.ndarray,
    idx: np.ndarray | None,
    coef: np.ndarray,
    *,
    use_numba: bool | None = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> np.ndarray:
    """``out[r] = sum_m coef[r, m] diff(x_{rows[r]}, x_{idx[r, m]})`` with missing values.

    ``diff`` is the per-feature absolute difference, the expected one
    (:class:`~fsel.kernels.distances.ExpectedDiff`) for a missing component;
    ``idx=None`` means ``idx[r, m] = m`` (a dense coefficient block over all rows).
    Pairs with ``idx < 0``, ``idx == rows[r]`` or a zero coefficient are skipped.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel.kernels.distances import ExpectedDiff
    >>> ed = ExpectedDiff(np.array([[0.0], [1.0], [np.nan]]), np.array([0, 0, 1]), 2)
    >>> expected_absdiff(ed, np.array([2]), np.array([[0]]), np.array([[1.0]])).tolist()
    [[0.5]]
    """
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    coef = np.ascontiguousarray(coef, dtype=np.float64)
    dense = idx is None
    idx_a = np.zeros((1, 1), np.intp) if dense else np.ascontiguousarray(idx, dtype=np.intp)
    d = ed.filled.shape[1]
    out = np.zeros((rows.size, d))
    if _use_numba(use_numba):
        from fsel.kernels.distances import _expected_kernels, _v_table

        if ed.has_table:
            # one vectorised pass per pair over the filled difference and the table
            V = _v_table(ed)
            _expected_kernels()["absdiff_v"](
                rows, idx_a, coef, dense, ed.filled, ed.mask, ed.y, V, out
            )
        else:
            _expected_kernels()["absdiff"](rows, idx_a, coef, dense, *ed.args(), out)
        return out
    F, M, y = ed.filled, ed.mask.astype(bool), ed.y
    m = max(coef.shape[1], 1)
    step = max(1, int(memory_budget // (8 * m * (d + 4))))
    for a in range(0, rows.size, step):
        b = min(a + step, rows.size)
        jj = np.broadcast_to(np.arange(m), (b - a, m)) if dense else idx_a[a:b]
        ri = rows[a:b]
        cc = np.where((jj >= 0) & (jj != ri[:, None]), coef[a:b], 0.0)
        jj = np.maximum(jj, 0)
        diff = np.abs(F[ri][:, None, :] - F[jj])
        ma = M[ri][:, None, :]
        mb = M[jj]
        r_, t_, k_ = np.nonzero(ma | mb)
        if r_.size:
            i_, j_ = ri[r_], jj[r_, t_]
            ci, cj = y[i_], y[j_]
            a_miss, b_miss = ma[r_, 0, k_], mb[r_, t_, k_]
            true = np.empty(r_.size)
            sel = a_miss & b_miss
            true[sel] = ed.both(ci[sel], cj[sel], k_[sel], False)
            sel = a_miss & ~b_miss
            true[sel] = ed.expected(ci[sel], k_[sel], F[j_[sel], k_[sel]])
            sel = ~a_miss & b_miss
            true[sel] = ed.expected(cj[sel], k_[sel], F[i_[sel], k_[sel]])
            diff[r_, t_, k_] = true
        out[a:b] = np.einsum("rm,rmd->rd", cc, diff)
    return out


def row_mean_std(
    D: np.ndarray, start: int, *, use_numba: bool | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and (population) standard deviation of each row of a distance block,
    leaving out the row's own sample (column ``start + r``).

    Examples
    --------
    >>> import numpy as np
    >>> m, s = row_mean_std(np.array([[0.0, 1.0, 3.0]]), 0)
    >>> m.tolist(), s.tolist()
    ([2.0], [1.0])
    """
    D = np.ascontiguousarray(D, dtype=np.float64)
    rows, n = D.shape
    if _use_numba(use_numba):
        m, s = np.empty(rows), np.empty(rows)
        _numba_kernels()["row_mean_std"](D, int(start), m, s)
        return m, s
    m, v = np.empty(rows), np.empty(rows)
    step = max(1, -(-rows // 8))  # one temporary of an eighth of the block
    for a in range(0, rows, step):
        b = min(a + step, rows)
        r = np.arange(b - a)
        tmp = D[a:b].copy()
        tmp[r, start + a + r] = 0.0
        m[a:b] = tmp.sum(axis=1) / (n - 1)
        np.subtract(D[a:b], m[a:b, None], out=tmp)
        tmp[r, start + a + r] = 0.0
        np.multiply(tmp, tmp, out=tmp)
        v[a:b] = tmp.sum(axis=1) / (n - 1)
    return m, np.sqrt(v)


def radius_coefficients(
    D: np.ndarray,
    start: int,
    T: np.ndarray,
    y: np.ndarray,
    priors: np.ndarray,
    *,
    use_numba: bool | None = None,
) -> np.ndarray:
    r"""The SURF/MultiSURF weight of a neighbour, by class, for a row block.

    For row ``n = start + r`` with radius ``T[r]`` let ``k_c`` be the number of samples
    ``j != n`` of class ``c`` with ``D[r, j] < T[r]``; then ``coef[r, c]`` is
    ``-1 / k_c`` for ``c = y_n`` (hits), ``p_c / (1 - p_{y_n}) / k_c`` otherwise
    (misses), and 0 when ``k_c = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> D = np.array([[0.0, 1.0, 3.0, 9.0]])  # row 0 against samples 0..3
    >>> radius_coefficients(D, 0, np.array([5.0]), np.array([0, 0, 1, 1]),
    ...                     np.array([0.5, 0.5])).tolist()
    [[-1.0, 1.0]]
    """
    D = np.ascontiguousarray(D, dtype=np.float64)
    T = np.ascontiguousarray(T, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.intp)
    priors = np.asarray(priors, dtype=np.float64)
    rows, C = D.shape[0], priors.size
    r = np.arange(rows)
    if _use_numba(use_numba):
        counts = np.zeros((rows, C))
        _numba_kernels()["radius_counts"](D, int(start), T, y, _label_runs(y), counts)
    else:
        mask = D < T[:, None]
        mask[r, start + r] = False
        counts = np.zeros((rows, C))
        for c in range(C):  # a boolean copy of the class's columns at a time
            counts[:, c] = np.count_nonzero(mask[:, y == c], axis=1)
    return relieff_coefficients(counts, y[start : start + rows], priors)


def relieff_coefficients(counts: np.ndarray, y_rows: np.ndarray, priors: np.ndarray) -> np.ndarray:
    r"""ReliefF's weight of one neighbour, by class, for a block of reference rows.

    ``counts[r, c]`` is the number of neighbours of class ``c`` found for reference
    ``r`` (``k_c``), ``y_rows[r]`` its class. Then ``coef[r, c]`` is ``-1 / k_c`` for
    ``c = y_r`` (hits), ``p_c / (1 - p_{y_r}) / k_c`` otherwise (misses), and 0 when
    ``k_c = 0`` (Kononenko 1994; the SURF-type estimators use the same weights).

    Examples
    --------
    >>> import numpy as np
    >>> relieff_coefficients(np.array([[2.0, 4.0, 0.0]]), np.array([0]),
    ...                      np.array([0.5, 0.25, 0.25])).tolist()
    [[-0.5, 0.125, 0.0]]
    """
    counts = np.asarray(counts, dtype=np.float64)
    y_rows = np.asarray(y_rows, dtype=np.intp)
    priors = np.asarray(priors, dtype=np.float64)
    r = np.arange(counts.shape[0])
    py = priors[y_rows]
    with np.errstate(divide="ignore", invalid="ignore"):
        coef = np.where(counts > 0, (priors[None, :] / (1.0 - py[:, None])) / counts, 0.0)
        hits = counts[r, y_rows]
        coef[r, y_rows] = np.where(hits > 0, -1.0 / hits, 0.0)
    return coef


def _label_runs(y: np.ndarray) -> np.ndarray:
    """``run_end[j]``: one past the last index of the run of equal labels holding ``j``."""
    n = y.size
    ends = np.append(np.flatnonzero(y[1:] != y[:-1]) + 1, n)
    lengths = np.diff(ends, prepend=0)
    return np.repeat(ends, lengths).astype(np.intp)


def radius_margin_rows(
    X: np.ndarray,
    start: int,
    D: np.ndarray,
    T: np.ndarray,
    y: np.ndarray,
    priors: np.ndarray,
    *,
    use_numba: bool | None = None,
) -> np.ndarray:
    r"""Per-row SURF/MultiSURF margins of a row block.

    For row ``n = start + r`` the neighbours are the samples ``j != n`` with
    ``D[r, j] < T[r]``; with ``H`` the neighbours of the same class and ``M_c`` those
    of class ``c``:

    .. math::

        m_n = \sum_{c \ne y_n} \frac{p_c}{1 - p_{y_n}} \frac{1}{|M_c|}
              \sum_{j \in M_c} |x_n - x_j| - \frac{1}{|H|} \sum_{i \in H} |x_n - x_i|

    (an empty set contributes 0; the weights are :func:`radius_coefficients`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> D = np.abs(X - X.T)
    >>> m = radius_margin_rows(X, 0, D[:1], np.array([5.0]), np.array([0, 0, 1]),
    ...                        np.array([0.5, 0.5]))
    >>> m.tolist()  # miss at distance 3 (weight 0.5 / 0.5), hit at distance 1
    [[2.0]]
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    D = np.ascontiguousarray(D, dtype=np.float64)
    T = np.ascontiguousarray(T, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.intp)
    rows = D.shape[0]
    numba_on = _use_numba(use_numba)
    coef = radius_coefficients(D, start, T, y, priors, use_numba=numba_on)
    if numba_on:
        out = np.zeros((rows, X.shape[1]))
        _numba_kernels()["radius_rows"](X, int(start), D, T, y, coef, out)
        return out
    mask = D < T[:, None]
    mask[np.arange(rows), start + np.arange(rows)] = False
    A = np.take(coef, y, axis=1)  # C-ordered (coef[:, y] is not: a copy downstream)
    A *= mask
    del mask
    return absdiff_rows(X, start, A, use_numba=False)


def radius_margin_rows_at(
    ed: Any,
    selfs: np.ndarray,
    D: np.ndarray,
    T: np.ndarray,
    y: np.ndarray,
    priors: np.ndarray,
    *,
    use_numba: bool | None = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    X: Any = None,
) -> np.ndarray:
    """:func:`radius_margin_rows` for arbitrary rows ``selfs`` (reference samples),
    with the differences of an :class:`~fsel.kernels.distances.ExpectedDiff` (holes:
    expected differences), or, with ``ed=None``, of the sparse matrix ``X``.

    ``D[r, j]`` is the distance of sample ``selfs[r]`` to sample ``j``. The
    coefficients are those of :func:`radius_coefficients`; the margins come from
    :func:`expected_absdiff` over the dense coefficient block.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel.kernels.distances import ExpectedDiff
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> ed = ExpectedDiff(X, np.array([0, 0, 1]), 2)
    >>> D = np.abs(X[[0]] - X.T)
    >>> radius_margin_rows_at(ed, np.array([0]), D, np.array([5.0]), np.array([0, 0, 1]),
    ...                       np.array([0.5, 0.5])).tolist()
    [[2.0]]
    """
    selfs = np.asarray(selfs, dtype=np.intp)
    y = np.asarray(y, dtype=np.intp)
    priors = np.asarray(priors, dtype=np.float64)
    rows, C = D.shape[0], priors.size
    r = np.arange(rows)
    mask = D < np.asarray(T, dtype=np.float64)[:, None]
    mask[r, selfs] = False
    counts = np.zeros((rows, C))
    for c in range(C):
        counts[:, c] = np.count_nonzero(mask[:, y == c], axis=1)
    coef = relieff_coefficients(counts, y[selfs], priors)
    A = np.take(coef, y, axis=1)
    A *= mask
    del mask
    if ed is None:
        return sparse_absdiff_dense(X, selfs, A)
    return expected_absdiff(ed, selfs, None, A, use_numba=use_numba, memory_budget=memory_budget)


def radius_margin_sum(
    X: np.ndarray,
    D: np.ndarray,
    T: np.ndarray,
    y: np.ndarray,
    priors: np.ndarray,
    *,
    n_jobs: int | None = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    use_numba: bool | None = None,
) -> np.ndarray:
    r"""Sum over all samples of the SURF/MultiSURF margins, from the full matrix.

    ``sum_n m_n`` with ``m_n`` as in :func:`radius_margin_rows` and ``D`` the full
    ``N x N`` distance matrix. The compiled path visits each unordered pair once:

    .. math::

        \sum_n m_n = \sum_{r < j} \big([D_{rj} < T_r]\, c_{r, y_j}
                      + [D_{rj} < T_j]\, c_{j, y_r}\big)\, |x_r - x_j|

    (``c`` from :func:`radius_coefficients`), so a pair inside both radii costs one
    ``|x_r - x_j|`` instead of two; rows run in ``n_jobs`` threads. The per-row
    partial sums do not depend on the thread partition, so the result is identical for
    every ``n_jobs``. Any label order is accepted; samples grouped by class (``y``
    sorted) run fastest, as the weights are then set run by run. The numpy path sums
    :func:`radius_margin_rows` over row spans whose work arrays fit ``memory_budget``
    bytes (the compiled path needs ``O(N D)`` beyond ``D``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> D = np.abs(X - X.T)
    >>> T, y, p = np.full(3, 2.5), np.array([0, 0, 1]), np.array([0.5, 0.5])
    >>> radius_margin_sum(X, D, T, y, p).tolist()  # rows 0-2: -1, -1 + 2, 2
    [2.0]
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    D = np.ascontiguousarray(D, dtype=np.float64)
    T = np.ascontiguousarray(T, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.intp)
    priors = np.ascontiguousarray(priors, dtype=np.float64)
    n, d = X.shape
    workers = effective_n_jobs(n_jobs)
    if not _use_numba(use_numba):
        step = rows_per_block(n, max(int(memory_budget), 1))
        parts = [
            radius_margin_rows(X, a, D[a : a + step], T[a : a + step], y, priors, use_numba=False)
            for a in range(0, n, step)
        ]
        return np.concatenate(parts).sum(axis=0)
    chunks = balanced_upper_chunks(n, 4 * workers if workers > 1 else 1)
    spans = [(a, min(a + -(-n // len(chunks)), n)) for a in range(0, n, -(-n // len(chunks)))]
    coef = np.concatenate(
        threaded_spans(
            lambda a, b: radius_coefficients(D[a:b], a, T[a:b], y, priors, use_numba=True),
            spans,
            workers,
        )
    )
    coefT = np.ascontiguousarray(coef.T)
    runs = _label_runs(y)
    out = np.zeros((n, d))
    pairs = _numba_kernels()["radius_pairs"]
    threaded_spans(
        lambda a, b: pairs(X, D, T, y, coef, coefT, runs, a, b, out[a:b]), chunks, workers
    )
    return out.sum(axis=0)


# ------------------------------------------------------------ 1-D Gaussian kernel sums

#: Taylor terms of the expansion (see :func:`gaussian_class_sums`).
GAUSS_P = 20
#: Boxes (of width sigma) visited on each side of a target's box.
GAUSS_L = 8
#: Bound on the absolute error of every per-sample kernel mean.
GAUSS_TOL = 1e-12


def _sqrt_factorials(p: int) -> np.ndarray:
    return np.sqrt(np.array([math.factorial(q) for q in range(p)], dtype=np.float64))


def _gauss_sums_numpy(t: np.ndarray, cnt: np.ndarray, p: int, L: int) -> np.ndarray:
    U, C = cnt.shape
    sf = _sqrt_factorials(p)
    lo = t[0]
    b = np.minimum(np.floor(t - lo).astype(np.intp), int(np.floor(t[-1] - lo)))
    nb = int(b[-1]) + 1
    u = t - (lo + b + 0.5)
    powers = np.exp(-0.5 * u * u)[:, None] * (u[:, None] ** np.arange(p)) / sf  # (U, p)
    starts = np.flatnonzero(np.r_[True, np.diff(b) > 0])
    M = np.zeros((nb, p, C))
    for c in range(C):
        M[b[starts], :, c] = np.add.reduceat(powers * cnt[:, c : c + 1], starts, axis=0)
    G = np.zeros((U, C))
    for o in range(-L, L + 1):
        bb = b + o
        ok = (bb >= 0) & (bb < nb)
        if not ok.any():
            continue
        v = t[ok] - (lo + bb[ok] + 0.5)
        P = np.exp(-0.5 * v * v)[:, None] * (v[:, None] ** np.arange(p)) / sf
        G[ok] += np.einsum("up,upc->uc", P, M[bb[ok]])
    return G


def gaussian_class_sums(
    X: np.ndarray,
    y: np.ndarray,
    sigma: np.ndarray,
    *,
    n_classes: int | None = None,
    use_numba: bool | None = None,
) -> np.ndarray:
    r"""Class-by-class sums of the per-feature Gaussian kernel.

    .. math::

        S_{d, c, c'} = \sum_{n: y_n = c} \sum_{j: y_j = c'}
            \exp\left(-\frac{(x_{nd} - x_{jd})^2}{2 \sigma_d^2}\right)

    (the ``n = j`` terms included). This is the only data-dependent quantity of the
    P-Relief margin.

    Algorithm and tolerance: per feature, the distinct values (with per-class counts)
    are put in boxes of width ``sigma_d``; each box's sources are summarised by
    ``GAUSS_P = 20`` Taylor moments of ``exp(u v)`` about the box centre (a 1-D fast
    Gauss transform), and every target adds the ``2 GAUSS_L + 1 = 17`` boxes around
    its own. Omitted boxes are farther than ``8 sigma`` (each term below
    ``exp(-32) = 1.3e-14``), and the Taylor remainder of the included ones is below
    ``1e-15`` per source point, so every kernel *mean* over a class (what the margin
    uses) is within ``GAUSS_TOL = 1e-12`` of the exact value. Cost: ``O(U p)`` per
    feature for ``U`` distinct values, independent of ``sigma``, instead of the
    ``O(N^2)`` kernel evaluations of the direct formula.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Class codes.
    sigma : ndarray of shape (d,)
        Positive kernel widths.

    Returns
    -------
    S : ndarray of shape (d, n_classes, n_classes)

    Examples
    --------
    >>> import numpy as np
    >>> S = gaussian_class_sums(np.array([[0.0], [0.0], [1.0]]), np.array([0, 1, 1]),
    ...                         np.array([1.0]))
    >>> np.round(S[0], 6).tolist()
    [[1.0, 1.606531], [1.606531, 3.213061]]
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.intp)
    sigma = np.broadcast_to(np.asarray(sigma, dtype=np.float64), (X.shape[1],))
    if not (np.all(np.isfinite(sigma)) and np.all(sigma > 0)):
        raise ValueError("sigma must be positive and finite for every feature")
    C = int(y.max()) + 1 if n_classes is None else int(n_classes)
    onehot = np.zeros((X.shape[0], C))
    onehot[np.arange(X.shape[0]), y] = 1.0
    numba_on = _use_numba(use_numba)
    sf = _sqrt_factorials(GAUSS_P)
    S = np.zeros((X.shape[1], C, C))
    for d in range(X.shape[1]):
        vals, inv = np.unique(X[:, d], return_inverse=True)
        inv = inv.reshape(-1)
        cnt = np.stack(
            [np.bincount(inv, weights=onehot[:, c], minlength=vals.size) for c in range(C)], axis=1
        )
        t = vals / sigma[d]
        if numba_on:
            G = np.zeros((vals.size, C))
            _numba_kernels()["gauss_sums"](t, cnt, GAUSS_P, GAUSS_L, sf, G)
        else:
            G = _gauss_sums_numpy(t, cnt, GAUSS_P, GAUSS_L)
        S[d] = cnt.T @ G
    return S


def _value_sums(vals: np.ndarray, w: np.ndarray, sigma: float, numba_on: bool) -> np.ndarray:
    """``G[u] = sum_v w[v] exp(-(vals[u] - vals[v])^2 / (2 sigma^2))`` for sorted
    distinct ``vals`` (the transform of :func:`gaussian_class_sums`, one class)."""
    t = vals / sigma
    cnt = np.ascontiguousarray(np.asarray(w, dtype=np.float64)[:, None])
    if numba_on:
        G = np.zeros((vals.size, 1))
        _numba_kernels()["gauss_sums"](t, cnt, GAUSS_P, GAUSS_L, _sqrt_factorials(GAUSS_P), G)
    else:
        G = _gauss_sums_numpy(t, cnt, GAUSS_P, GAUSS_L)
    return G[:, 0]


def gaussian_hit_total_sums(
    X: np.ndarray,
    y: np.ndarray,
    sigma: np.ndarray,
    *,
    n_classes: int | None = None,
    use_numba: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""The diagonal and the row sums of :func:`gaussian_class_sums`, in ``O(N)`` memory.

    ``hits[d, c] = S[d, c, c]`` and ``totals[d, c] = sum_c' S[d, c, c']``: all the
    P-Relief margin needs, without the ``C x C`` tables (with many classes, e.g. one
    sample per class, those would be ``8 C^2`` bytes per feature). The totals come from
    one transform over all samples; the hit sums from one transform per class (the
    direct ``n_c^2`` kernel sum for classes of at most 32 members), so the tolerance is
    that of :func:`gaussian_class_sums`.

    Examples
    --------
    >>> import numpy as np
    >>> X, y = np.array([[0.0], [0.0], [1.0]]), np.array([0, 1, 1])
    >>> hits, totals = gaussian_hit_total_sums(X, y, np.array([1.0]))
    >>> np.round(hits, 6).tolist(), np.round(totals, 6).tolist()
    ([[1.0, 3.213061]], [[2.606531, 4.819592]])
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.intp)
    sigma = np.broadcast_to(np.asarray(sigma, dtype=np.float64), (X.shape[1],))
    if not (np.all(np.isfinite(sigma)) and np.all(sigma > 0)):
        raise ValueError("sigma must be positive and finite for every feature")
    C = int(y.max()) + 1 if n_classes is None else int(n_classes)
    d = X.shape[1]
    numba_on = _use_numba(use_numba)
    order = np.argsort(y, kind="stable")
    bounds = np.searchsorted(y[order], np.arange(C + 1))
    hits = np.zeros((d, C))
    totals = np.zeros((d, C))
    for f in range(d):
        col = X[:, f : f + 1]
        s = sigma[f : f + 1]
        vals, inv = np.unique(col[:, 0], return_inverse=True)
        inv = inv.reshape(-1)
        g_all = _value_sums(vals, np.bincount(inv, minlength=vals.size), s[0], numba_on)
        per = g_all[inv]
        totals[f] = np.bincount(y, weights=per, minlength=C)
        for c in range(C):
            members = order[bounds[c] : bounds[c + 1]]
            if members.size == 0:
                continue
            v = col[members, 0]
            if members.size <= 32:
                t = (v[:, None] - v[None, :]) / s[0]
                hits[f, c] = np.exp(-0.5 * t * t).sum()
            else:
                u, iv = np.unique(v, return_inverse=True)
                w = np.bincount(iv.reshape(-1), minlength=u.size).astype(np.float64)
                hits[f, c] = float(w @ _value_sums(u, w, s[0], numba_on))
    return hits, totals
