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
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_MEMORY_BUDGET",
    "METRICS",
    "ExpectedDiff",
    "balanced_upper_chunks",
    "block_rows_for_budget",
    "distance_block",
    "distance_blocks",
    "effective_n_jobs",
    "expected_distance_block",
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
    if memory_budget <= 0:
        raise ValueError(f"memory_budget must be positive, got {memory_budget}")
    return max(1, int(memory_budget // (factor * itemsize * max(n_cols, 1))))


def rows_per_block(n_cols: int, memory_budget: int, n_workers: int = 1) -> int:
    """Rows of an ``rows x n_cols`` distance block so that ``n_workers`` blocks (and
    their work arrays) fit ``memory_budget`` bytes."""
    if not isinstance(memory_budget, (int, np.integer)) or memory_budget <= 0:
        raise ValueError(f"memory_budget must be a positive number of bytes, got {memory_budget!r}")
    return block_rows_for_budget(n_cols, memory_budget, factor=_FACTOR * max(n_workers, 1))


def fits_full(n: int, memory_budget: int) -> bool:
    """Whether the full ``n x n`` distance matrix (with work arrays) fits the budget."""
    if not isinstance(memory_budget, (int, np.integer)) or memory_budget <= 0:
        raise ValueError(f"memory_budget must be a positive number of bytes, got {memory_budget!r}")
    return _FULL_FACTOR * 8 * n * n <= memory_budget


def effective_n_jobs(n_jobs: int | None) -> int:
    """joblib's convention: None -> 1, -1 -> all cores, -2 -> all but one, ..."""
    if n_jobs is None:
        return 1
    if not isinstance(n_jobs, (int, np.integer)) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero int or None, got {n_jobs!r}")
    from joblib import effective_n_jobs as _ej

    return max(1, int(_ej(int(n_jobs))))


def threaded_spans(
    fn: Callable[[int, int], Any], spans: Sequence[tuple[int, int]], workers: int
) -> list[Any]:
    """``[fn(a, b) for a, b in spans]``, in ``workers`` threads (joblib's threading
    backend) when there are several workers and spans; results in span order.

    Examples
    --------
    >>> threaded_spans(lambda a, b: b - a, [(0, 3), (3, 5)], 2)
    [3, 2]
    """
    if workers == 1 or len(spans) == 1:
        return [fn(a, b) for a, b in spans]
    from joblib import Parallel, delayed

    return list(Parallel(n_jobs=workers, backend="threading")(delayed(fn)(a, b) for a, b in spans))


# ----------------------------------------------------------------------------- numba

_NUMBA_OK: dict[str, bool] = {}
_COMPILED: dict[str, Any] = {}
#: The per-pair L1 primitive, once compiled. A module global (not a closure variable)
#: so that the kernels calling it can be cached on disk.
_L1: Any = None


def numba_available() -> bool:
    """True when numba can be imported (checked once, lazily) and the environment
    variable ``FSEL_DISABLE_NUMBA`` is unset or ``0``."""
    if os.environ.get("FSEL_DISABLE_NUMBA", "").strip() not in ("", "0"):
        return False
    if "ok" not in _NUMBA_OK:
        try:
            import numba  # noqa: F401

            _NUMBA_OK["ok"] = True
        except ImportError:  # pragma: no cover - depends on the environment
            _NUMBA_OK["ok"] = False
    return bool(_NUMBA_OK["ok"])


def _issparse(X: Any) -> bool:
    """Whether ``X`` is a scipy.sparse matrix or array (scipy imported only if loaded)."""
    import sys

    sp = sys.modules.get("scipy.sparse")
    return sp is not None and sp.issparse(X)


def _use_numba(use_numba: bool | None) -> bool:
    return numba_available() if use_numba is None else bool(use_numba)


def _numba_kernels() -> dict[str, Any]:
    """Compile (once; the Manhattan kernels are cached on disk) the numba kernels."""
    global _L1
    if _COMPILED:
        return _COMPILED
    import numba

    @numba.njit(cache=True, nogil=True, fastmath=True, inline="always")
    def l1(a, b):  # pragma: no cover - compiled
        # |a - b|_1 summed in feature order (fastmath: the compiler may vectorise)
        s = 0.0
        for k in range(a.shape[0]):
            s += abs(a[k] - b[k])
        return s

    _L1 = l1

    @numba.njit(cache=True, nogil=True, fastmath=True)
    def manhattan(A, B, out):  # pragma: no cover - compiled
        # out[i, j] = |A_i - B_j|_1; column tiles of 64 keep B's rows in cache
        n, m = A.shape[0], B.shape[0]
        for j0 in range(0, m, 64):
            j1 = min(j0 + 64, m)
            for i in range(n):
                a = A[i]
                for j in range(j0, j1):
                    out[i, j] = _L1(a, B[j])

    @numba.njit(cache=True, nogil=True, fastmath=True)
    def manhattan_upper(X, r0, r1, out):  # pragma: no cover - compiled
        # out[i, j] = out[j, i] = |x_i - x_j|_1 for r0 <= i < r1, j > i; tiles of
        # 64 x 32 rows keep both operands in cache
        n = X.shape[0]
        for i0 in range(r0, r1, 64):
            i1 = min(i0 + 64, r1)
            for j0 in range(i0, n, 32):
                j1 = min(j0 + 32, n)
                for i in range(i0, i1):
                    a = X[i]
                    for j in range(max(j0, i + 1), j1):
                        s = _L1(a, X[j])
                        out[i, j] = s
                        out[j, i] = s
        for i in range(r0, r1):
            out[i, i] = 0.0

    @numba.njit(cache=True, nogil=True)
    def gram_upper(G, sq, r0, r1, root):  # pragma: no cover - compiled
        # in place: G[i, j] = G[j, i] = sqrt(max(sq_i + sq_j - 2 G_ij, 0)) (root) for
        # r0 <= i < r1, j > i, reading the upper triangle only; 64 x 64 tiles keep the
        # mirrored writes in cache. Symmetric in (i, j), so the matrix is exactly
        # symmetric.
        n = G.shape[0]
        for i0 in range(r0, r1, 64):
            i1 = min(i0 + 64, r1)
            for j0 in range(i0, n, 64):
                j1 = min(j0 + 64, n)
                for i in range(i0, i1):
                    for j in range(max(j0, i + 1), j1):
                        v = (sq[i] + sq[j]) - 2.0 * G[i, j]
                        if v < 0.0:
                            v = 0.0
                        if root:
                            v = math.sqrt(v)
                        G[i, j] = v
                        G[j, i] = v
        for i in range(r0, r1):
            G[i, i] = 0.0

    @numba.njit(nogil=True, inline="always")
    def sq_delta_add(s, a, b, sym):  # pragma: no cover - compiled
        # s + delta: no fastmath, so "d * d" and the addition are rounded separately
        if sym:
            return s + (1.0 if a != b else 0.0)
        d = a - b
        return s + d * d

    # reassociation for the inlined L1 sum (vectorised as in the block kernels), but
    # no "ninf": the neighbour lists start at inf
    @numba.njit(cache=True, nogil=True, fastmath={"reassoc", "nsz", "contract", "arcp"})
    def manhattan_knn_stream(R, selfs, X, y, k, idx, dist):  # pragma: no cover - compiled
        # the k nearest rows of X of each class to every row of R (idx/dist (m, C, k)
        # prefilled -1/inf), the distances streamed, never stored: X is read once, in
        # tiles of 256 rows kept in cache for all of R. Each R row scans X in index
        # order with a strict comparison, so ties keep the smaller index
        n = X.shape[0]
        m = R.shape[0]
        for j0 in range(0, n, 256):
            j1 = min(j0 + 256, n)
            for r in range(m):
                a = R[r]
                sj = selfs[r]
                for j in range(j0, j1):
                    if j == sj:
                        continue
                    c = y[j]
                    dj = _L1(a, X[j])
                    if dj < dist[r, c, k - 1]:
                        pos = k - 1
                        while pos > 0 and dj < dist[r, c, pos - 1]:
                            dist[r, c, pos] = dist[r, c, pos - 1]
                            idx[r, c, pos] = idx[r, c, pos - 1]
                            pos -= 1
                        dist[r, c, pos] = dj
                        idx[r, c, pos] = j

    _COMPILED.update(
        manhattan_knn_stream=manhattan_knn_stream,
        manhattan=manhattan,
        manhattan_upper=manhattan_upper,
        gram_upper=gram_upper,
        sq_delta_add=sq_delta_add,
    )
    return _COMPILED


def manhattan_knn_rows(
    X: np.ndarray,
    y: np.ndarray,
    rows: np.ndarray,
    k: int,
    n_classes: int,
    *,
    n_jobs: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest samples of each class (Manhattan) to the samples ``rows``,
    with the distances streamed (compiled; needs numba): no distance block is stored,
    and ``X`` is read once per thread. ``rows`` are split over ``n_jobs`` threads.

    Same neighbours and distances as :func:`fsel.kernels.neighbors.knn_by_class` over
    the distance blocks (the same per-pair primitive, index order, strict ties).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> idx, dist = manhattan_knn_rows(X, np.array([0, 0, 1, 1]), np.array([0, 3]), 1, 2)
    >>> idx[:, :, 0].tolist(), dist[:, :, 0].tolist()
    ([[1, 2], [1, 2]], [[1.0, 3.0], [3.0, 1.0]])
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.intp)
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    m = rows.size
    idx = np.full((m, n_classes, k), -1, dtype=np.intp)
    dist = np.full((m, n_classes, k), np.inf)
    kern = _numba_kernels()["manhattan_knn_stream"]
    workers = effective_n_jobs(n_jobs)
    step = max(1, -(-m // workers))
    spans = [(a, min(a + step, m)) for a in range(0, m, step)]

    def run(a: int, b: int) -> None:
        kern(np.ascontiguousarray(X[rows[a:b]]), rows[a:b], X, y, int(k), idx[a:b], dist[a:b])

    threaded_spans(run, spans, workers)
    return idx, dist


def numba_sq_delta_add() -> Any:
    """The numba-callable scalar ``sq_delta_add(s, a, b, symbolic) -> s + delta(a, b)``.

    ``delta`` is :func:`sq_delta` for one pair of values. For compiled kernels (of
    :mod:`fsel.kernels.classifiability`) that fuse the distance update with their own
    scans; it is inlined into the caller, which must be compiled without ``fastmath``
    to keep the numpy path's rounding. Needs numba (check :func:`numba_available`).
    """
    return _numba_kernels()["sq_delta_add"]


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
            _numba_kernels()["manhattan"](np.ascontiguousarray(A), np.ascontiguousarray(B), out)
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
            upper = _numba_kernels()["manhattan_upper"]

            def run(a: int, b: int) -> None:
                upper(X, a, b, out)

        else:
            # one BLAS product (numpy calls syrk for X @ X.T), then one fused pass over
            # its upper triangle instead of five elementwise passes over the matrix
            out = X @ X.T
            sq = np.einsum("ij,ij->i", X, X)
            root = metric == "euclidean"
            gram = _numba_kernels()["gram_upper"]

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
    expected: ExpectedDiff | None = None,
    rows: np.ndarray | None = None,
) -> list[Any]:
    """Apply ``fn(start, stop, D)`` to every row block of the distance matrix of ``X``.

    ``D[i, j] = dist(X[start + i], X[j])`` with ``D[i, start + i] = 0``. Blocks are
    visited in row order and their results returned in that order; with ``n_jobs > 1``
    they run in threads (the compiled kernels and BLAS release the GIL).

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
    expected : ExpectedDiff or None
        Missing values: the distances use its expected differences for the holes
        (:func:`expected_distance_block`); the full matrix (Manhattan with numba: one
        symmetric pass, each unordered pair once) when the table exists, ``rows`` is
        None and it fits ``memory_budget``, else row blocks.
    rows : ndarray of int or None
        Only these rows (reference samples) against all rows: ``start, stop`` are then
        positions in ``rows`` and ``D[i, j] = dist(X[rows[start + i]], X[j])``, with
        ``D[i, rows[start + i]] = 0``; row blocks only.

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
        step = rows_per_block(n, memory_budget, workers)
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
        ref = np.arange(n) if rows is None else np.asarray(rows, dtype=np.intp)
        step = rows_per_block(n, memory_budget, workers)
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
                D_all = _expected_full_manhattan(expected, workers)
            else:
                D_all = _full_matrix(expected.filled, base, workers, numba_on)
                _add_expected_corrections(expected, ref, D_all, metric != "manhattan")
            if metric == "euclidean":
                np.maximum(D_all, 0.0, out=D_all)
                np.sqrt(D_all, out=D_all)
            np.fill_diagonal(D_all, 0.0)
            step = max(1, -(-n // (4 * workers))) if workers > 1 else n
            spare = max(int(memory_budget) - 8 * n * n, 1)
            step = min(step, rows_per_block(n, spare, workers))
            spans = [(a, min(a + step, n)) for a in range(0, n, step)]
            return threaded_spans(lambda a, b: fn(a, b, D_all[a:b]), spans, workers)

        def run_rows(a: int, b: int) -> Any:
            r = ref[a:b]
            if expected is not None:
                D = expected_distance_block(expected, r, metric=metric, use_numba=numba_on)
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


# ------------------------------------------------- expected differences (missing values)


class ExpectedDiff:
    r"""Kononenko's expected difference for missing components (SPEC section 10).

    Built once from a (range-scaled) matrix ``X`` with NaN holes and the class code of
    every row. For one feature ``k`` and two rows ``i``, ``j`` of classes ``c_i``,
    ``c_j``, the per-feature difference is

    * both observed: ``|x_ik - x_jk|``;
    * ``x_ik`` missing: ``E|X - x_jk|`` with ``X`` drawn from the observed values of
      feature ``k`` in class ``c_i`` (the empirical class-conditional distribution;
      computed exactly from the sorted values and their prefix sums);
    * ``x_jk`` missing: the same with the roles swapped;
    * both missing: ``E|X - X'|`` with ``X`` from class ``c_i`` and ``X'`` independently
      from class ``c_j`` (a ``C x C`` table per feature with holes).

    A class without any observed value of a feature uses the pooled observed values of
    that feature; a feature without any observed value contributes 0. On one-hot
    columns (entries 0 or ``s``) this rule sums to ``2 s (1 - P(v | c_i))`` and
    ``2 s (1 - sum_v P(v|c_i) P(v|c_j))``: Kononenko's rule for symbolic features.

    The squared metrics use the expected *squared* difference: ``(x - mu_c)^2 + var_c``
    with one side missing and ``(mu_ci - mu_cj)^2 + var_ci + var_cj`` with both
    (``mu``, ``var``: mean and population variance of the observed values).

    Attributes used by the kernels: ``filled`` (``X`` with holes set to 0), ``mask``
    (uint8), ``mptr``/``midx`` (each row's missing features), ``y``, the segment arrays
    ``vals``/``cum``/``off``/``cnt`` (sorted observed values per (class, feature);
    segment ``e * d + k`` with ``e = eff[c, k]``, ``C`` standing for the pooled values),
    ``H`` (``C x C x d``; more than ``memory_budget / 4`` bytes is refused with a
    ValueError), ``mu``/``var`` (``(C + 1) x d``) and, when it fits
    ``memory_budget / 8``, the table ``G[c, j, k] = E|X_ck - x_jk| - |x_jk|`` of every
    observed entry (``has_table``): distances are then matrix products of the hole
    indicators with it (:func:`expected_distance_block`); without it the compiled
    kernels binary-search the sorted values. With numba the build is one compiled pass
    per feature over its argsort, and the table is kept as ``W`` (``C x d x n``;
    :func:`_w_table`: ``G`` with half the both-missing difference at the holes) and
    its per-row layout ``V`` (``C x n x d``; :func:`_v_table`): the compiled Manhattan
    distances add rows of ``W`` for the holes (each unordered pair once when the full
    matrix fits), the margins add ``m_i V[c_i, j] + m_j V[c_j, i]`` to the filled
    difference in one vectorised pass per pair; ``G`` is then derived from ``V`` only
    if a numpy path asks for it. These tables come on top of the distance blocks'
    budget.
    """

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        n_classes: int,
        *,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        X = np.asarray(X, dtype=np.float64)
        n, d = X.shape
        C = int(n_classes)
        self.n_classes = C
        self.y = np.ascontiguousarray(y, dtype=np.intp)
        miss = np.isnan(X)
        self.mask = np.ascontiguousarray(miss, dtype=np.uint8)
        self.filled = np.ascontiguousarray(np.where(miss, 0.0, X))
        counts = miss.sum(axis=1)
        self.mptr = np.r_[0, np.cumsum(counts)].astype(np.intp)
        self.midx = np.ascontiguousarray(np.nonzero(miss)[1], dtype=np.intp)
        obs = ~miss
        # per (class, feature) sorted observed values, segment s = e * d + k (e = C:
        # the pooled values); only features with holes ever look them up
        feats = np.flatnonzero(miss.any(axis=0))
        has = np.zeros(d, bool)
        has[feats] = True
        if feats.size and 8 * C * C * d > memory_budget // 4:
            raise ValueError(
                f"missing='expected' with {C} classes needs a {C} x {C} x {d} table "
                f"({8 * C * C * d} bytes), more than a quarter of "
                f"memory_budget={memory_budget}; raise memory_budget or impute"
            )
        self.H = np.zeros((C, C, d) if feats.size else (1, 1, 1))
        self.has_table = bool(feats.size) and 8 * C * n * d <= memory_budget // 8
        self._feats = feats
        self._obs = obs
        self._Q_sq: np.ndarray | None = None
        self._G: np.ndarray | None = None
        self._V: np.ndarray | None = None
        compiled = bool(feats.size) and numba_available()
        if compiled:
            # one argsort per column (holes last, as inf), then one compiled pass per
            # feature: the class segments, prefix sums, means, variances, H and the
            # table W (C x d x n, see _w_table), each feature's observed entries
            # merged in sorted order against the class segments (no binary search).
            # V (C x n x d, see _v_table) is W's per-row layout; G is derived from V
            # only if a numpy path asks for it
            kern = _expected_kernels()
            Xt = np.where(miss.T, np.inf, X.T)  # (d, n): each feature's column, contiguous
            order = np.argsort(Xt, axis=1)
            W = np.zeros((C, d, n) if self.has_table else (1, 1, 1))
            vals, cum, off, cnt, mu, var, eff = kern["build"](
                Xt, order, self.y, C, feats.astype(np.intp), self.has_table, self.H, W
            )
            self.vals, self.cum, self.off = vals, cum, off
            self.cnt = np.ascontiguousarray(cnt.ravel())
            self.mu, self.var, self.eff = mu, var, eff
            if self.has_table:
                self._W = W
                V = np.empty((C, n, d))
                kern["transpose"](W, V)
                self._V = V
            else:
                self._G = np.zeros((1, 1, 1))
        else:
            vals, cum, off, cnt, mu, var = self._segments_numpy(X, C, has)
            self.vals, self.cum, self.off = vals, cum, off
            self.cnt = np.ascontiguousarray(cnt.ravel())
            self.mu, self.var = mu, var
            have = cnt[:C] > 0
            self.eff = np.ascontiguousarray(np.where(have, np.arange(C)[:, None], C), dtype=np.intp)
        # G[c, j, k] = E|X_ck - x_jk| - |x_jk| for observed x_jk (0 elsewhere): the
        # correction to the filled difference |0 - x_jk| when the other side is
        # missing; distances then take matrix products (expected_distance_block).
        # Built feature by feature (as C x d x n), from the values H needs anyway
        Gt = np.zeros((C, d, n)) if self.has_table and not compiled else None
        for k in feats if not compiled else ():
            ok = np.flatnonzero(obs[:, k])
            xk = X[ok, k]
            cls = self.y[ok]
            srt = np.argsort(xk, kind="stable")
            xs = xk[srt]  # sorted queries: a fast binary search
            nb = np.bincount(cls, minlength=C)
            for c2 in range(C):
                ev = np.empty(xk.size)
                ev[srt] = self._expected_seg(int(self.eff[c2, k]) * d + int(k), xs)
                by = np.bincount(cls, weights=ev, minlength=C)
                pooled = ev.sum() / xk.size if xk.size else 0.0
                self.H[:, c2, k] = np.where(nb > 0, by / np.maximum(nb, 1), pooled)
                if Gt is not None:
                    Gt[c2, k, ok] = ev - np.abs(xk)
        if not compiled:
            self._G = (
                np.ascontiguousarray(Gt.transpose(0, 2, 1))
                if Gt is not None
                else np.zeros((1, 1, 1))
            )
        del Gt
        self.has_missing = bool(miss.any())

    @property
    def G(self) -> np.ndarray:
        """``G[c, j, k] = E|X_ck - x_jk| - |x_jk|`` for observed ``x_jk``, 0 at the holes
        (``C x n x d``; derived once from ``V`` when the compiled build made that)."""
        if self._G is None:
            self._G = np.where(self.mask.astype(bool)[None], 0.0, self._V)
        return self._G

    def _segments_numpy(self, X: np.ndarray, C: int, has: np.ndarray) -> tuple[np.ndarray, ...]:
        """The sorted segments (numpy): ``vals, cum, off, cnt, mu, var``."""
        d = X.shape[1]
        # per segment group e (a class, or C: all rows), the columns sorted at once
        # (holes last); only features with holes get values
        groups = [np.flatnonzero(self.y == e) for e in range(C)] + [None]
        cnt = np.zeros((C + 1, d), np.intp)
        sorted_t = []
        for e, g in enumerate(groups):
            Xe = X if g is None else X[g]
            St = np.sort(Xe.T, axis=1)  # (d, n_e), the NaN last
            ob = ~np.isnan(St)
            ob[~has] = False
            cnt[e] = ob.sum(axis=1)
            sorted_t.append((St, ob))
        off = np.r_[0, np.cumsum(cnt.ravel())].astype(np.intp)
        vals_parts, cum_parts = [], []
        mu = np.zeros((C + 1, d))
        var = np.zeros((C + 1, d))
        for e, (St, ob) in enumerate(sorted_t):
            Z = np.where(ob, St, 0.0)
            vals_parts.append(St[ob])
            cs = np.zeros((d, St.shape[1] + 1))
            np.cumsum(Z, axis=1, out=cs[:, 1:])
            lead = np.ones((d, 1), bool)
            cum_parts.append(cs[np.hstack([lead, ob])])
            ne = np.maximum(cnt[e], 1)
            mu[e] = Z.sum(axis=1) / ne
            dev = np.where(ob, St - mu[e][:, None], 0.0)
            var[e] = np.einsum("ij,ij->i", dev, dev) / ne
        return np.concatenate(vals_parts), np.concatenate(cum_parts), off, cnt, mu, var

    @property
    def table_bytes(self) -> int:
        """Bytes held by the lookup tables ``G``, ``V``, ``H`` and ``W`` (if built)."""
        tabs = (self._G, self._V, self.H, getattr(self, "_W", None))
        return int(sum(0 if t is None else t.nbytes for t in tabs))

    def _sq_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """The squared-metric analogues of ``G`` and ``H`` (built once, on demand)."""
        if self._Q_sq is None:
            C, (n, d) = self.n_classes, self.filled.shape
            F = self.filled
            Q = np.zeros((C, n, d))
            for c in range(C):
                e = self.eff[c]
                t = F - self.mu[e, np.arange(d)]
                Q[c] = (t * t + self.var[e, np.arange(d)] - F * F) * self._obs
            H2 = np.zeros((C, C, d))
            for c1 in range(C):
                for c2 in range(C):
                    H2[c1, c2] = self.both(np.full(d, c1), np.full(d, c2), np.arange(d), True)
            self._Q_sq, self._H_sq = Q, H2
        return self._Q_sq, self._H_sq

    def expected(self, c: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``E|X_{c,k} - v|`` elementwise (class ``c``'s observed values of feature ``k``)."""
        d = self.mu.shape[1]
        c = np.asarray(c, dtype=np.intp)
        k = np.asarray(k, dtype=np.intp)
        v = np.asarray(v, dtype=np.float64)
        seg = self.eff[c, k] * d + k
        if seg.size and np.all(seg == seg.flat[0]):  # one segment: no grouping
            return self._expected_seg(int(seg.flat[0]), v)
        out = np.zeros(v.shape)
        for s in np.unique(seg):
            sel = seg == s
            out[sel] = self._expected_seg(int(s), v[sel])
        return out

    def _expected_seg(self, s: int, b: np.ndarray) -> np.ndarray:
        """``E|X - b|`` over the sorted values of segment ``s`` (binary search and
        prefix sums, the compiled kernels' formula)."""
        n_s = int(self.cnt[s])
        if n_s == 0:
            return np.zeros(b.shape)
        lo = int(self.off[s])
        sv = self.vals[lo : lo + n_s]
        P = self.cum[lo + s : lo + s + n_s + 1]
        L = np.searchsorted(sv, b, side="left")
        below = b * L - P[L]
        above = (P[n_s] - P[L]) - b * (n_s - L)
        return (below + above) / n_s

    def expected_sq(self, c: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``E(X_{c,k} - v)^2 = (v - mu)^2 + var`` elementwise."""
        e = self.eff[np.asarray(c, dtype=np.intp), np.asarray(k, dtype=np.intp)]
        t = np.asarray(v, dtype=np.float64) - self.mu[e, k]
        return t * t + self.var[e, k]

    def both(self, ci: np.ndarray, cj: np.ndarray, k: np.ndarray, sq: bool) -> np.ndarray:
        """Both components missing: ``E|X_ci - X'_cj|`` (or its squared form)."""
        ci, cj, k = (np.asarray(a, dtype=np.intp) for a in (ci, cj, k))
        if not sq:
            return self.H[ci, cj, k]
        e1, e2 = self.eff[ci, k], self.eff[cj, k]
        t = self.mu[e1, k] - self.mu[e2, k]
        return t * t + self.var[e1, k] + self.var[e2, k]

    def args(self) -> tuple:
        """The arrays the compiled kernels take, in their order (``G`` only when it
        exists: the kernels then binary-search the segments instead)."""
        G = self._G if self._G is not None else np.zeros((1, 1, 1))
        return (
            self.filled,
            self.mask,
            self.mptr,
            self.midx,
            self.y,
            G,
            self.has_table and self._G is not None,
            self.vals,
            self.cum,
            self.off,
            self.cnt,
            self.eff,
            self.H,
            self.mu,
            self.var,
        )


_EXPECTED: dict[str, Any] = {}


def _expected_kernels() -> dict[str, Any]:
    """Compile (once; cached on disk) the kernels of :class:`ExpectedDiff`.

    The holes are flagged in a mask and hold 0 in the filled copy (no NaN reaches the
    compiled code, so ``fastmath`` is safe); each pair sums the filled differences over
    all features, then swaps in the expected difference where a side is missing."""
    if _EXPECTED:
        return _EXPECTED
    import numba

    @numba.njit(nogil=True)
    def search(vals, cum, off, cnt, s, v):  # pragma: no cover - compiled
        # E|X - v| over the sorted values of segment s: binary search + prefix sums
        n = cnt[s]
        if n == 0:
            return 0.0
        lo = off[s]
        a = 0
        b = n
        while a < b:
            m = (a + b) // 2
            if vals[lo + m] < v:
                a = m + 1
            else:
                b = m
        p0 = cum[lo + s + a]
        pn = cum[lo + s + n]
        return ((v * a - p0) + ((pn - p0) - v * (n - a))) / n

    @numba.njit(cache=True, nogil=True)
    def block(
        rows, F, M, mptr, midx, y, G, ht, vals, cum, off, cnt, eff, H, mu, var, sq, out
    ):  # pragma: no cover
        # out[r, j]: distance of rows[r] to j; the filled difference is summed over all
        # features, then replaced by the expected one where a side is missing
        n, d = F.shape
        for r in range(rows.size):
            i = rows[r]
            a = F[i]
            ci = y[i]
            for j in range(n):
                b = F[j]
                cj = y[j]
                s = 0.0
                if sq:
                    for k in range(d):
                        t = a[k] - b[k]
                        s += t * t
                    for q in range(mptr[i], mptr[i + 1]):
                        k = midx[q]
                        t = a[k] - b[k]
                        s -= t * t
                        e1 = eff[ci, k]
                        if M[j, k]:
                            e2 = eff[cj, k]
                            t = mu[e1, k] - mu[e2, k]
                            s += t * t + var[e1, k] + var[e2, k]
                        else:
                            t = b[k] - mu[e1, k]
                            s += t * t + var[e1, k]
                    for q in range(mptr[j], mptr[j + 1]):
                        k = midx[q]
                        if M[i, k]:
                            continue
                        t = a[k] - b[k]
                        s -= t * t
                        e2 = eff[cj, k]
                        t = a[k] - mu[e2, k]
                        s += t * t + var[e2, k]
                else:
                    for k in range(d):
                        s += abs(a[k] - b[k])
                    for q in range(mptr[i], mptr[i + 1]):
                        k = midx[q]
                        s -= abs(a[k] - b[k])
                        if M[j, k]:
                            s += H[ci, cj, k]
                        elif ht:
                            s += G[ci, j, k] + abs(b[k])
                        else:
                            s += search(vals, cum, off, cnt, eff[ci, k] * d + k, b[k])
                    for q in range(mptr[j], mptr[j + 1]):
                        k = midx[q]
                        if M[i, k]:
                            continue
                        s -= abs(a[k] - b[k])
                        if ht:
                            s += G[cj, i, k] + abs(a[k])
                        else:
                            s += search(vals, cum, off, cnt, eff[cj, k] * d + k, a[k])
                out[r, j] = s

    @numba.njit(cache=True, nogil=True)
    def absdiff(
        rows,
        idx,
        coef,
        dense,
        F,
        M,
        mptr,
        midx,
        y,
        G,
        ht,
        vals,
        cum,
        off,
        cnt,
        eff,
        H,
        mu,
        var,
        out,
    ):  # pragma: no cover
        # out[r] += coef[r, t] * diff(x_i, x_j) (a vector; the expected |difference|
        # for holes), j = idx[r, t] (or t when dense); j < 0, j == i, 0 skipped
        d = F.shape[1]
        for r in range(rows.size):
            i = rows[r]
            a = F[i]
            ci = y[i]
            o = out[r]
            for t in range(coef.shape[1]):
                j = t if dense else idx[r, t]
                w = coef[r, t]
                if j < 0 or j == i or w == 0.0:
                    continue
                b = F[j]
                cj = y[j]
                for k in range(d):
                    o[k] += w * abs(a[k] - b[k])
                for q in range(mptr[i], mptr[i + 1]):
                    k = midx[q]
                    if M[j, k]:
                        e = H[ci, cj, k]
                    elif ht:
                        e = G[ci, j, k] + abs(b[k])
                    else:
                        e = search(vals, cum, off, cnt, eff[ci, k] * d + k, b[k])
                    o[k] += w * (e - abs(a[k] - b[k]))
                for q in range(mptr[j], mptr[j + 1]):
                    k = midx[q]
                    if M[i, k]:
                        continue
                    if ht:
                        e = G[cj, i, k] + abs(a[k])
                    else:
                        e = search(vals, cum, off, cnt, eff[cj, k] * d + k, a[k])
                    o[k] += w * (e - abs(a[k] - b[k]))

    _numba_kernels()  # the per-pair L1 primitive _L1

    @numba.njit(cache=True, nogil=True)
    def build(Xt, order, y, C, feats, ht, H, W):  # pragma: no cover - compiled
        # For the features with holes (feats), from each column's argsort (order[k],
        # the holes, inf, last): the sorted observed values of every (class,
        # feature) segment s = e * d + k (e = C: all classes) with their prefix sums
        # (each segment's own leading 0), means and population variances; eff[c, k] (c, or C for a
        # class without observed values); H[:, c2, k] (class means of
        # E|X_c2k - x_jk| over the observed x_jk, the pooled mean for an empty class)
        # and W[c2, k, j] = E|X_c2k - x_jk| - |x_jk| (half the both-missing
        # difference at the holes), each feature's observed entries visited in sorted
        # order; sums in that order
        d, n = Xt.shape
        S = (C + 1) * d
        cnt = np.zeros((C + 1, d), np.intp)
        for k in feats:
            xk = Xt[k]
            for j in range(n):
                if xk[j] < np.inf:  # observed (the holes hold inf)
                    cnt[y[j], k] += 1
            for c in range(C):
                cnt[C, k] += cnt[c, k]
        eff = np.empty((C, d), np.intp)
        for c in range(C):
            for k in range(d):
                eff[c, k] = c if cnt[c, k] > 0 else C
        off = np.zeros(S + 1, np.intp)
        for s in range(S):
            off[s + 1] = off[s] + cnt[s // d, s % d]
        vals = np.empty(off[S])
        cum = np.zeros(off[S] + S)
        mu = np.zeros((C + 1, d))
        var = np.zeros((C + 1, d))
        pos = np.zeros(C + 1, np.intp)
        seen = np.zeros(C + 1, np.intp)
        lt = np.zeros(C + 1, np.intp)
        by = np.empty((C, C))
        tot = np.empty(C)
        for k in feats:
            o = order[k]
            xk = Xt[k]
            n_obs = cnt[C, k]
            pos[:] = 0
            for t in range(n_obs):
                j = o[t]
                v = xk[j]
                e = y[j]
                for _ in range(2):
                    s = e * d + k
                    p = pos[e]
                    vals[off[s] + p] = v
                    cum[off[s] + s + p + 1] = cum[off[s] + s + p] + v
                    pos[e] = p + 1
                    e = C
            for e in range(C + 1):
                s = e * d + k
                ne = cnt[e, k]
                if ne == 0:
                    continue
                m = cum[off[s] + s + ne] / ne
                acc = 0.0
                for p in range(ne):
                    t = vals[off[s] + p] - m
                    acc += t * t
                mu[e, k] = m
                var[e, k] = acc / ne
            # E|X_c2k - v| for every class c2 in one walk: the values of segment
            # e below v are the lt[e] entries of class e (lt[C]: all) before v's run
            # of ties, so the merge position needs no search
            seen[:] = 0
            by[:] = 0.0
            tot[:] = 0.0
            prev = -np.inf
            for t in range(n_obs):
                j = o[t]
                v = xk[j]
                if v != prev:
                    lt[:] = seen
                    prev = v
                cj = y[j]
                for c2 in range(C):
                    e = eff[c2, k]
                    s = e * d + k
                    ns = cnt[e, k]
                    a = lt[e]
                    q = off[s] + s
                    p0 = cum[q + a]
                    ev = ((v * a - p0) + ((cum[q + ns] - p0) - v * (ns - a))) / ns
                    by[c2, cj] += ev
                    tot[c2] += ev
                    if ht:
                        W[c2, k, j] = ev - abs(v)
                seen[cj] += 1
                seen[C] += 1
            for c2 in range(C):
                pooled = tot[c2] / n_obs if n_obs else 0.0
                for c in range(C):
                    H[c, c2, k] = by[c2, c] / cnt[c, k] if cnt[c, k] > 0 else pooled
            if ht:
                # W (see _w_table): half the both-missing difference at the holes
                for t in range(n_obs, n):
                    j = o[t]
                    for c in range(C):
                        W[c, k, j] = 0.5 * H[c, y[j], k]
        return vals, cum, off, cnt, mu, var, eff

    @numba.njit(cache=True, nogil=True)
    def transpose(W, V):  # pragma: no cover - compiled
        # V[c, j, k] = W[c, k, j], in 32 x 32 tiles
        C, d, n = W.shape
        for c in range(C):
            for j0 in range(0, n, 32):
                j1 = min(j0 + 32, n)
                for k0 in range(0, d, 32):
                    k1 = min(k0 + 32, d)
                    for j in range(j0, j1):
                        for k in range(k0, k1):
                            V[c, j, k] = W[c, k, j]

    @numba.njit(cache=True, nogil=True)
    def absdiff_v(rows, idx, coef, dense, F, M, y, V, out):  # pragma: no cover - compiled
        # out[r] += coef[r, t] * diff(x_i, x_j) with the table: diff = |f_i - f_j| +
        # m_i V[c_i, j] + m_j V[c_j, i] (m the hole indicators; at a hole of both the
        # two halves of the both-missing difference), one vectorised pass per pair;
        # j = idx[r, t] (or t when dense); j < 0, j == i, 0 skipped
        d = F.shape[1]
        for r in range(rows.size):
            i = rows[r]
            a = F[i]
            ma = M[i]
            ci = y[i]
            o = out[r]
            for t in range(coef.shape[1]):
                j = t if dense else idx[r, t]
                w = coef[r, t]
                if j < 0 or j == i or w == 0.0:
                    continue
                b = F[j]
                mb = M[j]
                vi = V[ci, j]
                vj = V[y[j], i]
                for k in range(d):
                    o[k] += w * ((abs(a[k] - b[k]) + ma[k] * vi[k]) + mb[k] * vj[k])

    @numba.njit(cache=True, nogil=True)
    def w_rows(rows, mptr, midx, y, W, tile, out):  # pragma: no cover - compiled
        # out[r, j] = P(rows[r], j) = sum over the holes k of rows[r] of W[c, k, j]:
        # rows of W added in the order of the holes, `tile` columns at a time (that
        # slice of W stays in cache for all rows)
        n = out.shape[1]
        for j0 in range(0, n, tile):
            j1 = min(j0 + tile, n)
            for r in range(rows.size):
                i = rows[r]
                o = out[r, j0:j1]
                o[:] = 0.0
                ci = y[i]
                q = mptr[i]
                q1 = mptr[i + 1]
                # eight (then four) holes per sweep, added in order: the same sums as
                # one by one
                while q + 8 <= q1:
                    w0 = W[ci, midx[q], j0:j1]
                    w1 = W[ci, midx[q + 1], j0:j1]
                    w2 = W[ci, midx[q + 2], j0:j1]
                    w3 = W[ci, midx[q + 3], j0:j1]
                    w4 = W[ci, midx[q + 4], j0:j1]
                    w5 = W[ci, midx[q + 5], j0:j1]
                    w6 = W[ci, midx[q + 6], j0:j1]
                    w7 = W[ci, midx[q + 7], j0:j1]
                    for j in range(o.size):
                        t = (((o[j] + w0[j]) + w1[j]) + w2[j]) + w3[j]
                        o[j] = (((t + w4[j]) + w5[j]) + w6[j]) + w7[j]
                    q += 8
                while q + 4 <= q1:
                    w0 = W[ci, midx[q], j0:j1]
                    w1 = W[ci, midx[q + 1], j0:j1]
                    w2 = W[ci, midx[q + 2], j0:j1]
                    w3 = W[ci, midx[q + 3], j0:j1]
                    for j in range(o.size):
                        o[j] = (((o[j] + w0[j]) + w1[j]) + w2[j]) + w3[j]
                    q += 4
                while q < q1:
                    w0 = W[ci, midx[q], j0:j1]
                    for j in range(o.size):
                        o[j] += w0[j]
                    q += 1

    @numba.njit(cache=True, nogil=True, fastmath={"reassoc", "nsz", "contract", "arcp"})
    def w_upper(F, r0, r1, out):  # pragma: no cover - compiled
        # in place, out holding P: out[i, j] = out[j, i] = |f_i - f_j|_1 + P(i, j) +
        # P(j, i) for r0 <= i < r1, j > i (each unordered pair once, both read before
        # either is written); tiles of 64 x 32 rows as in manhattan_upper
        n = F.shape[0]
        for i0 in range(r0, r1, 64):
            i1 = min(i0 + 64, r1)
            for j0 in range(i0, n, 32):
                j1 = min(j0 + 32, n)
                for i in range(i0, i1):
                    a = F[i]
                    for j in range(max(j0, i + 1), j1):
                        s = _L1(a, F[j]) + (out[i, j] + out[j, i])
                        out[i, j] = s
                        out[j, i] = s
        for i in range(r0, r1):
            out[i, i] = 0.0

    @numba.njit(cache=True, nogil=True, fastmath={"reassoc", "nsz", "contract", "arcp"})
    def w_block(rows, F, mptr, midx, y, Wr, out):  # pragma: no cover - compiled
        # out holding P(rows[r], j): out[r, j] = |f_i - f_j|_1 + P(i, j) + P(j, i),
        # with Wr = W[:, :, rows]; P(j, i) is built for tiles of 64 columns j and
        # 256 rows r at a time
        n = F.shape[0]
        m = rows.size
        tmp = np.empty((64, 256))
        for r0 in range(0, m, 256):
            r1 = min(r0 + 256, m)
            for j0 in range(0, n, 64):
                j1 = min(j0 + 64, n)
                for j in range(j0, j1):
                    t = tmp[j - j0, : r1 - r0]
                    t[:] = 0.0
                    cj = y[j]
                    for q in range(mptr[j], mptr[j + 1]):
                        w = Wr[cj, midx[q], r0:r1]
                        for r in range(r1 - r0):
                            t[r] += w[r]
                for r in range(r0, r1):
                    a = F[rows[r]]
                    for j in range(j0, j1):
                        out[r, j] = _L1(a, F[j]) + (out[r, j] + tmp[j - j0, r - r0])

    _EXPECTED.update(
        block=block,
        absdiff=absdiff,
        absdiff_v=absdiff_v,
        w_rows=w_rows,
        w_upper=w_upper,
        w_block=w_block,
        build=build,
        transpose=transpose,
    )
    return _EXPECTED


def _w_tile(W: np.ndarray) -> int:
    """Columns per tile of the compiled ``w_rows``: the largest power of two in
    [64, 1024] whose slice of ``W`` (``C x d x tile``) takes at most 2 MiB (a core's
    level-2 cache: it stays there while every row adds its holes' slices)."""
    per = max(1, 8 * W.shape[0] * W.shape[1])
    tile = 64
    while tile < 1024 and 2 * tile * per <= 2**21:
        tile *= 2
    return tile


def _w_table(ed: ExpectedDiff) -> np.ndarray:
    """``W[c, k, j]``: the Manhattan correction of a hole at feature ``k`` of a row of
    class ``c`` against row ``j`` (``G[c, j, k]`` when ``x_jk`` is observed, half the
    both-missing ``H[c, c_j, k]`` when not, so that ``P(i, j) + P(j, i)`` with
    ``P(i, j) = sum_{k missing in i} W[c_i, k, j]`` is the whole correction of the
    filled distance). Built once, ``C x d x n`` (the size of ``G``)."""
    W = getattr(ed, "_W", None)
    if W is None:
        C, (n, d) = ed.n_classes, ed.filled.shape
        W = np.zeros((C, d, n))
        M = ed.mask.astype(bool)
        for k in ed._feats:
            mk = M[:, k]
            for c in range(C):
                W[c, k] = np.where(mk, 0.5 * ed.H[c, ed.y, k], ed.G[c, :, k])
        ed._W = W
    return W


def _v_table(ed: ExpectedDiff) -> np.ndarray:
    """``V[c, j, k] = W[c, k, j]`` (:func:`_w_table`), each row's corrections contiguous:
    the margin of a pair ``(i, j)`` adds ``m_i V[c_i, j] + m_j V[c_j, i]`` to the
    filled ``|f_i - f_j|`` (``m`` the hole indicators). Built once, ``C x n x d``."""
    if ed._V is None:
        W = _w_table(ed)
        V = np.empty((W.shape[0], W.shape[2], W.shape[1]))
        _expected_kernels()["transpose"](W, V)
        ed._V = V
    return ed._V


def _expected_full_manhattan(ed: ExpectedDiff, workers: int) -> np.ndarray:
    """The full Manhattan matrix with expected differences (compiled, needs the table):
    ``P`` row by row, then one symmetric pass over the upper triangle adding the filled
    distance and ``P``'s transpose (each unordered pair once)."""
    kern = _expected_kernels()
    W = _w_table(ed)
    tile = _w_tile(W)
    n = ed.filled.shape[0]
    out = np.empty((n, n))
    step = max(1, -(-n // (4 * workers))) if workers > 1 else n
    all_rows = np.arange(n, dtype=np.intp)

    def rows_p(a: int, b: int) -> None:
        kern["w_rows"](all_rows[a:b], ed.mptr, ed.midx, ed.y, W, tile, out[a:b])

    threaded_spans(rows_p, [(a, min(a + step, n)) for a in range(0, n, step)], workers)
    chunks = balanced_upper_chunks(n, 4 * workers if workers > 1 else 1)

    def upper(a: int, b: int) -> None:
        kern["w_upper"](ed.filled, a, b, out)

    threaded_spans(upper, chunks, workers)
    return out


def _expected_block_w(ed: ExpectedDiff, rows: np.ndarray) -> np.ndarray:
    """Row block of the Manhattan distances with expected differences (compiled, needs
    the table): ``P(i, j)`` by rows of ``W``, ``P(j, i)`` and the filled distance fused."""
    kern = _expected_kernels()
    W = _w_table(ed)
    out = np.empty((rows.size, ed.filled.shape[0]))
    kern["w_rows"](rows, ed.mptr, ed.midx, ed.y, W, _w_tile(W), out)
    Wr = np.ascontiguousarray(W[:, :, rows])
    kern["w_block"](rows, ed.filled, ed.mptr, ed.midx, ed.y, Wr, out)
    return out


def _expected_block_numpy(ed: ExpectedDiff, rows: np.ndarray, sq: bool) -> np.ndarray:
    F, M, y = ed.filled, ed.mask.astype(bool), ed.y
    A = F[rows]
    out = _block(A, F, "sqeuclidean" if sq else "manhattan", None, use_numba=False)
    one = ed.expected_sq if sq else ed.expected
    ya = y[rows]
    for k in np.flatnonzero(M.any(axis=0)):
        ma, mb = M[rows, k], M[:, k]
        fb, fa = F[:, k], A[:, k]
        J = np.flatnonzero(mb)
        for c in np.unique(ya[ma]):
            rr = np.flatnonzero(ma & (ya == c))
            true = one(np.full(F.shape[0], c), np.full(F.shape[0], k), fb)
            true[J] = ed.both(np.full(J.size, c), y[J], np.full(J.size, k), sq)
            wrong = fa[rr, None] - fb[None, :]
            wrong = wrong * wrong if sq else np.abs(wrong)
            out[rr] += true[None, :] - wrong
        nm = np.flatnonzero(~ma)
        if nm.size == 0:
            continue
        for c2 in np.unique(y[J]):
            jj = J[y[J] == c2]
            vec = one(np.full(nm.size, c2), np.full(nm.size, k), fa[nm])
            wrong = fa[nm, None] - fb[None, jj]
            wrong = wrong * wrong if sq else np.abs(wrong)
            out[np.ix_(nm, jj)] += vec[:, None] - wrong
    return out


def _class_spans(y: np.ndarray, C: int) -> list[Any]:
    """Per class, its rows: a slice when ``y`` is sorted, else an index array."""
    if y.size < 2 or np.all(y[1:] >= y[:-1]):
        b = np.searchsorted(y, np.arange(C + 1))
        return [slice(int(b[c]), int(b[c + 1])) for c in range(C)]
    return [np.flatnonzero(y == c) for c in range(C)]


def _expected_block_table(
    ed: ExpectedDiff, rows: np.ndarray, sq: bool, numba_on: bool
) -> np.ndarray:
    F = ed.filled
    out = _block(F[rows], F, "sqeuclidean" if sq else "manhattan", None, numba_on)
    return _add_expected_corrections(ed, rows, out, sq)


def _add_expected_corrections(
    ed: ExpectedDiff, rows: np.ndarray, out: np.ndarray, sq: bool
) -> np.ndarray:
    # D = filled distance + MA_i . Q_ci[j] + Q_cj[i] . MA_j + (MA_i * H_cicj) . MA_j, with
    # MA the hole indicator and Q the correction table: one matrix product per pair of
    # (row class, column class) blocks, the three terms stacked along the inner axis
    F, y, C = ed.filled, ed.y, ed.n_classes
    if sq:
        Q, Hm = ed._sq_tables()
    else:
        Q, Hm = ed.G, ed.H
    feats = ed._feats
    MA = ed.mask[:, feats].astype(np.float64)
    Qf = Q[:, :, feats]
    yr = y[rows]
    pos = np.arange(rows.size)
    row_sets = _class_spans(yr, C)
    col_sets = _class_spans(y, C)
    MAr = MA[rows]
    for ci in range(C):
        ri = row_sets[ci]
        left_a = MAr[ri]
        if left_a.shape[0] == 0:
            continue
        for cj in range(C):
            cols = col_sets[cj]
            MAc = MA[cols]
            if MAc.shape[0] == 0:
                continue
            # Q_ci is 0 where x_j is missing: the both-missing term joins it
            left = np.hstack([left_a, Qf[cj][rows[ri]]])
            right = np.hstack([Qf[ci][cols] + MAc * Hm[ci, cj, feats], MAc])
            prod = left @ right.T
            if isinstance(ri, slice) and isinstance(cols, slice):
                out[ri, cols] += prod
            else:
                out[np.ix_(pos[ri], np.arange(F.shape[0])[cols])] += prod
    return out


def expected_distance_block(
    ed: ExpectedDiff,
    rows: np.ndarray,
    *,
    metric: str = "manhattan",
    use_numba: bool | None = None,
) -> np.ndarray:
    """Distances of the rows ``rows`` to all rows, with :class:`ExpectedDiff`'s rule
    for the missing components (``D[r, j]``; the diagonal is not zeroed here).

    Manhattan sums the expected absolute differences; ``"sqeuclidean"`` the expected
    squared differences; ``"euclidean"`` is the square root of the latter.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [np.nan], [0.5]])
    >>> ed = ExpectedDiff(X, np.array([0, 0, 0, 1]), 2)
    >>> expected_distance_block(ed, np.array([2])).tolist()  # E|X_0 - v|, X_0 in {0, 1}
    [[0.5, 0.5, 0.5, 0.5]]
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    sq = metric != "manhattan"
    if ed.has_table and not sq and _use_numba(use_numba):
        out = _expected_block_w(ed, rows)
    elif ed.has_table:
        out = _expected_block_table(ed, rows, sq, _use_numba(use_numba))
    elif _use_numba(use_numba):
        out = np.empty((rows.size, ed.filled.shape[0]))
        _expected_kernels()["block"](rows, *ed.args(), sq, out)
    else:
        out = _expected_block_numpy(ed, rows, sq)
    if metric == "euclidean":
        np.maximum(out, 0.0, out=out)
        np.sqrt(out, out=out)
    return out


# ------------------------------------------------------------------ sparse rows (CSR)

_SPARSE: dict[str, Any] = {}


def _sparse_kernels() -> dict[str, Any]:
    """Compile (once; cached on disk) the sparse Manhattan kernel."""
    if _SPARSE:
        return _SPARSE
    import numba

    @numba.njit(cache=True, nogil=True, fastmath=True)
    def l1_corr(rows, indptr, indices, data, n_features, out):  # pragma: no cover
        # out[r, j] -= sum over the columns shared by rows[r] and j of
        # |a_k| + |b_k| - |a_k - b_k| (out starts at |a|_1 + |b|_1): row rows[r] is
        # scattered into a dense vector once, then each row j's non-zeros are scanned
        n = indptr.size - 1
        dense = np.zeros(n_features)
        for r in range(rows.size):
            i = rows[r]
            for q in range(indptr[i], indptr[i + 1]):
                dense[indices[q]] = data[q]
            for j in range(n):
                s = 0.0
                for q in range(indptr[j], indptr[j + 1]):
                    a = dense[indices[q]]
                    if a != 0.0:
                        b = data[q]
                        s += abs(a) + abs(b) - abs(a - b)
                out[r, j] -= s
            for q in range(indptr[i], indptr[i + 1]):
                dense[indices[q]] = 0.0

    _SPARSE.update(l1_corr=l1_corr)
    return _SPARSE


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
        _sparse_kernels()["l1_corr"](rows, indptr, indices, data, d, out)
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
