"""Compiled (numba) kernels of the Relief family's neighbour lists and margins.

Each kernel has a pure-numpy twin in :mod:`fsel.kernels.neighbors` computing the same
quantity; the test suite checks both agree. Imported only when numba is usable
(:func:`fsel.utils.parallel.numba_available`).
"""

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def knn_block(D, selfs, y, run_end, k, eps, idx, dist):
    """Idx/dist: (rows, n_classes, k), prefilled with -1 / inf. Columns are scanned in
    index order, run by run of equal labels (run_end[j]: end of j's run), so the k-th
    distance of the run's class (less eps) stays in a register: most columns cost one
    comparison. A column displaces a kept (smaller) index only when it is nearer by
    more than eps: the tie rule of fsel.kernels.neighbors.tie_order.
    """
    rows, n = D.shape
    for r in range(rows):
        self_j = selfs[r]
        Dr = D[r]
        j = 0
        while j < n:
            e = run_end[j]
            c = y[j]
            kth = dist[r, c, k - 1] - eps
            for jj in range(j, e):
                dj = Dr[jj]
                if dj < kth and jj != self_j:
                    pos = k - 1
                    while pos > 0 and dj < dist[r, c, pos - 1] - eps:
                        dist[r, c, pos] = dist[r, c, pos - 1]
                        idx[r, c, pos] = idx[r, c, pos - 1]
                        pos -= 1
                    dist[r, c, pos] = dj
                    idx[r, c, pos] = jj
                    kth = dist[r, c, k - 1] - eps
            j = e


@numba.njit(cache=True, nogil=True, fastmath=True)
def absdiff_rows(X, start, A, out):
    """Tiles of 64 rows x 32 columns; each row still adds its terms in column order, so a
    row's result does not depend on the tiling or the block.
    """
    rows, n = A.shape
    d = X.shape[1]
    for i0 in range(0, rows, 64):
        i1 = min(i0 + 64, rows)
        for j0 in range(0, n, 32):
            j1 = min(j0 + 32, n)
            for r in range(i0, i1):
                a = X[start + r]
                o = out[r]
                for j in range(j0, j1):
                    w = A[r, j]
                    if w != 0.0:
                        b = X[j]
                        for k in range(d):
                            o[k] += w * abs(a[k] - b[k])


@numba.njit(cache=True, nogil=True, fastmath=True)
def absdiff_sparse(X, rows_idx, idx, coef, out):
    """Margins over neighbour lists: ``out[r] += sum_t coef[r, t] |x_i - x_j|`` with
    ``i = rows_idx[r]``, ``j = idx[r, t]`` (``j < 0`` or a zero coefficient skipped)."""
    m = idx.shape[1]
    d = X.shape[1]
    for r in range(idx.shape[0]):
        a = X[rows_idx[r]]
        o = out[r]
        for t in range(m):
            j = idx[r, t]
            w = coef[r, t]
            if j >= 0 and w != 0.0:
                b = X[j]
                for k in range(d):
                    o[k] += w * abs(a[k] - b[k])


@numba.njit(cache=True, nogil=True)
def row_mean_std(D, start, out_mean, out_std):
    """MultiSURF's radius statistics: mean and population standard deviation of the
    distances ``D[r, j]`` of sample ``start + r`` to every other sample ``j``."""
    rows, n = D.shape
    for r in range(rows):
        s = 0.0
        for j in range(n):
            if j != start + r:
                s += D[r, j]
        m = s / (n - 1)
        v = 0.0
        for j in range(n):
            if j != start + r:
                t = D[r, j] - m
                v += t * t
        out_mean[r] = m
        out_std[r] = math.sqrt(v / (n - 1))


@numba.njit(cache=True, nogil=True, fastmath=True)
def radius_counts(D, start, T, y, run_end, cnt):
    """Cnt[r, c] = #{j != start + r: D[r, j] < T[r], y_j = c}, counted over the runs of
    equal labels (run_end[j]: end of j's run), so the inner loop vectorises; the counts
    are integers, exact in any order.
    """
    rows, n = D.shape
    for r in range(rows):
        t = T[r]
        Dr = D[r]
        j = 0
        while j < n:
            e = run_end[j]
            s = 0.0
            for jj in range(j, e):
                s += 1.0 if Dr[jj] < t else 0.0
            cnt[r, y[j]] += s
            j = e
        if Dr[start + r] < t:
            cnt[r, y[start + r]] -= 1.0


@numba.njit(cache=True, nogil=True, fastmath=True)
def radius_rows(X, start, D, T, y, coef, out):
    """Out[r] = sum_{j in radius of row start + r} coef[r, y_j] |x_{start+r} - x_j|."""
    rows, n = D.shape
    d = X.shape[1]
    for i0 in range(0, rows, 64):
        i1 = min(i0 + 64, rows)
        for j0 in range(0, n, 32):
            j1 = min(j0 + 32, n)
            for r in range(i0, i1):
                a = X[start + r]
                o = out[r]
                for j in range(j0, j1):
                    if j == start + r or not D[r, j] < T[r]:
                        continue
                    w = coef[r, y[j]]
                    if w != 0.0:
                        b = X[j]
                        for k in range(d):
                            o[k] += w * abs(a[k] - b[k])


@numba.njit(cache=True, nogil=True, fastmath=True)
def radius_pairs(X, D, T, y, coef, coefT, run_end, r0, r1, out):
    """Out[r - r0] = sum_{j > r} w_rj |x_r - x_j| for r0 <= r < r1, with the pair weight
    w_rj = [D_rj < T_r] coef[r, y_j] + [D_rj < T_j] coef[j, y_r]: each pair's |x_r -
    x_j| is computed once for both directions. Rows go in groups of 16: first each row's
    nonzero weights are listed (a branch-free pass over its run of equal labels, then a
    compaction), then the group's lists are consumed tile by tile of X's rows, so a tile
    is read from cache 16 times. Tiles lie on a global grid and each row's pairs are
    summed in column order, four at a time from each tile's first, so out[r] does not
    depend on (r0, r1).
    """
    n, d = X.shape
    tile = max(32, min(512, 32768 // max(d, 1)))
    G = 16
    JS = np.empty((G, n), dtype=np.intp)
    WS = np.empty((G, n))
    M = np.zeros(G, dtype=np.intp)
    P = np.zeros(G, dtype=np.intp)
    tmp = np.empty(n)
    for g0 in range(r0, r1, G):
        g1 = min(g0 + G, r1)
        for r in range(g0, g1):
            tr = T[r]
            ct = coefT[y[r]]
            Dr = D[r]
            j = r + 1
            while j < n:
                e = run_end[j]
                cr = coef[r, y[j]]
                for jj in range(j, e):
                    dr = Dr[jj]
                    tmp[jj] = cr * (dr < tr) + ct[jj] * (dr < T[jj])
                j = e
            js = JS[r - g0]
            ws = WS[r - g0]
            m = 0
            for jj in range(r + 1, n):
                w = tmp[jj]
                js[m] = jj
                ws[m] = w
                m += w != 0.0
            M[r - g0] = m
            P[r - g0] = 0
        for t0 in range(((g0 + 1) // tile) * tile, n, tile):
            t1 = min(t0 + tile, n)
            for r in range(g0, g1):
                js = JS[r - g0]
                ws = WS[r - g0]
                q = P[r - g0]
                e = q
                m = M[r - g0]
                while e < m and js[e] < t1:
                    e += 1
                P[r - g0] = e
                a = X[r]
                o = out[r - r0]
                while q + 4 <= e:
                    b0, b1, b2, b3 = X[js[q]], X[js[q + 1]], X[js[q + 2]], X[js[q + 3]]
                    w0, w1, w2, w3 = ws[q], ws[q + 1], ws[q + 2], ws[q + 3]
                    for k in range(d):
                        ak = a[k]
                        o[k] += (w0 * abs(ak - b0[k]) + w1 * abs(ak - b1[k])) + (
                            w2 * abs(ak - b2[k]) + w3 * abs(ak - b3[k])
                        )
                    q += 4
                while q < e:
                    b0 = X[js[q]]
                    w0 = ws[q]
                    for k in range(d):
                        o[k] += w0 * abs(a[k] - b0[k])
                    q += 1


@numba.njit(cache=True, nogil=True, fastmath=True)
def absdiff_csr(indptr, indices, data, rows_idx, idx, coef, out):
    """Out[r] += coef[r, t] |x_i - x_j| from the non-zeros: a merge of the two rows' sorted
    column lists, O(nnz_i + nnz_j) per pair.
    """
    for r in range(idx.shape[0]):
        i = rows_idx[r]
        o = out[r]
        for t in range(idx.shape[1]):
            j = idx[r, t]
            w = coef[r, t]
            if j < 0 or w == 0.0:
                continue
            p, pe = indptr[i], indptr[i + 1]
            q, qe = indptr[j], indptr[j + 1]
            while p < pe or q < qe:
                if q >= qe or (p < pe and indices[p] < indices[q]):
                    o[indices[p]] += w * abs(data[p])
                    p += 1
                elif p >= pe or indices[q] < indices[p]:
                    o[indices[q]] += w * abs(data[q])
                    q += 1
                else:
                    o[indices[p]] += w * abs(data[p] - data[q])
                    p += 1
                    q += 1
