"""Integer input straight to packed codes: the set-up's coding pass writes the feature
pairs the counting kernels read, not the code matrix.

When every column of a dense integer table is taken as codes and spans at most 16
values, the codes of :func:`fsel.kernels.discretize.discretize` (each column's
distinct values ranked ``0..a_j-1``) packed two features per byte as
:func:`fsel.kernels._counting.pack_pairs_in_place` would pack them (``C[2q] * a +
C[2q+1]``, ``a`` the most levels of any column) come from one pass over the input,
split by rows among ``n_jobs`` threads (numba back-end): the packed offsets ``X[i, j]
- min_j`` of every pair, with the offsets present in each column (a bit mask per
column and thread) and the column ranges -- the feature-major code matrix is never
written, so the set-up touches half the fresh memory and skips the separate packing
and presence passes. The minima and the packing base it packs with come from a sample
of 4,096 evenly spaced rows (fewer for a very wide table) and are checked against the
ranges the pass finds: where the sample missed a column's smallest or largest value,
the pass runs again with the table's ranges (two passes, as many as a separate range
pass and the packing take).
Then, only for the pairs whose columns have gaps or a packing base other than the
span, a remap through a 256-entry table per pair. The result is a
:class:`~fsel.kernels._counting.PairCodes`, the same bytes as packing the codes in
place, so every count, and every selection, is the same bit for bit (and the same for
any ``n_jobs``). Integers need no finiteness or integrality check; the range check is
the 16-value bound (a wider column takes the general path).
"""

from __future__ import annotations

import numpy as np

import fsel.kernels._counting as _counting
from fsel.kernels._counting import PACK_MAX_LEVELS, PairCodes, numba_enabled
from fsel.utils.parallel import spans, thread_map

__all__ = ["packed_integer_codes"]

#: Rows a set-up thread takes at least (fewer: not worth a thread).
_ROWS_PER_THREAD = 1 << 16
#: Rows of the sample whose ranges the packing pass starts from (fewer where they
#: would take more than 16 MiB).
_SAMPLE_ROWS = 4096


def _column_ranges(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, int, np.ndarray] | None:
    """From each column's smallest and largest value: the smallest as ``int64``
    (wrapping for ``uint64`` above ``2**63``), the packing base ``w`` (the widest span
    ``max - min + 1``) and each column's mask of every offset its range holds
    (``(1 << span) - 1``); None when a column spans more than 16 values."""
    # the true span: a modular uint64 difference, exact for any int64/uint64; a span
    # of 2**64 wraps to 0 (the widest possible column, never packed)
    span = hi.astype(np.uint64) - lo.astype(np.uint64) + np.uint64(1)
    if (span == 0).any() or int(span.max()) > PACK_MAX_LEVELS:
        return None
    full = ((np.uint32(1) << span.astype(np.uint32)) - np.uint32(1)).astype(np.uint32)
    return lo.astype(np.int64), int(span.max()), full


def packed_integer_codes(
    values: np.ndarray, n_jobs: int = 1
) -> tuple[PairCodes, np.ndarray] | None:
    """The packed codes and the levels of an integer table whose columns are all codes.

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_features)
        Integer or boolean values (never written).
    n_jobs : int
        Threads (the result does not depend on it).

    Returns
    -------
    (PairCodes, ndarray of shape (n_features,)) or None
        The codes as packed pairs (shape ``(n_features, n_samples)``; a row read from
        it is unpacked) and each column's number of levels; None where this path does
        not apply (no numba, a small table, fewer than two features, a column spanning
        more than 16 values): the caller codes the table the general way.

    Examples
    --------
    >>> X = np.tile(np.array([[3, 0, 7], [5, 1, 7], [3, 1, 8]], dtype=np.int16), (50000, 1))
    >>> out = packed_integer_codes(X)
    >>> None if out is None else (np.asarray(out[0])[:, :3].tolist(), out[1].tolist())
    ([[0, 1, 0], [0, 1, 1], [0, 0, 1]], [2, 2, 2])
    """
    values = np.asarray(values)
    if values.dtype == np.bool_:
        values = values.view(np.uint8)
    if values.ndim != 2 or values.dtype.kind not in "iu":
        return None
    n, d = values.shape
    if d < 2 or n * d <= _counting.SMALL_TABLE_CELLS or not numba_enabled():
        return None
    from fsel.kernels import _numba_discretize as nd

    parts = spans(n, max(1, min(int(n_jobs), n // _ROWS_PER_THREAD)))
    # at most 4,096 rows and 16 MiB (a wide table: fewer rows)
    m = min(n, _SAMPLE_ROWS, max(64, (1 << 24) // (d * values.itemsize)))
    sample = values[np.linspace(0, n - 1, m).astype(np.intp)]
    lo_s, hi_s = sample.min(axis=0), sample.max(axis=0)
    ranges = _column_ranges(lo_s, hi_s)
    if ranges is None:  # the table's ranges hold the sample's
        return None
    Q = d // 2
    P = np.empty((Q, n), dtype=np.uint8)
    last = np.empty(n if d % 2 else 0, dtype=np.uint8)
    masks = np.zeros((len(parts), d), dtype=np.uint32)
    los = np.empty((len(parts), d), dtype=values.dtype)
    his = np.empty((len(parts), d), dtype=values.dtype)
    # the flat view lets the range check go a vector at a time (C order only)
    flat = values.reshape(-1) if values.flags.c_contiguous else values[:0, 0]

    def pack(vmin: np.ndarray, w: int, full: np.ndarray) -> None:
        masks[...] = 0
        thread_map(
            lambda t, a, b: nd.pack_offsets(
                values, flat, vmin, w, full, P, last, masks[t], los[t], his[t], a, b
            ),
            [(t, a, b) for t, (a, b) in enumerate(parts)],
            len(parts),
        )

    vmin, w, full = ranges
    pack(vmin, w, full)
    lo, hi = los.min(axis=0), his.max(axis=0)
    if not (np.array_equal(lo, lo_s) and np.array_equal(hi, hi_s)):
        # the sample missed a column's end: offsets out of the packed range, or
        # presence no longer tracked once the sample's levels were all seen
        ranges = _column_ranges(lo, hi)
        if ranges is None:
            return None
        vmin, w, full = ranges
        pack(vmin, w, full)
    seen = np.bitwise_or.reduce(masks, axis=0)
    present = ((seen[:, None] >> np.arange(w, dtype=np.uint32)) & 1).astype(bool)
    levels = np.count_nonzero(present, axis=1).astype(np.int64)
    rank = np.cumsum(present, axis=1) - 1  # each present offset's code
    first = np.argmax(present, axis=1)
    top = w - 1 - np.argmax(present[:, ::-1], axis=1)
    a = int(levels.max())
    moved = (first != 0) | (top + 1 != levels)  # a column whose offsets are not its codes
    need = moved[0 : 2 * Q : 2] | moved[1 : 2 * Q : 2] | (w != a)
    if need.any():
        lut = np.zeros((Q, 256), dtype=np.uint8)
        pairs = rank[0 : 2 * Q : 2, :, None] * a + rank[1 : 2 * Q : 2, None, :]
        lut[:, : w * w] = np.clip(pairs, 0, 255).reshape(Q, w * w)
        thread_map(lambda i0, i1: nd.remap_pairs(P, lut, need, i0, i1), parts, len(parts))
    if d % 2 and moved[d - 1]:
        last[...] = np.clip(rank[d - 1], 0, 255).astype(np.uint8)[last]
    codes = PairCodes(P, a, last if d % 2 else None, a - 1, d)
    return codes, levels
