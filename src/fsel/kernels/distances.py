"""Blocked pairwise distances under a memory budget.

The one distance kernel of fsel: the Relief family and classifiability both compute
their distances here. No ``N x N`` matrix larger than ``memory_budget`` bytes is ever
materialised: rows are processed in blocks whose distance block fits the budget.

Metrics: ``"manhattan"`` (L1), ``"euclidean"`` (L2) and ``"sqeuclidean"`` (squared
L2). The Euclidean metrics use BLAS (``|a|^2 + |b|^2 - 2 a.b``), clipped at zero, with
exact zeros on the diagonal when ``X`` is compared with itself.

The Manhattan metric has no BLAS form; when numba is installed a compiled kernel
(``nogil``, so row blocks can run in threads) sums ``|a_d - b_d|`` feature by feature in
the same order as the pure-numpy fallback, so both paths give the same distances up to
floating-point reassociation (tested to 1e-12). numba is imported lazily, the first
time a Manhattan block is computed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

__all__ = [
    "DEFAULT_MEMORY_BUDGET",
    "METRICS",
    "block_rows_for_budget",
    "distance_block",
    "distance_blocks",
    "numba_available",
]

DEFAULT_MEMORY_BUDGET = 256 * 2**20  # bytes
METRICS = ("manhattan", "euclidean", "sqeuclidean")


def block_rows_for_budget(
    n_cols: int, memory_budget: int = DEFAULT_MEMORY_BUDGET, itemsize: int = 8, factor: int = 2
) -> int:
    """Rows per block so that ``factor`` blocks of ``rows x n_cols`` fit the budget."""
    if memory_budget <= 0:
        raise ValueError(f"memory_budget must be positive, got {memory_budget}")
    return max(1, int(memory_budget // (factor * itemsize * max(n_cols, 1))))


_NUMBA: dict[str, object] = {}


def numba_available() -> bool:
    """True when numba can be imported (checked once, lazily) and the environment
    variable ``FSEL_DISABLE_NUMBA`` is unset or ``0``."""
    if os.environ.get("FSEL_DISABLE_NUMBA", "").strip() not in ("", "0"):
        return False
    if "ok" not in _NUMBA:
        try:
            import numba  # noqa: F401

            _NUMBA["ok"] = True
        except ImportError:  # pragma: no cover - depends on the environment
            _NUMBA["ok"] = False
    return bool(_NUMBA["ok"])


def _numba_manhattan():  # type: ignore[no-untyped-def]
    """Compile (once, cached on disk) the numba Manhattan block kernel."""
    if "manhattan" not in _NUMBA:
        import numba

        @numba.njit(cache=True, nogil=True, fastmath=True)
        def manhattan(A, B, out):  # pragma: no cover - compiled
            n, m, d = A.shape[0], B.shape[0], A.shape[1]
            tile = 64
            for j0 in range(0, m, tile):
                j1 = min(j0 + tile, m)
                for i in range(n):
                    a = A[i]
                    for j in range(j0, j1):
                        b = B[j]
                        s = 0.0
                        for k in range(d):
                            s += abs(a[k] - b[k])
                        out[i, j] = s

        _NUMBA["manhattan"] = manhattan
    return _NUMBA["manhattan"]


def _manhattan_numpy(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    out = np.zeros((A.shape[0], B.shape[0]))
    for d in range(A.shape[1]):
        out += np.abs(A[:, d, None] - B[None, :, d])
    return out


def _block(
    A: np.ndarray,
    B: np.ndarray,
    metric: str,
    b_sq: np.ndarray | None,
    use_numba: bool | None = None,
) -> np.ndarray:
    if metric == "manhattan":
        if use_numba is None:
            use_numba = numba_available()
        if use_numba:
            out = np.empty((A.shape[0], B.shape[0]))
            _numba_manhattan()(np.ascontiguousarray(A), np.ascontiguousarray(B), out)
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
