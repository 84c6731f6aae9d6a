"""The CUDA kernels of :mod:`fsel.kernels.gpu.information_columns` (numba's CUDA
target): a feature-major copy of row-major ``uint8`` codes made once, and the greedy
step's joint histograms counted from it, eight rows of a candidate per 8-byte load.

Imported only by that module, inside functions, once a GPU (or numba's simulator) is
known to be usable. ``cache=True``: a second process loads the compiled kernels from
numba's cache.
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from fsel.kernels.gpu._cuda_information import _I32, _SIM, LUT_SIZE

#: rows of the tile :func:`columns_from_rows` moves through shared memory (a multiple
#: of 8: whole 8-row words of every feature)
COLUMN_TILE_ROWS = 16 if _SIM else 128
#: features of that tile (a multiple of 4: whole 4-byte words of a row)
COLUMN_TILE_FEATURES = 8 if _SIM else 64
#: the tile's row length in shared memory: one padding byte per 4-byte word
#: would break the word reads, so the padding is 4 bytes (fewer bank conflicts)
COLUMN_TILE_PAD = COLUMN_TILE_ROWS + 4

_FF = np.uint64(0xFF)
_NO_SHIFT = np.uint32(0)
#: registers a thread of :func:`hist_columns` takes (ptxas, CUDA 13, sm_90; held to 32
#: it would spill): its grid counts the blocks a multiprocessor holds with them
#: (tests/test_gpu.py checks)
COLUMN_REGISTERS = 40


@cuda.jit(cache=True)
def columns_from_rows(words, xb, n, K, aligned, out):
    """``out[k, r // 8]`` byte ``r % 8`` ``= X[r, k]`` (0 for the padding rows ``r >=
    n``): the feature-major copy of the row-major ``uint8`` matrix ``X`` (``xb`` its
    flat bytes, ``xb[r * K + k] = X[r, k]``; ``words`` the same bytes as ``uint32``),
    written as ``uint64`` words of eight consecutive rows of one feature.

    Block ``(b, c)`` moves the tile of :data:`COLUMN_TILE_ROWS` rows from ``b *
    COLUMN_TILE_ROWS`` and :data:`COLUMN_TILE_FEATURES` features from ``c *
    COLUMN_TILE_FEATURES`` through shared memory, stored feature by feature. With
    ``aligned`` (``K % 4 == 0`` and ``xb`` on a 4-byte boundary) it reads the rows as
    4-byte words, consecutive threads reading consecutive words of a row; otherwise
    byte by byte. It writes each feature's rows as 8-byte words, consecutive threads
    writing consecutive words of a feature: both sides are coalesced.
    """
    tile = cuda.shared.array((COLUMN_TILE_FEATURES, COLUMN_TILE_PAD), np.uint8)
    r0 = cuda.blockIdx.x * COLUMN_TILE_ROWS
    c0 = cuda.blockIdx.y * COLUMN_TILE_FEATURES
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    if aligned:
        per_row = COLUMN_TILE_FEATURES // 4
        for item in range(tid, COLUMN_TILE_ROWS * per_row, nt):
            rr = item // per_row
            m = item - rr * per_row
            r = r0 + rr
            c = c0 + 4 * m
            word = np.uint32(0)
            if r < n and c < K:
                word = words[(r * K + c) >> 2]
            for i in range(4):
                tile[4 * m + i, rr] = np.uint8((word >> np.uint32(8 * i)) & np.uint32(0xFF))
    else:
        for item in range(tid, COLUMN_TILE_ROWS * COLUMN_TILE_FEATURES, nt):
            rr = item // COLUMN_TILE_FEATURES
            cc = item - rr * COLUMN_TILE_FEATURES
            r = r0 + rr
            v = np.uint8(0)
            if r < n and c0 + cc < K:
                v = xb[r * K + c0 + cc]
            tile[cc, rr] = v
    cuda.syncthreads()
    per_feature = COLUMN_TILE_ROWS // 8
    q0 = r0 // 8
    for item in range(tid, COLUMN_TILE_FEATURES * per_feature, nt):
        cc = item // per_feature
        q = item - cc * per_feature
        if c0 + cc < K and q0 + q < out.shape[1]:
            v = np.uint64(0)
            for i in range(8):
                v |= np.uint64(tile[cc, 8 * q + i]) << np.uint64(8 * i)
            out[c0 + cc, q0 + q] = v


# The block's start and end of a counting kernel. Device functions stay in the module
# of the kernels that call them: numba's CUDA simulator swaps a module's ``cuda`` for
# each simulated thread, and a call across modules can see the real one mid-block.
@cuda.jit(device=True, inline=True)
def block_prologue(sh, n_cells, lsh, lut, use_lut):
    """A counting block's start: zero the first ``n_cells`` words of its shared
    histograms ``sh`` and, with ``use_lut``, copy the labels' lookup table ``lut``
    (:data:`LUT_SIZE` entries) to shared memory (``lsh``); then a barrier."""
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    for c in range(tid, n_cells, nt):
        sh[c] = 0
    if use_lut:
        for c in range(tid, LUT_SIZE, nt):
            lsh[c] = lut[c]
    cuda.syncthreads()


@cuda.jit(device=True, inline=True)
def block_merge(sh, size, n_sub, n_cells, cells, k0, hist):
    """A counting block's end (after a barrier): add the sum of the ``n_sub`` copies
    (``size`` words apart) of each of the first ``n_cells`` cells of its shared
    histograms to ``hist[k0 + c // cells, c % cells]``, one global atomic add per
    non-empty cell."""
    for c in range(cuda.threadIdx.x, n_cells, cuda.blockDim.x):
        tot = 0
        for s in range(n_sub):
            tot += sh[s * size + c]
        if tot:
            kl = c // cells
            cuda.atomic.add(hist, (k0 + kl, c - kl * cells), tot)


@cuda.jit(device=True, inline=True)
def _z_word(cols, y64, w, j, mult, has_z, use_lut, lut):
    """The step's ``Z`` of the eight rows of word ``w``, one byte a row, packed in a
    ``uint64``: ``(X[r, j] * mult if j >= 0 else 0) + (lut[y[r]] if use_lut else
    y[r])``, the label term only when ``has_z`` (every ``Z`` below 256)."""
    xj = cols[j, w] if j >= 0 else np.uint64(0)
    yw = y64[w] if has_z else np.uint64(0)
    zq = np.uint64(0)
    for i in range(8):
        sh = np.uint64(8 * i)
        zv = np.int32(0)
        if j >= 0:
            zv = np.int32((xj >> sh) & _FF) * mult
        if has_z:
            yb = np.int32((yw >> sh) & _FF)
            zv += lut[yb] if use_lut else yb
        zq |= np.uint64(zv) << sh
    return zq


@cuda.jit(device=True, inline=True)
def _count_word(sh, at, word, zq, nz, valid, shift):
    """Add the first ``valid`` of the eight rows of one candidate's 8-byte ``word``
    (``Z`` bytes in ``zq``) to its histogram in shared memory, which starts at
    ``at``: cell ``c = x * nz + z`` is word ``at + (c << shift)`` (``shift`` 0 for
    :func:`hist_columns`' contiguous histograms, log2 of :data:`OWNED_LANES` for
    :func:`hist_owned`'s columns of a lane). ``at``, ``nz`` and ``shift`` are
    ``uint32`` (cell arithmetic in 32 bits, no negative-index check); a whole word's
    eight adds are unconditional."""
    if valid >= 8:
        for i in range(8):
            s = np.uint64(8 * i)
            x = np.uint32((word >> s) & _FF)
            z = np.uint32((zq >> s) & _FF)
            cuda.atomic.add(sh, at + ((x * nz + z) << shift), 1)
    else:
        for i in range(8):
            if i < valid:
                s = np.uint64(8 * i)
                x = np.uint32((word >> s) & _FF)
                z = np.uint32((zq >> s) & _FF)
                cuda.atomic.add(sh, at + ((x * nz + z) << shift), 1)


@cuda.jit(device=True, inline=True)
def _count_group(sh, base, cols, g0, ng, w, cells, zq, nz, valid, wide):
    """Add rows ``8 w .. 8 w + valid - 1`` of candidates ``g0 .. g0 + ng - 1`` to
    their histograms (candidate ``g0 + g`` at ``base + g * cells``, passed on as a
    ``uint32``, as is ``nz``), reading their words four at a time (``wide``) or two
    at a time: that many 8-byte loads in flight before the adds."""
    g = 0
    if wide:
        while g + 3 < ng:
            a = cols[g0 + g, w]
            b = cols[g0 + g + 1, w]
            c = cols[g0 + g + 2, w]
            d = cols[g0 + g + 3, w]
            _count_word(sh, np.uint32(base + g * cells), a, zq, nz, valid, _NO_SHIFT)
            _count_word(sh, np.uint32(base + (g + 1) * cells), b, zq, nz, valid, _NO_SHIFT)
            _count_word(sh, np.uint32(base + (g + 2) * cells), c, zq, nz, valid, _NO_SHIFT)
            _count_word(sh, np.uint32(base + (g + 3) * cells), d, zq, nz, valid, _NO_SHIFT)
            g += 4
    while g + 1 < ng:
        a = cols[g0 + g, w]
        b = cols[g0 + g + 1, w]
        _count_word(sh, np.uint32(base + g * cells), a, zq, nz, valid, _NO_SHIFT)
        _count_word(sh, np.uint32(base + (g + 1) * cells), b, zq, nz, valid, _NO_SHIFT)
        g += 2
    if g < ng:
        _count_word(sh, np.uint32(base + g * cells), cols[g0 + g, w], zq, nz, valid, _NO_SHIFT)


@cuda.jit(cache=True)
def hist_columns(
    cols, n, K, group, j, mult, y64, has_z, use_lut, lut, z64, given,
    nz, cells, n_sub, wide, hist,
):  # fmt: skip
    """Joint histograms of ``(Xk, Z)`` from feature-major codes, in shared memory.

    ``hist[k, x * nz + Z[r]] += #{r < n : X[r, k] = x}`` for the ``group`` candidates
    ``k = g0 ... g0 + group - 1`` of grid row ``blockIdx.y`` (``g0 = blockIdx.y *
    group``), ``Z`` as :func:`_z_word` makes it (``Z = Xj |Y| + Y``, ``Xj`` or ``Y``).
    ``cols`` holds feature ``k``'s rows ``8 w .. 8 w + 7`` in word ``cols[k, w]`` (byte
    ``i``: row ``8 w + i``), ``y64`` the label bytes likewise. With ``given``, ``Z`` is
    read instead from ``z64``, one byte a row in the same words (CMI's conditioning
    joint with the labels, below 256 values).

    A thread takes a word of rows at a time (consecutive threads, consecutive words:
    coalesced), makes their eight ``Z`` once, then reads the block's candidates' words
    of those rows two (or, ``wide``, four) at a time and adds their rows to the
    candidates' histograms (:func:`_count_group`). The block's ``group x cells``
    histograms live in shared memory in ``n_sub`` copies (warp ``w`` writes copy ``w %
    n_sub``), added to ``hist`` at the end, one global atomic add per non-empty cell.
    The labels' lookup table is copied to shared memory first.
    """
    sh = cuda.shared.array(0, _I32)
    lsh = cuda.shared.array(LUT_SIZE, np.int32)
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    g0 = cuda.blockIdx.y * group
    ng = K - g0
    if ng > group:
        ng = group
    size = group * cells
    unz = np.uint32(nz)
    block_prologue(sh, size * n_sub, lsh, lut, use_lut)
    base = ((tid // 32) % n_sub) * size
    n_words = (n + 7) // 8
    w = cuda.blockIdx.x * nt + tid
    stride = cuda.gridDim.x * nt
    while w < n_words:
        if given:
            zq = z64[w]
        else:
            zq = _z_word(cols, y64, w, j, mult, has_z, use_lut, lsh)
        valid = n - 8 * w
        if valid > 8:
            valid = 8
        _count_group(sh, base, cols, g0, ng, w, cells, zq, unz, valid, wide)
        w += stride
    cuda.syncthreads()
    block_merge(sh, size, n_sub, ng * cells, cells, g0, hist)


#: lanes of a warp in :func:`hist_owned`: one candidate each (four under the
#: simulator, whose blocks are small)
OWNED_LANES = 4 if _SIM else 32
_LANE_SHIFT = np.uint32(OWNED_LANES.bit_length() - 1)  # c * OWNED_LANES == c << this
#: registers a thread of :func:`hist_owned` is held to: 2,048 threads (eight blocks of
#: eight warps) fill a multiprocessor's 65,536 (ptxas, CUDA 13, sm_90: 40 unbounded,
#: 32 without a spill; tests/test_gpu.py checks)
OWNED_REGISTERS = 32
_OWNED_REGISTERS = {} if _SIM else {"max_registers": OWNED_REGISTERS}
#: 8-row words of a candidate a lane of :func:`hist_owned` reads in a row (32 bytes:
#: one memory sector; the kernel's four loads in flight are written out)
OWNED_WORDS = 4


@cuda.jit(cache=True)
def z_words(cols, y64, j, mult, has_z, use_lut, lut, out):
    """``out[w]`` = the step's ``Z`` of the eight rows of word ``w``, one byte a row
    (:func:`_z_word`; ``lut`` the labels' lookup table in global memory): the ``Z``
    that :func:`hist_owned` is given (its padding rows are not counted)."""
    w = cuda.grid(1)
    stride = cuda.gridsize(1)
    while w < out.shape[0]:
        out[w] = _z_word(cols, y64, w, j, mult, has_z, use_lut, lut)
        w += stride


@cuda.jit(cache=True, **_OWNED_REGISTERS)
def hist_owned(cols, n, K, z64, nz, cells, n_sub, hist):
    """Joint histograms of ``(Xk, Z)`` from feature-major codes, one candidate a lane.

    ``hist[k, x * nz + Z[r]] += #{r < n : X[r, k] = x}`` for the
    :data:`OWNED_LANES` candidates ``k = g0 + l`` of grid row ``blockIdx.y`` (``g0 =
    blockIdx.y * OWNED_LANES``, ``l`` a thread's lane), ``Z`` given one byte a row in
    the ``uint64`` words ``z64`` (:func:`z_words`, or CMI's joint), ``cols`` as in
    :func:`hist_columns`.

    Where :func:`hist_columns` lets the 32 lanes of a warp take 32 words of rows of
    one candidate (their adds land in one histogram: lanes collide on its banks),
    here they take the same rows of 32 candidates: lane ``l`` reads
    :data:`OWNED_WORDS` consecutive words of its candidate (one 32-byte sector) and
    the ``Z`` words of those rows (the same address for every lane: one read), and
    adds each row to cell ``c`` of its own column of the shared histograms, word ``c
    * OWNED_LANES + l`` of the warp's copy (warp ``w`` writes copy ``w % n_sub``).
    That word's bank is ``l``: no two lanes of an add share a bank or a word. The
    copies are added to ``hist`` at the end, one global atomic add per non-empty
    cell.
    """
    sh = cuda.shared.array(0, _I32)
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    lane = tid % OWNED_LANES
    warp = tid // OWNED_LANES
    n_warps = nt // OWNED_LANES
    size = cells * OWNED_LANES
    block_prologue(sh, size * n_sub, sh, sh, False)  # zeroed; no lookup table
    k = cuda.blockIdx.y * OWNED_LANES + lane
    base = np.uint32((warp % n_sub) * size + lane)  # 32-bit unsigned cell arithmetic
    unz = np.uint32(nz)
    n_words = (n + 7) // 8
    chunk = cuda.blockIdx.x * n_warps + warp
    stride = cuda.gridDim.x * n_warps
    while k < K and chunk * OWNED_WORDS < n_words:
        w0 = chunk * OWNED_WORDS
        if 8 * (w0 + OWNED_WORDS) <= n:  # four whole words: four loads in flight
            a = cols[k, w0]
            b = cols[k, w0 + 1]
            c = cols[k, w0 + 2]
            d = cols[k, w0 + 3]
            _count_word(sh, base, a, z64[w0], unz, 8, _LANE_SHIFT)
            _count_word(sh, base, b, z64[w0 + 1], unz, 8, _LANE_SHIFT)
            _count_word(sh, base, c, z64[w0 + 2], unz, 8, _LANE_SHIFT)
            _count_word(sh, base, d, z64[w0 + 3], unz, 8, _LANE_SHIFT)
        else:  # the last chunk
            for q in range(OWNED_WORDS):
                w = w0 + q
                if w < n_words:
                    _count_word(sh, base, cols[k, w], z64[w], unz, n - 8 * w, _LANE_SHIFT)
        chunk += stride
    cuda.syncthreads()
    g0 = cuda.blockIdx.y * OWNED_LANES
    for c in range(tid, size, nt):
        tot = 0
        for s2 in range(n_sub):
            tot += sh[s2 * size + c]
        if tot:
            cell = c // OWNED_LANES
            cuda.atomic.add(hist, (g0 + c - cell * OWNED_LANES, cell), tot)


#: threads of a block of :func:`hist_private`: the stride of its threads' histograms
#: in shared memory, a multiple of 32 so that all of thread ``t``'s words sit in bank
#: ``t % 32`` (eight under the simulator, whose blocks are small)
PRIVATE_THREADS = 8 if _SIM else 128
_PRIVATE_MASK = np.uint32(PRIVATE_THREADS - 1)
_PRIVATE_SHIFT = np.uint32(PRIVATE_THREADS.bit_length() - 1)  # t * PRIVATE_THREADS
#: 8-row words a thread of :func:`hist_private` counts between two flushes of its
#: histogram: 8 x 8,191 = 65,528 rows, so a 16-bit count cannot overflow
PRIVATE_FLUSH_WORDS = 8191
#: registers a thread of :func:`hist_private` takes (ptxas, CUDA 13, sm_90; its grid
#: counts the blocks a multiprocessor holds with them; tests/test_gpu.py checks)
PRIVATE_REGISTERS = 32
_U32 = np.dtype(np.uint32) if _SIM else np.uint32
_LOW16 = np.uint32(0xFFFF)


@cuda.jit(device=True, inline=True)
def _private_word(sh, t, word, zq, nz, valid, hs):
    """Add the first ``valid`` of the eight rows of one candidate's 8-byte ``word``
    (``Z`` bytes in ``zq``) to thread ``t``'s own histogram: cell ``c = x * nz + z``
    is shared word ``((c >> hs) << log2 PRIVATE_THREADS) + t``, to which ``1 << ((c &
    hs) << 4)`` is added (``hs`` 1: two 16-bit counts a word; 0: one 32-bit count).
    No other thread writes that word: a plain add, no atomic. ``t``, ``nz`` and
    ``hs`` are ``uint32``."""
    lo = np.uint32(word & np.uint64(0xFFFFFFFF))
    hi = np.uint32(word >> np.uint64(32))
    zl = np.uint32(zq & np.uint64(0xFFFFFFFF))
    zh = np.uint32(zq >> np.uint64(32))
    for i in range(8):  # every step cast back to 32 bits: numba widens to 64
        if i < valid:
            s = np.uint32(8 * (i % 4))
            xb = np.uint32(((lo if i < 4 else hi) >> s) & np.uint32(0xFF))
            zb = np.uint32(((zl if i < 4 else zh) >> s) & np.uint32(0xFF))
            c = np.uint32(xb * nz + zb)
            a = np.uint32(np.uint32((c >> hs) << _PRIVATE_SHIFT) + t)
            inc = np.uint32(np.uint32(1) << np.uint32(np.uint32(c & hs) << np.uint32(4)))
            sh[a] = np.uint32(sh[a] + inc)


@cuda.jit(cache=True)
def hist_private(cols, n, K, z64, nz, cells, hs, hist):
    """Joint histograms of ``(Xk, Z)`` from feature-major codes, one histogram a
    thread, counted without atomics.

    ``hist[k, x * nz + Z[r]] += #{r < n : X[r, k] = x}`` for every candidate ``k``,
    ``Z`` given one byte a row in the ``uint64`` words ``z64`` (:func:`z_words`, or
    CMI's joint), ``cols`` as in :func:`hist_columns`; a block has
    :data:`PRIVATE_THREADS` threads.

    The grid splits the words of every candidate, taken candidate after candidate,
    into equal spans, one a block (every block the same work, whatever the number of
    candidates). Thread ``t`` of a block owns a column of its shared memory: cell
    ``c`` of its histogram is word ``(c >> hs) * PRIVATE_THREADS + t`` (``hs`` 1: two
    16-bit counts a word), so its adds are plain read-modify-writes, and the 32
    lanes of a warp always touch 32 different banks. The threads take consecutive
    8-row words of a candidate (coalesced), four loads in flight. At the end of a
    candidate, and every :data:`PRIVATE_FLUSH_WORDS` words a thread (below 2**16 rows,
    so no 16-bit count overflows), the block adds its threads' histograms into
    ``hist``, each thread summing cells across the columns in a rotated order (no
    bank conflict), zeroing them, with one global atomic add per non-empty cell.
    """
    sh = cuda.shared.array(0, _U32)
    t = cuda.threadIdx.x
    ut = np.uint32(t)
    unz = np.uint32(nz)
    uhs = np.uint32(hs)
    per = ((cells - 1) >> hs) + 1  # words of one thread's histogram
    for q in range(per):
        sh[(q << _PRIVATE_SHIFT) + t] = 0
    n_words = (n + 7) // 8
    total = K * n_words
    pos = total * cuda.blockIdx.x // cuda.gridDim.x
    end = total * (cuda.blockIdx.x + 1) // cuda.gridDim.x
    T = PRIVATE_THREADS
    while pos < end:
        k = pos // n_words
        w0 = pos - k * n_words
        span = end - pos  # to the block's end, the candidate's, or a flush
        if span > n_words - w0:
            span = n_words - w0
        if span > T * PRIVATE_FLUSH_WORDS:
            span = T * PRIVATE_FLUSH_WORDS
        stop = w0 + span
        w = w0 + t
        while w + 3 * T < stop and 8 * (w + 3 * T) + 8 <= n:  # four whole words
            a = cols[k, w]
            b = cols[k, w + T]
            c = cols[k, w + 2 * T]
            d = cols[k, w + 3 * T]
            _private_word(sh, ut, a, z64[w], unz, 8, uhs)
            _private_word(sh, ut, b, z64[w + T], unz, 8, uhs)
            _private_word(sh, ut, c, z64[w + 2 * T], unz, 8, uhs)
            _private_word(sh, ut, d, z64[w + 3 * T], unz, 8, uhs)
            w += 4 * T
        while w < stop:
            _private_word(sh, ut, cols[k, w], z64[w], unz, n - 8 * w, uhs)
            w += T
        cuda.syncthreads()
        for q in range(t, per, T):
            base = q << _PRIVATE_SHIFT
            first = np.int64(0)
            second = np.int64(0)
            for i in range(T):
                at = base + ((np.uint32(i) + ut) & _PRIVATE_MASK)
                v = sh[at]
                sh[at] = 0
                if hs:
                    first += v & _LOW16
                    second += v >> np.uint32(16)
                else:
                    first += v
            c0 = q << hs
            if first:
                cuda.atomic.add(hist, (k, c0), first)
            if second and c0 + 1 < cells:
                cuda.atomic.add(hist, (k, c0 + 1), second)
        cuda.syncthreads()
        pos += span


@cuda.jit(cache=True)
def pad_bytes(src, n, out):
    """``out[r] = src[r]`` for ``r < n``, 0 for the rest of ``out``: the labels padded
    to whole 8-byte words."""
    r = cuda.grid(1)
    stride = cuda.gridsize(1)
    while r < out.shape[0]:
        out[r] = src[r] if r < n else np.uint8(0)
        r += stride
