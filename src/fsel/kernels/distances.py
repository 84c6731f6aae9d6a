"""Blocked pairwise distances under a memory budget.

The one distance kernel of fsel: the Relief family and classifiability both compute
their distances here. No ``N x N`` matrix larger than ``memory_budget`` bytes is ever
materialised: rows are processed in blocks whose distance block fits the budget.

Metrics: ``"manhattan"`` (L1), ``"euclidean"`` (L2) and ``"sqeuclidean"`` (squared
L2). The Euclidean metrics use BLAS (``|a|^2 + |b|^2 - 2 a.b``), clipped at zero, with
exact zeros on the diagonal when ``X`` is compared with itself.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

__all__ = ["DEFAULT_MEMORY_BUDGET", "METRICS", "block_rows_for_budget", "distance_blocks"]

DEFAULT_MEMORY_BUDGET = 256 * 2**20  # bytes
METRICS = ("manhattan", "euclidean", "sqeuclidean")


def block_rows_for_budget(n_cols: int, memory_budget: int = DEFAULT_MEMORY_BUDGET,
                          itemsize: int = 8, factor: int = 2) -> int:
    """Rows per block so that ``factor`` blocks of ``rows x n_cols`` fit the budget."""
    if memory_budget <= 0:
        raise ValueError(f"memory_budget must be positive, got {memory_budget}")
    return max(1, int(memory_budget // (factor * itemsize * max(n_cols, 1))))


def _block(A: np.ndarray, B: np.ndarray, metric: str, b_sq: np.ndarray | None) -> np.ndarray:
    if metric == "manhattan":
        out = np.zeros((A.shape[0], B.shape[0]))
        for d in range(A.shape[1]):
            out += np.abs(A[:, d, None] - B[None, :, d])
        return out
    a_sq = np.einsum("ij,ij->i", A, A)
    out = a_sq[:, None] + b_sq[None, :] - 2.0 * (A @ B.T)
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
        D = _block(X[start:stop], Yv, metric, b_sq)
        if same:
            idx = np.arange(start, stop)
            D[idx - start, idx] = 0.0
        yield start, stop, D
