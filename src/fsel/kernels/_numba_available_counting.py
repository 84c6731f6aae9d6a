"""Compiled (numba) kernels of joint-histogram counting under pairwise deletion
(missing values): a row is skipped for feature ``k`` when ``C[k]`` holds that feature's
missing code ``miss[k]`` or ``z`` is negative.

Per feature ``k`` the kernels fill ``s_out[r, k] = sum_c table[n_c]`` and
``m_out[r, k] = #{c: n_c > 0}`` for the seven histograms ``r`` of the kept cells:
``(x, z)``, ``(x, z // group)``, ``x``, ``(x, z % group)``, ``z``, ``z // group``,
``z % group``; and ``n_out[k]`` = the number of kept rows. The numpy twin is
:func:`fsel.kernels._counting._numpy_available`.

Imported only when numba is usable (:func:`fsel.utils.parallel.numba_available`).
"""

import numba
import numpy as np

from fsel.kernels._numba_counting import _split_pair


@numba.njit(nogil=True, cache=True)
def available(C, miss, z, nz, group, a, table, s_out, m_out, n_out, k0, k1):
    """Counts of the kept cells and of their six marginals, via touched lists: a
    row is skipped when C[k] holds miss[k] or z is negative."""
    n = C.shape[1]
    ng = nz // group
    full = np.zeros(a * nz, np.int64)
    coarse = np.zeros(a * ng, np.int64)
    km = np.zeros(a, np.int64)
    kg = np.zeros(a * group, np.int64)
    zm = np.zeros(nz, np.int64)
    zc = np.zeros(ng, np.int64)
    zg = np.zeros(group, np.int64)
    touched = np.empty(n, np.int64)
    s = np.zeros(7)
    m = np.zeros(7, np.int64)
    for k in range(k0, k1):
        row = C[k]
        mk = miss[k]
        nt = 0
        cnt = 0
        for i in range(n):
            zi = z[i]
            x = np.int64(row[i])
            if zi < 0 or x == mk:
                continue
            idx = x * nz + zi
            if full[idx] == 0:
                touched[nt] = idx
                nt += 1
            full[idx] += 1
            cnt += 1
        for t in range(nt):
            idx = touched[t]
            c = full[idx]
            x = idx // nz
            zz = idx - x * nz
            coarse[x * ng + zz // group] += c
            km[x] += c
            kg[x * group + zz % group] += c
            zm[zz] += c
            zc[zz // group] += c
            zg[zz % group] += c
        for r in range(7):
            s[r] = 0.0
            m[r] = 0
        for t in range(nt):  # each marginal cell is summed once, then cleared
            idx = touched[t]
            x = idx // nz
            zz = idx - x * nz
            c = full[idx]
            s[0] += table[c]
            m[0] += 1
            full[idx] = 0
            c = coarse[x * ng + zz // group]
            if c:
                s[1] += table[c]
                m[1] += 1
                coarse[x * ng + zz // group] = 0
            c = km[x]
            if c:
                s[2] += table[c]
                m[2] += 1
                km[x] = 0
            c = kg[x * group + zz % group]
            if c:
                s[3] += table[c]
                m[3] += 1
                kg[x * group + zz % group] = 0
            c = zm[zz]
            if c:
                s[4] += table[c]
                m[4] += 1
                zm[zz] = 0
            c = zc[zz // group]
            if c:
                s[5] += table[c]
                m[5] += 1
                zc[zz // group] = 0
            c = zg[zz % group]
            if c:
                s[6] += table[c]
                m[6] += 1
                zg[zz % group] = 0
        for r in range(7):
            s_out[r, k] = s[r]
            m_out[r, k] = m[r]
        n_out[k] = cnt


@numba.njit(nogil=True)
def _sum_clear(h, table):
    """``(sum_c table[h_c], #{c: h_c > 0})`` over the cells of ``h``, which is cleared."""
    s = 0.0
    m = 0
    for i in range(h.shape[0]):
        c = h[i]
        if c:
            s += table[c]
            m += 1
            h[i] = 0
    return s, m


@numba.njit(nogil=True)
def _available_work(z, nz, group, a):
    """``z`` with its skipped rows (negative) moved to the extra column ``nz``, and
    the zeroed marginal histograms :func:`_available_sums` fills."""
    n = z.size
    ng = nz // group
    zp = np.empty(n, np.int64)
    for i in range(n):
        zp[i] = z[i] if z[i] >= 0 else nz
    work = (
        np.zeros(a * ng, np.int64),  # (x, z // group)
        np.zeros(a, np.int64),  # x
        np.zeros(a * group, np.int64),  # (x, z % group)
        np.zeros(nz, np.int64),  # z
        np.zeros(ng, np.int64),  # z // group
        np.zeros(group, np.int64),  # z % group
    )
    return zp, work


@numba.njit(nogil=True)
def _available_sums(full, mk, nz, group, a, table, work, s_out, m_out, n_out, k):
    """The seven sums of feature ``k`` from its histogram ``full`` (``a x (nz + 1)``,
    the last column the rows where ``z`` is skipped), reading the kept cells (code
    not ``mk``, ``z`` observed) in order; ``full`` and ``work`` are cleared."""
    coarse, km, kg, zm, zc, zg = work
    w = nz + 1
    s0 = 0.0
    m0 = 0
    cnt = 0
    for x in range(a):
        if x == mk:
            continue
        for zz in range(nz):
            c = full[x * w + zz]
            if c:
                s0 += table[c]
                m0 += 1
                cnt += c
                coarse[x * (nz // group) + zz // group] += c
                km[x] += c
                kg[x * group + zz % group] += c
                zm[zz] += c
                zc[zz // group] += c
                zg[zz % group] += c
    s_out[0, k] = s0
    m_out[0, k] = m0
    for r in range(6):
        s_out[r + 1, k], m_out[r + 1, k] = _sum_clear(work[r], table)
    n_out[k] = cnt
    for i in range(a * w):
        full[i] = 0


@numba.njit(nogil=True, cache=True)
def available_dense(C, miss, z, nz, group, a, table, s_out, m_out, n_out, k0, k1):
    """:func:`available` for small histograms: every row is counted, skipped rows
    in their own row/column of the histogram (no branch), then the kept cells are
    read in order."""
    n = C.shape[1]
    w = nz + 1  # column nz collects the rows where z is negative
    zp, work = _available_work(z, nz, group, a)
    full = np.zeros(a * w, np.int64)
    for k in range(k0, k1):
        row = C[k]
        for i in range(n):
            full[np.int64(row[i]) * w + zp[i]] += 1
        _available_sums(full, miss[k], nz, group, a, table, work, s_out, m_out, n_out, k)


@numba.njit(nogil=True, cache=True)
def available_packed(P, miss, z, nz, group, a, table, s_out, m_out, n_out, q0, q1):
    """:func:`available_dense` for the features ``2q`` and ``2q + 1`` at once, from
    one histogram of their packed pair ``(C[2q] * a + C[2q+1], z)`` (one increment
    per sample for two features, :func:`_split_pair`): the same histograms, read
    the same way, so the same sums bit for bit."""
    w = nz + 1
    zp, work = _available_work(z, nz, group, a)
    H = np.zeros(a * a * w, np.int32)
    F1 = np.zeros(a * w, np.int64)
    F2 = np.zeros(a * w, np.int64)
    for q in range(q0, q1):
        _split_pair(P[q], zp, w, a, H, F1, F2)
        k = 2 * q
        _available_sums(F1, miss[k], nz, group, a, table, work, s_out, m_out, n_out, k)
        k = 2 * q + 1
        _available_sums(F2, miss[k], nz, group, a, table, work, s_out, m_out, n_out, k)
