"""Compiled (numba) scans of Dong & Kothari's classifiability
(:mod:`fsel.kernels.classifiability`): nearest-neighbour distances and neighbourhood
class counts over the mixed squared distance ``D2_v(i, j) = sum_{f in v} delta_f(i, j)``
(:func:`fsel.kernels.distances.sq_delta`).

Same arithmetic as the numpy path: the distance update ``s + delta`` is the one
distance kernel's ``sq_delta_add`` (inlined, no ``fastmath``), fused here with the
scans. A row scan stops as soon as the sorted ``D2(v)`` passes the best distance
found so far, which visits far fewer pairs than the numpy path's fixed upper bound.
Not cached on disk (``cache=False``): numba's cache would not notice a change of the
primitive in another module. Imported only when numba is usable.
"""

import numba
import numpy as np

from fsel.kernels._numba_distances import sq_delta_add


@numba.njit(nogil=True, cache=False)
def nn_rows(S, J, rows, z, sym, out):
    """``out[r] = min_{j != i} D2(v)[i, j] + delta_f(i, j)`` for ``i = rows[r]``, with
    row ``r`` of ``D2(v)`` sorted (``S``, its column order ``J``) and ``z`` the
    candidate's column: the scan stops once ``S[r, k]`` reaches the best so far (the
    added ``delta_f`` is never negative)."""
    r_n, n = S.shape
    for r in range(r_n):
        i = rows[r]
        zi = z[i]
        best = np.inf
        for k in range(n):
            s = S[r, k]
            if s >= best:
                break
            j = J[r, k]
            if j == i:
                continue
            t = sq_delta_add(s, zi, z[j], sym)
            if t < best:
                best = t
        out[r] = best


@numba.njit(nogil=True, cache=False)
def count_rows(S, J, rows, z, sym, theta, y, counts):
    """``counts[r, c] = #{j != i: D2(v)[i, j] + delta_f(i, j) <= theta[r], y_j = c}`` for
    ``i = rows[r]``, scanning the sorted row only while ``S[r, k] <= theta[r]``."""
    r_n, n = S.shape
    for r in range(r_n):
        i = rows[r]
        zi = z[i]
        th = theta[r]
        for k in range(n):
            s = S[r, k]
            if s > th:
                break
            j = J[r, k]
            # branch-free count; the sample itself (s = delta = 0) is removed below
            counts[r, y[j]] += 1.0 if sq_delta_add(s, zi, z[j], sym) <= th else 0.0
        counts[r, y[i]] -= 1.0


@numba.njit(nogil=True, cache=False)
def dense_nn(Xf, sym, out):
    """``out[i] = min_{j != i} sum_f delta_f(i, j)`` (features in list order). Every pair
    from scratch, features added in list order from 0.0 (the numpy path's
    mixed_sq_distances); no N x N array."""
    n, k = Xf.shape
    for i in range(n):
        best = np.inf
        for j in range(n):
            if j == i:
                continue
            s = 0.0
            for f in range(k):
                s = sq_delta_add(s, Xf[i, f], Xf[j, f], sym[f])
            if s < best:
                best = s
        out[i] = best


@numba.njit(nogil=True, cache=False)
def dense_count(Xf, sym, theta, y, counts):
    """``counts[i, c] = #{j != i: sum_f delta_f(i, j) <= theta[i], y_j = c}``."""
    n, k = Xf.shape
    for i in range(n):
        th = theta[i]
        for j in range(n):
            if j == i:
                continue
            s = 0.0
            for f in range(k):
                s = sq_delta_add(s, Xf[i, f], Xf[j, f], sym[f])
            if s <= th:
                counts[i, y[j]] += 1.0


@numba.njit(nogil=True, cache=False)
def dense_purity(Xf, sym, theta, y, n_classes, out):
    """``out[i] = sum_c p_i(c)^2``, ``p_i(c)`` the fraction of the neighbours ``j != i``
    (``sum_f delta_f(i, j) <= theta[i]``) in class ``c``. Many classes: per-row counts
    in one reused array; the squares are added in class order (as _purity does), so the
    values are identical."""
    n, k = Xf.shape
    cnt = np.zeros(n_classes)
    touched = np.empty(n, dtype=np.int64)
    for i in range(n):
        th = theta[i]
        m = 0
        total = 0.0
        for j in range(n):
            if j == i:
                continue
            s = 0.0
            for f in range(k):
                s = sq_delta_add(s, Xf[i, f], Xf[j, f], sym[f])
            if s <= th:
                c = y[j]
                if cnt[c] == 0.0:
                    touched[m] = c
                    m += 1
                cnt[c] += 1.0
                total += 1.0
        order = np.sort(touched[:m])
        acc = 0.0
        for q in range(m):
            p = cnt[order[q]] / total
            acc += p * p
            cnt[order[q]] = 0.0
        out[i] = acc
