"""Compiled (numba) kernels of exact order statistics: a column's values at given
ranks, found by a radix selection instead of a sort or numpy's partition.

Each float value is mapped to an unsigned 64-bit *key* with the same order
(:func:`float_keys`; ``-0.0`` is read as ``0.0``), and :func:`select_keys` finds the
keys at the wanted ranks: it counts the keys of a range in equal-width buckets of
the key range, keeps only the buckets that hold a wanted rank (their keys are copied
next to each other) and repeats inside them with buckets ``2**bits`` times narrower,
until a bucket holds one key value or few enough keys to sort. Every pass reads only
the keys still in play, so one column costs a few passes over its values whatever its
distribution (numpy's ``partition`` with 49 ranks costs several times more).

Imported only when numba is usable (:func:`fsel.utils.parallel.numba_available`); the
numpy twin is ``np.sort(keys)[ranks]``, and the test suite checks one against the
other.
"""

import numba
import numpy as np

SIGN = np.uint64(1 << 63)  #: the sign bit of a float64, the top bit of a key
MAX_BITS = 16  #: the most bits one counting pass resolves (65,536 buckets)
MIN_BITS = 6  #: the fewest (a range of a few hundred keys still splits in 64)
SORT_BELOW = 48  #: a range of at most this many keys is sorted, not counted
ROW_BLOCK = 2048  #: rows of adjacent columns gathered together into their keys


@numba.njit(nogil=True, cache=True)
def float_keys(X, j0, keys, counts):
    """Write the order-preserving keys of the values of column ``j0 + g`` of ``X``
    that are not NaN to ``keys[g, :counts[g]]``, for ``g < keys.shape[0]`` (a row of
    adjacent columns read at once): the bits of a non-negative float with the sign bit
    set, the complement of a negative float's bits (so unsigned comparison of keys is
    the order of the floats); ``-0.0`` gets the key of ``0.0``."""
    G = keys.shape[0]
    n = X.shape[0]
    kf = keys.view(np.float64)
    for g in range(G):
        counts[g] = 0
    for i0 in range(0, n, ROW_BLOCK):
        blk = X[i0 : min(n, i0 + ROW_BLOCK)]  # loops from 0: no negative-index checks
        for g in range(G):
            c0 = counts[g]
            row = kf[g, c0 : c0 + blk.shape[0]]
            c = 0
            for i in range(blk.shape[0]):  # gather the block's values that are not NaN
                v = np.float64(blk[i, j0 + g])
                row[c] = v
                c += v == v
            krow = keys[g, c0 : c0 + c]
            for q in range(c):  # then turn them into keys, contiguously
                if row[q] == 0.0:
                    row[q] = 0.0
                u = krow[q]  # flip every bit of a negative, the sign of the rest
                krow[q] = u ^ ((np.uint64(0) - (u >> np.uint64(63))) | SIGN)
            c = c0 + c
            counts[g] = c


@numba.njit(nogil=True, cache=True, inline="always")
def _bit_length(d):
    """The number of bits of the unsigned ``d`` (0 for 0)."""
    b = 0
    while d:
        d >>= np.uint64(1)
        b += 1
    return b


@numba.njit(nogil=True, cache=True)
def select_keys(keys, n, ranks, out, scratch):
    """``out[t] = sorted(keys[:n])[ranks[t]]`` for the ascending 0-based ``ranks``
    (each below ``n``); ``keys[:n]`` and ``scratch`` (at least ``n`` long) are used as
    scratch.

    Breadth first over *ranges*: a range is a run of keys (in the array of its level)
    that holds exactly the keys of sorted positions ``base .. base + size - 1``, and
    the run of ``ranks`` that fall in it; its bounds ``lo``, ``hi`` are found by a
    first pass over it. A range of one key
    value, or of at most :data:`SORT_BELOW` keys, is answered directly (the latter
    sorted); otherwise its keys are counted in buckets of ``2**shift`` key values
    (``(key - lo) >> shift``, ``bits`` between :data:`MIN_BITS` and :data:`MAX_BITS`
    by its size) and the keys of each bucket that holds a wanted rank are copied, in
    key order of the buckets, to the next level's array as a new range. The levels
    alternate between ``keys`` and ``scratch`` (a level's ranges are disjoint runs of
    sorted positions, so its copies fit in ``n``), and ``shift`` falls by at least
    :data:`MIN_BITS` a level (at most eleven levels).
    """
    m = ranks.size
    # the ranges of the current level (n_: of the next): start in its level's array,
    # size, base, first and end index into ranks
    r_start = np.zeros(m, np.int64)
    r_size = np.zeros(m, np.int64)
    r_base = np.zeros(m, np.int64)
    r_t0 = np.zeros(m, np.int64)
    r_t1 = np.zeros(m, np.int64)
    n_start = np.zeros(m, np.int64)
    n_size = np.zeros(m, np.int64)
    n_base = np.zeros(m, np.int64)
    n_t0 = np.zeros(m, np.int64)
    n_t1 = np.zeros(m, np.int64)
    r_size[0] = n
    r_t1[0] = m
    n_ranges = 1
    counts = np.zeros((1 << MAX_BITS) + 1, np.int64)
    cursor = np.full(1 << MAX_BITS, -1, np.int64)
    small = np.empty(SORT_BELOW, np.uint64)
    cur = keys
    nxt = scratch
    while n_ranges:
        total = 0
        n_next = 0
        for r in range(n_ranges):
            s = r_start[r]
            size = r_size[r]
            base = r_base[r]
            seg = cur[s : s + size]  # loops from 0: no negative-index checks
            lo = seg[0]
            hi = seg[0]
            for i in range(size):  # the range's bounds
                k = seg[i]
                lo = min(lo, k)
                hi = max(hi, k)
            if lo == hi:
                for t in range(r_t0[r], r_t1[r]):
                    out[t] = lo
                continue
            if size <= SORT_BELOW:
                for i in range(size):
                    small[i] = seg[i]
                part = np.sort(small[:size])
                for t in range(r_t0[r], r_t1[r]):
                    out[t] = part[ranks[t] - base]
                continue
            bits = min(MAX_BITS, max(MIN_BITS, _bit_length(np.uint64(size)) - 1))
            shift = np.uint64(max(0, _bit_length(hi - lo) - bits))
            nb = np.int64((hi - lo) >> shift) + 1
            for b in range(nb + 1):
                counts[b] = 0
            for i in range(size):
                counts[np.int64((seg[i] - lo) >> shift) + 1] += 1
            for b in range(nb):  # now counts[b]: the keys below bucket b
                counts[b + 1] += counts[b]
            t = r_t0[r]
            while t < r_t1[r]:  # each bucket holding wanted ranks: a next range
                rel = ranks[t] - base
                b = 0
                top = nb
                while b + 1 < top:  # the last bucket starting at or below rel
                    mid = (b + top) >> 1
                    if counts[mid] <= rel:
                        b = mid
                    else:
                        top = mid
                t1 = t + 1
                while t1 < r_t1[r] and ranks[t1] - base < counts[b + 1]:
                    t1 += 1
                cursor[b] = total
                n_start[n_next] = total
                n_size[n_next] = counts[b + 1] - counts[b]
                n_base[n_next] = base + counts[b]
                n_t0[n_next] = t
                n_t1[n_next] = t1
                total += n_size[n_next]
                n_next += 1
                t = t1
            for i in range(size):  # copy the wanted buckets' keys
                k = seg[i]
                b = np.int64((k - lo) >> shift)
                c = cursor[b]
                if c >= 0:
                    nxt[c] = k
                    cursor[b] = c + 1
            for b in range(nb):  # reset the cursors used
                cursor[b] = -1
        for q in range(n_next):
            r_start[q] = n_start[q]
            r_size[q] = n_size[q]
            r_base[q] = n_base[q]
            r_t0[q] = n_t0[q]
            r_t1[q] = n_t1[q]
        n_ranges = n_next
        cur, nxt = nxt, cur
