"""The rank-based ranking indices (``K1``, ``K2``, ``K3``, ``chi2``, ``mi``) of a
scipy.sparse ``X`` in time proportional to its stored values.

A column's implicit zeros are one tie group of ``n - nnz`` rows, located by counts
between its negative and its positive stored values (as
:func:`fsel.kernels.binning.sparse_quantiles` places them): its mid rank, its
equal-count slice and its members in every slice of ``y`` follow from the number of
negative values and the number of stored values in each slice, never from the zero
rows themselves. Per column the work is one sort of the stored values plus
``O(slices)`` (``O(S T)`` for the tables); the target is ranked and sliced once per
call, ``O(n log n)``.

The numbers are those of the dense path of :mod:`fsel.kernels.ranking_indices`
exactly (``np.array_equal``): both reduce a column to the same integers (per-slice
maxima and sums of the deviation numerators, :func:`ks_numerators`; four times the
contingency counts) and finish with the same functions (:func:`ks_from_slices`,
:func:`table_scores`). A tied run of ``c`` rows contributes ``c`` times its integer
numerator, which is what the dense path's integer sum of its ``c`` members gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fsel.kernels.ranking_tables import (
    _ranks,
    _slice_codes,
    difference_terms,
    ks_from_slices,
    ks_numerators,
    slice_code_pair,
    split_numerators,
    table_scores,
)

__all__ = ["SPARSE_RANK_INDICES", "sparse_scores"]

#: The indices this module computes (the difference indices are not rank-based).
SPARSE_RANK_INDICES = ("K1", "K2", "K3", "chi2", "mi")

# Stored values, and columns times slices (or cells), per processed block.
_BLOCK_ENTRIES = 1 << 20


@dataclass
class _Columns:
    """The sort of the stored values of a block of CSC columns (the zeros by counts).

    Entry arrays are in CSC order (by column, then row); ``two_mid`` is ``2p + 1`` of
    the entry's tie group, ``p`` its 0-based mid position in the sorted dense column,
    and ``group`` the number of that tie group among the column's distinct values
    (the zeros being one of them).
    """

    n: int
    indptr: np.ndarray  # (m + 1,) from 0
    order: np.ndarray  # (e,) stable sort of the entries by column, then value
    n_neg: np.ndarray  # (m,) negative stored values
    col: np.ndarray  # (e,) column of every stored entry, 0..m-1
    rows: np.ndarray  # (e,)
    data: np.ndarray  # (e,)
    two_mid: np.ndarray  # (e,)
    group: np.ndarray  # (e,)
    n_zero: np.ndarray  # (m,) implicit zeros
    zero_two_mid: np.ndarray  # (m,) 2p + 1 of the zeros: 2 n_neg + n_zero
    zero_group: np.ndarray  # (m,) group number of the zeros: negative groups
    n_distinct: np.ndarray  # (m,) distinct values, the zeros included


def _columns(X: Any, lo: int, hi: int) -> _Columns:
    """:class:`_Columns` of columns ``lo:hi`` of a canonical CSC ``X`` (sorted indices,
    no stored zeros): one ``lexsort`` of their stored values."""
    n = X.shape[0]
    m = hi - lo
    indptr = X.indptr[lo : hi + 1].astype(np.int64)
    data = np.asarray(X.data[indptr[0] : indptr[-1]], dtype=np.float64)
    rows = X.indices[indptr[0] : indptr[-1]].astype(np.int64)
    indptr = indptr - indptr[0]
    counts = np.diff(indptr)
    col = np.repeat(np.arange(m, dtype=np.int64), counts)
    n_zero = n - counts
    srt = np.lexsort((data, col))
    c, v = col[srt], data[srt]
    start = np.ones(v.size, dtype=bool)
    start[1:] = (c[1:] != c[:-1]) | (v[1:] != v[:-1])
    run = np.cumsum(start) - 1
    first = np.flatnonzero(start)
    last = np.empty_like(first)
    last[:-1] = first[1:] - 1
    last[-1:] = v.size - 1
    base = indptr[c]
    positive = v > 0
    # 0-based sorted positions in the dense column: the zeros precede the positives
    shift = np.where(positive, n_zero[c], 0)
    two_mid = np.empty(v.size, dtype=np.int64)
    two_mid[srt] = first[run] + last[run] - 2 * base + 1 + 2 * shift
    runs_per_col = np.bincount(c[first], minlength=m)
    runs_before = np.cumsum(runs_per_col) - runs_per_col
    group = np.empty(v.size, dtype=np.int64)
    group[srt] = run - runs_before[c] + (positive & (n_zero[c] > 0))
    n_neg = np.bincount(col[data < 0], minlength=m)
    neg_groups = np.bincount(c[first][v[first] < 0], minlength=m)
    return _Columns(
        n=n,
        indptr=indptr,
        order=srt,
        n_neg=n_neg,
        col=col,
        rows=rows,
        data=data,
        two_mid=two_mid,
        group=group,
        n_zero=n_zero,
        zero_two_mid=2 * n_neg + n_zero,
        zero_group=neg_groups,
        n_distinct=runs_per_col + (n_zero > 0),
    )


def _ks_sparse(cols: _Columns, ycode: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, ...]:
    """``K1``, ``K2``, ``K3`` of the block's columns; ``ycode`` the (lower) slice of
    every row, ``sizes`` the ``n_h`` of the ``H`` slices.

    Within slice ``h`` of a column, a stored value's mid rank counts the slice's
    stored values below it (and the slice's ``z_h = n_h - stored_h`` zeros when it is
    positive); the zeros of the slice are one run of ``z_h`` members with mid rank
    ``neg_h + (z_h - 1)/2``, global mid rank ``n_neg + (n_zero - 1)/2``.
    """
    n, m, n_slices = cols.n, cols.n_zero.size, sizes.size
    h = ycode[cols.rows]
    key = cols.col * n_slices + h
    stored = np.bincount(key, minlength=m * n_slices)
    z = np.tile(sizes, m) - stored  # zeros in every (column, slice)
    num_max = np.zeros(m * n_slices, dtype=np.int64)
    sum_hi = np.zeros(m * n_slices, dtype=np.int64)
    sum_lo = np.zeros(m * n_slices, dtype=np.int64)
    if key.size:
        srt = np.lexsort((cols.data, key))
        k, v = key[srt], cols.data[srt]
        seg_start = np.ones(k.size, dtype=bool)
        seg_start[1:] = k[1:] != k[:-1]
        tie_start = seg_start.copy()
        tie_start[1:] |= v[1:] != v[:-1]
        seg_first = np.flatnonzero(seg_start)
        seg = np.cumsum(seg_start) - 1
        tie_first = np.flatnonzero(tie_start)
        tie_last = np.empty_like(tie_first)
        tie_last[:-1] = tie_first[1:] - 1
        tie_last[-1] = k.size - 1
        run = np.cumsum(tie_start) - 1
        two_inner = tie_first[run] + tie_last[run] - 2 * seg_first[seg] + 1
        two_inner += np.where(v > 0, 2 * z[k], 0)
        num = ks_numerators(two_inner, cols.two_mid[srt], sizes[k % n_slices], n)
        hi, lo = split_numerators(num)
        where = k[seg_first]
        num_max[where] = np.maximum.reduceat(num, seg_first)
        sum_hi[where] = np.add.reduceat(hi, seg_first)
        sum_lo[where] = np.add.reduceat(lo, seg_first)
    # the run of zeros in every (column, slice): z members of one numerator
    neg = np.bincount(key[cols.data < 0], minlength=m * n_slices)
    num_z = ks_numerators(2 * neg + z, np.repeat(cols.zero_two_mid, n_slices), np.tile(sizes, m), n)
    has = z > 0
    num_max = np.where(has, np.maximum(num_max, num_z), num_max)
    hi_z, lo_z = split_numerators(num_z)
    sum_hi += z * hi_z  # z == 0 adds nothing
    sum_lo += z * lo_z
    shape = (m, n_slices)
    size = np.broadcast_to(sizes, shape)
    return ks_from_slices(
        num_max.reshape(shape), sum_hi.reshape(shape), sum_lo.reshape(shape), size, n
    )


def _x_codes(cols: _Columns, n_bins: int) -> tuple[np.ndarray, ...]:
    """Lower and upper equal-count slice of every stored entry and of every column's
    zeros (:func:`slice_code_pair`; the tie-group number when a column has no more
    distinct values than ``n_bins``)."""
    by_value = cols.n_distinct <= n_bins
    lo, hi = slice_code_pair(cols.two_mid, cols.n, n_bins)
    entry_by_value = by_value[cols.col]
    lo = np.where(entry_by_value, cols.group, lo)
    hi = np.where(entry_by_value, cols.group, hi)
    zlo, zhi = slice_code_pair(cols.zero_two_mid, cols.n, n_bins)
    zlo = np.where(by_value, cols.zero_group, zlo)
    zhi = np.where(by_value, cols.zero_group, zhi)
    # a column without zeros adds nothing for them: any valid slice will do
    return lo, hi, np.minimum(zlo, n_bins - 1), np.minimum(zhi, n_bins - 1)


def _table_sparse(
    cols: _Columns, ylo: np.ndarray, yhi: np.ndarray, n_bins_x: int, n_bins_y: int
) -> tuple[np.ndarray, np.ndarray]:
    """``chi2`` and ``mi`` of the block's columns; ``ylo``/``yhi`` the lower and upper
    slice of every row of ``y``.

    Four times the counts: every row adds one to each of the four pairings of its
    lower and upper ``x`` and ``y`` slices (four to one cell when neither is shared).
    A column's zeros share their ``x`` slices and bring the ``y`` slices of all rows
    less those of its stored rows.
    """
    m, s, t = cols.n_zero.size, n_bins_x, n_bins_y
    xlo, xhi, zlo, zhi = _x_codes(cols, s)
    yl, yh = ylo[cols.rows], yhi[cols.rows]
    base = cols.col * (s * t)
    size = m * s * t
    counts4 = np.zeros(size, dtype=np.int64)
    for xc, yc in ((xlo, yl), (xlo, yh), (xhi, yl), (xhi, yh)):
        counts4 += np.bincount(base + xc * t + yc, minlength=size)
    counts4 = counts4.reshape(m, s, t)
    y_all = np.bincount(ylo, minlength=t) + np.bincount(yhi, minlength=t)
    y_stored = np.bincount(cols.col * t + yl, minlength=m * t)
    y_stored += np.bincount(cols.col * t + yh, minlength=m * t)
    y_zero = y_all[None, :] - y_stored.reshape(m, t)
    every = np.arange(m)
    counts4[every, zlo, :] += y_zero
    counts4[every, zhi, :] += y_zero
    return table_scores(counts4, cols.n)


def _reduced_rows(cols: _Columns, col: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The row of the ``q``-th (0-based, in row order) implicit zero of column ``col``.

    With ``s_i`` the column's stored rows in order, ``t_i = s_i - i`` zeros precede
    ``s_i``, so the ``q``-th zero is row ``q + #{i : t_i <= q}`` (one ``searchsorted``
    over all the columns, keyed by column).
    """
    n = cols.n
    e = cols.col.size
    within = np.arange(e, dtype=np.int64) - cols.indptr[cols.col]
    key = cols.col * (n + 1) + (cols.rows - within)  # non-decreasing in CSC order
    before = np.searchsorted(key, col * (n + 1) + q, side="right") - cols.indptr[col]
    return q + before


def _dyadic_levels(terms: np.ndarray) -> list[np.ndarray]:
    """Sums of aligned blocks of ``1, 2, 4, ...`` terms (a bottom-up segment tree)."""
    levels = [terms]
    while levels[-1].size > 1:
        prev = levels[-1]
        if prev.size % 2:
            prev = np.append(prev, 0.0)
        levels.append(prev[0::2] + prev[1::2])
    return levels


def _range_sums(levels: list[np.ndarray], a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``terms[a:b].sum()`` for every pair, from at most two blocks per level: the
    error is relative to each range's own sum (no difference of long prefix sums)."""
    a, b = a.copy(), b.copy()
    total = np.zeros(a.size)
    for level in levels:
        take = (a < b) & (a % 2 == 1)
        total[take] += level[a[take]]
        a += take
        take = (a < b) & (b % 2 == 1)
        b -= take
        total[take] += level[b[take]]
        a //= 2
        b //= 2
    return total


def _touching_windows(cols: _Columns, y: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """Per column, ``sum t_i^2`` over the windows of the ``x`` order that hold a stored
    value, and over all windows of a column with at most ``2m`` zeros.

    The ``x`` order of a column is its negative values, its zeros in row order, its
    positive values. Each column is written out with only its first ``m`` and last
    ``m`` zeros (all of them when they are at most ``2m``); the ``m`` windows that
    span the cut between the two are skipped.
    """
    m = coef.size - 1
    n_cols = cols.n_zero.size
    z = cols.n_zero
    nnz = np.diff(cols.indptr)
    kept = np.minimum(z, 2 * m)
    length = nnz + kept
    start = np.cumsum(length) - length
    seq = np.empty(int(length.sum()))
    srt = cols.order
    c = cols.col[srt]
    rank = np.arange(srt.size, dtype=np.int64) - cols.indptr[c]
    seq[start[c] + rank + np.where(cols.data[srt] > 0, kept[c], 0)] = y[cols.rows[srt]]
    zc = np.repeat(np.arange(n_cols, dtype=np.int64), kept)
    local = np.arange(zc.size, dtype=np.int64) - np.repeat(np.cumsum(kept) - kept, kept)
    q = np.where((local < m) | (z[zc] <= 2 * m), local, local + z[zc] - 2 * m)
    seq[start[zc] + cols.n_neg[zc] + local] = y[_reduced_rows(cols, zc, q)]
    if seq.size <= m:
        return np.zeros(n_cols)
    terms = difference_terms(seq, coef)
    wc = np.repeat(np.arange(n_cols, dtype=np.int64), length)[: terms.size]
    at = np.arange(terms.size, dtype=np.int64) - start[wc]
    valid = at < length[wc] - m
    valid &= ~((z[wc] > 2 * m) & (at >= cols.n_neg[wc]) & (at < cols.n_neg[wc] + m))
    return np.bincount(wc[valid], weights=terms[valid] ** 2, minlength=n_cols).astype(np.float64)


def _zero_windows(
    cols: _Columns, y: np.ndarray, coef: np.ndarray, levels: list[np.ndarray]
) -> np.ndarray:
    """Per column with more than ``2m`` zeros, ``sum t_i^2`` over the windows of its
    zeros (``y`` of the zero rows in row order).

    A window of consecutive rows (no stored row inside) is a window of ``y`` in row
    order: those are range sums over the maximal runs of zero rows (``levels``: the
    :func:`_dyadic_levels` of the row-order ``t_i^2``). The others end within ``m``
    zeros after a stored row: at most ``m`` per stored value, computed one by one.
    """
    m = coef.size - 1
    n, n_cols = cols.n, cols.n_zero.size
    z = cols.n_zero
    nnz = np.diff(cols.indptr)
    big = z > 2 * m
    s, c = cols.rows, cols.col
    within = np.arange(s.size, dtype=np.int64) - cols.indptr[c]
    # maximal runs of zero rows: before every stored row, and after the last one
    prev = np.empty_like(s)
    prev[:1] = -1
    prev[1:] = s[:-1]
    prev[within == 0] = -1
    last = np.full(n_cols, -1, dtype=np.int64)
    last[nnz > 0] = s[cols.indptr[1:][nnz > 0] - 1]
    run_a = np.concatenate((prev + 1, last + 1))
    run_b = np.concatenate((s, np.full(n_cols, n, dtype=np.int64)))  # one past the end
    run_c = np.concatenate((c, np.arange(n_cols, dtype=np.int64)))
    keep = big[run_c] & (run_b - run_a > m)
    intact = _range_sums(levels, run_a[keep], run_b[keep] - m)
    out = np.bincount(run_c[keep], weights=intact, minlength=n_cols).astype(np.float64)
    # windows of the zeros that span a stored row: start q with t - m <= q < t, where
    # t = s_i - i zeros precede the stored row s_i (0 < t < z)
    t = s - within
    inner = big[c] & (t > 0) & (t < z[c])
    if inner.any():
        q = (t[inner][:, None] - 1 - np.arange(m)).ravel()
        qc = np.repeat(c[inner], m)
        ok = (q >= 0) & (q < z[qc] - m)
        key = np.unique(qc[ok] * n + q[ok])
        qc, q = key // n, key % n
        conc = np.stack([y[_reduced_rows(cols, qc, q + j)] for j in range(m + 1)], axis=1)
        terms = difference_terms(conc, coef)[:, 0]
        out += np.bincount(qc, weights=terms**2, minlength=n_cols)
    return out


def _column_ranges(indptr: np.ndarray, per_column: int):  # type: ignore[no-untyped-def]
    """Column ranges of at most :data:`_BLOCK_ENTRIES` stored values and
    ``_BLOCK_ENTRIES / per_column`` columns (at least one column each)."""
    d = indptr.size - 1
    max_cols = max(1, _BLOCK_ENTRIES // per_column)
    lo = 0
    while lo < d:
        hi = int(np.searchsorted(indptr, indptr[lo] + _BLOCK_ENTRIES, side="right")) - 1
        hi = max(lo + 1, min(hi, lo + max_cols, d))
        yield lo, hi
        lo = hi


def sparse_scores(
    X: Any,
    y: np.ndarray,
    names: tuple[str, ...],
    *,
    n_slices: int,
    n_bins_x: int,
    n_bins_y: int,
    differences: dict[str, tuple[np.ndarray, float]] | None = None,
) -> dict[str, np.ndarray]:
    """The ranking indices ``names`` of every column of a sparse ``X``, equal to the
    dense path's (exactly for :data:`SPARSE_RANK_INDICES`, to rounding for the
    difference indices).

    Parameters
    ----------
    X : scipy.sparse CSC matrix of shape (n_samples, n_features)
        Canonical: float64, sorted indices, no stored zeros, no NaN
        (:func:`fsel.kernels.ranking_tables._as_sparse_table` makes it so).
    y : ndarray of shape (n_samples, 1)
        A target that varies.
    names : tuple of str
        Names of :data:`SPARSE_RANK_INDICES` and of ``differences``.
    n_slices, n_bins_x, n_bins_y : int
        Resolved slice counts (see :func:`fsel.kernels.ranking_indices.ranking_scores`).
    differences : dict of name to (coefficients, scale), optional
        The difference indices among ``names``: ``scale * sum_i t_i^2``
        (:func:`difference_terms`).

    Returns
    -------
    dict of name to ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from fsel.kernels.ranking_indices import ranking_scores
    >>> dense = np.array([[0.0, 2.0], [-1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [1.0, -5.0]])
    >>> y = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    >>> s = sparse_scores(sp.csc_matrix(dense), y, ("K3", "chi2"),
    ...                   n_slices=2, n_bins_x=2, n_bins_y=2)
    >>> d = ranking_scores(dense, y[:, 0], ("K3", "chi2"), n_slices=2, n_bins_x=2,
    ...                    n_bins_y=2)
    >>> all(np.array_equal(s[k], d[k]) for k in s)
    True
    """
    d = X.shape[1]
    differences = {nm: differences[nm] for nm in names if differences and nm in differences}
    want_ks = any(nm in ("K1", "K2", "K3") for nm in names)
    want_table = any(nm in ("chi2", "mi") for nm in names)
    ry = _ranks(np.ascontiguousarray(y.T[:1]))  # y ranked and sliced once
    per_column = 1
    if want_ks:
        ycode = ry.to_rows(_slice_codes(ry, n_slices)[0])[0]
        sizes = np.bincount(ycode, minlength=n_slices)
        per_column = max(per_column, n_slices)
    if want_table:
        ylo_s, yhi_s = _slice_codes(ry, n_bins_y)
        ylo, yhi = ry.to_rows(ylo_s)[0], ry.to_rows(yhi_s)[0]
        per_column = max(per_column, n_bins_x * n_bins_y)
    yv = np.ascontiguousarray(y[:, 0])
    levels = {}  # the row-order window terms of y, once per difference index
    for nm, (coef, _) in differences.items():
        levels[nm] = _dyadic_levels(difference_terms(yv, coef) ** 2)
        per_column = max(per_column, 2 * coef.size)
    out = {nm: np.empty(d) for nm in names}
    for lo, hi in _column_ranges(X.indptr, per_column):
        cols = _columns(X, lo, hi)
        found: dict[str, np.ndarray] = {}
        if want_ks:
            found.update(zip(("K1", "K2", "K3"), _ks_sparse(cols, ycode, sizes), strict=True))
        if want_table:
            values = _table_sparse(cols, ylo, yhi, n_bins_x, n_bins_y)
            found.update(zip(("chi2", "mi"), values, strict=True))
        for nm, (coef, scale) in differences.items():
            total = _touching_windows(cols, yv, coef) + _zero_windows(cols, yv, coef, levels[nm])
            found[nm] = total * scale
        for nm in names:
            out[nm][lo:hi] = found[nm]
    return out
