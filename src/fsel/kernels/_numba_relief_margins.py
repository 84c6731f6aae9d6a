"""Compiled (numba) kernels of Relief's expected differences for missing values
(Kononenko's rule, :class:`fsel.kernels.relief_margins.ExpectedDiff`).

For one feature ``k`` and rows ``i``, ``j`` of classes ``c_i``, ``c_j`` the difference
is ``|x_ik - x_jk|`` when both are observed, ``E|X_{c_i k} - x_jk|`` when ``x_ik`` is
missing (``X_{c k}``: the observed values of feature ``k`` in class ``c``; exact, by a
binary search in the sorted values and their prefix sums, :func:`search`) and the
both-missing table ``H[c_i, c_j, k] = E|X_{c_i k} - X'_{c_j k}|`` when both are.

The holes are flagged in a mask and hold 0 in the filled copy (no NaN reaches the
compiled code, so ``fastmath`` is safe); each pair sums the filled differences over
all features, then swaps in the expected difference where a side is missing.
Imported only when numba is usable; the numpy twins are in
:mod:`fsel.kernels.relief_margins`.
"""

import numba
import numpy as np

from fsel.kernels._numba_distances import l1


@numba.njit(nogil=True)
def search(vals, cum, off, cnt, s, v):
    """E|X - v| over the sorted values of segment s: binary search + prefix sums."""
    n = cnt[s]
    if n == 0:
        return 0.0
    lo = off[s]
    a = 0
    b = n
    while a < b:
        m = (a + b) // 2
        if vals[lo + m] < v:
            a = m + 1
        else:
            b = m
    p0 = cum[lo + s + a]
    pn = cum[lo + s + n]
    return ((v * a - p0) + ((pn - p0) - v * (n - a))) / n


@numba.njit(cache=True, nogil=True)
def block(rows, F, M, mptr, midx, y, G, ht, vals, cum, off, cnt, eff, H, mu, var, sq, out):
    """Out[r, j]: distance of rows[r] to j; the filled difference is summed over all
    features, then replaced by the expected one where a side is missing.
    """
    n, d = F.shape
    for r in range(rows.size):
        i = rows[r]
        a = F[i]
        ci = y[i]
        for j in range(n):
            b = F[j]
            cj = y[j]
            s = 0.0
            if sq:
                for k in range(d):
                    t = a[k] - b[k]
                    s += t * t
                for q in range(mptr[i], mptr[i + 1]):
                    k = midx[q]
                    t = a[k] - b[k]
                    s -= t * t
                    e1 = eff[ci, k]
                    if M[j, k]:
                        e2 = eff[cj, k]
                        t = mu[e1, k] - mu[e2, k]
                        s += t * t + var[e1, k] + var[e2, k]
                    else:
                        t = b[k] - mu[e1, k]
                        s += t * t + var[e1, k]
                for q in range(mptr[j], mptr[j + 1]):
                    k = midx[q]
                    if M[i, k]:
                        continue
                    t = a[k] - b[k]
                    s -= t * t
                    e2 = eff[cj, k]
                    t = a[k] - mu[e2, k]
                    s += t * t + var[e2, k]
            else:
                for k in range(d):
                    s += abs(a[k] - b[k])
                for q in range(mptr[i], mptr[i + 1]):
                    k = midx[q]
                    s -= abs(a[k] - b[k])
                    if M[j, k]:
                        s += H[ci, cj, k]
                    elif ht:
                        s += G[ci, j, k] + abs(b[k])
                    else:
                        s += search(vals, cum, off, cnt, eff[ci, k] * d + k, b[k])
                for q in range(mptr[j], mptr[j + 1]):
                    k = midx[q]
                    if M[i, k]:
                        continue
                    s -= abs(a[k] - b[k])
                    if ht:
                        s += G[cj, i, k] + abs(a[k])
                    else:
                        s += search(vals, cum, off, cnt, eff[cj, k] * d + k, a[k])
            out[r, j] = s


@numba.njit(cache=True, nogil=True)
def absdiff(
    rows,
    idx,
    coef,
    dense,
    F,
    M,
    mptr,
    midx,
    y,
    G,
    ht,
    vals,
    cum,
    off,
    cnt,
    eff,
    H,
    mu,
    var,
    out,
):
    """Out[r] += coef[r, t] * diff(x_i, x_j) (a vector; the expected |difference| for
    holes), j = idx[r, t] (or t when dense); j < 0, j == i, 0 skipped.
    """
    d = F.shape[1]
    for r in range(rows.size):
        i = rows[r]
        a = F[i]
        ci = y[i]
        o = out[r]
        for t in range(coef.shape[1]):
            j = t if dense else idx[r, t]
            w = coef[r, t]
            if j < 0 or j == i or w == 0.0:
                continue
            b = F[j]
            cj = y[j]
            for k in range(d):
                o[k] += w * abs(a[k] - b[k])
            for q in range(mptr[i], mptr[i + 1]):
                k = midx[q]
                if M[j, k]:
                    e = H[ci, cj, k]
                elif ht:
                    e = G[ci, j, k] + abs(b[k])
                else:
                    e = search(vals, cum, off, cnt, eff[ci, k] * d + k, b[k])
                o[k] += w * (e - abs(a[k] - b[k]))
            for q in range(mptr[j], mptr[j + 1]):
                k = midx[q]
                if M[i, k]:
                    continue
                if ht:
                    e = G[cj, i, k] + abs(a[k])
                else:
                    e = search(vals, cum, off, cnt, eff[cj, k] * d + k, a[k])
                o[k] += w * (e - abs(a[k] - b[k]))


@numba.njit(cache=True, nogil=True)
def build(Xt, order, y, C, feats, ht, H, W):
    """For the features with holes (feats), from each column's argsort (order[k], the
    holes, inf, last): the sorted observed values of every (class, feature) segment s =
    e * d + k (e = C: all classes) with their prefix sums (each segment's own leading
    0), means and population variances; eff[c, k] (c, or C for a class without observed
    values); H[:, c2, k] (class means of E|X_c2k - x_jk| over the observed x_jk, the
    pooled mean for an empty class) and W[c2, k, j] = E|X_c2k - x_jk| - |x_jk| (half the
    both-missing difference at the holes), each feature's observed entries visited in
    sorted order; sums in that order.
    """
    d, n = Xt.shape
    S = (C + 1) * d
    cnt = np.zeros((C + 1, d), np.intp)
    for k in feats:
        xk = Xt[k]
        for j in range(n):
            if xk[j] < np.inf:  # observed (the holes hold inf)
                cnt[y[j], k] += 1
        for c in range(C):
            cnt[C, k] += cnt[c, k]
    eff = np.empty((C, d), np.intp)
    for c in range(C):
        for k in range(d):
            eff[c, k] = c if cnt[c, k] > 0 else C
    off = np.zeros(S + 1, np.intp)
    for s in range(S):
        off[s + 1] = off[s] + cnt[s // d, s % d]
    vals = np.empty(off[S])
    cum = np.zeros(off[S] + S)
    mu = np.zeros((C + 1, d))
    var = np.zeros((C + 1, d))
    pos = np.zeros(C + 1, np.intp)
    seen = np.zeros(C + 1, np.intp)
    lt = np.zeros(C + 1, np.intp)
    by = np.empty((C, C))
    tot = np.empty(C)
    for k in feats:
        o = order[k]
        xk = Xt[k]
        n_obs = cnt[C, k]
        pos[:] = 0
        for t in range(n_obs):
            j = o[t]
            v = xk[j]
            e = y[j]
            for _ in range(2):
                s = e * d + k
                p = pos[e]
                vals[off[s] + p] = v
                cum[off[s] + s + p + 1] = cum[off[s] + s + p] + v
                pos[e] = p + 1
                e = C
        for e in range(C + 1):
            s = e * d + k
            ne = cnt[e, k]
            if ne == 0:
                continue
            m = cum[off[s] + s + ne] / ne
            acc = 0.0
            for p in range(ne):
                t = vals[off[s] + p] - m
                acc += t * t
            mu[e, k] = m
            var[e, k] = acc / ne
        # E|X_c2k - v| for every class c2 in one walk: the values of segment
        # e below v are the lt[e] entries of class e (lt[C]: all) before v's run
        # of ties, so the merge position needs no search
        seen[:] = 0
        by[:] = 0.0
        tot[:] = 0.0
        prev = -np.inf
        for t in range(n_obs):
            j = o[t]
            v = xk[j]
            if v != prev:
                lt[:] = seen
                prev = v
            cj = y[j]
            for c2 in range(C):
                e = eff[c2, k]
                s = e * d + k
                ns = cnt[e, k]
                a = lt[e]
                q = off[s] + s
                p0 = cum[q + a]
                ev = ((v * a - p0) + ((cum[q + ns] - p0) - v * (ns - a))) / ns
                by[c2, cj] += ev
                tot[c2] += ev
                if ht:
                    W[c2, k, j] = ev - abs(v)
            seen[cj] += 1
            seen[C] += 1
        for c2 in range(C):
            pooled = tot[c2] / n_obs if n_obs else 0.0
            for c in range(C):
                H[c, c2, k] = by[c2, c] / cnt[c, k] if cnt[c, k] > 0 else pooled
        if ht:
            # W (see _w_table): half the both-missing difference at the holes
            for t in range(n_obs, n):
                j = o[t]
                for c in range(C):
                    W[c, k, j] = 0.5 * H[c, y[j], k]
    return vals, cum, off, cnt, mu, var, eff


@numba.njit(cache=True, nogil=True)
def transpose(W, V):
    """V[c, j, k] = W[c, k, j], in 32 x 32 tiles."""
    C, d, n = W.shape
    for c in range(C):
        for j0 in range(0, n, 32):
            j1 = min(j0 + 32, n)
            for k0 in range(0, d, 32):
                k1 = min(k0 + 32, d)
                for j in range(j0, j1):
                    for k in range(k0, k1):
                        V[c, j, k] = W[c, k, j]


@numba.njit(cache=True, nogil=True)
def absdiff_v(rows, idx, coef, dense, F, M, y, V, out):
    """Out[r] += coef[r, t] * diff(x_i, x_j) with the table: diff = |f_i - f_j| + m_i
    V[c_i, j] + m_j V[c_j, i] (m the hole indicators; at a hole of both the two halves
    of the both-missing difference), one vectorised pass per pair; j = idx[r, t] (or t
    when dense); j < 0, j == i, 0 skipped.
    """
    d = F.shape[1]
    for r in range(rows.size):
        i = rows[r]
        a = F[i]
        ma = M[i]
        ci = y[i]
        o = out[r]
        for t in range(coef.shape[1]):
            j = t if dense else idx[r, t]
            w = coef[r, t]
            if j < 0 or j == i or w == 0.0:
                continue
            b = F[j]
            mb = M[j]
            vi = V[ci, j]
            vj = V[y[j], i]
            for k in range(d):
                o[k] += w * ((abs(a[k] - b[k]) + ma[k] * vi[k]) + mb[k] * vj[k])


@numba.njit(cache=True, nogil=True)
def w_rows(rows, mptr, midx, y, W, tile, out):
    """Out[r, j] = P(rows[r], j) = sum over the holes k of rows[r] of W[c, k, j]: rows of W
    added in the order of the holes, `tile` columns at a time (that slice of W stays in
    cache for all rows).
    """
    n = out.shape[1]
    for j0 in range(0, n, tile):
        j1 = min(j0 + tile, n)
        for r in range(rows.size):
            i = rows[r]
            o = out[r, j0:j1]
            o[:] = 0.0
            ci = y[i]
            q = mptr[i]
            q1 = mptr[i + 1]
            # eight (then four) holes per sweep, added in order: the same sums as
            # one by one
            while q + 8 <= q1:
                w0 = W[ci, midx[q], j0:j1]
                w1 = W[ci, midx[q + 1], j0:j1]
                w2 = W[ci, midx[q + 2], j0:j1]
                w3 = W[ci, midx[q + 3], j0:j1]
                w4 = W[ci, midx[q + 4], j0:j1]
                w5 = W[ci, midx[q + 5], j0:j1]
                w6 = W[ci, midx[q + 6], j0:j1]
                w7 = W[ci, midx[q + 7], j0:j1]
                for j in range(o.size):
                    t = (((o[j] + w0[j]) + w1[j]) + w2[j]) + w3[j]
                    o[j] = (((t + w4[j]) + w5[j]) + w6[j]) + w7[j]
                q += 8
            while q + 4 <= q1:
                w0 = W[ci, midx[q], j0:j1]
                w1 = W[ci, midx[q + 1], j0:j1]
                w2 = W[ci, midx[q + 2], j0:j1]
                w3 = W[ci, midx[q + 3], j0:j1]
                for j in range(o.size):
                    o[j] = (((o[j] + w0[j]) + w1[j]) + w2[j]) + w3[j]
                q += 4
            while q < q1:
                w0 = W[ci, midx[q], j0:j1]
                for j in range(o.size):
                    o[j] += w0[j]
                q += 1


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "nsz", "contract", "arcp"})
def w_upper(F, r0, r1, out):
    """In place, out holding P: out[i, j] = out[j, i] = |f_i - f_j|_1 + P(i, j) + P(j, i)
    for r0 <= i < r1, j > i (each unordered pair once, both read before either is
    written); tiles of 64 x 32 rows as in manhattan_upper.
    """
    n = F.shape[0]
    for i0 in range(r0, r1, 64):
        i1 = min(i0 + 64, r1)
        for j0 in range(i0, n, 32):
            j1 = min(j0 + 32, n)
            for i in range(i0, i1):
                a = F[i]
                for j in range(max(j0, i + 1), j1):
                    s = l1(a, F[j]) + (out[i, j] + out[j, i])
                    out[i, j] = s
                    out[j, i] = s
    for i in range(r0, r1):
        out[i, i] = 0.0


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "nsz", "contract", "arcp"})
def w_block(rows, F, mptr, midx, y, Wr, out):
    """Out holding P(rows[r], j): out[r, j] = |f_i - f_j|_1 + P(i, j) + P(j, i), with Wr =
    W[:, :, rows]; P(j, i) is built for tiles of 64 columns j and 256 rows r at a time.
    """
    n = F.shape[0]
    m = rows.size
    tmp = np.empty((64, 256))
    for r0 in range(0, m, 256):
        r1 = min(r0 + 256, m)
        for j0 in range(0, n, 64):
            j1 = min(j0 + 64, n)
            for j in range(j0, j1):
                t = tmp[j - j0, : r1 - r0]
                t[:] = 0.0
                cj = y[j]
                for q in range(mptr[j], mptr[j + 1]):
                    w = Wr[cj, midx[q], r0:r1]
                    for r in range(r1 - r0):
                        t[r] += w[r]
            for r in range(r0, r1):
                a = F[rows[r]]
                for j in range(j0, j1):
                    out[r, j] = l1(a, F[j]) + (out[r, j] + tmp[j - j0, r - r0])
