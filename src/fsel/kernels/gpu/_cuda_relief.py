"""The CUDA kernels of :mod:`fsel.kernels.gpu.relief` (numba's CUDA target).

Imported only by :mod:`fsel.kernels.gpu.relief`, inside functions, once a GPU (or
numba's simulator) is known to be usable; ``cache=True`` as in
:mod:`fsel.kernels.gpu._cuda_information`.
"""

from __future__ import annotations

import math
import os

import numpy as np
from numba import cuda, float64

# numba's simulator runs one Python thread per GPU thread: smaller blocks there
_SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")

#: references per distance block (accumulators held by every thread)
REF_TILE = 16
#: features per shared-memory tile of the references
FEATURE_TILE = 64
#: neighbour slots per (reference, thread): ``n_classes * n_neighbors`` at most
MAX_SLOTS = 64


@cuda.jit(cache=True)
def transpose(x, out):
    """``out[d, i] = x[i, d]``: the feature-major copy the distance kernel reads."""
    i, d = cuda.grid(2)
    if i < x.shape[0] and d < x.shape[1]:
        out[d, i] = x[i, d]


#: bits of :func:`transpose_checked`'s per-column flags
FLAG_NAN, FLAG_INF, FLAG_HUGE = 1, 2, 4
#: half the largest float64: a column whose values all lie within +-HUGE has a finite
#: range (``max - min <= 2 HUGE``, exactly the largest float64, so it cannot round up
#: to inf)
HUGE = float(np.finfo(np.float64).max) / 2


@cuda.jit(cache=True)
def transpose_checked(x, out, flags):
    """``out[d, i] = x[i, d]`` (:func:`transpose`) and the host validation's value
    checks of column ``d`` in the same pass: ``flags[d]`` gets the bit
    :data:`FLAG_NAN` if the column holds a NaN, :data:`FLAG_INF` for an infinite value
    and :data:`FLAG_HUGE` for a finite one with ``|v| > HUGE`` (its range may
    overflow). Integer atomics, only on such values: ``flags == 0`` everywhere means
    every value is finite and every range ``max - min`` is finite."""
    i, d = cuda.grid(2)
    if i < x.shape[0] and d < x.shape[1]:
        v = x[i, d]
        out[d, i] = v
        if not abs(v) <= HUGE:  # NaN, inf or huge: rare, so the atomics are too
            if v != v:
                cuda.atomic.or_(flags, d, FLAG_NAN)
            elif math.isinf(v):
                cuda.atomic.or_(flags, d, FLAG_INF)
            else:
                cuda.atomic.or_(flags, d, FLAG_HUGE)


@cuda.jit(cache=True)
def distances(xt, refs, squared, out):
    r"""Distances of every sample to a tile of references.

    ``out[r, i] = sum_d |xt[d, i] - refs[r, d]|`` (Manhattan) or ``sum_d (xt[d, i] -
    refs[r, d])^2`` (``squared``: the squared Euclidean distance, ranked like the
    distance), the features summed in order ``d = 0, 1, ...``. ``xt`` is the
    feature-major sample matrix (coalesced reads); block ``(bx, by)`` handles samples
    ``bx * blockDim + t`` against references ``by * REF_TILE ...``, each sample's
    value read once for the :data:`REF_TILE` references held in shared memory.
    """
    tile = cuda.shared.array((REF_TILE, FEATURE_TILE), float64)
    acc = cuda.local.array(REF_TILE, float64)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    r0 = cuda.blockIdx.y * REF_TILE
    n_ref = refs.shape[0]
    D, n = xt.shape
    for r in range(REF_TILE):
        acc[r] = 0.0
    for d0 in range(0, D, FEATURE_TILE):
        for q in range(cuda.threadIdx.x, REF_TILE * FEATURE_TILE, cuda.blockDim.x):
            r = q // FEATURE_TILE
            d = d0 + q % FEATURE_TILE
            tile[r, q % FEATURE_TILE] = refs[r0 + r, d] if r0 + r < n_ref and d < D else 0.0
        cuda.syncthreads()
        if i < n:
            width = D - d0
            if width > FEATURE_TILE:
                width = FEATURE_TILE
            for dd in range(width):
                x = xt[d0 + dd, i]
                for r in range(REF_TILE):
                    v = x - tile[r, dd]
                    if squared:
                        acc[r] += v * v
                    else:
                        acc[r] += abs(v)
        cuda.syncthreads()
    if i < n:
        for r in range(REF_TILE):
            if r0 + r < n_ref:
                out[r0 + r, i] = acc[r]


@cuda.jit(cache=True)
def nearest_by_class(dist, y, selfs, k, n_classes, eps, scratch_d, scratch_i, out_d, out_i):
    """The ``k`` nearest samples of every class to each reference, from its row of
    ``dist``, in the order of :func:`fsel.kernels.neighbors.tie_order` (distances
    within ``eps`` are ties, the smaller index first), the reference itself
    (``selfs[r]``) excluded, ``inf``/``-1`` past a class's members. One block per
    reference: every thread keeps sorted lists of the rows it strides over in
    ``scratch`` (a later row displaces a kept one only when nearer by more than
    ``eps``), then thread ``c`` merges class ``c``'s lists into ``out[r, c]``.
    """
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    nt = cuda.blockDim.x
    n = dist.shape[1]
    ld = cuda.local.array(MAX_SLOTS, float64)
    li = cuda.local.array(MAX_SLOTS, np.int64)
    slots = n_classes * k
    for s in range(slots):
        ld[s] = np.inf
        li[s] = -1
    me = selfs[r]
    i = t
    while i < n:
        if i != me:
            d = dist[r, i]
            base = y[i] * k
            last = base + k - 1
            if d < ld[last] - eps:  # rows come in increasing order: ties keep the first
                p = last
                while p > base and ld[p - 1] > d + eps:
                    ld[p] = ld[p - 1]
                    li[p] = li[p - 1]
                    p -= 1
                ld[p] = d
                li[p] = i
        i += nt
    for s in range(slots):
        scratch_d[r, t, s] = ld[s]
        scratch_i[r, t, s] = li[s]
    cuda.syncthreads()
    if t < n_classes:
        base = t * k
        for s in range(k):
            out_d[r, t, s] = np.inf
            out_i[r, t, s] = -1
        for u in range(nt):
            for s in range(k):
                j = scratch_i[r, u, base + s]
                if j < 0:
                    break
                d = scratch_d[r, u, base + s]
                dl = out_d[r, t, k - 1]
                il = out_i[r, t, k - 1]
                if il >= 0 and (d > dl + eps or (d >= dl - eps and j > il)):
                    break  # this thread's later entries come later still
                p = k - 1
                while p > 0:
                    dp = out_d[r, t, p - 1]
                    ip = out_i[r, t, p - 1]
                    if ip >= 0 and (dp < d - eps or (dp <= d + eps and ip < j)):
                        break
                    out_d[r, t, p] = dp
                    out_i[r, t, p] = ip
                    p -= 1
                out_d[r, t, p] = d
                out_i[r, t, p] = j


#: threads of the row reductions (one block per reference row)
ROW_THREADS = 8 if _SIM else 128
#: features per block of :func:`weighted_absdiff` (one per thread of a lane)
FEATURE_LANES = 8 if _SIM else 32
#: rows summed side by side per feature in :func:`weighted_absdiff`
ROW_LANES = 2 if _SIM else 8


@cuda.jit(cache=True)
def row_sums(dist, selfs, center, squared, out):
    """``out[r] = sum_{j != selfs[r]} (dist[r, j] - center[r])`` (``squared``: of the
    squares): the row sums behind SURF's threshold and MultiSURF's mean and variance.
    One block per row; each thread sums a strided share in order, then a tree in
    shared memory (a fixed order: the result does not vary between runs)."""
    sh = cuda.shared.array(ROW_THREADS, float64)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    me = selfs[r]
    c = center[r]
    acc = 0.0
    j = t
    while j < dist.shape[1]:
        if j != me:
            v = dist[r, j] - c
            acc += v * v if squared else v
        j += ROW_THREADS
    sh[t] = acc
    cuda.syncthreads()
    step = ROW_THREADS // 2
    while step > 0:
        if t < step:
            sh[t] += sh[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[r] = sh[0]


@cuda.jit(cache=True)
def radius_counts(dist, selfs, radius, y, counts):
    """``counts[r, c] = #{j != selfs[r] : y[j] = c, dist[r, j] < radius[r]}``: the
    neighbours of every class inside a reference's radius (integer atomics in shared
    memory, so the counts are exact)."""
    sh = cuda.shared.array(MAX_SLOTS, np.int32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    C = counts.shape[1]
    for c in range(t, C, cuda.blockDim.x):
        sh[c] = 0
    cuda.syncthreads()
    me = selfs[r]
    T = radius[r]
    j = t
    while j < dist.shape[1]:
        if j != me and dist[r, j] < T:
            cuda.atomic.add(sh, y[j], 1)
        j += cuda.blockDim.x
    cuda.syncthreads()
    for c in range(t, C, cuda.blockDim.x):
        counts[r, c] = sh[c]


@cuda.jit(cache=True)
def radius_weights(dist, selfs, radius, y, coef):
    """In place: ``dist[r, j] = coef[r, y[j]]`` inside the radius (``dist[r, j] <
    radius[r]``, ``j`` not the reference itself), 0 elsewhere: each neighbour's
    coefficient in the reference's margin."""
    j, r = cuda.grid(2)
    if r < dist.shape[0] and j < dist.shape[1]:
        d = dist[r, j]
        dist[r, j] = coef[r, y[j]] if (j != selfs[r] and d < radius[r]) else 0.0


@cuda.jit(cache=True)
def weighted_absdiff(xt, refs, w, out):
    """``out[r, d] = sum_j w[r, j] |xt[d, j] - refs[r, d]|``: the references' margins
    from their neighbours' weights. Block ``(bx, by)``: features ``bx * FEATURE_LANES
    ...`` against references ``by * REF_TILE ...``; thread ``(f, lane)`` sums rows
    ``lane, lane + ROW_LANES, ...`` in order, the lanes are then added in order (no
    float atomics: the same sums on every run)."""
    sh = cuda.shared.array((ROW_LANES, FEATURE_LANES, REF_TILE), float64)
    acc = cuda.local.array(REF_TILE, float64)
    f = cuda.threadIdx.x % FEATURE_LANES
    lane = cuda.threadIdx.x // FEATURE_LANES
    d = cuda.blockIdx.x * FEATURE_LANES + f
    r0 = cuda.blockIdx.y * REF_TILE
    D, n = xt.shape
    m = refs.shape[0]
    for r in range(REF_TILE):
        acc[r] = 0.0
    if d < D:
        j = lane
        while j < n:
            x = xt[d, j]
            for r in range(REF_TILE):
                if r0 + r < m:
                    a = w[r0 + r, j]
                    if a != 0.0:
                        acc[r] += a * abs(x - refs[r0 + r, d])
            j += ROW_LANES
    for r in range(REF_TILE):
        sh[lane, f, r] = acc[r]
    cuda.syncthreads()
    if lane == 0 and d < D:
        for r in range(REF_TILE):
            if r0 + r < m:
                s = 0.0
                for q in range(ROW_LANES):
                    s += sh[q, f, r]
                out[r0 + r, d] = s


@cuda.jit(cache=True)
def sqrt_inplace(dist):
    """``dist[r, i] = sqrt(dist[r, i])`` (squared Euclidean distances to distances),
    launched on the grid of :func:`distances`."""
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    r0 = cuda.blockIdx.y * REF_TILE
    if i < dist.shape[1]:
        end = r0 + REF_TILE
        if end > dist.shape[0]:
            end = dist.shape[0]
        for r in range(r0, end):
            dist[r, i] = math.sqrt(dist[r, i])


# --------------------------------------------------------------------------------------
# The scaling and the sort by class on the GPU (ReliefF's set-up)

#: order statistics selected per column at once (minimum, maximum, two per quantile)
MAX_TARGETS = 6
#: the top bit of a 64-bit key
_TOP = np.uint64(0x8000000000000000)


@cuda.jit(cache=True)
def radix_counts(bits, prefix, mask, shift, hist):
    r"""One pass of a most-significant-digit radix selection of order statistics.

    ``bits[c, i]`` are the IEEE bits of the float64 values of column ``c``; their
    order-preserving key is ``~b`` for a negative value and ``b | 2^63`` otherwise,
    so that keys compare as unsigned integers as the values compare. For every
    column ``c`` and target ``t`` this counts, among the values whose key agrees with
    ``prefix[c, t]`` on the bits of ``mask`` (the digits found so far), the 8-bit
    digit ``(key >> shift) & 255``: ``hist[c, t, digit] += 1``. A block holds the
    ``T x 256`` counts of one column (grid row ``c``) in shared memory and adds them to
    ``hist`` once. Eight passes (``shift = 56, 48, ..., 0``) give each target's exact
    key (the host picks each digit from the counts).

    Integer counts, so exact in any order; two shortcuts keep the shared-memory
    atomics few where the digits repeat (the first passes, where most values share
    their leading bytes): a target whose prefix equals an earlier target's copies
    that target's counts instead of counting, and each thread adds a run of equal
    digits of a target with one atomic.
    """
    sh = cuda.shared.array((MAX_TARGETS, 256), np.int32)
    alias = cuda.local.array(MAX_TARGETS, np.int64)
    run_d = cuda.local.array(MAX_TARGETS, np.int64)
    run_n = cuda.local.array(MAX_TARGETS, np.int32)
    c = cuda.blockIdx.y
    tid = cuda.threadIdx.x
    T = prefix.shape[1]
    for t in range(T):
        alias[t] = t
        for u in range(t):
            if alias[t] == t and prefix[c, u] == prefix[c, t]:
                alias[t] = u
        run_d[t] = 0
        run_n[t] = 0
    for q in range(tid, MAX_TARGETS * 256, cuda.blockDim.x):
        sh[q // 256, q % 256] = 0
    cuda.syncthreads()
    n = bits.shape[1]
    i = cuda.blockIdx.x * cuda.blockDim.x + tid
    stride = cuda.gridDim.x * cuda.blockDim.x
    while i < n:
        b = bits[c, i]
        if b & _TOP:
            key = ~b
        else:
            key = b | _TOP
        digit = np.int64((key >> shift) & np.uint64(255))
        for t in range(T):
            if alias[t] == t and (key & mask) == prefix[c, t]:
                if run_n[t] > 0 and run_d[t] != digit:
                    cuda.atomic.add(sh, (t, run_d[t]), run_n[t])
                    run_n[t] = 0
                run_d[t] = digit
                run_n[t] += 1
        i += stride
    for t in range(T):
        if run_n[t] > 0:
            cuda.atomic.add(sh, (t, run_d[t]), run_n[t])
    cuda.syncthreads()
    for q in range(tid, T * 256, cuda.blockDim.x):
        t = q // 256
        v = sh[alias[t], q - t * 256]
        if v:
            cuda.atomic.add(hist, (c, t, q - t * 256), np.int64(v))


@cuda.jit(cache=True)
def scale_sorted(xt, order, shift, div, clip_lo, clip_hi, out):
    """``out[c, i] = (min(max(v, clip_lo[c]), clip_hi[c]) - shift[c]) / div[c]`` with
    ``v = xt[c, order[i]]`` (0 where ``div[c] == 0``: a constant column): the columns
    scaled by the range rule (``shift`` the minimum, ``div`` the range, no clipping)
    or the robust rule (``shift`` the lower quantile, ``div`` the interquantile range,
    clipped to the quantiles), the samples put in the order ``order`` (by class),
    feature-major. The operations of :func:`fsel.kernels.scaling.scale_dense`, so the
    same values."""
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    c = cuda.blockIdx.y
    if i < out.shape[1]:
        if div[c] == 0.0:
            out[c, i] = 0.0
        else:
            v = xt[c, order[i]]
            if v < clip_lo[c]:  # np.clip (no NaN here)
                v = clip_lo[c]
            if v > clip_hi[c]:
                v = clip_hi[c]
            out[c, i] = (v - shift[c]) / div[c]


@cuda.jit(cache=True)
def gather_rows(xt, rows, out):
    """``out[j, c] = xt[c, rows[j]]``: sample-major rows of the feature-major matrix
    (the references of a distance block, or the rows the margins need on the host)."""
    j, c = cuda.grid(2)
    if j < rows.shape[0] and c < xt.shape[0]:
        out[j, c] = xt[c, rows[j]]
