"""Joint-histogram counting: the hot loop of every information-theoretic criterion.

For a code matrix ``C`` (features x samples) and one extra variable ``z`` (codes
``0..nz-1``), :func:`grouped_nlogn` counts, for every feature ``k`` at once, the cells of
the joint histogram of ``(C[k], z)`` and of the coarser ``(C[k], z // group)``, and
returns per feature the sums ``sum n log2 n`` over the non-empty cells and the number
of non-empty cells. Every entropy the criteria need follows from these sums:
``H = log2 N - (sum n log2 n) / N``.

One pass over the ``N x K`` codes per call: ``O(N K)`` work. Two back-ends give the same
numbers: a numba kernel (used when numba is installed, compiled lazily on first use and
cached on disk; set ``FSEL_DISABLE_NUMBA=1`` to turn it off) and a pure-numpy one
(blocked ``bincount``).
"""

from __future__ import annotations

import itertools
import os
from functools import lru_cache
from typing import Any

import numpy as np

__all__ = ["cmim_lazy", "grouped_nlogn", "nlogn_table", "numba_enabled"]

# Dense numpy histograms are processed in column blocks of at most this many cells.
_NUMPY_BLOCK_CELLS = 1 << 22


def numba_enabled() -> bool:
    """True when the numba back-end is available and not disabled."""
    if os.environ.get("FSEL_DISABLE_NUMBA", "").strip() not in ("", "0"):
        return False
    return _numba_importable()


@lru_cache(maxsize=1)
def _numba_importable() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def nlogn_table(n: int) -> np.ndarray:
    """``t[c] = c * log2(c)`` for ``c = 0..n`` (``t[0] = 0``)."""
    c = np.arange(n + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = c * np.log2(c)
    t[0] = 0.0
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
        return (
            table[full].sum(axis=1),
            table[coarse].sum(axis=1),
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


# ----------------------------------------------------------------------------- numba


@lru_cache(maxsize=1)
def _numba_kernels() -> Any:
    import numba

    @numba.njit(nogil=True, cache=True)
    def dense(C, z, nz, group, a, table, s_full, s_coarse, m_full, m_coarse, k0, k1):
        n = C.shape[1]
        cells = a * nz
        ccells = cells // group
        full = np.zeros(cells, np.int64)
        coarse = np.zeros(ccells, np.int64)
        for k in range(k0, k1):
            row = C[k]
            for i in range(cells):
                full[i] = 0
            for i in range(n):
                full[np.int64(row[i]) * nz + z[i]] += 1
            sf = 0.0
            mf = 0
            for i in range(ccells):
                coarse[i] = 0
            for i in range(cells):
                c = full[i]
                if c:
                    sf += table[c]
                    mf += 1
                    coarse[i // group] += c
            sc = 0.0
            mc = 0
            for i in range(ccells):
                c = coarse[i]
                if c:
                    sc += table[c]
                    mc += 1
            s_full[k] = sf
            s_coarse[k] = sc
            m_full[k] = mf
            m_coarse[k] = mc

    @numba.njit(nogil=True, cache=True)
    def sparse(C, z, nz, group, a, table, s_full, s_coarse, m_full, m_coarse, k0, k1):
        n = C.shape[1]
        cells = a * nz
        full = np.zeros(cells, np.int64)
        coarse = np.zeros(cells // group, np.int64)
        touched = np.empty(n, np.int64)
        ctouched = np.empty(n, np.int64)
        for k in range(k0, k1):
            row = C[k]
            nt = 0
            for i in range(n):
                idx = np.int64(row[i]) * nz + z[i]
                if full[idx] == 0:
                    touched[nt] = idx
                    nt += 1
                full[idx] += 1
            sf = 0.0
            nct = 0
            for t in range(nt):
                idx = touched[t]
                c = full[idx]
                sf += table[c]
                full[idx] = 0
                cidx = idx // group
                if coarse[cidx] == 0:
                    ctouched[nct] = cidx
                    nct += 1
                coarse[cidx] += c
            sc = 0.0
            for t in range(nct):
                cidx = ctouched[t]
                sc += table[coarse[cidx]]
                coarse[cidx] = 0
            s_full[k] = sf
            s_coarse[k] = sc
            m_full[k] = nt
            m_coarse[k] = nct

    @numba.njit(nogil=True, cache=True)
    def pair_cmi(C, y, ny, aj_max, c, j, table, s_j, s_jy, m_j, m_jy, inv_n, mm, scratch):
        """I(X_c;Y|X_j) in bits from one pass over the samples."""
        n = C.shape[1]
        rc = C[c]
        rj = C[j]
        cells = scratch.shape[0]
        for i in range(cells):
            scratch[i] = 0
        for i in range(n):
            scratch[(np.int64(rc[i]) * aj_max + np.int64(rj[i])) * ny + y[i]] += 1
        s_cjy = 0.0
        m_cjy = 0
        s_cj = 0.0
        m_cj = 0
        for g in range(cells // ny):
            tot = 0
            for t in range(ny):
                v = scratch[g * ny + t]
                if v:
                    s_cjy += table[v]
                    m_cjy += 1
                    tot += v
            if tot:
                s_cj += table[tot]
                m_cj += 1
        val = (s_cjy + s_j - s_cj - s_jy) * inv_n
        val += (m_cj + m_jy - m_cjy - m_j) * mm
        return max(0.0, val)

    @numba.njit(nogil=True, cache=True)
    def cmim_lazy(C, y, ny, a_max, rel, s_k, s_ky, m_k, m_ky, table, mm, k, tol, order, steps, ps):
        """Fleuret's lazy CMIM: partial scores are upper bounds, refined only while they
        can still beat the best candidate of the step. Ties: lowest index."""
        K = C.shape[0]
        inv_n = 1.0 / C.shape[1]
        scratch = np.zeros(a_max * a_max * ny, np.int64)
        m = np.zeros(K, np.int64)
        selected = np.zeros(K, np.bool_)
        for c in range(K):
            ps[c] = rel[c]
        best = -1.0
        first = 0
        for c in range(K):
            if rel[c] > best + tol:
                best = rel[c]
                first = c
        order[0] = first
        steps[0] = rel[first]
        selected[first] = True
        for step in range(1, k):
            best = -np.inf
            pick = -1
            for c in range(K):
                if selected[c]:
                    continue
                while m[c] < step and ps[c] > best + tol:
                    j = order[m[c]]
                    v = pair_cmi(
                        C,
                        y,
                        ny,
                        a_max,
                        c,
                        j,
                        table,
                        s_k[j],
                        s_ky[j],
                        m_k[j],
                        m_ky[j],
                        inv_n,
                        mm,
                        scratch,
                    )
                    if v < ps[c]:
                        ps[c] = v
                    m[c] += 1
                if pick < 0 or ps[c] > best + tol:
                    best = ps[c]
                    pick = c
            order[step] = pick
            steps[step] = ps[pick]
            selected[pick] = True

    return dense, sparse, cmim_lazy


def _numba_grouped(
    C: np.ndarray, z: np.ndarray, nz: int, group: int, table: np.ndarray, n_jobs: int
) -> tuple[np.ndarray, ...]:
    dense, sparse, _ = _numba_kernels()
    k, n = C.shape
    a = int(C.max()) + 1 if k else 1
    outs = (np.empty(k), np.empty(k), np.empty(k, np.int64), np.empty(k, np.int64))
    kernel = dense if a * nz <= max(4 * n, 4096) else sparse
    z = np.ascontiguousarray(z, dtype=np.int64)
    if n_jobs <= 1 or k < 2 * n_jobs:
        kernel(C, z, nz, group, a, table, *outs, 0, k)
        return outs
    from concurrent.futures import ThreadPoolExecutor

    bounds = np.linspace(0, k, n_jobs + 1).astype(int)
    with ThreadPoolExecutor(max_workers=n_jobs) as ex:
        futs = [
            ex.submit(kernel, C, z, nz, group, a, table, *outs, int(b0), int(b1))
            for b0, b1 in itertools.pairwise(bounds)
        ]
        for f in futs:
            f.result()
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
    if numba_enabled():
        return _numba_grouped(C, z, nz, group, table, n_jobs)
    return _numpy_grouped(C, np.asarray(z, dtype=np.int64), nz, group, table)


def cmim_lazy(
    C: np.ndarray,
    y: np.ndarray,
    n_levels: np.ndarray,
    relevance: np.ndarray,
    s_k: np.ndarray,
    s_ky: np.ndarray,
    m_k: np.ndarray,
    m_ky: np.ndarray,
    table: np.ndarray,
    mm: float,
    k: int,
    tol: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fleuret's lazy CMIM (numba back-end only; the caller checks
    :func:`numba_enabled`). Returns the order, the step scores and the partial scores
    (upper bounds of the last-step scores for unselected features)."""
    *_, kernel = _numba_kernels()
    K = C.shape[0]
    order = np.zeros(k, np.int64)
    steps = np.zeros(k)
    ps = np.zeros(K)
    ny = int(y.max()) + 1
    kernel(
        C,
        np.ascontiguousarray(y, dtype=np.int64),
        ny,
        int(n_levels.max()),
        relevance,
        s_k,
        s_ky,
        m_k,
        m_ky,
        table,
        mm,
        int(k),
        float(tol),
        order,
        steps,
        ps,
    )
    return order, steps, ps


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


@lru_cache(maxsize=1)
def _numba_histogram_kernel() -> Any:
    import numba

    @numba.njit(nogil=True, cache=True)
    def histograms(C, z, nz, out):
        K, n = C.shape
        for k in range(K):
            row = C[k]
            h = out[k]
            for i in range(n):
                h[np.int64(row[i]) * nz + z[i]] += 1

    return histograms


def joint_histograms(C: np.ndarray, z: np.ndarray, nz: int, n_levels: int) -> np.ndarray:
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
        if numba_enabled():
            _numba_histogram_kernel()(np.ascontiguousarray(C), z, int(nz), out)
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
