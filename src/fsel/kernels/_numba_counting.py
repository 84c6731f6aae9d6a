"""Compiled (numba) kernels of joint-histogram counting: the hot loop of every
information-theoretic criterion.

Every kernel here fills, per feature ``k``, the sums ``sum_c n_c log2 n_c`` over the
non-empty cells ``c`` of the joint histogram of ``(C[k], z)`` (and of the coarser
``(C[k], z // group)``) and the number of non-empty cells; the entropies follow as
``H = log2 N - (sum n log2 n) / N``. ``table[n] = n log2 n``
(:func:`fsel.kernels._counting.nlogn_table`) so that both back-ends add the very same
numbers in the very same order: the numpy twins in :mod:`fsel.kernels._counting` give
the same sums bit for bit, and the test suite checks them against each other.

Imported only when numba is usable (:func:`fsel.utils.parallel.numba_available`).
"""

import numba
import numpy as np


@numba.njit(nogil=True, cache=True)
def grouped_dense(C, z, nz, group, a, table, s_full, s_coarse, m_full, m_coarse, k0, k1):
    """Per feature ``k`` in ``[k0, k1)``: with ``n_c`` the count of cell ``c`` of the
    joint histogram of ``(C[k], z)`` and ``n_g`` that of ``(C[k], z // group)``,
    ``s_full[k] = sum_c table[n_c]``, ``s_coarse[k] = sum_g table[n_g]`` (``table[n] =
    n log2 n``) and ``m_full[k]``, ``m_coarse[k]`` the numbers of non-empty cells.

    A dense histogram of ``a * nz`` cells, cleared and read in cell order (for small
    ``a * nz``); the numpy twin is :func:`fsel.kernels._counting._numpy_block`."""
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
def _sorted_sums(row, z, nz, group, table, keys):
    """``(sum_c table[n_c], sum_g table[n_g], cells, coarse cells)`` of the joint
    histogram of ``(row, z)`` (cell ``row * nz + z``) and of its coarse version
    (cell ``// group``), from the samples' cells sorted into ``keys`` (length N): no
    table of the cells, the sums in cell order."""
    n = row.shape[0]
    for i in range(n):
        keys[i] = np.int64(row[i]) * nz + z[i]
    keys.sort()
    sf = 0.0
    sc = 0.0
    nt = 0
    nct = 0
    prev = -1
    run = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n and keys[j] == keys[i]:
            j += 1
        c = j - i
        sf += table[c]
        nt += 1
        cidx = keys[i] // group  # sorted cells: their coarse cells come in runs
        if cidx != prev:
            if run:
                sc += table[run]
                nct += 1
            prev = cidx
            run = 0
        run += c
        i = j
    if run:
        sc += table[run]
        nct += 1
    return sf, sc, nt, nct


@numba.njit(nogil=True, cache=True)
def grouped_touched(C, z, nz, group, a, table, s_full, s_coarse, m_full, m_coarse, k0, k1):
    """Per feature ``k`` in ``[k0, k1)``: with ``n_c`` the count of cell ``c`` of the
    joint histogram of ``(C[k], z)`` and ``n_g`` that of ``(C[k], z // group)``,
    ``s_full[k] = sum_c table[n_c]``, ``s_coarse[k] = sum_g table[n_g]`` (``table[n] =
    n log2 n``) and ``m_full[k]``, ``m_coarse[k]`` the numbers of non-empty cells.

    The sums of :func:`grouped_dense`, reading only the cells the samples touch (a
    list of touched cells, in first-touch order) when ``a * nz`` is large; beyond
    ``2**24`` cells (128 MiB of counts a thread) the samples' cells are sorted
    instead (:func:`_sorted_sums`): memory O(N) whatever the alphabets."""
    n = C.shape[1]
    cells = a * nz
    if cells > (1 << 24):
        keys = np.empty(n, np.int64)
        for k in range(k0, k1):
            sf, sc, nt, nct = _sorted_sums(C[k], z, nz, group, table, keys)
            s_full[k] = sf
            s_coarse[k] = sc
            m_full[k] = nt
            m_coarse[k] = nct
        return
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


@numba.njit(nogil=True)
def _dense_sums(F, nz, group, a, table, coarse):
    """:func:`grouped_dense`'s sums of one feature's histogram ``F`` (cleared on the way),
    in the same order, so the results are the same bit for bit."""
    cells = a * nz
    ccells = cells // group
    for i in range(ccells):
        coarse[i] = 0
    sf = 0.0
    mf = 0
    for i in range(cells):
        c = F[i]
        if c:
            sf += table[c]
            mf += 1
            coarse[i // group] += c
            F[i] = 0
    sc = 0.0
    mc = 0
    for i in range(ccells):
        c = coarse[i]
        if c:
            sc += table[c]
            mc += 1
    return sf, sc, mf, mc


@numba.njit(nogil=True, cache=True)
def histogram_sums(H, group, table, s_full, s_coarse, m_full, m_coarse, k0, k1):
    """:func:`_dense_sums` of given histograms ``H[k]``, ``k0 <= k < k1`` (cells ``x nz
    + z``, coarse cells ``c // group``; each row copied to a scratch row first, so
    ``H`` is left as it was): the sums of :func:`grouped_dense`, bit for bit, for
    histograms counted elsewhere (the GPU's)."""
    cells = H.shape[1]
    F = np.empty(cells, np.int64)
    coarse = np.zeros(cells // group, np.int64)
    for k in range(k0, k1):
        for i in range(cells):
            F[i] = H[k, i]
        sf, sc, mf, mc = _dense_sums(F, cells, group, 1, table, coarse)
        s_full[k] = sf
        s_coarse[k] = sc
        m_full[k] = mf
        m_coarse[k] = mc


@numba.njit(nogil=True)
def _split_pair(row, z, nz, a, H, h1, h2):
    """One histogram ``H`` of the packed pair ``(x1 * a + x2, z)``, then both ``(x, z)``
    histograms summed out of it: ``h1[x1 * nz + z] += sum_x2 H[x1, x2, z]`` and
    ``h2[x2 * nz + z] += sum_x1 H[x1, x2, z]`` (added to what they hold)."""
    for i in range(H.size):
        H[i] = 0
    for i in range(row.size):
        H[np.int64(row[i]) * nz + z[i]] += 1
    for x1 in range(a):
        for x2 in range(a):
            base = (x1 * a + x2) * nz
            for zi in range(nz):
                c = H[base + zi]
                h1[x1 * nz + zi] += c
                h2[x2 * nz + zi] += c


@numba.njit(nogil=True)
def _pair_dense_sums(F1, F2, k, nz, group, a, table, coarse, s_full, s_coarse, m_full, m_coarse):
    """:func:`_dense_sums` of the two features of a packed pair, ``k = 2q`` from ``F1``
    and ``k + 1`` from ``F2`` (both cleared on the way), written to the outputs."""
    s_full[k], s_coarse[k], m_full[k], m_coarse[k] = _dense_sums(F1, nz, group, a, table, coarse)
    s_full[k + 1], s_coarse[k + 1], m_full[k + 1], m_coarse[k + 1] = _dense_sums(
        F2, nz, group, a, table, coarse
    )


@numba.njit(nogil=True, cache=True)
def grouped_packed(P, z, nz, group, a, table, s_full, s_coarse, m_full, m_coarse, q0, q1):
    """:func:`grouped_dense` for the features ``2q`` and ``2q + 1`` at once, from one
    histogram of ``(C[2q] * a + C[2q+1], z)``: one increment per sample for two
    features, then both ``(C[k], z)`` histograms by summing it out."""
    H = np.zeros(a * a * nz, np.int32)
    F1 = np.zeros(a * nz, np.int64)
    F2 = np.zeros(a * nz, np.int64)
    coarse = np.zeros(a * nz // group, np.int64)
    for q in range(q0, q1):
        _split_pair(P[q], z, nz, a, H, F1, F2)
        _pair_dense_sums(
            F1, F2, 2 * q, nz, group, a, table, coarse, s_full, s_coarse, m_full, m_coarse
        )


@numba.njit(nogil=True, cache=True)
def pair_counts_rows(P, z, nz, q0, q1, i0, i1, H):
    """Row-range counts of packed pairs: ``H[q - q0, P[q, i] * nz + z[i]] += 1`` for
    the pairs ``q0 <= q < q1`` and the rows ``i0 <= i < i1``.

    One pair at a time into a local histogram (in a core's first-level cache), then
    added to ``H``: each thread's task has its own ``H``, so no cache line is shared
    between threads. Counts are integers: any split of the rows sums to the same
    totals."""
    cells = H.shape[1]
    h = np.zeros(cells, np.int32)
    zr = z[i0:i1]
    for q in range(q0, q1):
        row = P[q, i0:i1]
        for i in range(row.size):
            h[np.int64(row[i]) * nz + zr[i]] += 1
        out = H[q - q0]
        for c in range(cells):
            out[c] += h[c]
            h[c] = 0


@numba.njit(nogil=True, cache=True)
def packed_sums(H, nz, group, a, table, s_full, s_coarse, m_full, m_coarse, q0, q1):
    """:func:`grouped_packed`'s sums from the pair histograms ``H[q]`` (int64 totals of
    ``(C[2q] * a + C[2q+1], z)``) of the pairs ``q0 <= q < q1``: both ``(C[k], z)``
    histograms summed out of each (``h1[x1, z] = sum_x2 H[x1, x2, z]``, ``h2[x2, z] =
    sum_x1 H[x1, x2, z]``), then :func:`_dense_sums`; the same histograms read in the
    same order, so the same sums bit for bit."""
    F1 = np.zeros(a * nz, np.int64)
    F2 = np.zeros(a * nz, np.int64)
    coarse = np.zeros(a * nz // group, np.int64)
    for q in range(q0, q1):
        Hq = H[q]
        for x1 in range(a):
            for x2 in range(a):
                base = (x1 * a + x2) * nz
                for zi in range(nz):
                    c = Hq[base + zi]
                    F1[x1 * nz + zi] += c
                    F2[x2 * nz + zi] += c
        _pair_dense_sums(
            F1, F2, 2 * q, nz, group, a, table, coarse, s_full, s_coarse, m_full, m_coarse
        )


@numba.njit(nogil=True, cache=True)
def paired_histograms(P, a, z, nz, out):
    """The ``(C[k], z)`` histograms of the features ``2q`` and ``2q + 1`` from one
    histogram of their packed pair ``P[q] = C[2q] * a + C[2q+1]`` (one increment
    per sample for two features), summed out into both rows of ``out``."""
    H = np.zeros(a * a * nz, np.int32)
    for q in range(P.shape[0]):
        _split_pair(P[q], z, nz, a, H, out[2 * q], out[2 * q + 1])


@numba.njit(nogil=True, cache=True)
def histograms(C, z, nz, out):
    """Joint histograms added to ``out``: ``out[k, C[k, i] * nz + z[i]] += 1`` for every
    feature ``k`` and sample ``i``."""
    K, n = C.shape
    for k in range(K):
        row = C[k]
        h = out[k]
        for i in range(n):
            h[np.int64(row[i]) * nz + z[i]] += 1


@numba.njit(nogil=True, cache=True)
def sparse_codes_grouped(
    indptr,
    rows,
    codes,
    z,
    nz,
    group,
    a_max,
    tot,
    totc,
    s_tot,
    m_tot,
    s_totc,
    m_totc,
    table,
    use_sort,
    s_full,
    s_coarse,
    m_full,
    m_coarse,
    k0,
    k1,
):
    """:func:`grouped_dense`'s sums for feature-major sparse codes (per feature, the
    rows whose code differs from its zero code): the explicit entries are counted
    (a dense scratch of ``a_max * nz`` cells, or by sorting their keys when
    ``use_sort``), and the zero-code row of the histogram is ``tot[v] - (explicit
    entries with z = v)``, so ``sum n log2 n = s_tot + sum_v (table[tot[v] - e_v] -
    table[tot[v]]) + (explicit cells)`` over the values ``v`` the entries touch only:
    ``O(nnz_k)`` per feature."""
    ng = nz // group
    max_nnz = 0
    for k in range(k0, k1):
        w = indptr[k + 1] - indptr[k]
        if w > max_nnz:
            max_nnz = w
    n_scratch = 1 if use_sort else a_max * nz
    full = np.zeros(n_scratch, np.int64)
    touched = np.empty(max_nnz, np.int64)
    keys = np.empty(max_nnz, np.int64)
    coarse = np.zeros(1 if use_sort else a_max * ng, np.int64)
    ctouched = np.empty(max_nnz, np.int64)
    colsum = np.zeros(nz, np.int64)
    zt = np.empty(max_nnz, np.int64)
    gsum = np.zeros(ng, np.int64)
    gt = np.empty(max_nnz, np.int64)
    for k in range(k0, k1):
        p0 = indptr[k]
        p1 = indptr[k + 1]
        nzt = 0
        sf = 0.0
        mf = 0
        sc = 0.0
        mc = 0
        if use_sort:
            w = p1 - p0
            for p in range(p0, p1):
                zi = z[rows[p]]
                keys[p - p0] = np.int64(codes[p]) * nz + zi
                if colsum[zi] == 0:
                    zt[nzt] = zi
                    nzt += 1
                colsum[zi] += 1
            ks = np.sort(keys[:w])
            run = 0
            for t in range(w):
                run += 1
                if t + 1 == w or ks[t + 1] != ks[t]:
                    sf += table[run]
                    mf += 1
                    run = 0
            for t in range(w):  # coarse keys, still sorted
                ks[t] = (ks[t] // nz) * ng + (ks[t] % nz) // group
            run = 0
            for t in range(w):
                run += 1
                if t + 1 == w or ks[t + 1] != ks[t]:
                    sc += table[run]
                    mc += 1
                    run = 0
        else:
            nt = 0
            for p in range(p0, p1):
                zi = z[rows[p]]
                idx = np.int64(codes[p]) * nz + zi
                if full[idx] == 0:
                    touched[nt] = idx
                    nt += 1
                full[idx] += 1
                if colsum[zi] == 0:
                    zt[nzt] = zi
                    nzt += 1
                colsum[zi] += 1
            nct = 0
            for t in range(nt):
                idx = touched[t]
                c = full[idx]
                full[idx] = 0
                sf += table[c]
                mf += 1
                cidx = (idx // nz) * ng + (idx % nz) // group
                if coarse[cidx] == 0:
                    ctouched[nct] = cidx
                    nct += 1
                coarse[cidx] += c
            for t in range(nct):
                cidx = ctouched[t]
                sc += table[coarse[cidx]]
                mc += 1
                coarse[cidx] = 0
        # the zero-code row: column totals minus the explicit entries
        sf0 = s_tot
        mf0 = m_tot
        ngt = 0
        for t in range(nzt):
            zi = zt[t]
            cs = colsum[zi]
            colsum[zi] = 0
            rest = tot[zi] - cs
            sf0 += table[rest] - table[tot[zi]]
            if rest == 0:
                mf0 -= 1
            g = zi // group
            if gsum[g] == 0:
                gt[ngt] = g
                ngt += 1
            gsum[g] += cs
        sc0 = s_totc
        mc0 = m_totc
        for t in range(ngt):
            g = gt[t]
            cs = gsum[g]
            gsum[g] = 0
            rest = totc[g] - cs
            sc0 += table[rest] - table[totc[g]]
            if rest == 0:
                mc0 -= 1
        s_full[k] = sf + sf0
        s_coarse[k] = sc + sc0
        m_full[k] = mf + mf0
        m_coarse[k] = mc + mc0


@numba.njit(nogil=True, cache=True)
def pair_counts_z(P, src, zlut, y, nz, last, i0, i1, H, H_last):
    """Counts of every packed pair against ``z = zlut[src[i]] + y[i]`` (``y`` empty:
    ``z = zlut[src[i]]``) over the rows ``i0 <= i < i1``, written (not added) into the
    thread's own int32 histograms: ``H[q, P[q, i] * nz + z_i]`` for every pair ``q``,
    and ``H_last[last[i] * nz + z_i]`` when ``last`` (an odd last feature) is not
    empty; ``zlut``'s dtype holds ``nz - 1``.

    ``z`` is never stored whole: the rows go in chunks whose ``z`` (built from the
    source row of the conditioning feature, e.g. its packed pair, through ``zlut``)
    stays in a core's cache while every pair's segment is counted against it into a
    local histogram, then added to ``H``; each pair's bytes are read once and ``z``'s
    never from memory. Counts are integers: any split of the rows sums to the same
    totals."""
    cells = H.shape[1]
    lcells = H_last.size
    for q in range(H.shape[0]):
        for c in range(cells):
            H[q, c] = 0
    for c in range(lcells):
        H_last[c] = 0
    chunk = 1 << 15
    zb = np.empty(chunk, zlut.dtype)
    h = np.zeros(max(cells, lcells), np.int32)
    has_y = y.size > 0
    for c0 in range(i0, i1, chunk):
        c1 = min(c0 + chunk, i1)
        m = c1 - c0
        if has_y:
            for r in range(m):
                zb[r] = zlut[src[c0 + r]] + y[c0 + r]
        else:
            for r in range(m):
                zb[r] = zlut[src[c0 + r]]
        for q in range(P.shape[0]):
            row = P[q, c0:c1]
            for r in range(m):
                h[np.int64(row[r]) * nz + zb[r]] += 1
            out = H[q]
            for c in range(cells):
                out[c] += h[c]
                h[c] = 0
        if lcells:
            row = last[c0:c1]
            for r in range(m):
                h[np.int64(row[r]) * nz + zb[r]] += 1
            for c in range(lcells):
                H_last[c] += h[c]
                h[c] = 0


@numba.njit(nogil=True, cache=True)
def stacked_pair_sums(Hs, nz, group, a, table, s_full, s_coarse, m_full, m_coarse, q0, q1):
    """:func:`packed_sums` of the totals of per-thread pair histograms: ``H[q] =
    sum_t Hs[t, q]`` (integer counts, exact in any order), then both ``(C[k], z)``
    histograms of pair ``q`` (``h1[x1, z] = sum_x2 H[x1, x2, z]``, ``h2[x2, z] =
    sum_x1 H[x1, x2, z]``) and their sums by :func:`_dense_sums`; the same histograms
    read in the same order, so the same sums bit for bit, whatever the number of
    threads. The threads that run this split the pairs: the reduction is parallel."""
    F1 = np.zeros(a * nz, np.int64)
    F2 = np.zeros(a * nz, np.int64)
    coarse = np.zeros(a * nz // group, np.int64)
    T = Hs.shape[0]
    for q in range(q0, q1):
        for x1 in range(a):
            for x2 in range(a):
                base = (x1 * a + x2) * nz
                for zi in range(nz):
                    c = np.int64(0)
                    for t in range(T):
                        c += Hs[t, q, base + zi]
                    F1[x1 * nz + zi] += c
                    F2[x2 * nz + zi] += c
        _pair_dense_sums(
            F1, F2, 2 * q, nz, group, a, table, coarse, s_full, s_coarse, m_full, m_coarse
        )
