"""Probes of ``hist_columns`` for benchmarks/bench_gpu.py: the same grid and the same
walk over the feature-major copy, with one of its two stages left out, so that a
step's count can be set against what its reads alone and its shared-memory adds alone
cost (:func:`column_probes` times the three). Not used by fsel; imported only on a
machine with a CUDA GPU (or numba's simulator)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda

from fsel.kernels.gpu._cuda_information import _I32

_FF = np.uint64(0xFF)


@cuda.jit
def read_columns(cols, n, K, group, out):
    """The reads of ``hist_columns`` alone: every candidate word of the block's
    group at each of the thread's row words, folded by xor into one value a thread
    (written, so that the reads are kept)."""
    g0 = cuda.blockIdx.y * group
    ng = K - g0
    if ng > group:
        ng = group
    nt = cuda.blockDim.x
    w = cuda.blockIdx.x * nt + cuda.threadIdx.x
    stride = cuda.gridDim.x * nt
    n_words = (n + 7) // 8
    acc = np.uint64(0)
    while w < n_words:
        for g in range(ng):
            acc ^= cols[g0 + g, w]
        w += stride
    t = (cuda.blockIdx.y * cuda.gridDim.x + cuda.blockIdx.x) * nt + cuda.threadIdx.x
    out[t] = acc


@cuda.jit
def count_synthetic(n, K, group, levels, nz, cells, n_sub, hist):
    """The shared-memory adds of ``hist_columns`` alone: the same number of adds
    into the same histograms (warp ``w`` writing copy ``w % n_sub``), each row's
    code and ``Z`` made from a hash of its row and candidate instead of read (spread
    evenly over ``levels`` and ``nz`` values), merged into ``hist`` the same way."""
    sh = cuda.shared.array(0, _I32)
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    g0 = cuda.blockIdx.y * group
    ng = K - g0
    if ng > group:
        ng = group
    size = group * cells
    # hist_columns' block start and end, written out here: numba's simulator cannot
    # call device functions of another module from a kernel (see _cuda_columns)
    for c in range(tid, size * n_sub, nt):
        sh[c] = 0
    cuda.syncthreads()
    base = ((tid // 32) % n_sub) * size
    n_words = (n + 7) // 8
    w = cuda.blockIdx.x * nt + tid
    stride = cuda.gridDim.x * nt
    while w < n_words:
        zq = np.uint64(w) * np.uint64(0x9E3779B97F4A7C15)
        for g in range(ng):
            word = (np.uint64(w) ^ np.uint64(g << 40)) * np.uint64(0xBF58476D1CE4E5B9)
            for i in range(8):
                s = np.uint64(8 * i)
                x = (np.int32((word >> s) & _FF) * levels) >> 8
                z = (np.int32((zq >> s) & _FF) * nz) >> 8
                cuda.atomic.add(sh, base + g * cells + x * nz + z, 1)
        w += stride
    cuda.syncthreads()
    for c in range(tid, ng * cells, nt):
        tot = 0
        for s2 in range(n_sub):
            tot += sh[s2 * size + c]
        if tot:
            gl = c // cells
            cuda.atomic.add(hist, (g0 + gl, c - gl * cells), tot)


def column_probes(table: Any, nz: int, least: Any) -> dict[str, float]:
    """The default plan's step count against its two stages alone
    (benchmarks/_gpu_probes.py): the reads (every candidate word, no adds) and the
    shared-memory adds (as many, into the same histograms, nothing read), the same
    grid; seconds, the least of five."""
    from fsel.kernels.gpu.information_columns import COLUMN_THREADS, column_plan

    K, n = table.codes.shape
    a = int(table.n_levels.max())
    cells = a * nz
    plan = column_plan(K, cells, *table.plan[:3])
    group, _n_groups, n_sub, shared = plan
    gx, gy = table.grid(plan)
    out = cuda.device_array(gx * gy * COLUMN_THREADS, dtype=np.uint64)
    hist = cuda.device_array((K, cells), dtype=np.int32)

    def read() -> None:
        read_columns[(gx, gy), COLUMN_THREADS](table._cols, n, K, group, out)

    def add() -> None:
        args = (n, K, group, a, nz, cells, n_sub, hist)
        count_synthetic[(gx, gy), COLUMN_THREADS, 0, shared](*args)

    def step() -> None:
        table._counts(nz, row=(0, table.n_classes, True))

    return {
        "step_s": least(step),
        "reads_only_s": least(read),
        "adds_only_s": least(add),
    }
