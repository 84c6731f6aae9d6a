"""Pairwise distances: the one distance kernel of fsel.

Every pairwise distance in fsel is computed here; :mod:`fsel.kernels.neighbors` (the
Relief family) and :mod:`fsel.kernels.classifiability` only call these functions.
No ``N x N`` matrix larger than ``memory_budget`` bytes is materialised unless the
caller asked for the full matrix after checking :func:`fits_full`.

Metric distances (Relief family, k-NN protocols)
------------------------------------------------
Metrics ``"manhattan"`` (L1), ``"euclidean"`` (L2) and ``"sqeuclidean"`` (squared L2).

* :func:`distance_block` / :func:`distance_blocks` -- dense row blocks ``dist(A_i, B_j)``.
  The Euclidean metrics use BLAS (``|a|^2 + |b|^2 - 2 a.b``), clipped at zero, with
  exact zeros on the diagonal when ``X`` is compared with itself.
* :func:`full_distance_matrix` -- the whole symmetric matrix (Manhattan: the upper
  triangle only, mirrored, split over threads in chunks of equal work,
  :func:`balanced_upper_chunks`; Euclidean with numba: one BLAS ``X X^T`` turned into
  distances by one fused pass over its upper triangle, so the matrix is exactly
  symmetric).
* :func:`map_distance_rows` -- applies a function to every row block (or row span of the
  full matrix), in threads, under the memory budget (:func:`rows_per_block`,
  :func:`fits_full`).

The Manhattan metric has no BLAS form; when numba is installed compiled kernels
(``nogil``, so row blocks can run in threads) sum ``|a_d - b_d|`` feature by feature
with one per-pair primitive for both the block and the upper-triangle tilings, in the
same order as the pure-numpy fallback, so both paths give the same distances up to
floating-point reassociation (tested to 1e-12).

Mixed squared distances (classifiability)
-----------------------------------------
On range-scaled data with numeric and symbolic columns the squared distance over a
feature list ``v`` is accumulated feature by feature, in list order:

.. math:: D^2_v(i, j) = \\sum_{f \\in v} \\delta_f(i, j), \\qquad
          \\delta_f(i, j) = (x_{if} - x_{jf})^2 \\;\\text{or}\\; [x_{if} \\ne x_{jf}].

:func:`sq_delta` is ``delta_f`` (numpy, broadcasting), :func:`mixed_sq_distances` the
accumulated row block, and :func:`numba_sq_delta_add` the same update
``s + delta_f`` as a numba-callable scalar for compiled kernels that fuse it with their
own scans. All three perform the same floating-point operations (``d * d`` then one
addition, no contraction), so an incremental ``D2(v + f) = D2(v) + delta_f`` and a
from-scratch ``D2(v + f)`` agree bit for bit.

numba is optional and imported lazily, the first time a compiled kernel is needed;
``FSEL_DISABLE_NUMBA=1`` turns it off (:func:`numba_available`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from fsel.utils.parallel import (
    check_memory_budget,
    effective_n_jobs,
    numba_available,
    thread_map,
)
from fsel.utils.parallel import (
    is_sparse as _issparse,
)

__all__ = [
    "DEFAULT_MEMORY_BUDGET",
    "METRICS",
    "balanced_upper_chunks",
    "block_rows_for_budget",
    "distance_block",
    "distance_blocks",
    "effective_n_jobs",
    "fits_full",
    "full_distance_matrix",
    "manhattan_knn_rows",
    "map_distance_rows",
    "max_norm_row",
    "mixed_sq_distances",
    "numba_available",
    "numba_sq_delta_add",
    "rows_per_block",
    "sparse_distance_block",
    "sq_delta",
    "threaded_spans",
]

DEFAULT_MEMORY_BUDGET = 256 * 2**20  # bytes
METRICS = ("manhattan", "euclidean", "sqeuclidean")

#: Work arrays per distance row held at once by :func:`map_distance_rows`' callers
#: (distances + coefficients + scratch).
_FACTOR = 3
#: The full matrix is used when ``_FULL_FACTOR * 8 * N^2`` bytes fit the budget: the
#: matrix itself plus room for the row spans' work arrays.
_FULL_FACTOR = 1.5


# ------------------------------------------------------------------ budgets and threads


def block_rows_for_budget(
    n_cols: int, memory_budget: int = DEFAULT_MEMORY_BUDGET, itemsize: int = 8, factor: int = 2
) -> int:
    """Rows per block so that ``factor`` blocks of ``rows x n_cols`` fit the budget."""
    memory_budget = check_memory_budget(memory_budget)
    return max(1, int(memory_budget // (factor * itemsize * max(n_cols, 1))))


def rows_per_block(n_cols: int, memory_budget: int, n_workers: int = 1) -> int:
    """Rows of an ``rows x n_cols`` distance block so that ``n_workers`` blocks (and
    their work arrays) fit ``memory_budget`` bytes."""
    return block_rows_for_budget(n_cols, memory_budget, factor=_FACTOR * max(n_workers, 1))


def fits_full(n: int, memory_budget: int) -> bool:
    """Whether the full ``n x n`` distance matrix (with work arrays) fits the budget."""
    return _FULL_FACTOR * 8 * n * n <= check_memory_budget(memory_budget)


#: Rows whose results a caller of :func:`map_distance_rows` adds up together before
#: the rest (in order), passing it as ``align``: no block splits such a run, so the
#: total is the same for every ``n_jobs``
ROW_RUN = 16

#: The row spans of a traversal run in threads (the compiled kernels and BLAS release
#: the GIL); the one thread helper of :mod:`fsel.utils.parallel`.
threaded_spans = thread_map


# ----------------------------------------------------------------------------- numba


def _kernels() -> Any:
    """The compiled kernels (imported on first use: numba stays optional)."""
    from fsel.kernels import _numba_distances

    return _numba_distances


def _use_numba(use_numba: bool | None) -> bool:
    return numba_available() if use_numba is None else bool(use_numba)


def manhattan_knn_rows(
    X: np.ndarray,
    y: np.ndarray,
    rows: np.ndarray,
    k: int,
    n_classes: int,
    eps: float,
    *,
    n_jobs: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest samples of each class (Manhattan) to the samples ``rows``,
    with the distances streamed (compiled; needs numba): no distance block is stored,
    and ``X`` is read once per thread. ``rows`` are split over ``n_jobs`` threads.

    Same neighbours and distances as :func:`fsel.kernels.neighbors.knn_by_class` over
    the distance blocks (the same per-pair primitive, index order, and tie rule:
    distances within ``eps`` are ties, kept by the smaller index; see
    :func:`fsel.kernels.neighbors.tie_order`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y, rows = np.array([0, 0, 1, 1]), np.array([0, 3])
    >>> idx, dist = manhattan_knn_rows(X, y, rows, 1, 2, 1e-12)
    >>> idx[:, :, 0].tolist(), dist[:, :, 0].tolist()
    ([[1, 2], [1, 2]], [[1.0, 3.0], [3.0, 1.0]])
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.intp)
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    m = rows.size
    idx = np.full((m, n_classes, k), -1, dtype=np.intp)
    dist = np.full((m, n_classes, k), np.inf)
    kern = _kernels().manhattan_knn_stream
    workers = effective_n_jobs(n_jobs)
    step = max(1, -(-m // workers))
    spans = [(a, min(a + step, m)) for a in range(0, m, step)]

    def run(a: int, b: int) -> None:
        R = np.ascontiguousarray(X[rows[a:b]])
        kern(R, rows[a:b], X, y, int(k), float(eps), idx[a:b], dist[a:b])

    threaded_spans(run, spans, workers)
    return idx, dist


def numba_sq_delta_add() -> Any:
    """The numba-callable scalar ``sq_delta_add(s, a, b, symbolic) -> s + delta(a, b)``.

    ``delta`` is :func:`sq_delta` for one pair of values. For compiled kernels (of
    :mod:`fsel.kernels.classifiability`) that fuse the distance update with their own
    scans; it is inlined into the caller, which must be compiled without ``fastmath``
    to keep the numpy path's rounding. Needs numba (check :func:`numba_available`).
    """
    return _kernels().sq_delta_add


# ------------------------------------------------------------ mixed squared distances


def sq_delta(a: np.ndarray, b: np.ndarray, symbolic: bool) -> np.ndarray:
    """One feature's contribution to the squared distance, broadcasting ``a`` against ``b``.

    ``(a - b)**2`` (computed as ``d * d``) for a numeric feature, ``[a != b]`` (0.0 or
    1.0) for a symbolic one.

    Examples
    --------
    >>> import numpy as np
    >>> z = np.array([0.0, 0.5, 1.0])
    >>> sq_delta(z[:, None], z[None, :], False)[0].tolist()
    [0.0, 0.25, 1.0]
    >>> sq_delta(z[:, None], z[None, :], True)[0].tolist()
    [0.0, 1.0, 1.0]
    """
    if symbolic:
        return (a != b).astype(np.float64)
    d = a - b
    return d * d


def mixed_sq_distances(
    X: np.ndarray,
    symbolic: np.ndarray,
    features: Sequence[int],
    rows: slice = slice(None),
) -> np.ndarray:
    """``D2[i, j]`` of the rows ``X[rows]`` against all rows of ``X`` over ``features``.

    The per-feature :func:`sq_delta` are added in the order of ``features``, starting
    from 0, so the result is bit for bit what adding them one at a time gives.

    Parameters
    ----------
    X : ndarray of shape (n, d), float64
        Range-scaled numeric columns and symbolic codes.
    symbolic : ndarray of bool, shape (d,)
    features : sequence of int
    rows : slice
        The row block (callers choose its size for their memory budget).

    Returns
    -------
    ndarray of shape (rows, n)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [0.5, 1.0], [1.0, 2.0]])
    >>> mixed_sq_distances(X, np.array([False, True]), [0, 1], slice(0, 1)).tolist()
    [[0.0, 0.25, 2.0]]
    """
    n = X.shape[0]
    a, b, _ = rows.indices(n)
    D2 = np.zeros((b - a, n))
    for f in features:
        z = X[:, f]
        D2 += sq_delta(z[rows, None], z[None, :], bool(symbolic[f]))
    return D2


# -------------------------------------------------------------------- metric blocks


def _manhattan_numpy(A: np.ndarray, B: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    # feature by feature, with one block-sized temporary
    out = np.zeros((A.shape[0], B.shape[0])) if out is None else out
    out[...] = 0.0
    tmp = np.empty_like(out)
    for d in range(A.shape[1]):
        np.subtract(A[:, d, None], B[None, :, d], out=tmp)
        np.abs(tmp, out=tmp)
        out += tmp
    return out


def _block(
    A: np.ndarray,
    B: np.ndarray,
    metric: str,
    b_sq: np.ndarray | None,
    use_numba: bool | None = None,
) -> np.ndarray:
    if metric == "manhattan":
        if _use_numba(use_numba):
            out = np.empty((A.shape[0], B.shape[0]))
            _kernels().manhattan(np.ascontiguousarray(A), np.ascontiguousarray(B), out)
            return out
        return _manhattan_numpy(A, B)
    if b_sq is None:
        b_sq = np.einsum("ij,ij->i", B, B)
    a_sq = np.einsum("ij,ij->i", A, A)
    # in place: one rows x cols array in flight (the budget counts on it)
    out = A @ B.T
    out *= -2.0
    out += a_sq[:, None]
    out += b_sq[None, :]
    np.maximum(out, 0.0, out=out)
    if metric == "euclidean":
        np.sqrt(out, out=out)
    return out


def distance_blocks(
    X: np.ndarray,
    Y: np.ndarray | None = None,
    *,
    metric: str = "euclidean",
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    use_numba: bool | None = None,
) -> Iterator[tuple[int, int, np.ndarray]]:
    """Yield ``(start, stop, D)`` with ``D[i, j] = dist(X[start + i], Y[j])``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    Y : ndarray of shape (m, d) or None
        None compares ``X`` with itself; the diagonal is then exactly 0.
    metric : {"manhattan", "euclidean", "sqeuclidean"}
    memory_budget : int
        Bytes allowed for the blocks in flight.
    use_numba : bool or None
        Manhattan only: force (True) or forbid (False) the compiled kernel; None uses
        it when numba is installed.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> [(a, b, D.tolist()) for a, b, D in distance_blocks(X)]
    [(0, 2, [[0.0, 5.0], [5.0, 0.0]])]
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    X = np.asarray(X, dtype=np.float64)
    same = Y is None
    Yv = X if same else np.asarray(Y, dtype=np.float64)
    b_sq = None if metric == "manhattan" else np.einsum("ij,ij->i", Yv, Yv)
    rows = block_rows_for_budget(Yv.shape[0], memory_budget)
    for start in range(0, X.shape[0], rows):
        stop = min(start + rows, X.shape[0])
        D = _block(X[start:stop], Yv, metric, b_sq, use_numba)
        if same:
            idx = np.arange(start, stop)
            D[idx - start, idx] = 0.0
        yield start, stop, D


def distance_block(
    A: np.ndarray,
    B: np.ndarray,
    *,
    metric: str = "euclidean",
    b_sq: np.ndarray | None = None,
    use_numba: bool | None = None,
) -> np.ndarray:
    """One dense block ``D[i, j] = dist(A[i], B[j])`` (no diagonal handling).

    ``b_sq`` may pass the precomputed squared norms of the rows of ``B`` (Euclidean
    metrics), so that callers iterating over row blocks compute them once.

    Examples
    --------
    >>> import numpy as np
    >>> distance_block(np.array([[0.0, 0.0]]), np.array([[1.0, 2.0]]), metric="manhattan")
    array([[3.]])
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    return _block(A, B, metric, b_sq, use_numba)


# ------------------------------------------------ full matrix and row-block traversal


def balanced_upper_chunks(n: int, parts: int) -> list[tuple[int, int]]:
    """Split rows 0..n so that each chunk holds about the same share of the upper
    triangle (row i owns n - i - 1 pairs); the chunks of threaded upper-triangle
    kernels.

    Examples
    --------
    >>> balanced_upper_chunks(10, 2)  # 45 pairs: rows 0-2 own 24, rows 3-9 own 21
    [(0, 3), (3, 10)]
    """
    if parts <= 1 or n < 2 * parts:
        return [(0, n)]
    total = n * (n - 1) / 2
    bounds = [0]
    for q in range(1, parts):
        # rows [0, r) own total - (n - r)(n - r - 1)/2 pairs
        target = total * q / parts
        r = n - 0.5 - math.sqrt(max((n - 0.5) ** 2 - 2 * target, 0.0))
        bounds.append(min(n, max(bounds[-1] + 1, round(r))))
    bounds.append(n)
    return [(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def _full_matrix(X: np.ndarray, metric: str, n_workers: int, use_numba: bool) -> np.ndarray:
    n = X.shape[0]
    if use_numba:
        chunks = balanced_upper_chunks(n, 4 * n_workers if n_workers > 1 else 1)
        if metric == "manhattan":
            out = np.empty((n, n))
            upper = _kernels().manhattan_upper

            def run(a: int, b: int) -> None:
                upper(X, a, b, out)

        else:
            # one BLAS product (numpy calls syrk for X @ X.T), then one fused pass over
            # its upper triangle instead of five elementwise passes over the matrix
            out = X @ X.T
            sq = np.einsum("ij,ij->i", X, X)
            root = metric == "euclidean"
            gram = _kernels().gram_upper

            def run(a: int, b: int) -> None:
                gram(out, sq, a, b, root)

        threaded_spans(run, chunks, n_workers)
        return out
    if metric == "manhattan":
        # in eight row blocks: the temporary is an eighth of the matrix
        D = np.empty((n, n))
        step = max(1, -(-n // 8))
        for a in range(0, n, step):
            _manhattan_numpy(X[a : a + step], X, out=D[a : a + step])
    else:
        D = distance_block(X, X, metric=metric, use_numba=use_numba)
    np.fill_diagonal(D, 0.0)
    return D


def map_distance_rows(
    X: np.ndarray,
    fn: Callable[[int, int, np.ndarray], Any],
    *,
    metric: str = "manhattan",
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    n_jobs: int | None = None,
    use_numba: bool | None = None,
    D_full: np.ndarray | None = None,
    expected: Any = None,
    rows: np.ndarray | None = None,
    align: int = 1,
) -> list[Any]:
    """Apply ``fn(start, stop, D)`` to every row block of the distance matrix of ``X``.

    ``D[i, j] = dist(X[start + i], X[j])`` with ``D[i, start + i] = 0``. Blocks are
    visited in row order and their results returned in that order; with ``n_jobs > 1``
    they run in threads (the compiled kernels and BLAS release the GIL). Where the
    blocks fall depends on ``n_jobs`` and the budget, so that a result the same for
    every ``n_jobs`` needs ``fn`` to return something per row, or per run of ``align``
    rows (summed by the caller in row order), not a sum over its block.

    Parameters
    ----------
    X : ndarray of shape (n, d), float64
    fn : callable
        Called once per block; must not keep a reference to ``D`` (it may be reused).
    metric : {"manhattan", "euclidean"}
    memory_budget : int
        Bytes allowed for the distance blocks in flight (all workers together).
    n_jobs : int or None
        Worker threads (joblib convention).
    use_numba : bool or None
        Force or forbid the compiled kernels; None uses them when numba is installed.
    D_full : ndarray of shape (n, n) or None
        A full distance matrix computed before (see :func:`full_distance_matrix`).
    expected : :class:`fsel.kernels.relief_margins.ExpectedDiff` or None
        Missing values: the distances use its expected differences for the holes
        (:func:`expected_distance_block`); the full matrix (Manhattan with numba: one
        symmetric pass, each unordered pair once) when the table exists, ``rows`` is
        None and it fits ``memory_budget``, else row blocks.
    rows : ndarray of int or None
        Only these rows (reference samples) against all rows: ``start, stop`` are then
        positions in ``rows`` and ``D[i, j] = dist(X[rows[start + i]], X[j])``, with
        ``D[i, rows[start + i]] = 0``; row blocks only.
    align : int
        With ``rows``, ``expected`` or sparse ``X``: every block but the last starts
        and ends on a multiple of ``align`` rows (positions in ``rows``, if given).

    Returns
    -------
    list
        ``fn``'s results, one per block, in row order.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> map_distance_rows(X, lambda a, b, D: D.sum(axis=1).tolist())
    [[4.0, 3.0, 5.0]]
    """
    workers = effective_n_jobs(n_jobs)
    numba_on = _use_numba(use_numba)
    if _issparse(X):
        # a CSR matrix: row blocks of distances from the non-zeros, never densified
        Xs = X.tocsr()
        n = Xs.shape[0]
        ref = np.arange(n) if rows is None else np.asarray(rows, dtype=np.intp)
        step = _ref_step(rows_per_block(n, memory_budget, workers), ref.size, workers, align)
        spans = [(a, min(a + step, ref.size)) for a in range(0, ref.size, step)]

        def run_sparse(a: int, b: int) -> Any:
            r = ref[a:b]
            D = sparse_distance_block(
                Xs, r, metric=metric, use_numba=numba_on, memory_budget=memory_budget
            )
            D[np.arange(b - a), r] = 0.0
            return fn(a, b, D)

        return threaded_spans(run_sparse, spans, workers)
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    if expected is not None or rows is not None:
        # ``expected`` (an ExpectedDiff) brings its own expected-difference kernels:
        # this module does not import fsel.kernels.relief_margins, which imports it
        ref = np.arange(n) if rows is None else np.asarray(rows, dtype=np.intp)
        step = _ref_step(rows_per_block(n, memory_budget, workers), ref.size, workers, align)
        spans = [(a, min(a + step, ref.size)) for a in range(0, ref.size, step)]
        sq_b = None if metric == "manhattan" else np.einsum("ij,ij->i", X, X)

        if (
            expected is not None
            and rows is None
            and expected.has_table
            and fits_full(n, memory_budget)
        ):
            # the full matrix: the fast symmetric filled distances, then the corrections
            base = "manhattan" if metric == "manhattan" else "sqeuclidean"
            if base == "manhattan" and numba_on:
                D_all = expected.full_manhattan(workers)
            else:
                D_all = _full_matrix(expected.filled, base, workers, numba_on)
                expected.add_corrections(ref, D_all, metric != "manhattan")
            if metric == "euclidean":
                np.maximum(D_all, 0.0, out=D_all)
                np.sqrt(D_all, out=D_all)
            np.fill_diagonal(D_all, 0.0)
            step = max(1, -(-n // (4 * workers))) if workers > 1 else n
            spare = max(int(memory_budget) - 8 * n * n, 1)
            step = _ref_step(min(step, rows_per_block(n, spare, workers)), n, 1, align)
            spans = [(a, min(a + step, n)) for a in range(0, n, step)]
            return threaded_spans(lambda a, b: fn(a, b, D_all[a:b]), spans, workers)

        def run_rows(a: int, b: int) -> Any:
            r = ref[a:b]
            if expected is not None:
                D = expected.row_block(r, metric=metric, use_numba=numba_on)
            else:
                D = distance_block(X[r], X, metric=metric, b_sq=sq_b, use_numba=numba_on)
            D[np.arange(b - a), r] = 0.0
            return fn(a, b, D)

        return threaded_spans(run_rows, spans, workers)
    if D_full is None and fits_full(n, memory_budget):
        D_full = _full_matrix(X, metric, workers, numba_on)
    if D_full is not None:
        step = max(1, -(-n // (4 * workers))) if workers > 1 else n
        # the spans' work arrays share what the matrix leaves of the budget
        spare = max(int(memory_budget) - 8 * n * n, 1)
        step = min(step, rows_per_block(n, spare, workers))
        spans = [(a, min(a + step, n)) for a in range(0, n, step)]
        full = D_full
        return threaded_spans(lambda a, b: fn(a, b, full[a:b]), spans, workers)
    rows = rows_per_block(n, memory_budget, workers)
    spans = [(a, min(a + rows, n)) for a in range(0, n, rows)]
    b_sq = None if metric == "manhattan" else np.einsum("ij,ij->i", X, X)

    def run(a: int, b: int) -> Any:
        D = distance_block(X[a:b], X, metric=metric, b_sq=b_sq, use_numba=numba_on)
        D[np.arange(b - a), np.arange(a, b)] = 0.0
        return fn(a, b, D)

    return threaded_spans(run, spans, workers)


def _ref_step(step: int, n_ref: int, workers: int, align: int) -> int:
    """Rows of a block of :func:`map_distance_rows` over ``n_ref`` reference rows: at
    most ``step`` (the budget's), at most a share giving each worker two blocks, and a
    multiple of ``align``.

    Examples
    --------
    >>> _ref_step(1000, 100, 2, 1), _ref_step(1000, 100, 2, 16), _ref_step(1000, 100, 1, 16)
    (25, 16, 992)
    """
    if workers > 1:
        step = min(step, max(1, -(-n_ref // (2 * workers))))
    align = max(1, int(align))
    return max(align, step // align * align)


def full_distance_matrix(
    X: np.ndarray,
    *,
    metric: str = "manhattan",
    n_jobs: int | None = None,
    use_numba: bool | None = None,
) -> np.ndarray:
    """The full symmetric distance matrix with an exact zero diagonal (callers check
    :func:`fits_full` first).

    Manhattan with numba computes the upper triangle only (in ``n_jobs`` threads, in
    chunks of equal work) and mirrors it; otherwise one :func:`distance_block`.

    Examples
    --------
    >>> import numpy as np
    >>> full_distance_matrix(np.array([[0.0, 0.0], [1.0, 2.0]])).tolist()
    [[0.0, 3.0], [3.0, 0.0]]
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    return _full_matrix(X, metric, effective_n_jobs(n_jobs), _use_numba(use_numba))


# ------------------------------------------------------------------ sparse rows (CSR)


def sparse_distance_block(
    X: Any,
    rows: np.ndarray,
    *,
    metric: str = "manhattan",
    use_numba: bool | None = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> np.ndarray:
    """Distances of the rows ``rows`` of a CSR matrix ``X`` to all its rows, from the
    non-zeros only (``X`` is never densified).

    Euclidean metrics: ``|a|^2 + |b|^2 - 2 a.b`` with a sparse product, clipped at 0.
    Manhattan: ``|a|_1 + |b|_1`` minus, over the columns where both rows are non-zero,
    ``|a_k| + |b_k| - |a_k - b_k|`` (compiled: a scan of every row's non-zeros against
    the block row scattered into a dense vector; numpy: the block rows densified,
    ``rows x nnz`` work arrays in spans that fit ``memory_budget``).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[0.0, 2.0], [1.0, 0.0], [1.0, 3.0]]))
    >>> sparse_distance_block(X, np.array([0, 2])).tolist()
    [[0.0, 3.0, 2.0], [2.0, 3.0, 0.0]]
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    rows = np.asarray(rows, dtype=np.intp)
    d = X.shape[1]
    A = X[rows]
    if metric != "manhattan":
        sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
        out = np.asarray((A @ X.T).todense(), dtype=np.float64)
        out *= -2.0
        out += sq[rows][:, None]
        out += sq[None, :]
        np.maximum(out, 0.0, out=out)
        if metric == "euclidean":
            np.sqrt(out, out=out)
        return out
    l1 = np.asarray(abs(X).sum(axis=1), dtype=np.float64).ravel()
    out = l1[rows][:, None] + l1[None, :]
    indptr = np.asarray(X.indptr, dtype=np.intp)
    indices = np.asarray(X.indices, dtype=np.intp)
    data = np.asarray(X.data, dtype=np.float64)
    if _use_numba(use_numba):
        _kernels().l1_corr(rows, indptr, indices, data, d, out)
        return out
    nnz = max(data.size, 1)
    starts = indptr[:-1]
    nonempty = np.flatnonzero(np.diff(indptr) > 0)
    step = max(1, int(memory_budget // (8 * 3 * nnz)))
    for a in range(0, rows.size, step):
        b = min(a + step, rows.size)
        dense = A[a:b].toarray()
        av = dense[:, indices]  # (rows, nnz): the block row's value at each non-zero
        terms = np.abs(av) + np.abs(data)[None, :] - np.abs(av - data[None, :])
        if nonempty.size:
            sums = np.add.reduceat(terms, starts[nonempty], axis=1)
            out[a:b, nonempty] -= sums
    return out


def max_norm_row(points: np.ndarray, p: int, q: np.ndarray) -> float:
    """The max-norm (Chebyshev) distance ``max_t |points[p, t] - q_t|`` of one point to
    a query: the distance of the nearest-neighbour information estimator's searches,
    compiled by :mod:`fsel.kernels._numba_knn` (plain Python here, numba-compatible).

    Examples
    --------
    >>> float(max_norm_row(np.array([[0.0, 1.0], [3.0, -1.0]]), 1, np.array([1.0, 0.5])))
    2.0
    """
    dist = 0.0
    for t in range(q.size):
        v = abs(points[p, t] - q[t])
        if v > dist:
            dist = v
    return dist
