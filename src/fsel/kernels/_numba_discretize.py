"""Compiled (numba) kernels of discretisation: dense code compaction and the sparse
column ranks.

Imported only when numba is usable (:func:`fsel.utils.parallel.numba_available`);
their numpy twins live in :mod:`fsel.kernels.discretize` and
:mod:`fsel.kernels.discretize_sparse`, and the test suite checks one against the other.
"""

import numba
import numpy as np


@numba.njit(nogil=True, cache=True)
def compact(X, vmin, width, out, holes, nan_as):
    """Dense codes: ``out[j, i] = rank of X[i, j] among the distinct values of column
    j`` (ranks ``0..a_j-1`` in sorted order, through the lookup table of the offsets
    ``X[i, j] - vmin[j]`` in ``0..width-1``).

    Codes ``0..a-1`` of every column in ``out`` (feature-major); returns ``a`` per
    column. A NaN cell (float input) is read as ``nan_as[j]`` (``vmin[j] + width``,
    in the dtype of ``X``) and written as ``width`` first, then gets the code after
    its column's observed levels; ``holes`` flags the columns that take that extra
    level (an all-missing one has the single code 0)."""
    n, d = X.shape
    tile = 32  # 2-D tiled transpose: reads and writes both stay in cache
    for i0 in range(0, n, tile):
        i1 = min(i0 + tile, n)
        for j0 in range(0, d, tile):
            j1 = min(j0 + tile, d)
            for j in range(j0, j1):
                base = vmin[j]
                hole = nan_as[j]
                for i in range(i0, i1):
                    x = X[i, j]
                    # NaN (never true for integers): branch-free select, then cast
                    out[j, i] = np.int64(x if x == x else hole) - base
    levels = np.zeros(d, np.int64)
    lut = np.zeros(width + 1, np.int64)
    for j in range(d):  # per feature, on contiguous rows: presence, then remap gaps
        row = out[j]
        for v in range(width + 1):
            lut[v] = 0
        for i in range(n):
            lut[row[i]] = 1
        c = 0
        top = 0
        for v in range(width):
            if lut[v]:
                lut[v] = c
                c += 1
                top = v
        hole = lut[width] != 0
        lut[width] = c  # the missing level: after the observed ones
        levels[j] = c + 1 if holes[j] else c
        if top + 1 != c or (hole and c != width):  # gaps or holes: remap
            for i in range(n):
                row[i] = lut[row[i]]
    return levels


@numba.njit(nogil=True, cache=True)
def float_ranges(X, lo, hi, nan_seen):
    """Column ranges: ``lo[j] = min_i X[i, j]``, ``hi[j] = max_i X[i, j]`` over the
    non-NaN cells, ``nan_seen[j] = any_i isnan(X[i, j])``; returns whether every cell is
    an integer (``X - floor(X) == 0``).

    Observed minimum and maximum of every column (``inf``/``-inf`` when it has
    none) and whether it holds NaN, in one row-major pass; False as soon as a cell
    is not an integer."""
    n, d = X.shape
    for j in range(d):
        lo[j] = np.inf
        hi[j] = -np.inf
    for i in range(n):
        frac = 0.0
        for j in range(d):  # branch-free (selects): comparisons with NaN are False
            x = X[i, j]
            nan_seen[j] |= x != x
            lo[j] = x if x < lo[j] else lo[j]
            hi[j] = x if x > hi[j] else hi[j]
            f = x - np.floor(x)  # NaN - NaN and inf - inf: NaN, not > frac
            frac = f if f > frac else frac
        if frac > 0.0:
            return False
    return True


#: Distinct values a sparse column is scanned for before it is sorted instead
#: (:func:`column_ranks`).
FEW_LEVELS = 16


@numba.njit(nogil=True, cache=True, inline="always")
def _rank_in(u, nu, v):
    """``np.searchsorted(u[:nu], v)`` for sorted ``u``: the number of ``u[q] < v``,
    counted without a branch on the values (faster than the call, and than a scan that
    stops at ``v``, for the few values of :data:`FEW_LEVELS`)."""
    q = 0
    for t in range(nu):
        q += u[t] < v
    return q


@numba.njit(nogil=True, cache=True)
def _few_distinct(key, p0, p1, zero, has_zero, buf):
    """The sorted distinct values of ``key[p0:p1]`` (NaN as ``inf``) and ``zero`` where
    ``has_zero``, into ``buf``; their number, or -1 as soon as there are more than
    :data:`FEW_LEVELS` (one scan, no sort: a sparse column's stored values usually
    take a few values)."""
    nu = 0
    for p in range(p0, p1 + (1 if has_zero else 0)):
        if p < p1:
            v = key[p]
            if np.isnan(v):
                v = np.inf
        else:
            v = zero
        q = _rank_in(buf, nu, v)
        if q < nu and buf[q] == v:
            continue
        if nu == FEW_LEVELS:
            return -1
        for t in range(nu, q, -1):
            buf[t] = buf[t - 1]
        buf[q] = v
        nu += 1
    return nu


@numba.njit(nogil=True, cache=True)
def column_ranks(indptr, key, has_zero, zero_val, n_levels, zero_code, out, write, k0, k1):
    """Sparse column ranks: ``out[p] = #{distinct values of column k below key[p]}``
    for every stored entry ``p`` of column ``k`` (the implicit zero, value
    ``zero_val[k]``, counted among them where the column has one; NaN ranks last).

    Per column ``k0 <= k < k1``: its distinct values (the zero value too where it has
    implicit zeros), by one scan while they are at most :data:`FEW_LEVELS`, else by
    sorting the column; with ``write``, store every entry's rank in ``out``. Returns
    the number of those entries whose rank differs from the zero code. Columns are
    independent: threads may take disjoint column ranges."""
    kept = 0
    widest = FEW_LEVELS
    for k in range(k0, k1):
        widest = max(widest, indptr[k + 1] - indptr[k])
    scratch = np.empty(widest + 1)  # one buffer for every column of the range
    for k in range(k0, k1):
        p0 = indptr[k]
        p1 = indptr[k + 1]
        nu = _few_distinct(key, p0, p1, zero_val[k], has_zero[k], scratch)
        if nu < 0:  # many values: sorted, then made distinct in place
            w = p1 - p0
            m = w + 1 if has_zero[k] else w
            buf = scratch[:m]
            for p in range(p0, p1):
                v = key[p]
                buf[p - p0] = np.inf if np.isnan(v) else v  # NaN: the last level
            if has_zero[k]:
                buf[w] = zero_val[k]
            buf.sort()
            nu = 0
            for t in range(m):  # distinct values, in place
                if t == 0 or buf[t] != buf[nu - 1]:
                    buf[nu] = buf[t]
                    nu += 1
        u = scratch[:nu]
        n_levels[k] = nu
        zc = np.searchsorted(u, zero_val[k]) if has_zero[k] else 0
        zero_code[k] = zc
        if write:
            few = nu <= FEW_LEVELS
            for p in range(p0, p1):
                v = key[p]
                if np.isnan(v):
                    v = np.inf
                r = _rank_in(u, nu, v) if few else np.searchsorted(u, v)
                out[p] = r
                if r != zc:
                    kept += 1
    return kept


@numba.njit(nogil=True, cache=True)
def bin_stored(indptr, data, cols, E, vals, q0, q1):
    """``vals[p] = #{m : E[q, m] <= data[p]}`` for the stored entries ``p`` of column
    ``cols[q]``, ``q0 <= q < q1`` (its edges ``E[q]``, inf-padded); a NaN entry is
    left as it is. Columns are independent: threads take disjoint ranges of ``q``."""
    m = E.shape[1]
    for q in range(q0, q1):
        j = cols[q]
        for p in range(indptr[j], indptr[j + 1]):
            x = data[p]
            if x != x:
                continue
            c = 0
            for e in range(m):
                c += E[q, e] <= x
            vals[p] = c


@numba.njit(nogil=True, cache=True)
def first_fraction(indptr, data, discrete, k0, k1):
    """The first column ``k0 <= k < k1`` not flagged ``discrete`` with a stored value
    that is not a whole number (NaN is missing, not a fraction; ``inf`` counts as
    whole, as ``x == np.round(x)`` says); -1 when there is none."""
    for k in range(k0, k1):
        if discrete[k]:
            continue
        for p in range(indptr[k], indptr[k + 1]):
            v = data[p]
            if v == v and np.floor(v) != v:
                return k
    return -1


@numba.njit(nogil=True, cache=True)
def drop_zero_codes(indptr, rows, codes, zero_code, new_indptr, new_rows, new_codes):
    """Keep, column by column, the entries whose code differs from the column's zero
    code: ``new = [(r, c) for (r, c) in column k if c != zero_code[k]]``, with
    ``new_indptr[k + 1]`` the running count of kept entries."""
    d = indptr.size - 1
    q = 0
    for k in range(d):
        for p in range(indptr[k], indptr[k + 1]):
            if codes[p] != zero_code[k]:
                new_rows[q] = rows[p]
                new_codes[q] = codes[p]
                q += 1
        new_indptr[k + 1] = q


@numba.njit(nogil=True, cache=True)
def csr_to_columns(indptr, indices, data, col_ptr, cursor, rows_out, data_out):
    """CSR -> column-major arrays (rows ascending within a column): a counting sort of
    the entries by column, ``col_ptr[c + 1] = #{entries with column <= c}``."""
    for p in range(indices.size):
        col_ptr[indices[p] + 1] += 1
    for c in range(cursor.size):
        col_ptr[c + 1] += col_ptr[c]
        cursor[c] = col_ptr[c]
    for r in range(indptr.size - 1):
        for p in range(indptr[r], indptr[r + 1]):
            c = indices[p]
            q = cursor[c]
            rows_out[q] = r
            data_out[q] = data[p]
            cursor[c] = q + 1


@numba.njit(nogil=True, cache=True)
def presence(x, lo, present):
    """Presence table of the distinct values of every column of an integer chunk:
    ``present[j, x[i, j] - lo[j]] = True`` for every cell (one row-major pass)."""
    n, d = x.shape
    for i in range(n):
        for j in range(d):
            present[j, np.int64(x[i, j]) - lo[j]] = True


@numba.njit(nogil=True, cache=True)
def int_ranges(X, lo, hi, i0, i1):
    """Column ranges of the rows ``i0 <= i < i1`` (``i1 > i0``) of an integer matrix:
    ``lo[j] = min_i X[i, j]``, ``hi[j] = max_i X[i, j]``, in one row-major pass (each
    thread of the parallel set-up takes its own rows and its own ``lo``/``hi``).

    The running minima and maxima live in arrays of this call, written to ``lo`` and
    ``hi`` once at the end: the threads' outputs, rows of one small array, share cache
    lines, and a store to them on every row would bounce those lines between cores."""
    d = X.shape[1]
    mn = np.empty(d, X.dtype)
    mx = np.empty(d, X.dtype)
    for j in range(d):
        mn[j] = X[i0, j]
        mx[j] = X[i0, j]
    for i in range(i0 + 1, i1):
        xi = X[i]
        for j in range(d):
            x = xi[j]
            mn[j] = x if x < mn[j] else mn[j]
            mx[j] = x if x > mx[j] else mx[j]
    for j in range(d):
        lo[j] = mn[j]
        hi[j] = mx[j]


@numba.njit(nogil=True, cache=True)
def transpose_offsets(X, vmin, out, present, i0, i1):
    """Feature-major offsets of the rows ``i0 <= i < i1``: ``out[j, i] = X[i, j] -
    vmin[j]`` (``int64`` arithmetic, wrapping as :func:`compact` does for ``uint64``
    above ``2**63``), then ``present[j, v] = True`` for every offset ``v`` of column
    ``j`` in these rows (a 64-bit mask per column when ``present`` has at most 64
    columns). Rows of different threads write disjoint spans of ``out`` and their own
    ``present``."""
    d = X.shape[1]
    for i in range(i0, i1):  # row by row: each row read once, contiguous
        xi = X[i]
        for j in range(d):
            out[j, i] = np.int64(xi[j]) - vmin[j]
    width = present.shape[1]
    one = np.uint64(1)
    for j in range(d):
        oj = out[j]
        pj = present[j]
        if width <= 64:
            m = np.uint64(0)
            for i in range(i0, i1):
                m |= one << np.uint64(oj[i])
            for v in range(width):
                if (m >> np.uint64(v)) & one:
                    pj[v] = True
        else:
            for i in range(i0, i1):
                pj[oj[i]] = True


@numba.njit(nogil=True, cache=True)
def remap_codes(out, lut, need, i0, i1):
    """Ranks from offsets: ``out[j, i] = lut[j, out[j, i]]`` for the rows ``i0 <= i <
    i1`` of the columns with ``need[j]`` (those whose present offsets have gaps);
    ``lut[j, v]`` is the number of present offsets of column ``j`` below ``v``."""
    for j in range(out.shape[0]):
        if not need[j]:
            continue
        lj = lut[j]
        oj = out[j]
        for i in range(i0, i1):
            oj[i] = lj[oj[i]]


@numba.njit(nogil=True, cache=True, inline="always")
def _swap_halves(x, y, s, m):
    """One stage of an 8 x 8 byte transpose held in eight ``uint64`` words: the bits
    ``m << s`` of ``x`` trade places with the bits ``m`` of ``y`` (``t = ((x >> s) ^ y)
    & m``; ``x ^ (t << s)``, ``y ^ t``)."""
    t = ((x >> s) ^ y) & m
    return x ^ (t << s), y ^ t


@numba.njit(nogil=True, cache=True)
def transpose_bytes8(W, S, nblk):
    """Byte transpose of the first ``8 * nblk`` rows of a tile: ``S8[q, r] = W8[r, q]``
    where ``W8 = W.view(uint8)`` (rows, ``8 G`` bytes) and ``S8 = S.view(uint8)``
    (``8 G`` rows, ``8 nblk`` bytes or more).

    Each 8 x 8 block of bytes is read as eight ``uint64`` words (one per row) and
    transposed in registers by three stages of :func:`_swap_halves` (blocks of 4, 2
    and 1 bytes), then written as eight words (one per column): two memory operations
    per eight bytes instead of a load and a store per byte."""
    G = W.shape[1]
    m32 = np.uint64(0x00000000FFFFFFFF)
    m16 = np.uint64(0x0000FFFF0000FFFF)
    m8 = np.uint64(0x00FF00FF00FF00FF)
    s32 = np.uint64(32)
    s16 = np.uint64(16)
    s8 = np.uint64(8)
    for g in range(G):
        q = 8 * g
        for rb in range(nblk):
            r = 8 * rb
            x0, x4 = _swap_halves(W[r, g], W[r + 4, g], s32, m32)
            x1, x5 = _swap_halves(W[r + 1, g], W[r + 5, g], s32, m32)
            x2, x6 = _swap_halves(W[r + 2, g], W[r + 6, g], s32, m32)
            x3, x7 = _swap_halves(W[r + 3, g], W[r + 7, g], s32, m32)
            x0, x2 = _swap_halves(x0, x2, s16, m16)
            x1, x3 = _swap_halves(x1, x3, s16, m16)
            x4, x6 = _swap_halves(x4, x6, s16, m16)
            x5, x7 = _swap_halves(x5, x7, s16, m16)
            x0, x1 = _swap_halves(x0, x1, s8, m8)
            x2, x3 = _swap_halves(x2, x3, s8, m8)
            x4, x5 = _swap_halves(x4, x5, s8, m8)
            x6, x7 = _swap_halves(x6, x7, s8, m8)
            S[q, rb] = x0
            S[q + 1, rb] = x1
            S[q + 2, rb] = x2
            S[q + 3, rb] = x3
            S[q + 4, rb] = x4
            S[q + 5, rb] = x5
            S[q + 6, rb] = x6
            S[q + 7, rb] = x7


@numba.njit(nogil=True, cache=True)
def flat_min_max(flat, d, mnL, mxL, a, b):
    """Running minima and maxima of the rows ``a <= i < b`` of a C-contiguous matrix
    of ``d`` columns given flat (``flat[i * d + j] = X[i, j]``), ``L = mnL.size`` (a
    multiple of ``d``) values at a time: ``mnL[t] = min(mnL[t], X[i, t % d])`` over
    every row ``i = a + g L / d + t // d``, ``mxL`` likewise; returns the first row not
    taken (fewer than ``L / d`` rows are left). Column ``j``'s minimum is the least of
    ``mnL[j::d]``.

    A row of ``d`` values at a time leaves a scalar tail of ``d`` mod the vector width
    on every row; ``L`` values at a time (``L`` a multiple of 64) vectorise whole."""
    L = mnL.size
    k = L // d
    i = a
    while i + k <= b:
        blk = flat[i * d : i * d + L]
        for t in range(L):
            x = blk[t]
            mnL[t] = x if x < mnL[t] else mnL[t]
            mxL[t] = x if x > mxL[t] else mxL[t]
        i += k
    return i


@numba.njit(nogil=True, cache=True)
def pack_offsets(X, flat, vmin, w, full, P, last, masks, lo, hi, i0, i1):
    """Packed offsets of the rows ``i0 <= i < i1`` of an integer matrix, two features
    per byte: ``P[q, i] = (X[i, 2q] - vmin[2q]) * w + (X[i, 2q+1] - vmin[2q+1])``,
    ``last[i] = X[i, d-1] - vmin[d-1]`` for an odd number ``d`` of features (``last``
    empty otherwise), ``masks[j] |= 1 << (X[i, j] - vmin[j])`` (the offsets present
    in each column, ``w <= 16``; an offset outside ``0..31`` sets bit ``offset & 31``),
    and the rows' column ranges ``lo[j] = min_i X[i, j]``, ``hi[j] = max_i X[i, j]``
    (the caller checks them against the ``vmin`` and ``w`` it packed with). ``flat``
    is ``X`` flat (C order), or empty: then the ranges go a row at a time.

    ``full[j]`` is the mask of every offset column ``j`` can take (``(1 << span_j) -
    1``, ``span_j = max_j - min_j + 1`` over the whole table): once each column's mask
    of these rows is full no row can add to it, and the presence is no longer tracked
    (the usual case, where every level shows up in the first few hundred rows).

    Blocked (a tile of rows whose pairs and their transpose fit in a 32 KiB L1 cache,
    at least 64 rows): the tile's rows are read once, contiguous, and their pairs
    written row-major to a scratch tile (vectorised), which :func:`transpose_bytes8`
    turns feature-major, then each pair's bytes of the tile go to ``P`` as one
    contiguous run (a store per row to each of the ``d / 2`` rows of ``P``, strided
    stores, cost twice as much and did not scale with threads). The presence masks
    are local until the end: the threads' ``masks`` (rows of one array) share cache
    lines. Rows of different threads write disjoint spans of ``P``. The feature-major
    code matrix is never written: the packed pairs are half its size."""
    d = X.shape[1]
    Q = d // 2
    G = max(1, (Q + 7) // 8)
    T = max(64, min(4096, (16384 // (8 * G)) // 8 * 8))  # 16 KiB of pairs, 16 transposed
    W = np.empty((T, G), np.uint64)
    B = W.view(np.uint8)  # row r of the tile: its pairs' bytes
    S = np.empty((8 * G, T // 8), np.uint64)
    S8 = S.view(np.uint8)  # pair q of the tile: its rows' bytes
    M = np.zeros(d, np.uint32)
    mn = np.empty(d, X.dtype)
    mx = np.empty(d, X.dtype)
    for j in range(d):
        mn[j] = X[i0, j]
        mx[j] = X[i0, j]
    g = 64
    while d % g:
        g //= 2
    L = d * (64 // g) if flat.size else 0  # a multiple of 64 values: whole rows
    mnL = np.empty(L, X.dtype)
    mxL = np.empty(L, X.dtype)
    for t in range(L):
        mnL[t] = mn[t % d]
        mxL[t] = mx[t % d]
    one = np.uint32(1)
    odd = last.size > 0
    track = True
    for a in range(i0, i1, T):
        b = min(a + T, i1)
        rows = b - a
        for r in range(rows):
            xi = X[a + r]
            br = B[r]
            for q in range(Q):
                o1 = np.int64(xi[2 * q]) - vmin[2 * q]
                o2 = np.int64(xi[2 * q + 1]) - vmin[2 * q + 1]
                br[q] = o1 * w + o2
            if odd:
                last[a + r] = np.int64(xi[d - 1]) - vmin[d - 1]
        rest = flat_min_max(flat, d, mnL, mxL, a, b) if L else a
        for i in range(rest, b):  # the rows left (all of them without ``flat``)
            xi = X[i]
            for j in range(d):
                x = xi[j]
                mn[j] = x if x < mn[j] else mn[j]
                mx[j] = x if x > mx[j] else mx[j]
        if track:
            for r in range(rows):
                xi = X[a + r]
                for j in range(d):
                    o = np.uint32(np.int64(xi[j]) - vmin[j]) & np.uint32(31)
                    M[j] |= one << o
            track = False
            for j in range(d):
                if M[j] != full[j]:
                    track = True
        nblk = rows // 8
        transpose_bytes8(W, S, nblk)
        r8 = 8 * nblk
        for q in range(Q):
            pq = P[q, a:b]
            sq = S8[q]
            for r in range(r8):
                pq[r] = sq[r]
            for r in range(r8, rows):
                pq[r] = B[r, q]
    for t in range(L):
        j = t % d
        mn[j] = mnL[t] if mnL[t] < mn[j] else mn[j]
        mx[j] = mxL[t] if mxL[t] > mx[j] else mx[j]
    for j in range(d):
        masks[j] |= M[j]
        lo[j] = mn[j]
        hi[j] = mx[j]


@numba.njit(nogil=True, cache=True)
def remap_pairs(P, lut, need, i0, i1):
    """Packed codes from packed offsets: ``P[q, i] = lut[q, P[q, i]]`` for the rows
    ``i0 <= i < i1`` of the pairs with ``need[q]``; ``lut[q, o1 * w + o2] = r1 * a +
    r2``, ``r`` the rank of an offset among its column's present offsets and ``a`` the
    packing base of the codes."""
    for q in range(P.shape[0]):
        if not need[q]:
            continue
        lq = lut[q]
        pq = P[q]
        for i in range(i0, i1):
            pq[i] = lq[pq[i]]


#: edges a column may have for :func:`bin_by_edges` to count them one by one (the
#: comparisons vectorise: about 6 ns a cell for 49 edges, against 35 ns for a binary
#: search, whose branches the processor cannot predict); more: the binary search
LINEAR_EDGES = 64


@numba.njit(nogil=True, cache=True)
def bin_by_edges(X, cols, edges, lengths, nan_bin, code_cols, out, i0, i1):
    """``out[i, j] = #{m < lengths[q] : edges[q, m] <= X[i, j]}`` for the binned columns
    ``j = cols[q]`` and rows ``i0 <= i < i1`` (``edges[q, :lengths[q]]`` sorted): the
    number of inner edges at or below the value, counted edge by edge (up to
    :data:`LINEAR_EDGES` edges) or found by a binary search. A NaN counts no edge: its
    bin is 0, or ``lengths[q] + 1`` with ``nan_bin``. The columns ``code_cols`` are
    copied as they are (``out``'s type: integral values into integers)."""
    for i in range(i0, i1):
        for q in range(code_cols.size):
            j = code_cols[q]
            out[i, j] = X[i, j]
        for q in range(cols.size):
            j = cols[q]
            x = X[i, j]
            m = lengths[q]
            if x != x:
                out[i, j] = m + 1 if nan_bin else 0
            elif m <= LINEAR_EDGES:
                c = 0
                for k in range(m):
                    c += edges[q, k] <= x
                out[i, j] = c
            else:
                lo = 0
                hi = m
                while lo < hi:  # the first edge above x
                    mid = (lo + hi) >> 1
                    if edges[q, mid] <= x:
                        lo = mid + 1
                    else:
                        hi = mid
                out[i, j] = lo
