"""Compiled (numba) kernels of the metric distances: Manhattan blocks and upper
triangles with one per-pair primitive :func:`l1`, the Euclidean distances from a Gram
matrix, the streamed Manhattan neighbour search and the sparse (CSR) Manhattan
correction.

Imported only when numba is usable (:func:`fsel.utils.parallel.numba_available`); the
numpy twins are in :mod:`fsel.kernels.distances` (tested to agree to 1e-12).
"""

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True, fastmath=True, inline="always")
def l1(a, b):
    """|a - b|_1 summed in feature order (fastmath: the compiler may vectorise)."""
    s = 0.0
    for k in range(a.shape[0]):
        s += abs(a[k] - b[k])
    return s


@numba.njit(cache=True, nogil=True, fastmath=True)
def manhattan(A, B, out):
    """Out[i, j] = |A_i - B_j|_1; column tiles of 64 keep B's rows in cache."""
    n, m = A.shape[0], B.shape[0]
    for j0 in range(0, m, 64):
        j1 = min(j0 + 64, m)
        for i in range(n):
            a = A[i]
            for j in range(j0, j1):
                out[i, j] = l1(a, B[j])


@numba.njit(cache=True, nogil=True, fastmath=True)
def manhattan_upper(X, r0, r1, out):
    """Out[i, j] = out[j, i] = |x_i - x_j|_1 for r0 <= i < r1, j > i; tiles of 64 x 32 rows
    keep both operands in cache.
    """
    n = X.shape[0]
    for i0 in range(r0, r1, 64):
        i1 = min(i0 + 64, r1)
        for j0 in range(i0, n, 32):
            j1 = min(j0 + 32, n)
            for i in range(i0, i1):
                a = X[i]
                for j in range(max(j0, i + 1), j1):
                    s = l1(a, X[j])
                    out[i, j] = s
                    out[j, i] = s
    for i in range(r0, r1):
        out[i, i] = 0.0


@numba.njit(cache=True, nogil=True)
def gram_upper(G, sq, r0, r1, root):
    """In place: G[i, j] = G[j, i] = sqrt(max(sq_i + sq_j - 2 G_ij, 0)) (root) for r0 <= i
    < r1, j > i, reading the upper triangle only; 64 x 64 tiles keep the mirrored writes
    in cache. Symmetric in (i, j), so the matrix is exactly symmetric.
    """
    n = G.shape[0]
    for i0 in range(r0, r1, 64):
        i1 = min(i0 + 64, r1)
        for j0 in range(i0, n, 64):
            j1 = min(j0 + 64, n)
            for i in range(i0, i1):
                for j in range(max(j0, i + 1), j1):
                    v = (sq[i] + sq[j]) - 2.0 * G[i, j]
                    if v < 0.0:
                        v = 0.0
                    if root:
                        v = math.sqrt(v)
                    G[i, j] = v
                    G[j, i] = v
    for i in range(r0, r1):
        G[i, i] = 0.0


@numba.njit(nogil=True, inline="always")
def sq_delta_add(s, a, b, sym):
    """S + delta: no fastmath, so "d * d" and the addition are rounded separately."""
    if sym:
        return s + (1.0 if a != b else 0.0)
    d = a - b
    return s + d * d


# reassociation for the inlined L1 sum (vectorised as in the block kernels), but
# no "ninf": the neighbour lists start at inf
@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "nsz", "contract", "arcp"})
def manhattan_knn_stream(R, selfs, X, y, k, eps, idx, dist):
    """The k nearest rows of X of each class to every row of R (idx/dist (m, C, k)
    prefilled -1/inf), the distances streamed, never stored: X is read once, in tiles of
    256 rows kept in cache for all of R. Each R row scans X in index order and a row
    displaces a kept (smaller) index only when nearer by more than eps, so distances
    within eps are ties kept by the smaller index (fsel.kernels.neighbors.tie_order).
    """
    n = X.shape[0]
    m = R.shape[0]
    for j0 in range(0, n, 256):
        j1 = min(j0 + 256, n)
        for r in range(m):
            a = R[r]
            sj = selfs[r]
            for j in range(j0, j1):
                if j == sj:
                    continue
                c = y[j]
                dj = l1(a, X[j])
                if dj < dist[r, c, k - 1] - eps:
                    pos = k - 1
                    while pos > 0 and dj < dist[r, c, pos - 1] - eps:
                        dist[r, c, pos] = dist[r, c, pos - 1]
                        idx[r, c, pos] = idx[r, c, pos - 1]
                        pos -= 1
                    dist[r, c, pos] = dj
                    idx[r, c, pos] = j


@numba.njit(cache=True, nogil=True, fastmath=True)
def l1_corr(rows, indptr, indices, data, n_features, out):
    """Out[r, j] -= sum over the columns shared by rows[r] and j of |a_k| + |b_k| - |a_k -
    b_k| (out starts at |a|_1 + |b|_1): row rows[r] is scattered into a dense vector
    once, then each row j's non-zeros are scanned.
    """
    n = indptr.size - 1
    dense = np.zeros(n_features)
    for r in range(rows.size):
        i = rows[r]
        for q in range(indptr[i], indptr[i + 1]):
            dense[indices[q]] = data[q]
        for j in range(n):
            s = 0.0
            for q in range(indptr[j], indptr[j + 1]):
                a = dense[indices[q]]
                if a != 0.0:
                    b = data[q]
                    s += abs(a) + abs(b) - abs(a - b)
            out[r, j] -= s
        for q in range(indptr[i], indptr[i + 1]):
            dense[indices[q]] = 0.0
