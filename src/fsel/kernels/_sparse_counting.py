"""Entropy sums of sparse codes: :func:`~fsel.kernels._counting.grouped_nlogn`'s four
results for feature-major sparse codes, from their explicit entries only.

Sparse codes (feature-major, see :class:`fsel.kernels.discretize_sparse.SparseCodes`): per
feature ``k`` the rows ``rows[indptr[k]:indptr[k+1]]`` whose code differs from the
feature's "zero code" and their codes; every other row holds the zero code. For a
variable ``z`` with totals ``T[v] = #{i: z_i = v}``, the joint histogram of
``(X_k, z)`` is the histogram of the explicit entries plus one zero-code row
``T[v] - (explicit entries with z = v)``. Its ``sum n log2 n`` starts from
``sum_v T[v] log2 T[v]`` and is corrected only at the values ``v`` the explicit
entries touch: ``O(nnz_k)`` per feature, ``O(nnz + K)`` per pass.
"""

from __future__ import annotations

import numpy as np

from fsel.kernels._counting import _kernels, numba_enabled
from fsel.kernels.discretize import smallest_code_dtype
from fsel.utils.parallel import run_threads

__all__ = ["sparse_grouped_nlogn"]

# The numba kernel keeps one dense scratch of ``a_max * nz`` cells; above this many it
# counts by sorting each feature's keys instead.
_SPARSE_SCRATCH_CELLS = 1 << 24


def _numpy_sparse_grouped(
    indptr: np.ndarray,
    rows: np.ndarray,
    codes: np.ndarray,
    z: np.ndarray,
    nz: int,
    group: int,
    a_max: int,
    tot: np.ndarray,
    totc: np.ndarray,
    table: np.ndarray,
) -> tuple[np.ndarray, ...]:
    K = indptr.size - 1
    ng = nz // group
    owner = np.repeat(np.arange(K, dtype=np.int64), np.diff(indptr))
    zi = z[rows]
    base = owner * a_max + codes.astype(np.int64)
    # explicit cells (k, code, z) and (k, code, z // group)
    uf, cf = np.unique(base * nz + zi, return_counts=True)
    s_full = np.bincount(uf // (a_max * nz), weights=table[cf], minlength=K).astype(float)
    m_full = np.bincount(uf // (a_max * nz), minlength=K)
    uc, cc = np.unique(base * ng + zi // group, return_counts=True)
    s_coarse = np.bincount(uc // (a_max * ng), weights=table[cc], minlength=K).astype(float)
    m_coarse = np.bincount(uc // (a_max * ng), minlength=K)
    # zero-code row: totals minus the explicit entries, corrected where touched
    for u, c, width, t, s_out, m_out in (
        (*np.unique(owner * nz + zi, return_counts=True), nz, tot, s_full, m_full),
        (*np.unique(owner * ng + zi // group, return_counts=True), ng, totc, s_coarse, m_coarse),
    ):
        k_of = u // width
        v = u % width
        rest = t[v] - c
        corr = np.bincount(k_of, weights=table[rest] - table[t[v]], minlength=K)
        s_out += float(table[t].sum()) + corr.astype(float)
        m_out += int(np.count_nonzero(t)) - np.bincount(k_of[rest == 0], minlength=K)
    return s_full, s_coarse, m_full, m_coarse


def sparse_grouped_nlogn(
    indptr: np.ndarray,
    rows: np.ndarray,
    codes: np.ndarray,
    a_max: int,
    z: np.ndarray,
    nz: int,
    group: int,
    table: np.ndarray,
    n_jobs: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~fsel.kernels._counting.grouped_nlogn` for sparse codes, from the
    explicit entries only.

    Parameters
    ----------
    indptr : ndarray of shape (n_features + 1,)
    rows : ndarray of shape (nnz,)
        Row of every explicit entry, feature by feature.
    codes : ndarray of shape (nnz,)
        Code of every explicit entry (each differs from its feature's zero code; the
        zero code itself is not needed: a joint histogram's entropy does not depend
        on the labels of its cells).
    a_max : int
        Upper bound (exclusive) of the codes.
    z, nz, group, table, n_jobs
        As in :func:`~fsel.kernels._counting.grouped_nlogn`.

    Returns
    -------
    s_full, s_coarse, m_full, m_coarse
        As :func:`~fsel.kernels._counting.grouped_nlogn`'s, in ``O(nnz + K)``.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel.kernels._counting import nlogn_table
    >>> t = nlogn_table(4)
    >>> # one feature over 4 rows: codes [0, 1, 0, 1] with zero code 0; z = [0, 0, 1, 1]
    >>> s = sparse_grouped_nlogn(np.array([0, 2]), np.array([1, 3]), np.array([1, 1]),
    ...                          2, np.array([0, 0, 1, 1]), 2, 2, t)
    >>> [float(s[0][0]), int(s[2][0])]  # four cells of one count each
    [0.0, 4]
    """
    if nz % group:
        raise ValueError("nz must be a multiple of group")
    z = np.ascontiguousarray(z, dtype=np.int64)
    K = indptr.size - 1
    tot = np.bincount(z, minlength=nz).astype(np.int64)
    totc = tot.reshape(-1, group).sum(axis=1) if group > 1 else tot
    if not numba_enabled():
        return _numpy_sparse_grouped(indptr, rows, codes, z, nz, group, a_max, tot, totc, table)
    kernel = _kernels().sparse_codes_grouped
    use_sort = a_max * nz > _SPARSE_SCRATCH_CELLS
    args = (
        np.ascontiguousarray(indptr, dtype=np.int64),
        rows,
        codes,
        # read at every stored entry's row, in row order per feature: the smallest
        # dtype keeps it in a core's cache (one byte a row for up to 256 values)
        z.astype(smallest_code_dtype(nz)),
        nz,
        group,
        a_max,
        tot,
        totc,
        float(table[tot].sum()),
        int(np.count_nonzero(tot)),
        float(table[totc].sum()),
        int(np.count_nonzero(totc)),
        table,
        use_sort,
    )
    outs = (np.empty(K), np.empty(K), np.empty(K, np.int64), np.empty(K, np.int64))
    run_threads(kernel, K, n_jobs, (*args, *outs))
    return outs
