"""The CUDA kernels of :mod:`fsel.kernels.gpu.information` (numba's CUDA target).

This module imports ``numba.cuda`` when it is imported: only
:mod:`fsel.kernels.gpu.information` imports it, inside functions, once a GPU (or
numba's simulator) is known to be usable. ``cache=True``: a second process loads the
compiled kernels from numba's cache instead of compiling them again.
"""

from __future__ import annotations

import os

import numpy as np
from numba import cuda

#: int32 cells of the shared-memory histograms of one thread block at most (48 KiB)
SHARED_CELLS = 12288

# the dynamic shared array's element type: numba's documented ``np.int32``; numba's
# simulator needs a dtype instance there (it reads ``dtype.itemsize``)
_SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
_I32 = np.dtype(np.int32) if _SIM else np.int32

#: registers a thread of :func:`hist_lane_words` may use: 1,024 threads on a
#: multiprocessor's 65,536 (ptxas, CUDA 13, sm_90: 72 unbounded, 64 without a spill);
#: numba's simulator takes no such option
_LANE_REGISTERS = {} if _SIM else {"max_registers": 64}


@cuda.jit(cache=True)
def hist_shared(words, z, packed, n, nz, cells, n_sub, hist):
    """Joint histograms of ``(Xk, Z)`` in shared memory.

    ``hist[k, x * nz + z] += #{r < n : Xk[r] = x, Z[r] = z}`` for the candidates ``k``
    of the grid's ``y`` dimension, ``words[k]`` holding four ``uint8`` codes per
    4-byte word (row ``r`` in byte ``r % 4`` of word ``r // 4``) and ``Z[r]`` read
    the same way from a ``uint32`` array (``packed``, four ``uint8`` values a word) or
    as element ``r`` (packed: one load of ``Z`` per word of four whole rows). Each
    block counts a strided share of the words into ``n_sub``
    copies of the ``cells``-cell histogram (warp ``w`` writes copy ``w % n_sub``,
    which spreads the atomic adds), then adds their sum to ``hist``, one atomic add
    per non-empty cell. The shared array is dynamic: launched with ``cells * n_sub * 4``
    bytes, so a small histogram leaves room for more resident blocks.
    """
    sh = cuda.shared.array(0, _I32)
    k = cuda.blockIdx.y
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    for c in range(tid, cells * n_sub, nt):
        sh[c] = 0
    cuda.syncthreads()
    base = ((tid // 32) % n_sub) * cells
    n_words = words.shape[1]
    w = cuda.blockIdx.x * nt + tid
    stride = cuda.gridDim.x * nt
    while w < n_words:
        word = words[k, w]
        r0 = w * 4
        if packed and r0 + 4 <= n:  # four whole rows: Z's four bytes in one load
            zw = z[w]
            for i in range(4):
                x = (word >> (8 * i)) & 0xFF
                zr = (zw >> (8 * i)) & 0xFF
                cuda.atomic.add(sh, base + x * nz + zr, 1)
        else:
            for i in range(4):
                r = r0 + i
                if r < n:
                    x = (word >> (8 * i)) & 0xFF
                    zr = (z[r >> 2] >> ((r & 3) * 8)) & 0xFF if packed else z[r]
                    cuda.atomic.add(sh, base + x * nz + zr, 1)
        w += stride
    cuda.syncthreads()
    for c in range(tid, cells, nt):
        tot = 0
        for s in range(n_sub):
            tot += sh[s * cells + c]
        if tot:
            cuda.atomic.add(hist, (k, c), tot)


@cuda.jit(cache=True)
def hist_global(codes, z, packed, n, nz, hist):
    """Joint histograms of ``(Xk, Z)`` in global memory: ``hist[k, Xk[r] * nz +
    Z[r]] += 1`` for every row ``r < n`` (one atomic add per row and candidate), for
    histograms larger than :data:`SHARED_CELLS` or codes wider than a byte."""
    k = cuda.blockIdx.y
    r = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    stride = cuda.gridDim.x * cuda.blockDim.x
    while r < n:
        zr = (z[r >> 2] >> ((r & 3) * 8)) & 0xFF if packed else z[r]
        cuda.atomic.add(hist, (k, np.int32(codes[k, r]) * nz + zr), 1)
        r += stride


@cuda.jit(cache=True)
def pair_z(codes, j, y, mult, n, out):
    """``out[r] = codes[j, r] * mult + y[r]`` for ``r < n``: the step's ``Z = Xj |Y|
    + Y`` (or ``Xj`` alone, ``y`` zero and ``mult`` 1)."""
    r = cuda.grid(1)
    stride = cuda.gridsize(1)
    while r < n:
        out[r] = np.int32(codes[j, r]) * mult + y[r]
        r += stride


#: rows and columns of the tile :func:`transpose_codes` moves through shared memory
TILE = 8 if _SIM else 64
#: the tile's row length in shared memory (one byte of padding: fewer bank conflicts)
TILE_PAD = TILE + 1


@cuda.jit(cache=True)
def transpose_codes(x, out):
    """``out[k, r] = x[r, k]`` for ``r < n``, 0 in the padding rows ``r >= n``:
    feature-major codes from a sample-major matrix of values ``0..255``. Block ``(b,
    c)`` moves the ``TILE x TILE`` tile of rows ``b * TILE ...`` and columns ``c * TILE
    ...`` through shared memory: it reads the tile row by row (consecutive threads,
    consecutive bytes of a row of ``x``) and writes it column by column (consecutive
    threads, consecutive rows of ``out``), so both sides are coalesced."""
    tile = cuda.shared.array((TILE, TILE_PAD), np.uint8)
    r0 = cuda.blockIdx.x * TILE
    k0 = cuda.blockIdx.y * TILE
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    n, K = x.shape
    for i in range(tid, TILE * TILE, nt):
        rr = i // TILE
        kk = i - rr * TILE
        if r0 + rr < n and k0 + kk < K:
            tile[rr, kk] = x[r0 + rr, k0 + kk]
        else:
            tile[rr, kk] = 0
    cuda.syncthreads()
    for i in range(tid, TILE * TILE, nt):
        kk = i // TILE
        rr = i - kk * TILE
        if k0 + kk < K and r0 + rr < out.shape[1]:
            out[k0 + kk, r0 + rr] = tile[rr, kk]


@cuda.jit(cache=True)
def column_range(x, rows_per, lo, hi):
    """``lo[k] = min_r x[r, k]`` and ``hi[k] = max_r x[r, k]`` (int64): thread ``k`` of
    block row ``b`` scans rows ``b * rows_per ...`` of column ``k`` (a warp reads
    consecutive columns of a row), then one atomic min and max per thread."""
    k = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    r0 = cuda.blockIdx.y * rows_per
    n, K = x.shape
    if k < K and r0 < n:
        vlo = np.int64(x[r0, k])
        vhi = vlo
        end = r0 + rows_per
        if end > n:
            end = n
        for r in range(r0 + 1, end):
            v = np.int64(x[r, k])
            if v < vlo:
                vlo = v
            if v > vhi:
                vhi = v
        cuda.atomic.min(lo, k, vlo)
        cuda.atomic.max(hi, k, vhi)


# --------------------------------------------------------------------------------------
# Row-major kernels: the codes exactly as the caller gave them on the GPU, ``(n, K)``
# ``uint8`` in C order (no feature-major copy), read as 4-byte words of 4 features.

#: entries of the label lookup table (a ``uint8`` label maps to its code)
LUT_SIZE = 256


@cuda.jit(device=True, inline=True)
def _z_of(xj, yr, zmul, has_z, use_lut, lut):
    """The row kernels' ``Z`` from a row's ``X[r, j]`` (``xj``) and ``z[r]`` (``yr``):
    ``xj * zmul + (lut[yr] if use_lut else yr)``, the second term only when ``has_z``
    (``zmul`` is ``mult``, or 0 without a feature term), as ``uint32``."""
    zv = np.int32(xj) * zmul
    if has_z:
        if use_lut:
            zv += lut[yr]
        else:
            zv += yr
    return np.uint32(zv)


@cuda.jit(device=True, inline=True)
def _row_z(xb, r, K, j, mult, z, has_z, use_lut, lut):
    """:func:`_z_of` of row ``r``, reading only what it needs: ``X[r, j]`` where ``j >=
    0`` (``xb`` the flat row-major ``uint8`` codes, ``K`` features a row; else no
    feature term) and ``z[r]`` where ``has_z``."""
    xj = xb[r * K + j] if j >= 0 else np.uint8(0)
    yr = np.int32(z[r]) if has_z else np.int32(0)
    return _z_of(xj, yr, mult if j >= 0 else 0, has_z, use_lut, lut)


@cuda.jit(cache=True)
def hist_rows(
    words, xb, n, K, group, wpr, j, mult, z, has_z, use_lut, lut, nz, cells, n_sub, half, hist
):
    """Joint histograms of ``(Xk, Z)`` from row-major ``uint8`` codes, in shared memory.

    ``hist[k, x * nz + Z[r]] += #{r < n : X[r, k] = x}`` for the ``group`` features
    ``k = f0 ... f0 + group - 1`` of grid row ``blockIdx.y`` (``f0 = blockIdx.y *
    group``), with

        ``Z[r] = (X[r, j] * mult if j >= 0 else 0) + (lut[z[r]] if use_lut else z[r])``

    (the ``z`` term only when ``has_z``): ``Z = Xj |Y| + Y``, ``Xj``, ``Y`` or a
    conditioning joint made on the host. ``xb`` is the matrix as one flat ``uint8``
    array (``xb[r * K + k] = X[r, k]``) and ``words`` its first ``4 * words.size``
    bytes as ``uint32`` words (byte ``i`` of word ``w``: ``xb[4 w + i]``): a thread
    reads one word, four consecutive features of a row, and adds the bytes of it
    that belong to the block's features; the row's span of the group takes at most
    ``wpr`` words, the block's threads take the ``(row, word)`` slots of a tile of
    ``max(1, blockDim // wpr)`` rows, so a warp reads consecutive words of
    consecutive rows (coalesced) and its atomic adds mostly go to different
    features' histograms. The block's ``group x cells`` histogram lives in shared
    memory (``n_sub`` copies, warp ``w`` writing copy ``w % n_sub``; launched with
    4 bytes per word of them), and is added to ``hist`` at the end, one global atomic
    add per non-empty cell per block. With ``half``, two cells share a 32-bit word
    (cell ``c`` in bits ``16 (c % 2)`` of word ``c // 2``, counted by adding ``1 <<
    16 (c % 2)``): half the shared memory, so more features per block, exact as long
    as no block counts more than 65535 rows (the host sizes the grid so). The labels'
    lookup table (:data:`LUT_SIZE` entries) is copied to shared memory first.
    """
    sh = cuda.shared.array(0, _I32)
    lsh = cuda.shared.array(LUT_SIZE, np.int32)
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    f0 = cuda.blockIdx.y * group
    nf = K - f0
    if nf > group:
        nf = group
    size = group * cells
    if half:
        size = (size + 1) // 2  # words per copy
    for c in range(tid, size * n_sub, nt):
        sh[c] = 0
    if use_lut:
        for c in range(tid, LUT_SIZE, nt):
            lsh[c] = lut[c]
    cuda.syncthreads()
    base = ((tid // 32) % n_sub) * size
    n_words = words.shape[0]
    n_bytes = xb.shape[0]
    tile = nt // wpr
    if tile < 1:
        tile = 1
    for item in range(tid, tile * wpr, nt):
        rr = item // wpr
        s = item - rr * wpr
        r = cuda.blockIdx.x * tile + rr
        while r < n:
            b0 = r * K + f0
            w = (b0 >> 2) + s
            if w * 4 < b0 + nf:
                zv = _row_z(xb, r, K, j, mult, z, has_z, use_lut, lsh)
                if w < n_words:
                    word = words[w]
                else:  # the last bytes, past the whole words
                    word = np.uint32(0)
                    for i in range(4):
                        if w * 4 + i < n_bytes:
                            word |= np.uint32(xb[w * 4 + i]) << np.uint32(8 * i)
                for i in range(4):
                    fl = w * 4 + i - b0
                    if fl >= 0 and fl < nf:
                        x = (word >> np.uint32(8 * i)) & np.uint32(0xFF)
                        cell = fl * cells + x * nz + zv
                        if half:
                            one = np.int32(1) << np.int32((cell & 1) * 16)
                            cuda.atomic.add(sh, base + (cell >> 1), one)
                        else:
                            cuda.atomic.add(sh, base + cell, 1)
            r += cuda.gridDim.x * tile
    cuda.syncthreads()
    for c in range(tid, nf * cells, nt):
        tot = 0
        for s in range(n_sub):
            if half:
                tot += (sh[s * size + (c >> 1)] >> ((c & 1) * 16)) & 0xFFFF
            else:
                tot += sh[s * size + c]
        if tot:
            fl = c // cells
            cuda.atomic.add(hist, (f0 + fl, c - fl * cells), tot)


@cuda.jit(device=True, inline=True)
def _lane_count(sh, x, nz, zq, col, half):
    """One count of cell ``c = x nz + zq`` in the lane's column of shared histograms
    that starts at word ``col`` (word ``col + 32 c``, or with ``half`` the 16-bit half
    ``c % 2`` of word ``col + 32 (c // 2)``). The arguments are ``uint32`` and every
    result is cut back to 32 bits: 32-bit arithmetic, and an unsigned index (no
    negative-index wraparound in the address)."""
    cell = np.uint32(np.uint32(x) * nz + zq)
    if half:
        at = np.uint32(col + ((cell >> np.uint32(1)) << np.uint32(5)))
        one = np.uint32(np.uint32(1) << ((cell & np.uint32(1)) << np.uint32(4)))
        cuda.atomic.add(sh, at, np.int32(one))
    else:
        cuda.atomic.add(sh, np.uint32(col + (cell << np.uint32(5))), 1)


@cuda.jit(cache=True)
def hist_lanes(
    xb, n, K, nf, rows_per, tile, j, mult, z, has_z, use_lut, lut, nz, cells, half, hist
):
    """Joint histograms of ``(Xk, Z)`` from row-major ``uint8`` codes, one shared-memory
    bank per lane: the counts of :func:`hist_rows`, without bank conflicts.

    ``hist[f0 + f, x * nz + Z[r]] += #{r : X[r, f0 + f] = x}`` for the ``nf`` features
    ``f0 .. f0 + nf - 1`` of grid row ``blockIdx.y`` (``f0 = blockIdx.y * nf``), over
    the rows ``blockIdx.x * rows_per .. + rows_per - 1`` (fewer in the last block),
    ``Z`` as in :func:`hist_rows`. A warp takes one row at a time; lane ``l`` reads the bytes of
    features ``f = l, l + 32, l + 64, l + 96`` of it (``nf <= 128``; 32 consecutive
    bytes per read) and adds one to cell ``c = x nz + Z`` of its own column of the
    shared histograms: word ``(s cw + c') 32 + l`` for ``f = 32 s + l`` (``cw`` words
    per feature, ``c' = c`` or, with ``half``, ``c // 2`` with the count in the 16-bit
    half ``c % 2``). Every lane of an atomic add hits its own bank (the word's index is
    ``l`` modulo 32), and no two lanes of one add share a word. The block's threads
    first write the ``Z`` of ``tile`` rows to shared memory (reading ``y`` and ``Xj``
    once per row), and the warps then take those rows in turn. With ``half`` a block
    must count at most 65535 rows (the host sizes ``rows_per`` so). At the end each
    non-empty cell is added to ``hist`` with one global atomic add. Launched with
    ``4 * 32 * cw * ceil(nf / 32) + 4 * tile`` bytes of dynamic shared memory.
    """
    sh = cuda.shared.array(0, _I32)
    lsh = cuda.shared.array(LUT_SIZE, np.int32)
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    lane = tid % 32
    warp = tid // 32
    n_warps = nt // 32  # (launched with whole warps)
    fb = cuda.blockIdx.y * nf
    nfb = K - fb
    if nfb > nf:
        nfb = nf
    cw = cells
    if half:
        cw = (cells + 1) // 2
    slices = (nf + 31) // 32
    size = slices * cw * 32
    for c in range(tid, size + tile, nt):
        sh[c] = 0
    if use_lut:
        for c in range(tid, LUT_SIZE, nt):
            lsh[c] = lut[c]
    cuda.syncthreads()
    ul = np.uint32(lane)
    unz = np.uint32(nz)
    stride = np.uint32(cw * 32)  # words between the columns of two slices
    r_begin = cuda.blockIdx.x * rows_per
    r_end = r_begin + rows_per
    if r_end > n:
        r_end = n
    for t0 in range(r_begin, r_end, tile):
        for q in range(tid, tile, nt):
            r = t0 + q
            if r < r_end:
                sh[size + q] = _row_z(xb, r, K, j, mult, z, has_z, use_lut, lsh)
        cuda.syncthreads()
        for q in range(warp, tile, n_warps):
            r = t0 + q
            if r < r_end:
                zq = np.uint32(sh[np.uint32(size + q)])
                at = np.uint64(r * K + fb + lane)  # this lane's byte of slice 0
                # up to four slices of 32 features, their bytes read before counting
                x0 = xb[at] if lane < nfb else np.uint8(0)
                x1 = xb[at + np.uint64(32)] if lane + 32 < nfb else np.uint8(0)
                x2 = xb[at + np.uint64(64)] if lane + 64 < nfb else np.uint8(0)
                x3 = xb[at + np.uint64(96)] if lane + 96 < nfb else np.uint8(0)
                if lane < nfb:
                    _lane_count(sh, x0, unz, zq, ul, half)
                if lane + 32 < nfb:
                    _lane_count(sh, x1, unz, zq, np.uint32(ul + stride), half)
                if lane + 64 < nfb:
                    _lane_count(sh, x2, unz, zq, np.uint32(ul + 2 * stride), half)
                if lane + 96 < nfb:
                    _lane_count(sh, x3, unz, zq, np.uint32(ul + 3 * stride), half)
        cuda.syncthreads()
    for c in range(tid, nfb * cells, nt):
        f = c // cells
        cell = c - f * cells
        col = (f // 32) * cw
        if half:
            v = (sh[(col + (cell >> 1)) * 32 + f % 32] >> ((cell & 1) * 16)) & 0xFFFF
        else:
            v = sh[(col + cell) * 32 + f % 32]
        if v:
            cuda.atomic.add(hist, (fb + f, cell), v)


@cuda.jit(device=True, inline=True)
def _lane_word(sh, word, nz, zq, col, stride, half):
    """The four codes of one 4-byte ``word`` counted by :func:`_lane_count`: byte
    ``i`` (bits ``8 i .. 8 i + 7``) in the lane's column of slice ``i``, which starts
    at word ``col + i * stride``. ``uint32`` arguments, 32-bit arithmetic."""
    for i in range(4):
        x = (word >> np.uint32(8 * i)) & np.uint32(0xFF)
        _lane_count(sh, x, nz, zq, np.uint32(col + np.uint32(i) * stride), half)


@cuda.jit(device=True, inline=True)
def _word_at(xw, r, r_end, wpr, wb, ok):
    """Word ``wb`` of row ``r`` (``xw[r * wpr + wb]``), or 0 where the lane has no
    word (``ok`` false) or the row is past ``r_end``."""
    if ok and r < r_end:
        return xw[r * wpr + wb]
    return np.uint32(0)


@cuda.jit(device=True, inline=True)
def _at_most(v, hi):
    """``min(v, hi)`` (which not every numba CUDA target types)."""
    return v if v < hi else hi


@cuda.jit(cache=True, **_LANE_REGISTERS)
def hist_lane_words(xw, xb, n, K, rows_per, j, mult, z, has_z, use_lut, lut, nz, cells, half, hist):
    """The counts of :func:`hist_lanes`, each row read as 4-byte words, eight rows a
    warp at a time, ``Z`` made by every lane as it goes.

    For ``K % 4 == 0`` (``xw``: the flat codes ``xb`` as ``uint32`` words, row ``r``
    in words ``r K / 4 .. (r + 1) K / 4 - 1``). Grid row ``blockIdx.y`` counts the
    features ``f0 .. f0 + 127`` (``f0 = 128 blockIdx.y``, fewer in the last); lane
    ``l`` of a warp reads word ``f0 / 4 + l`` of a row, features ``f0 + 4 l + i``
    (``i < 4``), one coalesced 128-byte read a warp, and adds one per byte to its own
    column of slice ``i`` of the shared histograms: word ``(i cw + c') 32 + l``
    (``cw``, ``c'`` and ``half`` as in :func:`hist_lanes`), so every lane of an atomic
    add still hits its own bank. A warp takes eight consecutive rows at a time: it
    first loads their words and their ``Z`` (:func:`_row_z`; every lane reads the
    same ``X[r, j]`` and ``y[r]``, one broadcast read each, from the rows the warp is
    reading anyway), then counts them. Eight rows in flight a warp where
    :func:`hist_lanes` has one, and no block-wide barrier between rows: what a pass
    bound by the memory's latency needs. Launched with ``4 * 4 * 32 * cw`` bytes of
    dynamic shared memory; at most 65535 rows a block with ``half``.
    """
    sh = cuda.shared.array(0, _I32)
    lsh = cuda.shared.array(LUT_SIZE, np.int32)
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    lane = tid % 32
    n_warps = nt // 32
    fb = cuda.blockIdx.y * 128
    nfb = K - fb
    if nfb > 128:
        nfb = 128
    cw = cells
    if half:
        cw = (cells + 1) // 2
    for c in range(tid, 4 * cw * 32, nt):
        sh[c] = 0
    if use_lut:
        for c in range(tid, LUT_SIZE, nt):
            lsh[c] = lut[c]
    cuda.syncthreads()
    ul = np.uint32(lane)
    unz = np.uint32(nz)
    stride = np.uint32(cw * 32)
    wpr = K // 4
    wb = fb // 4 + lane
    ok = lane * 4 < nfb
    r_begin = cuda.blockIdx.x * rows_per
    r_end = r_begin + rows_per
    if r_end > n:
        r_end = n
    jj = j if j >= 0 else 0  # X[r, j] read in every case (a row being read anyway)
    zmul = mult if j >= 0 else 0
    for r in range(r_begin + (tid // 32) * 8, r_end, n_warps * 8):
        # every load of the eight rows first, with no branch between them (rows past
        # r_end read the last row again, and are not counted). Written out row by row:
        # the same loops over local arrays compile to the same loads but spill at 64
        # registers (ptxas, sm_90)
        w0 = _word_at(xw, r, r_end, wpr, wb, ok)
        w1 = _word_at(xw, r + 1, r_end, wpr, wb, ok)
        w2 = _word_at(xw, r + 2, r_end, wpr, wb, ok)
        w3 = _word_at(xw, r + 3, r_end, wpr, wb, ok)
        w4 = _word_at(xw, r + 4, r_end, wpr, wb, ok)
        w5 = _word_at(xw, r + 5, r_end, wpr, wb, ok)
        w6 = _word_at(xw, r + 6, r_end, wpr, wb, ok)
        w7 = _word_at(xw, r + 7, r_end, wpr, wb, ok)
        last = r_end - 1
        r1, r2, r3 = _at_most(r + 1, last), _at_most(r + 2, last), _at_most(r + 3, last)
        r4, r5, r6 = _at_most(r + 4, last), _at_most(r + 5, last), _at_most(r + 6, last)
        r7 = _at_most(r + 7, last)
        x0, x1, x2, x3 = xb[r * K + jj], xb[r1 * K + jj], xb[r2 * K + jj], xb[r3 * K + jj]
        x4, x5, x6, x7 = xb[r4 * K + jj], xb[r5 * K + jj], xb[r6 * K + jj], xb[r7 * K + jj]
        y0, y1, y2, y3, y4, y5, y6, y7 = z[r], z[r1], z[r2], z[r3], z[r4], z[r5], z[r6], z[r7]
        if ok:
            _lane_word(sh, w0, unz, _z_of(x0, y0, zmul, has_z, use_lut, lsh), ul, stride, half)
            if r + 1 < r_end:
                z1 = _z_of(x1, y1, zmul, has_z, use_lut, lsh)
                _lane_word(sh, w1, unz, z1, ul, stride, half)
            if r + 2 < r_end:
                z2 = _z_of(x2, y2, zmul, has_z, use_lut, lsh)
                _lane_word(sh, w2, unz, z2, ul, stride, half)
            if r + 3 < r_end:
                z3 = _z_of(x3, y3, zmul, has_z, use_lut, lsh)
                _lane_word(sh, w3, unz, z3, ul, stride, half)
            if r + 4 < r_end:
                z4 = _z_of(x4, y4, zmul, has_z, use_lut, lsh)
                _lane_word(sh, w4, unz, z4, ul, stride, half)
            if r + 5 < r_end:
                z5 = _z_of(x5, y5, zmul, has_z, use_lut, lsh)
                _lane_word(sh, w5, unz, z5, ul, stride, half)
            if r + 6 < r_end:
                z6 = _z_of(x6, y6, zmul, has_z, use_lut, lsh)
                _lane_word(sh, w6, unz, z6, ul, stride, half)
            if r + 7 < r_end:
                z7 = _z_of(x7, y7, zmul, has_z, use_lut, lsh)
                _lane_word(sh, w7, unz, z7, ul, stride, half)
    cuda.syncthreads()
    for c in range(tid, nfb * cells, nt):
        f = c // cells
        cell = c - f * cells
        col = (f % 4) * cw
        if half:
            v = (sh[(col + (cell >> 1)) * 32 + f // 4] >> ((cell & 1) * 16)) & 0xFFFF
        else:
            v = sh[(col + cell) * 32 + f // 4]
        if v:
            cuda.atomic.add(hist, (fb + f, cell), v)


@cuda.jit(cache=True)
def hist_rows_global(xb, n, K, k0, kc, j, mult, z, has_z, use_lut, lut, nz, hist):
    """:func:`hist_rows`' counts in global memory, one atomic add per cell of ``X``,
    for the ``kc`` candidates ``k0 .. k0 + kc - 1``: ``hist[k, X[r, k0 + k] * nz +
    Z[r]] += 1`` for every ``r < n`` and ``k < kc`` (``Z`` as there, ``lut`` read from
    global memory), for histograms too large for shared memory (the candidates taken
    in groups whose counts fit the memory budget). Consecutive threads take
    consecutive bytes of a row of ``xb``."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    total = n * kc
    while i < total:
        r = i // kc
        k = i - r * kc
        zv = _row_z(xb, r, K, j, mult, z, has_z, use_lut, lut)
        cuda.atomic.add(hist, (k, np.int32(xb[r * K + k0 + k]) * nz + zv), 1)
        i += stride


@cuda.jit(cache=True)
def zero_cells(a):
    """``a[...] = 0`` for a 2-D ``int32`` array (the histograms, before a pass)."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    n1 = a.shape[1]
    while i < a.shape[0] * n1:
        r = i // n1
        a[r, i - r * n1] = 0
        i += stride


@cuda.jit(cache=True)
def byte_counts(v, counts):
    """``counts[b] += #{i : v[i] = b}`` for a ``uint8`` array ``v`` (256 ``int64``
    counts): a shared-memory histogram per block, then one global atomic add per
    non-empty bin. The labels' values, counted where they already are."""
    sh = cuda.shared.array(LUT_SIZE, np.int32)
    tid = cuda.threadIdx.x
    for c in range(tid, LUT_SIZE, cuda.blockDim.x):
        sh[c] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < v.shape[0]:
        cuda.atomic.add(sh, np.int32(v[i]), 1)
        i += stride
    cuda.syncthreads()
    for c in range(tid, LUT_SIZE, cuda.blockDim.x):
        if sh[c]:
            cuda.atomic.add(counts, c, np.int64(sh[c]))


@cuda.jit(cache=True)
def column_rows(xb, n, K, j, out):
    """``out[r] = X[r, j]`` for ``r < n`` (``xb`` the flat row-major ``uint8``
    matrix): one feature's codes, for the host (CMI's conditioning joint)."""
    r = cuda.grid(1)
    stride = cuda.gridsize(1)
    while r < n:
        out[r] = xb[r * K + j]
        r += stride


@cuda.jit(cache=True)
def narrow_codes(x, out):
    """``out[r, k] = x[r, k]``: integer codes of any dtype and layout (already checked
    to lie in ``0..255``) as a C-order ``uint8`` matrix."""
    r, k = cuda.grid(2)
    if r < x.shape[0] and k < x.shape[1]:
        out[r, k] = x[r, k]
