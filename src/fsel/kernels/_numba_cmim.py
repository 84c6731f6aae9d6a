"""Compiled (numba) kernels of Fleuret's lazy CMIM: conditional mutual information
``I(X_c; Y | X_j)`` from one pass over the samples, and the lazy greedy search that
refines a candidate's partial score only while it can still win the step.

Imported only when numba is usable (:func:`fsel.utils.parallel.numba_available`);
the eager criterion (:class:`fsel.CMIM` without numba) is the reference the tests
compare it with.
"""

import numba
import numpy as np


@numba.njit(nogil=True, cache=True)
def pair_cmi(C, y, ny, aj_max, c, j, table, s_j, s_jy, m_j, m_jy, inv_n, mm, scratch):
    """``I(X_c; Y | X_j)`` in bits from one pass over the samples:
    ``(S_cjy + S_j - S_cj - S_jy) / N`` plus the Miller-Madow term
    ``(m_cj + m_jy - m_cjy - m_j) * mm``, with ``S_v = sum n log2 n`` and ``m_v`` the
    non-empty cells of the histogram of ``v`` (``S_j``, ``S_jy``, ``m_j``, ``m_jy``
    given; ``mm = 0`` for the plug-in estimator); clipped at 0."""
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
