"""Compiled (numba) kernels of Fleuret's lazy CMIM: the conditional mutual information
``I(X_c; Y | X_j)`` of one candidate and one pick from one pass over the samples, and
the refresh of a batch of candidates against the picks they have not yet been
compared with (:func:`fsel.kernels.lazy_cmim.lazy_cmim_search` drives them).

Imported only when numba is usable (:func:`fsel.utils.parallel.numba_available`);
the eager criterion (:class:`fsel.CMIM` without numba) is the reference the tests
compare them with.
"""

import numba
import numpy as np

from fsel.kernels._numba_counting import _sorted_sums


@numba.njit(nogil=True, cache=True)
def pair_histogram(C, y, ny, aj, c, j, r0, r1, hist):
    """The joint histogram of ``(X_c, X_j, Y)`` over the rows ``r0..r1-1`` into
    ``hist`` (cell ``(x_c * aj + x_j) * ny + y``; ``aj`` levels of ``X_j``), which it
    clears first."""
    # the span's slices, counted from 0: the index is known to be non-negative, so
    # numba's check for negative indices drops out of the loop (1.7x on 2M rows)
    rc = C[c, r0:r1]
    rj = C[j, r0:r1]
    ys = y[r0:r1]
    for i in range(hist.shape[0]):
        hist[i] = 0
    for i in range(rc.shape[0]):
        hist[(np.int64(rc[i]) * aj + np.int64(rj[i])) * ny + np.int64(ys[i])] += 1


@numba.njit(nogil=True, cache=True)
def cmi_of_histogram(hist, ny, table, s_j, s_jy, m_j, m_jy, inv_n, mm):
    """``I(X_c; Y | X_j)`` in bits from the joint histogram of :func:`pair_histogram`:
    ``(S_cjy + S_j - S_cj - S_jy) / N`` plus the Miller-Madow term
    ``(m_cj + m_jy - m_cjy - m_j) * mm``, with ``S_v = sum n log2 n`` and ``m_v`` the
    non-empty cells of the histogram of ``v`` (``S_j``, ``S_jy``, ``m_j``, ``m_jy``
    given; ``mm = 0`` for the plug-in estimator); clipped at 0. The cells are summed
    in the order of the codes, so the value does not depend on how the rows were
    split to count them."""
    s_cjy = 0.0
    m_cjy = 0
    s_cj = 0.0
    m_cj = 0
    for g in range(hist.shape[0] // ny):
        tot = 0
        for t in range(ny):
            v = hist[g * ny + t]
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
def pair_cmi(C, y, ny, n_levels, c, j, table, s_j, s_jy, m_j, m_jy, inv_n, mm, hist):
    """``I(X_c; Y | X_j)`` in bits from one pass over every sample
    (:func:`pair_histogram` then :func:`cmi_of_histogram`; ``hist`` holds at least
    ``n_levels[c] * n_levels[j] * ny`` cells)."""
    aj = n_levels[j]
    cells = hist[: n_levels[c] * aj * ny]
    pair_histogram(C, y, ny, aj, c, j, 0, C.shape[1], cells)
    return cmi_of_histogram(cells, ny, table, s_j, s_jy, m_j, m_jy, inv_n, mm)


@numba.njit(nogil=True, cache=True)
def pair_cmi_sorted(C, y, ny, aj, c, j, table, s_j, s_jy, m_j, m_jy, inv_n, mm, z, keys):
    """:func:`pair_cmi` for a histogram too large to hold (``n_levels[c] * aj * ny``
    cells against N rows): the rows' cells sorted (``z``, ``keys``: N-long buffers),
    summed in cell order, so the same number as the dense histogram gives."""
    rj = C[j]
    for i in range(z.shape[0]):
        z[i] = np.int64(rj[i]) * ny + np.int64(y[i])
    s_cjy, s_cj, m_cjy, m_cj = _sorted_sums(C[c], z, aj * ny, ny, table, keys)
    val = (s_cjy + s_j - s_cj - s_jy) * inv_n
    val += (m_cj + m_jy - m_cjy - m_j) * mm
    return max(0.0, val)


@numba.njit(nogil=True, cache=True)
def refresh_block(
    C, y, ny, n_levels, top, seen, picks, t, s_k, s_ky, m_k, m_ky, table, mm, held, out
):
    """For each candidate ``top[i]``: ``min_s I(X_c; Y | X_picks[s])`` over the picks
    ``s = seen[i] .. t-1`` it has not been compared with (``inf`` where none), into
    ``out[i]``. A term's histogram is held while it has at most ``held`` cells
    (:func:`fsel.kernels._counting.held_cells`); a larger one is counted from the
    rows' sorted cells (memory O(N))."""
    n = C.shape[1]
    inv_n = 1.0 / n
    a = 1
    for i in range(n_levels.shape[0]):
        a = max(a, n_levels[i])
    hist = np.zeros(min(a * a * ny, held), np.int64)
    z = np.empty(n, np.int64)
    keys = np.empty(n, np.int64)
    for i in range(top.shape[0]):
        c = top[i]
        best = np.inf
        for s in range(seen[i], t):
            j = picks[s]
            if n_levels[c] * n_levels[j] * ny <= hist.shape[0]:
                v = pair_cmi(
                    C, y, ny, n_levels, c, j, table, s_k[j], s_ky[j], m_k[j], m_ky[j],
                    inv_n, mm, hist,
                )  # fmt: skip
            else:
                v = pair_cmi_sorted(
                    C, y, ny, n_levels[j], c, j, table, s_k[j], s_ky[j], m_k[j], m_ky[j],
                    inv_n, mm, z, keys,
                )  # fmt: skip
            best = min(best, v)
        out[i] = best
