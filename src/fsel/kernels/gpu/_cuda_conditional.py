"""The CUDA kernels of :mod:`fsel.kernels.gpu.conditional`: CMI's conditioning joint
kept on the GPU, and its joint histograms counted over the rows sorted by ``Z``.

Imported, like :mod:`fsel.kernels.gpu._cuda_information`, only once a GPU (or numba's
simulator) is known to be usable; ``cache=True`` keeps the compiled kernels on disk.
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from fsel.kernels.gpu._cuda_information import _I32, _z_of

#: threads of a :func:`rank_present` block at most (its static shared array)
SCAN_THREADS = 1024


@cuda.jit(cache=True)
def mark_states(xb, n, K, j, s, a, present):
    """``present[s[r] * a + X[r, j]] = 1`` for every row ``r < n``: the states of the
    joint of ``S`` (codes ``s``) and feature ``j`` (``xb`` the flat row-major
    ``uint8`` codes, ``K`` features a row; ``a`` the feature's number of levels)."""
    r = cuda.grid(1)
    stride = cuda.gridsize(1)
    while r < n:
        present[np.int64(s[r]) * a + np.int64(xb[r * K + j])] = 1
        r += stride


@cuda.jit(cache=True)
def count_present(present, items, counts):
    """``counts[b]`` = the states present among the ``blockDim * items`` flags of block
    ``b`` (thread ``t`` reads the ``items`` consecutive flags from ``(b * blockDim +
    t) * items``): the first pass of :func:`rank_present`'s prefix sum."""
    b = cuda.blockIdx.x
    i0 = (b * cuda.blockDim.x + cuda.threadIdx.x) * items
    c = 0
    for i in range(i0, i0 + items):
        if i < present.shape[0] and present[i]:
            c += 1
    if c:
        cuda.atomic.add(counts, b, c)


@cuda.jit(cache=True)
def rank_present(present, items, offsets, rank):
    """``rank[i]`` = the number of states present below ``i`` (for ``i`` present): the
    rank of state ``i`` among the states present, which is :func:`~fsel.kernels.
    value_ranks.value_ranks`' code. ``offsets[b]`` is the number present before block
    ``b`` (the exclusive prefix sum of :func:`count_present`'s counts); within the
    block, one thread adds up the threads' counts in order (at most
    :data:`SCAN_THREADS`)."""
    sh = cuda.shared.array(SCAN_THREADS, np.int32)
    b = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    i0 = (b * cuda.blockDim.x + tid) * items
    c = 0
    for i in range(i0, i0 + items):
        if i < present.shape[0] and present[i]:
            c += 1
    sh[tid] = c
    cuda.syncthreads()
    if tid == 0:
        acc = 0
        for t in range(cuda.blockDim.x):
            v = sh[t]
            sh[t] = acc
            acc += v
    cuda.syncthreads()
    c = offsets[b] + sh[tid]
    for i in range(i0, i0 + items):
        if i < present.shape[0] and present[i]:
            rank[i] = c
            c += 1


@cuda.jit(cache=True)
def joint_states(xb, n, K, j, s, has_s, a, rank, out):
    """``out[r] = rank[s[r] * a + X[r, j]]`` for every row ``r < n`` (the joint's code
    from :func:`rank_present`); without ``has_s``, ``out[r] = X[r, j]`` (feature ``j``
    alone: its codes are the states)."""
    r = cuda.grid(1)
    stride = cuda.gridsize(1)
    while r < n:
        x = np.int64(xb[r * K + j])
        if has_s:
            out[r] = rank[np.int64(s[r]) * a + x]
        else:
            out[r] = x
        r += stride


@cuda.jit(device=True, inline=True)
def _block_rows(b, rows_per, n):
    """The rows ``r0 .. r1 - 1`` of block ``b``: ``rows_per`` from ``b * rows_per``,
    the last block's cut at ``n``."""
    r0 = b * rows_per
    r1 = r0 + rows_per
    return r0, (r1 if r1 < n else n)


@cuda.jit(cache=True)
def z_block_counts(s, ylab, use_lut, lut, ny, n, rows_per, nz, z, block_counts, totals):
    """``z[r] = s[r] * ny + Y[r]`` (``Y`` the class code: ``lut[ylab[r]]`` with
    ``use_lut``, else ``ylab[r]``), and block ``b``'s histogram of ``z`` over its rows
    ``b * rows_per ..`` in ``block_counts[b]`` (a shared-memory histogram of the ``nz``
    values, written whole), each value's count over all rows added to ``totals``."""
    sh = cuda.shared.array(0, _I32)
    b = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    for c in range(tid, nz, nt):
        sh[c] = 0
    cuda.syncthreads()
    r0, r1 = _block_rows(b, rows_per, n)
    for r in range(r0 + tid, r1, nt):
        v = _z_of(s[r], np.int32(ylab[r]), ny, True, use_lut, lut)
        z[r] = v
        cuda.atomic.add(sh, v, 1)
    cuda.syncthreads()
    for c in range(tid, nz, nt):
        v = sh[c]
        block_counts[b, c] = v
        if v:
            cuda.atomic.add(totals, c, np.int64(v))


@cuda.jit(cache=True)
def z_global_counts(s, ylab, use_lut, lut, ny, n, z, totals):
    """:func:`z_block_counts` for more values of ``z`` than a block's shared memory
    holds: ``z`` and its histogram ``totals``, counted in global memory."""
    r = cuda.grid(1)
    stride = cuda.gridsize(1)
    while r < n:
        v = _z_of(s[r], np.int32(ylab[r]), ny, True, use_lut, lut)
        z[r] = v
        cuda.atomic.add(totals, v, np.int64(1))
        r += stride


@cuda.jit(cache=True)
def block_bases(block_counts, offsets, nz):
    """Turn ``block_counts`` into each block's first position for each value:
    ``offsets[v]`` (the rows with a smaller ``z``) plus the rows of value ``v`` in the
    blocks before, in block order (one thread a value)."""
    v = cuda.grid(1)
    if v < nz:
        acc = offsets[v]
        for b in range(block_counts.shape[0]):
            c = block_counts[b, v]
            block_counts[b, v] = acc
            acc += c


@cuda.jit(cache=True)
def scatter_block(z, n, rows_per, nz, bases, perm, zs):
    """Counting sort of the rows by ``z``: row ``r`` of block ``b`` goes to a position
    taken from a shared-memory cursor per value started at ``bases[b]``
    (:func:`block_bases`): ``perm[p] = r`` and ``zs[p] = z[r]``. The order within a
    value is arbitrary, which no count depends on."""
    sh = cuda.shared.array(0, _I32)
    b = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    for c in range(tid, nz, nt):
        sh[c] = bases[b, c]
    cuda.syncthreads()
    r0, r1 = _block_rows(b, rows_per, n)
    for r in range(r0 + tid, r1, nt):
        v = z[r]
        p = cuda.atomic.add(sh, v, 1)
        perm[p] = r
        zs[p] = v


@cuda.jit(cache=True)
def scatter_global(z, n, cursor, perm, zs):
    """:func:`scatter_block` with one cursor per value in global memory (``cursor``
    starts at the value's first position)."""
    r = cuda.grid(1)
    stride = cuda.gridsize(1)
    while r < n:
        v = z[r]
        p = cuda.atomic.add(cursor, v, 1)
        perm[p] = r
        zs[p] = v
        r += stride


@cuda.jit(cache=True)
def hist_sorted(xb, K, perm, zs, tile_z0, tile_p0, tile_p1, k0, kc, group, span, nz, hist):
    """Joint histograms of ``(Xk, Z)`` over the rows sorted by ``Z``:
    ``hist[k - k0, X[r, k] * nz + Z[r]] += 1`` for the candidates ``k0 .. k0 + kc - 1``.

    Block ``(t, g)`` counts the sorted positions ``tile_p0[t] .. tile_p1[t]``, whose
    ``Z`` lie in ``tile_z0[t] .. tile_z0[t] + span - 1``, for the ``group`` candidates
    ``k0 + g * group ..``: a shared-memory histogram of ``group x levels x span`` cells
    (``levels`` is ``hist``'s cells over ``nz``), then one global atomic add per
    non-empty cell. Consecutive threads read consecutive bytes of a row (``xb`` the
    flat row-major ``uint8`` codes, row ``perm[p]``), so however many values ``Z``
    has, the counts stay in shared memory.
    """
    sh = cuda.shared.array(0, _I32)
    t = cuda.blockIdx.x
    f0 = cuda.blockIdx.y * group
    gc = kc - f0
    if gc > group:
        gc = group
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    width = hist.shape[1] // nz * span  # levels x span cells a candidate
    for c in range(tid, gc * width, nt):
        sh[c] = 0
    cuda.syncthreads()
    z0 = tile_z0[t]
    p0 = tile_p0[t]
    total = (tile_p1[t] - p0) * gc
    base = np.uint64(k0 + f0)
    uK = np.uint64(K)
    # item i = q gc + f (sorted position p0 + q, candidate f), q and f stepped along
    # with i: no division in the loop; cells in 32 bits, row offsets unsigned
    dq = nt // gc
    df = nt - dq * gc
    q = tid // gc
    f = tid - q * gc
    i = tid
    while i < total:
        p = np.uint32(p0 + q)  # a sorted position: below n < 2^31
        x = np.uint32(xb[np.uint64(perm[p]) * uK + base + np.uint64(f)])
        cell = np.uint32(f * width) + x * np.uint32(span) + np.uint32(zs[p] - z0)
        cuda.atomic.add(sh, cell, 1)
        i += nt
        q += dq
        f += df
        if f >= gc:
            f -= gc
            q += 1
    cuda.syncthreads()
    for c in range(tid, gc * width, nt):
        v = sh[c]
        if v:
            f = c // width
            rem = c - f * width
            x = rem // span
            cuda.atomic.add(hist, (f0 + f, x * nz + z0 + rem - x * span), v)
