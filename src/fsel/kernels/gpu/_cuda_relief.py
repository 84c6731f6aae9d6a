"""The CUDA kernels of :mod:`fsel.kernels.gpu.relief` (numba's CUDA target).

Imported only by :mod:`fsel.kernels.gpu.relief`, inside functions, once a GPU (or
numba's simulator) is known to be usable; ``cache=True`` as in
:mod:`fsel.kernels.gpu._cuda_information`.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, float64

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
            for dd in range(min(FEATURE_TILE, D - d0)):
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
def nearest_by_class(dist, y, selfs, k, n_classes, scratch_d, scratch_i, out_d, out_i):
    """The ``k`` nearest samples of every class to each reference, from its row of
    ``dist``: ``(distance, index)`` smallest first in lexicographic order (ties by the
    smaller index), the reference itself (``selfs[r]``) excluded, ``inf``/``-1`` past
    a class's members. One block per reference: every thread keeps sorted lists of
    the rows it strides over in ``scratch``, then thread ``c`` merges class ``c``'s
    lists into ``out[r, c]``.
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
            if d < ld[last]:  # rows come in increasing order: equal keeps the first
                p = last
                while p > base and ld[p - 1] > d:
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
                if il >= 0 and (d > dl or (d == dl and j > il)):
                    break  # this thread's later entries are larger still
                p = k - 1
                while p > 0:
                    dp = out_d[r, t, p - 1]
                    ip = out_i[r, t, p - 1]
                    if ip >= 0 and (dp < d or (dp == d and ip < j)):
                        break
                    out_d[r, t, p] = dp
                    out_i[r, t, p] = ip
                    p -= 1
                out_d[r, t, p] = d
                out_i[r, t, p] = j
