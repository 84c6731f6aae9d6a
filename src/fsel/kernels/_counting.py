"""Joint-histogram counting: the hot loop of every information-theoretic criterion.

For a code matrix ``C`` (features x samples) and one extra variable ``z`` (codes
``0..nz-1``), :func:`grouped_nlogn` counts, for every feature ``k`` at once, the cells of
the joint histogram of ``(C[k], z)`` and of the coarser ``(C[k], z // group)``, and
returns per feature the sums ``sum n log2 n`` over the non-empty cells and the number
of non-empty cells. Every entropy the criteria need follows from these sums:
``H = log2 N - (sum n log2 n) / N``.

:func:`available_nlogn` is the same count for pairwise deletion (missing values,
docs/user_guide/missing_sparse.rst): a row is skipped for feature ``k`` when ``C[k]`` holds that
feature's
missing code or ``z`` is negative, and every marginal of the kept cells is summed too
(per feature, the entropies then use that feature's own sample size).

One pass over the ``N x K`` codes per call: ``O(N K)`` work. Two back-ends give the same
numbers: a numba kernel (used when numba is installed, compiled lazily on first use and
cached on disk; set ``FSEL_DISABLE_NUMBA=1`` to turn it off) and a pure-numpy one
(blocked ``bincount``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsel.utils.parallel import numba_available, run_threads, spans, thread_map

__all__ = [
    "PairCodes",
    "available_nlogn",
    "grouped_nlogn",
    "held_cells",
    "joint_histograms",
    "nlogn",
    "nlogn_table",
    "numba_enabled",
    "pack_pairs",
    "pack_pairs_in_place",
    "paired_nlogn",
]

# joint_histograms counts two packed features at once while their joint histogram
# (int32) has at most this many cells (256 KiB: it stays in cache).
_PAIRED_MAX_CELLS = 1 << 16

# Dense numpy histograms are processed in column blocks of at most this many cells.
_NUMPY_BLOCK_CELLS = 1 << 22


def held_cells(n: int) -> int:
    """The most cells a compiled count holds as a table for ``n`` rows (the dense
    regime): ``max(4 n, 4096)``; beyond it the counts read only the touched cells.

    Examples
    --------
    >>> held_cells(100), held_cells(10_000)
    (4096, 40000)
    """
    return max(4 * int(n), 4096)


def numba_enabled() -> bool:
    """True when the numba back-end is available and not disabled (the one check,
    :func:`fsel.utils.parallel.numba_available`)."""
    return numba_available()


def nlogn_table(n: int, n_jobs: int = 1) -> np.ndarray:
    """``t[c] = c * log2(c)`` for ``c = 0..n`` (``t[0] = 0``), in blocks of ``2**20``
    entries (no temporary of the table's length), spread over ``n_jobs`` threads.

    Examples
    --------
    >>> nlogn_table(4).tolist()
    [0.0, 0.0, 2.0, 4.754887502163468, 8.0]
    """
    t = np.empty(n + 1)

    def fill(a: int, b: int) -> None:
        for c0 in range(a, b, 1 << 20):
            c1 = min(c0 + (1 << 20), b)
            c = np.arange(max(c0, 1), c1, dtype=np.float64)
            seg = t[max(c0, 1) : c1]
            np.log2(c, out=seg)
            seg *= c

    t[0] = 0.0
    parts = spans(n + 1, max(1, min(int(n_jobs), (n + 1) >> 20)))
    thread_map(fill, parts, len(parts))
    return t


# ----------------------------------------------------------------------------- numpy


def _numpy_block(
    C: np.ndarray, z: np.ndarray, nz: int, group: int, table: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    kb, n = C.shape
    a = int(C.max()) + 1
    cells = a * nz
    keys = C.astype(np.int64) * nz + z[None, :]
    if kb * cells <= _NUMPY_BLOCK_CELLS:
        keys += (np.arange(kb, dtype=np.int64) * cells)[:, None]
        full = np.bincount(keys.ravel(), minlength=kb * cells).reshape(kb, cells)
        coarse = full.reshape(kb, cells // group, group).sum(axis=2)
        # sequential sums in cell order (cumsum), as the numba kernel adds them: the
        # two back-ends then give bit-identical numbers on this dense path
        tf, tc = table[full], table[coarse]
        return (
            np.cumsum(tf, axis=1, out=tf)[:, -1],
            np.cumsum(tc, axis=1, out=tc)[:, -1],
            np.count_nonzero(full, axis=1),
            np.count_nonzero(coarse, axis=1),
        )
    # sparse: sort-based counting, one block of columns at a time
    col = np.repeat(np.arange(kb, dtype=np.int64), n)
    flat = keys.ravel() + col * cells
    uniq, cnt = np.unique(flat, return_counts=True)
    owner = uniq // cells
    s_full = np.bincount(owner, weights=table[cnt], minlength=kb)
    m_full = np.bincount(owner, minlength=kb)
    cu, inv = np.unique(uniq // group, return_inverse=True)
    ccnt = np.bincount(inv.reshape(-1), weights=cnt).astype(np.int64)
    cowner = cu // (cells // group)
    s_coarse = np.bincount(cowner, weights=table[ccnt], minlength=kb)
    m_coarse = np.bincount(cowner, minlength=kb)
    return s_full, s_coarse, m_full, m_coarse


def _numpy_grouped(
    C: np.ndarray, z: np.ndarray, nz: int, group: int, table: np.ndarray
) -> tuple[np.ndarray, ...]:
    k, n = C.shape
    a = int(C.max()) + 1 if k else 1
    per_col = max(a * nz, 1)
    step = max(1, min(k, _NUMPY_BLOCK_CELLS // per_col, _NUMPY_BLOCK_CELLS // max(n, 1)))
    outs = [np.empty(k), np.empty(k), np.empty(k, np.int64), np.empty(k, np.int64)]
    for k0 in range(0, k, step):
        res = _numpy_block(C[k0 : k0 + step], z, nz, group, table)
        for o, r in zip(outs, res, strict=True):
            o[k0 : k0 + step] = r
    return tuple(outs)


def _numpy_available(
    C: np.ndarray, miss: np.ndarray, z: np.ndarray, nz: int, group: int, table: np.ndarray, a: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    k, n = C.shape
    ng = nz // group
    cells = a * nz + 1  # the last cell of each feature collects the skipped rows
    step = max(1, min(k, _NUMPY_BLOCK_CELLS // cells, _NUMPY_BLOCK_CELLS // max(n, 1)))
    s_out = np.zeros((_N_MARGINALS, k))
    m_out = np.zeros((_N_MARGINALS, k), np.int64)
    n_out = np.zeros(k, np.int64)
    zmiss = z < 0
    for k0 in range(0, k, step):
        blk = C[k0 : k0 + step].astype(np.int64)
        kb = blk.shape[0]
        keys = blk * nz + z[None, :]
        keys[(blk == miss[k0 : k0 + step, None]) | zmiss[None, :]] = a * nz
        keys += (np.arange(kb, dtype=np.int64) * cells)[:, None]
        full = np.bincount(keys.ravel(), minlength=kb * cells).reshape(kb, cells)
        h4 = full[:, :-1].reshape(kb, a, ng, group)
        margins = (
            h4.reshape(kb, -1),  # (Xk, z)
            h4.sum(axis=3).reshape(kb, -1),  # (Xk, z // group)
            h4.sum(axis=(2, 3)),  # Xk
            h4.sum(axis=2).reshape(kb, -1),  # (Xk, z % group)
            h4.sum(axis=1).reshape(kb, -1),  # z
            h4.sum(axis=(1, 3)),  # z // group
            h4.sum(axis=(1, 2)),  # z % group
        )
        for r, hist in enumerate(margins):
            s_out[r, k0 : k0 + kb] = table[hist].sum(axis=1)
            m_out[r, k0 : k0 + kb] = np.count_nonzero(hist, axis=1)
        n_out[k0 : k0 + kb] = h4.sum(axis=(1, 2, 3))
    return s_out, m_out, n_out


_N_MARGINALS = 7


def _kernels() -> Any:
    """The compiled counting kernels (imported on first use: numba stays optional)."""
    from fsel.kernels import _numba_counting

    return _numba_counting


def _available_kernels() -> Any:
    """The compiled pairwise-deletion kernels (imported on first use)."""
    from fsel.kernels import _numba_available_counting

    return _numba_available_counting


def _numba_grouped(
    C: np.ndarray, z: np.ndarray, nz: int, group: int, table: np.ndarray, n_jobs: int
) -> tuple[np.ndarray, ...]:
    kernels = _kernels()
    dense, sparse = kernels.grouped_dense, kernels.grouped_touched
    k, n = C.shape
    a = int(C.max()) + 1 if k else 1
    outs = (np.empty(k), np.empty(k), np.empty(k, np.int64), np.empty(k, np.int64))
    kernel = dense if a * nz <= held_cells(n) else sparse
    z = z_codes(z)
    run_threads(kernel, k, n_jobs, (C, z, nz, group, a, table, *outs))
    return outs


def grouped_nlogn(
    C: np.ndarray,
    z: np.ndarray,
    nz: int,
    group: int,
    table: np.ndarray,
    n_jobs: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-feature ``sum n log2 n`` and non-empty cell counts of two joint histograms.

    Parameters
    ----------
    C : ndarray of shape (n_features, n_samples), unsigned integer codes
    z : ndarray of shape (n_samples,), codes ``0..nz-1``
    nz : int
        Number of levels of ``z``.
    group : int
        ``z // group`` defines the coarse variable; ``nz`` must be a multiple of it.
    table : ndarray
        :func:`nlogn_table` of at least ``n_samples + 1`` entries.
    n_jobs : int
        Threads over feature blocks (numba back-end only; numpy runs in one thread).

    Returns
    -------
    s_full, s_coarse : ndarray of shape (n_features,)
        ``sum c log2 c`` over the cells of ``(C[k], z)`` and ``(C[k], z // group)``.
    m_full, m_coarse : ndarray of shape (n_features,)
        Numbers of non-empty cells (for the Miller-Madow correction).
    """
    if nz % group:
        raise ValueError("nz must be a multiple of group")
    if not _small_dense(C, nz) and numba_enabled():  # numba imported only when used
        return _numba_grouped(C, z, nz, group, table, n_jobs)
    return _numpy_grouped(C, np.asarray(z, dtype=np.int64), nz, group, table)


def histogram_nlogn(
    H: np.ndarray, group: int, table: np.ndarray, n_jobs: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`grouped_nlogn`'s four results for histograms already counted.

    ``H`` holds one histogram a row (cells ``x * nz + z``, non-negative integers below
    ``table.size``); the coarse variable is ``z // group``. Compiled (numba needed),
    in ``n_jobs`` threads over the rows; each row's terms are added in cell order, as
    :func:`grouped_nlogn` adds them, so the sums are the same bit for bit.

    Examples
    --------
    >>> H = np.array([[2, 0, 1, 1]])  # x in {0, 1}, z in {0, 1}
    >>> s_full, s_coarse, m_full, m_coarse = histogram_nlogn(H, 2, nlogn_table(4))
    >>> s_full.tolist(), s_coarse.tolist(), m_full.tolist(), m_coarse.tolist()
    ([2.0], [4.0], [3], [2])
    """
    k = H.shape[0]
    outs = (np.empty(k), np.empty(k), np.empty(k, np.int64), np.empty(k, np.int64))
    run_threads(_kernels().histogram_sums, k, n_jobs, (H, group, table, *outs))
    return outs


def available_nlogn(
    C: np.ndarray,
    miss: np.ndarray,
    z: np.ndarray,
    nz: int,
    group: int,
    table: np.ndarray,
    n_jobs: int = 1,
    levels: int | None = None,
    packed: tuple[np.ndarray, int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`grouped_nlogn` for pairwise deletion: per feature, only the rows where
    both ``C[k]`` and ``z`` are observed, and all the marginals of those rows.

    Parameters
    ----------
    C : ndarray of shape (n_features, n_samples), unsigned integer codes
    miss : ndarray of shape (n_features,), int
        The missing code of every feature (rows holding it are skipped for that
        feature), or -1 for a feature without missing values.
    z : ndarray of shape (n_samples,), codes ``0..nz-1``, or -1 for a row to skip
    nz, group : int
        As in :func:`grouped_nlogn` (``z // group`` and ``z % group`` are the two
        parts of a merged variable ``z = u * group + v``).
    table : ndarray
        :func:`nlogn_table` of at least ``n_samples + 1`` entries.
    n_jobs : int
        Threads over feature blocks (numba back-end only).
    levels : int or None
        An upper bound of the codes + 1 (default ``C.max() + 1``): a caller counting some
        rows of a larger code matrix passes the whole matrix's, so that every feature is
        counted by the same kernel, to the same bits, either way.
    packed : tuple or None
        :func:`pack_pairs` of ``C`` (numba back-end): two features counted per pass
        where the pair histogram is small; the same numbers bit for bit.

    Returns
    -------
    s : ndarray of shape (7, n_features)
        ``sum c log2 c`` over the kept cells of, in this order: ``(C[k], z)``,
        ``(C[k], z // group)``, ``C[k]``, ``(C[k], z % group)``, ``z``, ``z // group``
        and ``z % group``.
    m : ndarray of shape (7, n_features), int
        Numbers of non-empty cells of the same histograms.
    n : ndarray of shape (n_features,), int
        Number of kept rows of every feature.
    """
    if nz % group:
        raise ValueError("nz must be a multiple of group")
    z = np.ascontiguousarray(z, dtype=np.int64)
    miss = np.ascontiguousarray(miss, dtype=np.int64)
    k = C.shape[0]
    a = (int(C.max()) + 1 if k else 1) if levels is None else int(levels)
    if not numba_enabled():
        return _numpy_available(C, miss, z, nz, group, table, a)
    n = C.shape[1]
    ak = _available_kernels()
    dense = a * (nz + 1) <= max(4 * n, 4096)
    s_out = np.zeros((_N_MARGINALS, k))
    m_out = np.zeros((_N_MARGINALS, k), np.int64)
    n_out = np.zeros(k, np.int64)
    args = (miss, z, nz, group, a, table, s_out, m_out, n_out)
    if dense and packed is not None and packed[1] == a and a * a * (nz + 1) <= max(4 * n, 4096):
        P = packed[0]
        run_threads(ak.available_packed, P.shape[0], n_jobs, (P, *args))
        if k % 2:  # the odd last feature, alone
            one = (np.zeros((_N_MARGINALS, 1)), np.zeros((_N_MARGINALS, 1), np.int64))
            n_one = np.zeros(1, np.int64)
            last = np.ascontiguousarray(C[k - 1 : k])
            ak.available_dense(last, miss[k - 1 :], z, nz, group, a, table, *one, n_one, 0, 1)
            s_out[:, k - 1], m_out[:, k - 1], n_out[k - 1] = one[0][:, 0], one[1][:, 0], n_one[0]
        return s_out, m_out, n_out
    run_threads(ak.available_dense if dense else ak.available, k, n_jobs, (np.asarray(C), *args))
    return s_out, m_out, n_out


#: at most this many codes (features x samples): a small table is counted with numpy,
#: bit-identical to the numba kernel there, so a small job needs no numba import or
#: JIT load (about a second, more than the whole count takes)
SMALL_TABLE_CELLS = 1 << 17


def _small_dense(C: np.ndarray, nz: int) -> bool:
    """True when both back-ends would take their dense path on a small table (a dense
    code matrix only; sparse codes have their own kernel)."""
    if not isinstance(C, np.ndarray):
        return False
    k, n = C.shape
    if k * n > SMALL_TABLE_CELLS:
        return False
    a = int(C.max()) + 1 if k else 1
    cells = a * nz
    return cells <= max(4 * n, 4096) and k * cells <= _NUMPY_BLOCK_CELLS


#: Largest number of levels for which two features share one byte in :func:`pack_pairs`.
PACK_MAX_LEVELS = 16


def pack_pairs(C: np.ndarray) -> tuple[np.ndarray, int] | None:
    """Two features per byte, ``C[2q] * a + C[2q+1]`` with ``a = C.max() + 1``, for
    :func:`paired_nlogn`: the packed matrix and ``a``, or None when ``a`` exceeds
    :data:`PACK_MAX_LEVELS`. An odd last feature is left out."""
    k = C.shape[0]
    if k < 2:
        return None
    a = int(C.max()) + 1
    if a > PACK_MAX_LEVELS:
        return None
    even = C[0 : k - 1 : 2].astype(np.uint8)
    even *= np.uint8(a)
    even += C[1:k:2].astype(np.uint8, copy=False)
    return np.ascontiguousarray(even), a


def pack_pairs_in_place(C: np.ndarray, n_jobs: int = 1, top: int | None = None) -> PairCodes | None:
    """:func:`pack_pairs` written over the first half of ``C`` itself (row ``q`` becomes
    ``C[2q] * a + C[2q+1]``; each row is read before it is overwritten), so packing
    allocates nothing: the caller must own ``C`` (uint8), which holds the pairs
    afterwards. Returns the code matrix as :class:`PairCodes`, or None (``C``
    untouched) when ``a`` exceeds :data:`PACK_MAX_LEVELS` or there is no pair.

    ``top``: the largest code when the caller knows it (no pass over ``C`` to find it).
    ``n_jobs`` threads each pack a span of the columns (columns are independent: within
    a span, row ``q`` is still read before it is overwritten)."""
    k = C.shape[0]
    if k < 2 or C.dtype != np.uint8 or not C.flags.c_contiguous:
        return None
    if top is None:
        top = int(C.max())
    a = int(top) + 1
    if a > PACK_MAX_LEVELS:
        return None
    au = np.uint8(a)

    def pack(c0: int, c1: int) -> None:
        for q in range(k // 2):
            row = C[q, c0:c1]
            np.multiply(C[2 * q, c0:c1], au, out=row)
            row += C[2 * q + 1, c0:c1]

    n = C.shape[1]
    parts = spans(n, max(1, min(int(n_jobs), n >> 16)))
    thread_map(pack, parts, len(parts))
    last = C[k - 1] if k % 2 else None  # row k-1 >= k // 2: never overwritten
    return PairCodes(C[: k // 2], a, last, top, k)


class PairCodes:
    """A ``(K, N)`` code matrix held as its packed pairs (:func:`pack_pairs_in_place`):
    ``P[q] = C[2q] * a + C[2q+1]`` and, for an odd ``K``, the last row. Reading a row
    (or rows, or a slice) unpacks it; ``np.asarray`` unpacks the whole matrix (for the
    rare kernel that needs it). ``max()`` is the original matrix's.

    Examples
    --------
    >>> C = np.array([[0, 1, 2], [2, 2, 0], [1, 0, 1]], dtype=np.uint8)
    >>> pc = pack_pairs_in_place(C.copy())
    >>> pc.shape, pc.max(), pc[1].tolist(), np.asarray(pc).tolist() == C.tolist()
    ((3, 3), 2, [2, 2, 0], True)
    """

    def __init__(self, P: np.ndarray, a: int, last: np.ndarray | None, top: int, k: int):
        self.packed = P
        self.a = int(a)
        self.last = last
        self._top = int(top)
        self.shape = (int(k), int(P.shape[1]))

    def max(self) -> int:
        return self._top

    def row(self, j: int) -> np.ndarray:
        """The codes of feature ``j`` (a new uint8 array)."""
        k = self.shape[0]
        j = int(j) + k if int(j) < 0 else int(j)
        if not 0 <= j < k:
            raise IndexError(f"feature {j} out of range for {k} features")
        if self.last is not None and j == k - 1:
            return self.last.copy()
        q, r = divmod(j, 2)
        au = np.uint8(self.a)
        return self.packed[q] % au if r else self.packed[q] // au

    def row_span(self, j: int, r0: int, r1: int) -> np.ndarray:
        """The codes of feature ``j`` in rows ``r0..r1-1`` (``row(j)[r0:r1]``, a new
        uint8 array)."""
        k = self.shape[0]
        j = int(j)
        if not 0 <= j < k:
            raise IndexError(f"feature {j} out of range for {k} features")
        if self.last is not None and j == k - 1:
            return self.last[r0:r1].copy()
        q, r = divmod(j, 2)
        au = np.uint8(self.a)
        seg = self.packed[q, r0:r1]
        return seg % au if r else seg // au

    def __getitem__(self, key: Any) -> np.ndarray:
        if isinstance(key, (int, np.integer)):
            return self.row(int(key))
        rows = np.arange(self.shape[0])[key]
        out = np.empty((rows.size, self.shape[1]), dtype=np.uint8)
        for i, j in enumerate(rows):
            out[i] = self.row(int(j))
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self[:]
        return out if dtype is None else out.astype(dtype)


#: Rows below which the threads split the pairs, not the rows (too little to share).
_ROW_SPLIT_MIN_ROWS = 1 << 16
#: Bytes of the int32 pair histograms of one row-split task (kept in a core's cache).
_TASK_HISTOGRAM_BYTES = 1 << 20
#: Bytes that all row-split tasks' histograms together may take.
_ROW_SPLIT_MAX_BYTES = 1 << 26


def z_codes(z: np.ndarray) -> np.ndarray:
    """``z`` for the compiled counting kernels: contiguous, its integer dtype kept (a
    ``uint8`` ``z`` is read at one byte per row, an eighth of an ``int64`` one's
    traffic), any other dtype as ``int64``."""
    z = np.ascontiguousarray(z)
    return z if z.dtype.kind in "iu" else z.astype(np.int64)


def _paired_by_rows(
    P: np.ndarray,
    a: int,
    z: np.ndarray,
    nz: int,
    group: int,
    table: np.ndarray,
    outs: tuple[np.ndarray, ...],
    n_jobs: int,
) -> bool:
    """:func:`paired_nlogn`'s counts with the threads splitting the *rows*: every thread
    counts all pairs (in groups whose histograms fit a core's cache) over its own rows,
    the integer histograms are summed, and the sums are read from the totals. The load
    is even whatever the number of features, the same histograms give the same sums
    bit for bit. False (nothing done) for one thread, few rows, or histograms too large
    to keep one set per thread."""
    Q, n = P.shape
    cells = a * a * nz
    if n_jobs <= 1 or n < _ROW_SPLIT_MIN_ROWS or Q == 0:
        return False
    if 4 * Q * cells * n_jobs > _ROW_SPLIT_MAX_BYTES:
        return False
    kernels = _kernels()
    per_task = max(1, _TASK_HISTOGRAM_BYTES // (4 * cells))
    pair_groups = spans(Q, -(-Q // per_task))
    tasks = [(q, r) for q in pair_groups for r in spans(n, n_jobs)]

    def count(q: tuple[int, int], r: tuple[int, int]) -> np.ndarray:
        H = np.zeros((q[1] - q[0], cells), np.int32)
        kernels.pair_counts_rows(P, z, nz, q[0], q[1], r[0], r[1], H)
        return H

    H = np.zeros((Q, cells), np.int64)
    for (q, _), part in zip(tasks, thread_map(count, tasks, n_jobs), strict=True):
        H[q[0] : q[1]] += part
    run_threads(kernels.packed_sums, Q, n_jobs, (H, nz, group, a, table, *outs))
    return True


def paired_nlogn(
    C: np.ndarray,
    packed: tuple[np.ndarray, int],
    z: np.ndarray,
    nz: int,
    group: int,
    table: np.ndarray,
    n_jobs: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`grouped_nlogn` on its small-histogram (dense) path, two features at a
    time from ``packed`` (:func:`pack_pairs`): the same numbers bit for bit, at about
    half the cost (numba back-end; the caller checks :func:`numba_enabled` and that
    ``a * nz <= max(4 n, 4096)``, the dense regime)."""
    P, a = packed
    k = C.shape[0]
    if nz % group:
        raise ValueError("nz must be a multiple of group")
    outs = (np.empty(k), np.empty(k), np.empty(k, np.int64), np.empty(k, np.int64))
    z = z_codes(z)
    kernels = _kernels()
    if not _paired_by_rows(P, a, z, nz, group, table, outs, n_jobs):
        run_threads(kernels.grouped_packed, P.shape[0], n_jobs, (P, z, nz, group, a, table, *outs))
    if k % 2:  # the odd last feature, with the one-feature kernel
        one = (np.empty(1), np.empty(1), np.empty(1, np.int64), np.empty(1, np.int64))
        kernels.grouped_dense(
            np.ascontiguousarray(C[k - 1 : k]), z, nz, group, a, table, *one, 0, 1
        )
        for o, v in zip(outs, one, strict=True):
            o[k - 1] = v[0]
    return outs


# ------------------------------------------------------------ per-chunk joint histograms


def nlogn(counts: np.ndarray) -> np.ndarray:
    """``c * log2(c)`` elementwise for non-negative integer counts (0 for 0), without a
    table of ``N + 1`` entries: the same numbers as :func:`nlogn_table` for any ``N``.

    Examples
    --------
    >>> nlogn(np.array([0, 1, 2, 4])).tolist()
    [0.0, 0.0, 2.0, 8.0]
    """
    c = np.asarray(counts, dtype=np.float64)
    out = np.zeros_like(c)
    np.multiply(c, np.log2(c, where=c > 0, out=np.zeros_like(c)), out=out, where=c > 0)
    return out


def joint_histograms(
    C: np.ndarray,
    z: np.ndarray,
    nz: int,
    n_levels: int,
    packed: tuple[np.ndarray, int] | None = None,
) -> np.ndarray:
    """Joint count tables of ``(C[k], z)`` for every feature ``k`` of one chunk of rows.

    The additive form of :func:`grouped_nlogn`: tables of several chunks of rows sum to
    the table of their union, so a distributed fit reduces them (a tree of sums) and
    turns the total into entropies with :func:`nlogn` on the client.

    Parameters
    ----------
    C : ndarray of shape (n_features, n_samples), unsigned integer codes ``< n_levels``
    z : ndarray of shape (n_samples,), codes ``0..nz-1``
    nz : int
        Number of levels of ``z``.
    n_levels : int
        Levels of the features (the same for all: the largest).
    packed : tuple or None
        ``pack_pairs(C)`` (:func:`pack_pairs`): with numba, two features are counted per
        pass over the samples (the same counts, about half the cost); ignored without
        numba.

    Returns
    -------
    ndarray of shape (n_features, n_levels, nz), int64
        ``out[k, a, b]`` = number of samples with ``C[k] == a`` and ``z == b``.

    Examples
    --------
    >>> C = np.array([[0, 1, 1, 0], [2, 2, 0, 0]], dtype=np.uint8)
    >>> joint_histograms(C, np.array([0, 1, 1, 1]), 2, 3)[1].tolist()
    [[0, 2], [0, 0], [1, 1]]
    """
    K, n = C.shape
    z = np.ascontiguousarray(z, dtype=np.int64)
    out = np.zeros((K, n_levels * nz), dtype=np.int64)
    if K and n:
        if (
            numba_enabled()
            and packed is not None
            and packed[1] ** 2 * nz <= _PAIRED_MAX_CELLS
            and n < 2**31
        ):
            P, a = packed
            _kernels().paired_histograms(P, int(a), z, int(nz), out)
            if K % 2:  # the odd last feature, alone
                histograms = _kernels().histograms
                histograms(np.ascontiguousarray(C[K - 1 :]), z, int(nz), out[K - 1 :])
        elif numba_enabled():
            _kernels().histograms(np.ascontiguousarray(C), z, int(nz), out)
        else:
            cells = n_levels * nz
            step = max(1, min(K, _NUMPY_BLOCK_CELLS // max(n, 1)))
            for k0 in range(0, K, step):
                kb = min(step, K - k0)
                keys = C[k0 : k0 + kb].astype(np.int64) * nz + z[None, :]
                keys += (np.arange(kb, dtype=np.int64) * cells)[:, None]
                out[k0 : k0 + kb] = np.bincount(keys.ravel(), minlength=kb * cells).reshape(
                    kb, cells
                )
    return out.reshape(K, n_levels, nz)
