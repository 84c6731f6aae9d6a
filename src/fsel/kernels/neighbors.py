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
depend on the block shape, see :func:`fsel.kernels.distances.distance_blocks`, but
the neighbours found do not, by the tie rule below). The
one exception is by design: with the full matrix, :func:`radius_margin_sum` adds the
SURF/MultiSURF margins pair by pair (each pair once, for both of its rows), the row
blocks row by row; the two sums agree to rounding (tested to 1e-12), and each is
bit-identical for every ``n_jobs``.

Ties: distances that are equal up to rounding
---------------------------------------------
Two distances equal on paper may come out a rounding step apart, depending on how
they were summed (a dense row feature by feature, a sparse row as ``|a|_1 + |b|_1``
less corrections, a BLAS block for the Euclidean metric, a differently shifted
scaling), so exact comparisons would let the rounding pick the neighbour. One rule
decides instead, everywhere the Relief family ranks neighbours (the CPU kernels,
the GPU's and Dask's): distances within :func:`tie_tolerance` of each other count as
equal, and the smaller sample index comes first. :func:`tie_order` states it as a
sort; the compiled kernels scan the samples in index order and let a later sample
displace a kept one only when it is nearer by more than the tolerance, which is
the same order. Every per-feature difference of a scaled sample is at most 1, so
``n_features`` bounds every distance (Manhattan) and squared distance (Euclidean
neighbours are ranked on their squares), and the tolerance is
``DISTANCE_TIE_TOL * n_features``: far above the rounding noise of any of the
sums, far below the steps between distinct distances of data with few values.
Distances closer than that are ties even when they differ on paper (the smaller
index then wins, as for an exact tie). SURF's and MultiSURF's radii follow the same
rule (:func:`tie_radius`): a distance within the tolerance of the radius counts as
equal to it, so it is not inside (a neighbour is strictly nearer than the radius).

numba is optional: each compiled kernel (``cache=True, nogil=True``, imported lazily)
has a pure-numpy twin computing the same quantity; tests check that both agree.

Functions
---------
DISTANCE_TIE_TOL, tie_tolerance, tie_order, tie_radius
    The tie rule of the neighbour search (above).
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
from fsel.kernels.gaussian_sums import (
    GAUSS_L,
    GAUSS_P,
    GAUSS_TOL,
    gaussian_class_sums,
    gaussian_hit_total_sums,
)
from fsel.kernels.relief_margins import expected_absdiff

__all__ = [
    "DISTANCE_TIE_TOL",
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
    "tie_order",
    "tie_radius",
    "tie_tolerance",
]

#: Distances within ``DISTANCE_TIE_TOL * n_features`` of each other are ties (the
#: smaller index first): see "Ties" in the module docstring.
DISTANCE_TIE_TOL = 1e-12


def _kernels() -> Any:
    """The compiled kernels (imported on first use: numba stays optional)."""
    from fsel.kernels import _numba_neighbors

    return _numba_neighbors


# --------------------------------------------------------------------- neighbour lists


def tie_tolerance(n_features: int) -> float:
    """The tie tolerance of distances over ``n_features`` scaled features (Manhattan,
    or squared Euclidean): ``DISTANCE_TIE_TOL * n_features``, the rule of the module
    docstring ("Ties").

    Examples
    --------
    >>> tie_tolerance(1000)
    1e-09
    """
    return DISTANCE_TIE_TOL * max(int(n_features), 1)


def tie_radius(T: np.ndarray, n_features: int) -> np.ndarray:
    """The bound that SURF-type neighbours' distances must stay under, for radii ``T``
    over ``n_features`` scaled features: ``T - tie_tolerance(n_features)``, so that a
    distance equal to the radius up to rounding is on it, not inside.

    Examples
    --------
    >>> tie_radius(np.array([2.0]), 1000).tolist()
    [1.999999999]
    """
    return np.asarray(T, dtype=np.float64) - tie_tolerance(n_features)


def tie_order(dist: np.ndarray, idx: np.ndarray, eps: float) -> np.ndarray:
    """The order of the neighbour search along the last axis: by distance, distances
    within ``eps`` (:func:`tie_tolerance`) of each other counting as equal, then by
    index; ``idx < 0`` (no sample) last.

    Sorted by distance, a run of values each within ``eps`` of the previous one is one
    tie (on data whose distinct distances lie more than ``eps`` apart these runs are
    exactly the equal-on-paper distances); within a run the smaller index comes
    first. Returns indices into the last axis (``np.take_along_axis`` applies them).

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([2.0, 1.0 + 1e-15, 1.0, 0.5])
    >>> tie_order(d, np.array([0, 1, 2, 3]), 1e-12).tolist()  # 1 and 2 tie: 1 first
    [3, 1, 2, 0]
    """
    dist = np.asarray(dist, dtype=np.float64)
    idx = np.broadcast_to(np.asarray(idx), dist.shape)
    key = np.where(idx < 0, np.iinfo(np.int64).max, idx)
    first = np.lexsort((key, dist), axis=-1)
    if dist.shape[-1] < 2:
        return first
    ds = np.take_along_axis(dist, first, -1)
    with np.errstate(invalid="ignore"):  # inf - inf: the absent entries tie (last)
        new = np.diff(ds, axis=-1) > eps
    run = np.concatenate([np.zeros((*new.shape[:-1], 1), np.intp), np.cumsum(new, -1)], -1)
    again = np.lexsort((np.take_along_axis(key, first, -1), run), axis=-1)
    return np.take_along_axis(first, again, -1)


def _knn_block_numpy(
    D: np.ndarray, selfs: np.ndarray, y: np.ndarray, n_classes: int, k: int, eps: float
):
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
        take = min(k, cols.size)
        step = max(1, -(-rows // 8))  # the sort's temporaries: an eighth of the block
        for a in range(0, rows, step):
            part = sub[a : a + step]
            order = tie_order(part, cols, eps)[:, :take]
            idx[a : a + step, c, :take] = cols[order]
            dist[a : a + step, c, :take] = np.take_along_axis(part, order, axis=1)
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

    The sample itself is never its own neighbour. Distances within
    :func:`tie_tolerance` of each other are ties, broken by the smaller index (the
    module docstring's "Ties"), so the neighbours do not depend on how the distances
    were summed (dense or sparse, column order, blocks). Any label order is accepted;
    samples grouped by class (``y`` sorted) run fastest with the compiled kernel.

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
    expected : :class:`fsel.kernels.relief_margins.ExpectedDiff` or None
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

    eps = tie_tolerance(X.shape[1])
    ref = None if rows is None else np.ascontiguousarray(rows, dtype=np.intp)
    if ref is not None and expected is None and metric == "manhattan" and numba_on:
        if not _issparse(X):
            # reference rows: the distances streamed, X read once (no blocks)
            return manhattan_knn_rows(X, y, ref, k, C, eps, n_jobs=n_jobs)

    def fn(a: int, b: int, D: np.ndarray):
        selfs = np.arange(a, b) if ref is None else ref[a:b]
        if numba_on:
            idx = np.full((b - a, C, k), -1, dtype=np.intp)
            dist = np.full((b - a, C, k), np.inf)
            _kernels().knn_block(D, selfs, y, runs, k, eps, idx, dist)
            return idx, dist
        return _knn_block_numpy(D, selfs, y, C, k, eps)

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
    :class:`~fsel.kernels.relief_margins.ExpectedDiff`), a missing component contributes its
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
        _kernels().absdiff_rows(X, int(start), A, out)
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
    :class:`~fsel.kernels.relief_margins.ExpectedDiff`), a missing component contributes its
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
            _kernels().absdiff_csr(
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
        _kernels().absdiff_sparse(X, rows_idx, idx, coef, out)
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
        _kernels().row_mean_std(D, int(start), m, s)
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
        _kernels().radius_counts(D, int(start), T, y, _label_runs(y), counts)
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
        _kernels().radius_rows(X, int(start), D, T, y, coef, out)
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
    with the differences of an :class:`~fsel.kernels.relief_margins.ExpectedDiff` (holes:
    expected differences), or, with ``ed=None``, of the sparse matrix ``X``.

    ``D[r, j]`` is the distance of sample ``selfs[r]`` to sample ``j``. The
    coefficients are those of :func:`radius_coefficients`; the margins come from
    :func:`expected_absdiff` over the dense coefficient block.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel.kernels.relief_margins import ExpectedDiff
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
    pairs = _kernels().radius_pairs
    threaded_spans(
        lambda a, b: pairs(X, D, T, y, coef, coefT, runs, a, b, out[a:b]), chunks, workers
    )
    return out.sum(axis=0)
