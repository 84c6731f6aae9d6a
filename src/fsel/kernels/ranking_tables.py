"""The tables behind the nonparametric ranking indices
(:mod:`fsel.kernels.ranking_indices`): validated feature and target tables, column
blocks under a size bound, the sort of every column and the ranks with ties (dense and
sparse), the slices of the Kolmogorov-Smirnov indices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fsel.utils.parallel import is_sparse as _is_sparse

# Elements per processed block of columns (bounds the temporaries to a few MB each).
_BLOCK_ELEMENTS = 1 << 20


def resolve_slices(
    value: Any, n_samples: int, *, kind: str, name: str | None = None, owner: str = ""
) -> int:
    """The number of slices: ``value`` itself, or the ``"auto"`` rule.

    Parameters
    ----------
    value : int or "auto"
    n_samples : int
    kind : {"ks", "table"}
        ``"ks"``: ``clip(n // 20, 2, 10)``; ``"table"``: ``clip(floor(sqrt(n/5)), 2, 10)``.
    name : str, optional
        The parameter named in the error messages (default ``"n_slices"`` for ``"ks"``,
        ``"n_bins"`` for ``"table"``).
    owner : str, optional
        The estimator or function that opens the error messages.

    Examples
    --------
    >>> resolve_slices("auto", 200, kind="ks"), resolve_slices("auto", 200, kind="table")
    (10, 6)
    >>> resolve_slices(4, 200, kind="ks")
    4
    >>> resolve_slices(1, 200, kind="table", name="n_bins_y", owner="RankingIndex")
    Traceback (most recent call last):
    ...
    ValueError: RankingIndex: n_bins_y must be an int of at least 2 or 'auto', got 1
    """
    from fsel.utils.params import check_slice_count

    if name is None:
        name = "n_slices" if kind == "ks" else "n_bins"
    # one slice (or one bin) compares nothing: every index would be 0
    value = check_slice_count(value, name, owner)
    if isinstance(value, str):
        if kind == "ks":
            return int(np.clip(n_samples // 20, 2, 10))
        return int(np.clip(int(np.sqrt(n_samples / 5.0)), 2, 10))
    return value


@dataclass
class _Runs:
    """Runs of equal values along the rows of an ``(m, n)`` array in sorted order."""

    index: np.ndarray  # (m, n) run number of every element, counted over the whole array
    first: np.ndarray  # (n_runs,) flat position of each run's first element
    last: np.ndarray  # (n_runs,) flat position of each run's last element

    def mid(self, n: int) -> np.ndarray:
        """0-based mid position (within its row) of every element's run."""
        mid_run = 0.5 * (self.first + self.last) - (self.first // n) * n
        return mid_run[self.index]


def _runs(start: np.ndarray) -> _Runs:
    """Runs flagged by ``start`` (True at the first element of a run; column 0 True).

    One cumulative sum and a few gathers over the flat array; a run never crosses rows
    because every row starts one.
    """
    flat = start.ravel()
    first = np.flatnonzero(flat)
    last = np.empty_like(first)
    last[:-1] = first[1:] - 1
    last[-1] = flat.size - 1
    index = (np.cumsum(flat) - 1).reshape(start.shape)
    return _Runs(index, first, last)


@dataclass
class _Ranks:
    """Sort information of the rows of a ``(m, n)`` matrix (one sort per row)."""

    order: np.ndarray  # (m, n) argsort of each row
    mid: np.ndarray  # (m, n) 0-based mid position of the tie group, in sorted order
    dense: np.ndarray  # (m, n) tie-group number 0..a-1, in sorted order
    n_distinct: np.ndarray  # (m,)
    all_distinct: bool = False  # no ties at all: mid == dense == position

    def to_rows(self, values_sorted: np.ndarray) -> np.ndarray:
        """Scatter values given in sorted order back to the original positions."""
        out = np.empty_like(values_sorted)
        np.put_along_axis(out, self.order, values_sorted, axis=1)
        return out


def _sort(M: np.ndarray, *, stable_ties: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Argsort of every row and the 'equal to the previous value' flags in sorted order.

    With ``stable_ties`` the rows that hold ties are sorted again stably (rows without
    ties have one sort order only, so the fast default sort gives it).
    """
    order = np.argsort(M, axis=1)
    srt = np.take_along_axis(M, order, axis=1)
    tie = srt[:, 1:] == srt[:, :-1]
    if stable_ties:
        tied_rows = np.flatnonzero(tie.any(axis=1))
        if tied_rows.size:
            order[tied_rows] = np.argsort(M[tied_rows], axis=1, kind="stable")
    return order, tie


def _sort_sparse(B: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_sort` (with ``stable_ties``) of the columns of a sparse CSC block, as rows.

    Only the stored values are sorted: the implicit zeros of a column form one tied
    block, in row order, between its negative and its positive values. The result is
    the stable argsort of the dense column, so every index is identical to the dense
    path's.
    """
    n, m = B.shape
    indptr = B.indptr.astype(np.int64)
    counts = np.diff(indptr)
    col = np.repeat(np.arange(m, dtype=np.int64), counts)
    data = np.asarray(B.data, dtype=np.float64)
    rows = B.indices.astype(np.int64)
    srt = np.lexsort((data, col))  # stable: ties keep their row order
    # rank of every stored entry among the stored entries of its column
    rank = np.empty(data.size, dtype=np.int64)
    rank[srt] = np.arange(data.size) - indptr[col[srt]]
    n_neg = np.bincount(col[data < 0], minlength=m)
    n_zero = n - counts
    pos = rank + np.where(data > 0, n_zero[col], 0)
    order = np.empty((m, n), dtype=np.int64)
    values = np.zeros((m, n))
    order[col, pos] = rows
    values[col, pos] = data
    stored = np.zeros((m, n), dtype=bool)
    stored[col, rows] = True
    zc, zr = np.nonzero(~stored)  # implicit zeros, row order within each column
    zfirst = np.concatenate(([0], np.cumsum(n_zero)[:-1]))
    order[zc, n_neg[zc] + np.arange(zc.size) - zfirst[zc]] = zr
    return order, values[:, 1:] == values[:, :-1]


def _ranks(M: np.ndarray, sort: tuple[np.ndarray, np.ndarray] | None = None) -> _Ranks:
    """Mid ranks and tie groups of every row (``sort``: a ready ``_sort(M)`` result)."""
    m, n = M.shape
    order, tie = _sort(M) if sort is None else sort
    if not tie.any():  # continuous data: every value its own group
        pos = np.broadcast_to(np.arange(n), (m, n))
        return _Ranks(order, pos.astype(np.float64), pos, np.full(m, n), all_distinct=True)
    start = np.empty(M.shape, dtype=bool)
    start[:, 0] = True
    np.logical_not(tie, out=start[:, 1:])
    runs = _runs(start)
    dense = runs.index - runs.index[:, :1]
    return _Ranks(order, runs.mid(n), dense, dense[:, -1] + 1)


def _slice_codes(r: _Ranks, n_slices: int) -> tuple[np.ndarray, np.ndarray]:
    """Equal-count slices in *sorted* order: the lower and the upper slice of every item.

    They differ only for an item centred exactly on a slice boundary, which is shared
    between the two (see the module rules). With ``u = (2p + 1) H / (2n)``,
    ``upper = floor(u)`` and ``lower = ceil(u) - 1``, both in exact integer arithmetic.
    """
    m, n = r.order.shape
    mid = r.mid[:1] if r.all_distinct else r.mid  # no ties: the same in every row
    two_p_plus_1 = (2.0 * mid + 1.0).astype(np.int64)  # mid is a multiple of 1/2
    num = two_p_plus_1 * n_slices
    den = 2 * n
    upper = num // den
    lower = (num - 1) // den
    by_value = r.n_distinct <= n_slices
    if by_value.any():
        dense = np.broadcast_to(r.dense, (m, n))
        upper = np.where(by_value[:, None], dense, upper)
        lower = np.where(by_value[:, None], dense, lower)
    return np.broadcast_to(lower, (m, n)), np.broadcast_to(upper, (m, n))


def _gather(YT: np.ndarray, groups: int, order: np.ndarray) -> np.ndarray:
    """``YT`` (one row per target, each serving ``groups`` rows) taken in ``order``."""
    if YT.shape[0] == 1:
        return YT[0][order]
    return np.take_along_axis(np.repeat(YT, groups, axis=0), order, axis=1)


def _as_tables(X: Any, y: Any, *, allow_nan: bool = False) -> tuple[Any, np.ndarray]:
    """``X`` as float64 ``(n, d)`` and ``y`` as float64 ``(n, 1)`` or ``(n, d)``; a
    scipy.sparse ``X`` stays sparse (:func:`_as_sparse_table`).

    ``allow_nan`` lets NaN (a missing value) through in a dense ``X`` (never in ``y``,
    nor stored in a sparse ``X``: :func:`_as_sparse_table` refuses it)."""
    if _is_sparse(X):
        return _as_sparse_table(X, y, allow_nan=allow_nan)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 2 and y.shape[1] == 1 and X.shape[1] != 1:
        y = y[:, 0]
    if y.ndim == 1:
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} samples but y has {y.shape[0]}")
    elif y.shape != X.shape:
        raise ValueError(f"a 2-D y must have the shape of X {X.shape}, got {y.shape}")
    finite_x = not np.isinf(X).any() if allow_nan else np.isfinite(X).all()
    if not (finite_x and np.isfinite(y).all()):
        raise ValueError("X and y must not contain NaN or inf")
    if X.shape[0] < 2:
        raise ValueError(f"at least 2 samples are needed, got {X.shape[0]}")
    y = y[:, None] if y.ndim == 1 else y
    _check_not_constant(y)
    return X, y


def _sparse_blocks(X: Any, Y: np.ndarray):  # type: ignore[no-untyped-def]
    """:func:`_blocks` for a sparse ``X`` (one target column): CSC column blocks."""
    n, d = X.shape
    step = max(1, _BLOCK_ELEMENTS // n)
    for lo in range(0, d, step):
        hi = min(d, lo + step)
        yield slice(lo, hi), X[:, lo:hi], Y.T, hi - lo


def refuse_sparse_missing(X: Any) -> None:
    """Raise ``ValueError`` when a scipy.sparse ``X`` stores NaN (a missing value):
    ``missing="available"`` scores each column on its observed rows, which the sparse
    path (one sort of the stored values, the zeros one tied block) does not do.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> refuse_sparse_missing(sp.csr_matrix(np.eye(2)))
    >>> refuse_sparse_missing(sp.csr_matrix([[np.nan, 0.0], [0.0, 1.0]]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: missing='available' is not supported for a scipy.sparse X that stores NaN ...
    """
    data = np.asarray(X.data)
    if data.dtype.kind in "fc" and np.isnan(data).any():
        raise ValueError(
            "missing='available' is not supported for a scipy.sparse X that stores NaN "
            "(a missing value): pass a dense X (X.toarray()) to score each column on its "
            "observed rows, or fill the missing values"
        )


def _as_sparse_table(X: Any, y: Any, *, allow_nan: bool = False) -> tuple[Any, np.ndarray]:
    """A sparse ``X`` as a float64 CSC matrix (sorted, no stored zeros; never densified)
    and ``y`` as float64 ``(n, 1)``.

    A stored NaN is a missing value, which the sparse path does not score: with
    ``allow_nan`` (``missing="available"``) it is a ``ValueError`` that says so (the
    per-column deletion of :func:`_scores_available` works on dense columns)."""
    X = X.tocsc().astype(np.float64)  # a copy: the caller's matrix is not touched
    X.sum_duplicates()
    X.eliminate_zeros()
    X.sort_indices()
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"with a sparse X, y must be 1-D (n_samples,), got shape {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} samples but y has {y.shape[0]}")
    if allow_nan:
        refuse_sparse_missing(X)
    if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
        raise ValueError("X and y must not contain NaN or inf")
    if X.shape[0] < 2:
        raise ValueError(f"at least 2 samples are needed, got {X.shape[0]}")
    y = y[:, None]
    _check_not_constant(y)
    return X, y


def _constant_columns(Y: np.ndarray) -> np.ndarray:
    """Flags of the columns of ``Y`` (shape ``(n, g)``) that hold one value only."""
    return (Y == Y[:1]).all(axis=0)


def _check_not_constant(Y: np.ndarray, what: str = "column") -> None:
    """Raise ``ValueError`` when a target column of ``Y`` (shape ``(n, g)``) is constant."""
    const = _constant_columns(Y)
    if const.any():
        where = "" if Y.shape[1] == 1 else f" ({what} {int(np.flatnonzero(const)[0])})"
        raise ValueError(
            f"y is constant{where}: a ranking index needs a target that varies (every "
            "feature would score 0)"
        )


def _blocks(X: np.ndarray, Y: np.ndarray):  # type: ignore[no-untyped-def]
    """Yield ``(columns, XT, YT, groups)`` blocks in feature-major layout.

    ``Y`` has shape ``(n, g)``: column ``j`` of ``X`` is scored against column
    ``j // (d / g)`` of ``Y``. In a block, ``YT`` holds the distinct targets as rows and
    each serves ``groups`` consecutive rows of ``XT``.
    """
    n, d = X.shape
    g = Y.shape[1]
    per = d // g
    step = max(1, _BLOCK_ELEMENTS // n)
    if g > 1:
        step = max(per, step - step % per)
    for lo in range(0, d, step):
        hi = min(d, lo + step)
        XT = np.ascontiguousarray(X[:, lo:hi].T)
        if g == 1:
            yield slice(lo, hi), XT, Y.T, hi - lo
        else:
            YT = np.ascontiguousarray(Y[:, lo // per : hi // per].T)
            yield slice(lo, hi), XT, YT, per
