"""Discretisation of a scipy.sparse table without densifying it: feature-major
sparse codes (:class:`SparseCodes`), the same codes as
:func:`fsel.kernels.discretize.discretize` of the dense table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from fsel.kernels.binning import check_n_bins, sparse_quantile_edges
from fsel.kernels.discretize import _STRATEGIES, smallest_code_dtype
from fsel.utils.parallel import numba_available, spans, thread_map

__all__ = ["SparseCodes", "discretize_sparse", "row_index_dtype"]


def _kernels():  # type: ignore[no-untyped-def]
    """The compiled kernels (imported on first use: numba stays optional)."""
    from fsel.kernels import _numba_discretize

    return _numba_discretize


@dataclass
class SparseCodes:
    """Feature-major sparse codes: per feature the rows whose code differs from the
    feature's *zero code* (the code of the value 0), and their codes.

    ``codes[k]`` (or :meth:`row`) gives the dense code vector of one feature, of length
    ``n_samples``; the whole matrix is never built.

    Attributes
    ----------
    indptr : ndarray of shape (n_features + 1,), int32 or int64
    rows : ndarray of shape (nnz,), :func:`row_index_dtype` (uint16 up to 65,536 rows)
    codes : ndarray of shape (nnz,), the smallest unsigned dtype that holds them
    zero_code : ndarray of shape (n_features,), the smallest unsigned dtype that holds it
    n_samples : int
    """

    indptr: np.ndarray
    rows: np.ndarray
    codes: np.ndarray
    zero_code: np.ndarray
    n_samples: int

    @property
    def shape(self) -> tuple[int, int]:
        return (self.indptr.size - 1, self.n_samples)

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1])

    def row(self, k: int) -> np.ndarray:
        """Dense codes of feature ``k``."""
        dtype = np.result_type(self.codes.dtype, smallest_code_dtype(int(self.zero_code[k]) + 1))
        out = np.full(self.n_samples, self.zero_code[k], dtype=dtype)
        p0, p1 = int(self.indptr[k]), int(self.indptr[k + 1])
        out[self.rows[p0:p1]] = self.codes[p0:p1]
        return out

    def __getitem__(self, k: int) -> np.ndarray:
        return self.row(int(k))

    def toarray(self) -> np.ndarray:
        """Dense ``(n_features, n_samples)`` codes (for tests and small data)."""
        return np.stack([self.row(k) for k in range(self.shape[0])])


def row_index_dtype(n_samples: int) -> type:
    """The dtype of the row numbers of sparse codes: uint16 up to 65,536 rows."""
    if n_samples <= 65536:
        return np.uint16
    return np.int32 if n_samples < 2**31 else np.int64


def _column_arrays(M: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """``indptr``, row numbers (:func:`row_index_dtype`) and values of the columns of a
    CSR or CSC matrix, in one pass and without a second copy of its indices; the last
    item tells whether the values are a copy (that the caller may overwrite)."""
    n, d = M.shape
    rdt = row_index_dtype(n)
    if M.format == "csc":
        return M.indptr, M.indices.astype(rdt, copy=False), M.data, False
    if M.format != "csr" or not numba_available():
        C = M.tocsc()
        C.sort_indices()
        return C.indptr, C.indices.astype(rdt, copy=False), C.data, True
    idt = np.int32 if M.nnz < 2**31 else np.int64
    col_ptr = np.zeros(d + 1, dtype=idt)
    cursor = np.empty(d, dtype=idt)
    rows = np.empty(M.nnz, dtype=rdt)
    data = np.empty(M.nnz, dtype=M.data.dtype)
    _kernels().csr_to_columns(M.indptr, M.indices, M.data, col_ptr, cursor, rows, data)
    return col_ptr, rows, data, True


def _nnz_spans(indptr: np.ndarray, parts: int) -> list[tuple[int, int]]:
    """Column ranges ``[(k0, k1), ...]`` covering every column in order, with about
    equal numbers of stored entries (``indptr`` of a CSC matrix), at most ``parts``.

    Examples
    --------
    >>> _nnz_spans(np.array([0, 10, 11, 12, 22]), 2)  # 11 entries each
    [(0, 2), (2, 4)]
    >>> _nnz_spans(np.array([0, 0]), 3)
    [(0, 1)]
    """
    d = indptr.size - 1
    targets = np.linspace(0, indptr[-1], max(1, parts) + 1)[1:-1]
    cuts = np.searchsorted(indptr, targets, side="right") - 1
    bounds = sorted({0, d, *np.clip(cuts, 0, d).tolist()})
    return [(a, b) for a, b in pairwise(bounds) if b > a] or [(0, d)]


def _column_ranks(
    indptr: np.ndarray,
    owner: Callable[[], np.ndarray],
    key: np.ndarray,
    has_zero: np.ndarray,
    zero_val: np.ndarray,
    levels_only: bool = False,
    out: np.ndarray | None = None,
    n_jobs: int = 1,
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, int]:
    """Rank of every stored entry among the distinct values of its column, the implicit
    zeros (value ``zero_val``) included where a column has them; NaN ranks last.

    Returns the ranks (in the smallest code dtype; None with ``levels_only``), the
    number of distinct values per column, the rank of the zero value and the number of
    entries whose rank differs from it. ``owner()`` gives each entry's column (only the
    numpy back-end needs it). ``out``: where the numba back-end writes the ranks when
    its dtype is the smallest code dtype (``key`` itself may be given: each entry is
    read before it is overwritten). ``n_jobs`` threads take ranges of columns of about
    equal numbers of stored entries (numba back-end; the same ranks).
    """
    d = indptr.size - 1
    zero_code = np.zeros(d, dtype=np.int64)
    n_levels = np.zeros(d, dtype=np.int64)
    if numba_available():
        kernel = _kernels().column_ranks
        zv = np.asarray(zero_val, dtype=np.float64)
        parts = _nnz_spans(indptr, 4 * n_jobs if n_jobs > 1 else 1)

        def ranks(out: np.ndarray, write: bool) -> int:
            args = (indptr, key, has_zero, zv, n_levels, zero_code, out, write)
            return sum(thread_map(lambda a, b: kernel(*args, a, b), parts, n_jobs))

        ranks(np.zeros(1, dtype=np.uint8), False)
        if levels_only:
            return None, n_levels, zero_code, 0
        dt = smallest_code_dtype(int(n_levels.max(initial=1)))
        if out is None or out.dtype != dt:
            out = np.empty(key.size, dtype=dt)
        return out, n_levels, zero_code, int(ranks(out, True))
    own = owner()
    zcols = np.flatnonzero(has_zero)
    allo = np.concatenate((own, zcols))
    k_all = np.concatenate((np.where(np.isnan(key), np.inf, key), zero_val[zcols]))
    order = np.lexsort((k_all, allo))
    so = allo[order]
    sk = k_all[order]
    new = np.ones(so.size, dtype=bool)
    if so.size > 1:
        new[1:] = (so[1:] != so[:-1]) | (sk[1:] != sk[:-1])
    csum = np.cumsum(new)
    n_levels = np.bincount(so[new], minlength=d)
    start = np.concatenate(([0], np.cumsum(n_levels)[:-1]))
    r_all = np.empty(so.size, dtype=np.int64)
    r_all[order] = csum - 1 - start[so]
    zero_code[zcols] = r_all[own.size :]
    ranks = r_all[: own.size]
    kept = int(np.count_nonzero(ranks != zero_code[own]))
    return (
        ranks.astype(smallest_code_dtype(int(n_levels.max(initial=1)))),
        n_levels,
        zero_code,
        kept,
    )


def _zeros(d: int) -> np.ndarray:
    """``d`` zeros (float64) that take no memory: a read-only view of one zero (a
    wide table's fit holds several arrays of one value per column at once)."""
    return np.broadcast_to(np.float64(0.0), (d,))


def _bin_entries(
    indptr: np.ndarray,
    data: np.ndarray,
    binned: np.ndarray,
    E: np.ndarray,
    vals: np.ndarray,
    owner: Callable[[], np.ndarray],
    n_jobs: int,
) -> None:
    """``vals[p] = #{m : E[q, m] <= data[p]}`` for the stored entries ``p`` of every
    binned column ``binned[q]`` (its edges ``E[q]``); NaN entries are left as they
    are. Compiled over ranges of the binned columns in ``n_jobs`` threads (no
    temporary per entry), else numpy over ``owner()``, each entry's column."""
    if numba_available():
        kernel = _kernels().bin_stored
        parts = spans(binned.size, 4 * n_jobs if n_jobs > 1 else 1)
        thread_map(lambda a, b: kernel(indptr, data, binned, E, vals, a, b), parts, n_jobs)
        return
    row = np.full(indptr.size - 1, -1, dtype=np.int64)
    row[binned] = np.arange(binned.size)
    own = owner()
    ent = np.flatnonzero((row[own] >= 0) & ~np.isnan(vals))
    acc = np.zeros(ent.size)
    for m in range(E.shape[1]):
        acc += data[ent] >= E[row[own[ent]], m]
    vals[ent] = acc


def _first_fraction(
    indptr: np.ndarray,
    data: np.ndarray,
    discrete: np.ndarray,
    owner: Callable[[], np.ndarray],
    n_jobs: int,
) -> int:
    """The first column not flagged ``discrete`` with a stored value that is not a
    whole number (NaN is missing), or -1: ranges of columns in ``n_jobs`` threads
    (numba back-end), else numpy over ``owner()``, each entry's column."""
    if numba_available():
        kernel = _kernels().first_fraction
        parts = _nnz_spans(indptr, 4 * n_jobs if n_jobs > 1 else 1)
        found = [
            k
            for k in thread_map(lambda a, b: kernel(indptr, data, discrete, a, b), parts, n_jobs)
            if k >= 0
        ]
        return min(found) if found else -1
    own = owner()
    bad = ~discrete[own] & ~np.isnan(data) & (data != np.round(data))
    return int(own[np.argmax(bad)]) if bad.any() else -1


def discretize_sparse(
    M: Any,
    discrete: np.ndarray | None = None,
    n_bins: int = 5,
    strategy: str | None = "uniform",
    n_jobs: int = 1,
) -> tuple[SparseCodes, np.ndarray, list[np.ndarray | None]]:
    """:func:`discretize` for a scipy.sparse CSC matrix, without densifying it.

    The same codes as ``discretize(M.toarray(), ...)``: implicit zeros are the value 0,
    so they count in the equal-width range (min/max include 0 when a column has an
    implicit zero) and in the quantiles, and 0 falls in its bin as usual. A stored NaN
    is a missing value: one more code after the observed levels of its column.

    Cost: one sort of each column's stored values (numba; a ``lexsort`` of all of them
    in the numpy fallback). ``strategy="quantile"`` reads each column's quantiles from
    its sorted stored values and its count of implicit zeros
    (:func:`fsel.kernels.binning.sparse_quantile_edges`, ``O(nnz log nnz)``);
    ``"uniform"`` needs the column min/max only.

    Parameters
    ----------
    M : scipy.sparse CSC matrix of shape (n_samples, n_features), float64, sorted
        indices, no duplicates (as :func:`fsel.utils.validation.check_table` returns).
    discrete, n_bins, strategy
        As in :func:`discretize`.
    n_jobs : int
        Threads for the per-column ranks (ranges of columns; the same codes).

    Returns
    -------
    codes : SparseCodes
    n_levels : ndarray of shape (n_features,)
    edges : list
        The learned inner edges (None for code columns).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = np.array([[0.0, 3], [0.5, 0], [1.0, 7], [0.9, 0], [0.1, 9], [0.0, 3]])
    >>> sc, levels, _ = discretize_sparse(sp.csc_matrix(X), np.array([False, True]), n_bins=2)
    >>> sc.toarray().tolist()
    [[0, 1, 1, 1, 0, 0], [1, 0, 2, 0, 3, 1]]
    >>> levels.tolist()
    [2, 4]
    """
    if strategy not in _STRATEGIES:
        raise ValueError(f"strategy must be 'uniform', 'quantile' or None, got {strategy!r}")
    if strategy is not None:
        n_bins = check_n_bins(n_bins, M.shape[0])  # "auto": binning.auto_n_bins
    if M.format not in ("csr", "csc"):
        M = M.tocsc()
    n, d = M.shape
    indptr, rows, data, own_data = _column_arrays(M)
    if data.dtype.kind not in "iubf":
        data, own_data = data.astype(np.float64), True
    elif data.dtype.kind == "b":
        data = data.view(np.uint8)
    counts = np.diff(indptr)
    has_zero = counts < n
    cache: dict[str, np.ndarray] = {}

    def owner_of() -> np.ndarray:  # each entry's column, built only when needed
        if "owner" not in cache:
            cache["owner"] = np.repeat(np.arange(d, dtype=np.int64), counts)
        return cache["owner"]

    is_float = data.dtype.kind == "f"
    if discrete is None:
        discrete = np.zeros(d, dtype=bool)
    discrete = np.asarray(discrete, dtype=bool)
    # the learned edges by column (the list of every column's is made at the end)
    edges: dict[int, np.ndarray] = {}
    if strategy is None and is_float:
        bad_column = _first_fraction(indptr, data, discrete, owner_of, n_jobs)
        if bad_column >= 0:
            raise ValueError(
                f"discretize=None takes every column as codes, but column "
                f"{bad_column} has non-integer values; bin it "
                "(discretize='uniform') or encode it"
            )
    nan = np.isnan(data) if is_float and strategy is not None else np.zeros(0, dtype=bool)
    has_nan = bool(nan.any())
    if strategy is not None:
        fcols = ~discrete
        if fcols.any():
            # distinct observed values per column (NaN is not a value; 0 is, if implicit)
            _, n_obs, _, _ = _column_ranks(
                indptr, owner_of, data, has_zero, _zeros(d), levels_only=True, n_jobs=n_jobs
            )
            if has_nan:
                n_obs -= np.bincount(owner_of()[nan], minlength=d) > 0
            cols = np.flatnonzero(fcols & (n_obs > n_bins))
            del n_obs
            if cols.size and strategy == "uniform":
                big = np.where(nan, np.inf, data) if has_nan else data
                small = np.where(nan, -np.inf, data) if has_nan else data
                lo = np.where(has_zero, 0.0, np.inf)
                hi = np.where(has_zero, 0.0, -np.inf)
                nonempty = counts > 0
                starts = indptr[:-1][nonempty]
                if starts.size:
                    lo[nonempty] = np.minimum(lo[nonempty], np.minimum.reduceat(big, starts))
                    hi[nonempty] = np.maximum(hi[nonempty], np.maximum.reduceat(small, starts))
                lo_c = lo[cols]
                step = (hi[cols] - lo_c) / n_bins  # as np.linspace does (and discretize)
                inner = np.arange(1, n_bins, dtype=np.float64)[None, :] * step[:, None]
                inner += lo_c[:, None]
                for i, j in enumerate(cols.tolist()):
                    edges[j] = inner[i]  # views: no copy
            elif cols.size:
                for j in cols.tolist():  # O(nnz log nnz): from the stored values
                    p0, p1 = int(indptr[j]), int(indptr[j + 1])
                    stored = data[p0:p1]
                    if has_nan:
                        stored = stored[~nan[p0:p1]]
                    edges[j] = sparse_quantile_edges(stored, n - (p1 - p0), n_bins)
    del nan  # (1 byte a stored entry, not needed below)
    # values after binning (implicit zeros: the bin of 0)
    is_binned = np.zeros(d, dtype=bool)
    if strategy is not None and fcols.any():
        is_binned[cols] = True  # the columns given edges above
    binned = np.flatnonzero(is_binned)
    zero_val = _zeros(d)  # (written below where columns are binned)
    vals = data
    if binned.size:
        zero_val = np.zeros(d)
        if strategy == "uniform":  # all of length n_bins - 1, one row per binned column
            E = inner
        else:  # padded with inf (no value lies above it)
            E = np.full((binned.size, max(len(edges[j]) for j in binned.tolist())), np.inf)
            for q, j in enumerate(binned.tolist()):
                E[q, : len(edges[j])] = edges[j]
        zero_val[binned] = (E <= 0.0).sum(axis=1)
        vals = data.astype(np.float64)  # a copy: bins replace the values
        _bin_entries(indptr, data, binned, E, vals, owner_of, n_jobs)
    # codes: ranks among the distinct values of each column (NaN last: its own level)
    # the ranks overwrite the values where those are a copy of the right dtype
    writable = own_data or vals is not data
    codes, n_levels, zero_code, kept = _column_ranks(
        indptr, owner_of, vals, has_zero, zero_val, out=vals if writable else None, n_jobs=n_jobs
    )
    del vals, data, zero_val
    assert codes is not None
    if kept == codes.size:  # every stored entry differs from its zero code: reuse rows
        new_indptr, new_rows, new_codes = indptr, rows, codes
    elif numba_available():
        new_indptr = np.zeros(d + 1, dtype=indptr.dtype)
        new_rows = np.empty(kept, dtype=rows.dtype)
        new_codes = np.empty(kept, dtype=codes.dtype)
        _kernels().drop_zero_codes(indptr, rows, codes, zero_code, new_indptr, new_rows, new_codes)
    else:
        owner = owner_of()
        keep = codes != zero_code[owner]
        new_indptr = np.zeros(d + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner[keep], minlength=d), out=new_indptr[1:])
        new_rows, new_codes = rows[keep], codes[keep]
    cache.clear()
    zero_code = zero_code.astype(smallest_code_dtype(int(n_levels.max(initial=1))))
    sc = SparseCodes(
        indptr=new_indptr, rows=new_rows, codes=new_codes, zero_code=zero_code, n_samples=n
    )
    listed: list[np.ndarray | None] = [None] * d
    for j, e in edges.items():
        listed[j] = e
    return sc, n_levels, listed
