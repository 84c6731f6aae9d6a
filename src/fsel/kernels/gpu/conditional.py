r"""CMI's conditioning joint on the GPU, and its histograms counted over sorted rows.

CMI conditions every step on the joint ``S`` of all the features picked so far: at
step ``t`` it scores ``I(Xk; Y | S)`` from the joint histograms of ``(Xk, S, Y)``.
:class:`~fsel.kernels.gpu.information_rows.GpuRowTable` keeps that joint on the GPU
(:class:`GpuJointCodes`): no column, code or ``Z`` travels to the host, only counts.

* **The joint's codes** (:func:`joint_codes`): the states ``S * a + Xj`` present are
  marked in a flag table and numbered in order by a prefix sum over it, so each row's
  code is its state's rank among the states present — the codes of
  :func:`~fsel.kernels.value_ranks.value_ranks` on the CPU. Where the states could
  outnumber twice the rows (the CPU sorts there), the codes are made on the host.
* **The histograms** (:func:`conditional_relevance`). ``Z = S |Y| + Y`` has ``|S|
  |Y|`` values, so after a few picks the histograms of all candidates (``levels x
  |Z|`` cells each) no longer fit a block's shared memory. While they do, the
  table's own kernels count them. Beyond that, the rows are first sorted by ``Z`` on
  the GPU (a counting sort: per-block histograms, per-block start positions, a
  scatter), then cut into tiles of consecutive sorted rows whose ``Z`` span at most
  ``span`` values (:func:`sorted_tiles`); each block counts one tile for a group of
  candidates in a shared-memory histogram of ``group x levels x span`` cells and adds
  it to the global counts once. Global atomics, one per row and candidate, were the
  alternative.

The counts are the same integers as the CPU's, and the entropies are computed from
them on the host as on the CPU, so the picks and scores are the CPU's.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from fsel.kernels.gpu.information import (
    _SIMULATOR,
    SHARED_CELLS,
    _launch,
    _n_sm,
)
from fsel.kernels.value_ranks import value_ranks

__all__ = ["GpuJointCodes", "conditional_relevance", "joint_codes", "sorted_plan", "sorted_tiles"]

#: keep CMI's conditioning joint on the GPU (False: the host path of before, where
#: each step copies the newest pick's column to the host and uploads ``Z``); private,
#: for benchmarks/bench_gpu.py
ON_DEVICE = True
#: int32 cells of a :func:`~fsel.kernels.gpu._cuda_conditional.hist_sorted` block's
#: shared histogram (48 KiB: no driver opt-in)
SORTED_CELLS = SHARED_CELLS
#: sorted rows a block of :func:`~fsel.kernels.gpu._cuda_conditional.hist_sorted`
#: counts at most
TILE_ROWS = 4096
#: values of ``Z`` a tile should at least be able to span (fewer candidates a group
#: where the levels are many)
SPAN_MIN = 8
#: states of a joint the flag table numbers at least (as value_ranks: up to twice the
#: rows, or this many, before the host's sort)
RANK_TABLE_MIN = 1 << 20
#: flags of the joint's states one thread of the prefix sum reads
SCAN_ITEMS = 16
THREADS = 32 if _SIMULATOR else 256


class GpuJointCodes:
    """CMI's conditioning joint on the GPU: each row's code ``0..n_states-1``
    (``dev``, an ``int32`` device array), as :meth:`joint_codes` numbers them."""

    def __init__(self, dev: Any, n_states: int) -> None:
        self.dev = dev
        self.n_states = int(n_states)


def _blocks(n: int) -> int:
    return 2 if _SIMULATOR else max(1, min(32 * _n_sm(), -(-n // THREADS)))


def step_time(table: Any, key: str, t0: float) -> None:
    """Add the seconds since ``t0`` (the GPU's work included: it synchronises) to
    ``table.step_seconds[key]``: where CMI's steps spend their time (a fit's
    ``timings_``)."""
    from numba import cuda

    cuda.synchronize()
    seconds = table.__dict__.setdefault("step_seconds", {})
    seconds[key] = seconds.get(key, 0.0) + time.perf_counter() - t0


def joint_codes(table: Any, s: GpuJointCodes | None, j: int) -> GpuJointCodes:
    """:func:`_joint_codes`, its time added to the table's ``step_seconds``
    (``joint_s``)."""
    t0 = time.perf_counter()
    out = _joint_codes(table, s, j)
    step_time(table, "joint_s", t0)
    return out


def _joint_codes(table: Any, s: GpuJointCodes | None, j: int) -> GpuJointCodes:
    """The joint of ``S`` (``s``; None: the empty set) and feature ``j`` of ``table``
    (a :class:`~fsel.kernels.gpu.information_rows.GpuRowTable`), numbered as
    :meth:`fsel.kernels.information.InformationTable.joint_codes` numbers it on the
    CPU: feature ``j``'s codes alone, else each state's rank among the states present."""
    from numba import cuda

    from fsel.kernels.gpu import _cuda_conditional as kern

    n = table.n_samples
    K = table.n_features
    a = int(table.n_levels[j])
    flat = table.codes.flat
    out = cuda.device_array(n, dtype=np.int32)
    if s is None:
        empty = cuda.device_array(1, dtype=np.int32)
        args = (flat, n, K, j, empty, False, a, empty, out)
        _launch(kern.joint_states, _blocks(n), THREADS, *args)
        return GpuJointCodes(out, a)
    n_states = s.n_states * a
    if n_states > max(2 * n, RANK_TABLE_MIN):  # as value_ranks: too many for a table
        host = s.dev.copy_to_host().astype(np.int64) * a + table.codes[j]
        ranks = value_ranks(host, n_states)
        return GpuJointCodes(cuda.to_device(ranks.astype(np.int32)), int(ranks.max()) + 1)
    present = cuda.to_device(np.zeros(n_states, dtype=np.uint8))
    _launch(kern.mark_states, _blocks(n), THREADS, flat, n, K, j, s.dev, a, present)
    per_block = THREADS * SCAN_ITEMS
    nb = -(-n_states // per_block)
    counts = cuda.to_device(np.zeros(nb, dtype=np.int32))
    _launch(kern.count_present, nb, THREADS, present, SCAN_ITEMS, counts)
    c = counts.copy_to_host()
    offsets = cuda.to_device((np.cumsum(c) - c).astype(np.int32))
    rank = cuda.device_array(n_states, dtype=np.int32)
    _launch(kern.rank_present, nb, THREADS, present, SCAN_ITEMS, offsets, rank)
    args = (flat, n, K, j, s.dev, True, a, rank, out)
    _launch(kern.joint_states, _blocks(n), THREADS, *args)
    return GpuJointCodes(out, int(c.sum()))


def sorted_plan(n_features: int, levels: int, budget: int = SHARED_CELLS) -> tuple[int, int]:
    """``(group, span)`` of :func:`~fsel.kernels.gpu._cuda_conditional.hist_sorted`:
    candidates a block counts and values of ``Z`` its tiles span, so that ``group x
    levels x span`` ``int32`` cells fit ``budget`` (every candidate in one group
    where the tiles can still span :data:`SPAN_MIN` values).

    Examples
    --------
    >>> sorted_plan(100, 10)  # 100 x 10 x 12 cells of 12,288
    (100, 12)
    >>> sorted_plan(100, 256)
    (6, 8)
    """
    group = max(1, min(n_features, budget // (levels * SPAN_MIN)))
    return group, max(1, budget // (group * levels))


def sorted_tiles(
    offsets: np.ndarray, span: int, tile_rows: int = TILE_ROWS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tiles of rows sorted by ``Z``: ``offsets`` (``nz + 1``) are the first sorted
    position of each value and the number of rows; the values are cut into runs of
    ``span`` (``z0, z0 + 1, ..``), and each run's rows into tiles of at most
    ``tile_rows``. Returns each tile's first value, first and end positions (empty
    runs have no tile).

    Examples
    --------
    >>> z0, p0, p1 = sorted_tiles(np.array([0, 5, 5, 6, 9]), span=2, tile_rows=3)
    >>> z0.tolist(), p0.tolist(), p1.tolist()  # z 0-1: rows 0-4; z 2-3: rows 5-8
    ([0, 0, 2, 2], [0, 3, 5, 8], [3, 5, 8, 9])
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    nz = offsets.size - 1
    z0 = np.arange(0, nz, span, dtype=np.int64)
    starts = offsets[z0]
    ends = offsets[np.minimum(z0 + span, nz)]
    n_tiles = -(-(ends - starts) // tile_rows)
    run = np.repeat(np.arange(z0.size), n_tiles)
    within = np.arange(run.size) - np.repeat(np.cumsum(n_tiles) - n_tiles, n_tiles)
    p0 = starts[run] + within * tile_rows
    p1 = np.minimum(p0 + tile_rows, ends[run])
    return z0[run], p0, p1


def _device_z(table: Any, s: GpuJointCodes, nz: int, sort: bool) -> tuple[Any, Any, np.ndarray]:
    """``Z = S |Y| + Y`` on the GPU, its counts on the host and, with ``sort``, the
    rows sorted by it (``perm``, and ``Z`` in that order; else None)."""
    from numba import cuda

    from fsel.kernels.gpu import _cuda_conditional as kern

    n = table.n_samples
    lab = table._labels
    ylab = (lab.dev, lab.lut is not None, table._lut_dev, table.n_classes)
    # one byte a row where the table's kernels read it (nz <= 256) and no sort follows
    z = cuda.device_array(n, dtype=np.uint8 if nz <= 256 and not sort else np.int32)
    totals = cuda.to_device(np.zeros(nz, dtype=np.int64))
    if nz > SHARED_CELLS:  # counts and cursors in global memory
        _launch(kern.z_global_counts, _blocks(n), THREADS, s.dev, *ylab, n, z, totals)
        zc = totals.copy_to_host()
        if not sort:
            return z, None, zc
        cursor = cuda.to_device((np.cumsum(zc) - zc).astype(np.int32))
        perm, zs = cuda.device_array(n, dtype=np.int32), cuda.device_array(n, dtype=np.int32)
        _launch(kern.scatter_global, _blocks(n), THREADS, z, n, cursor, perm, zs)
        return z, (perm, zs), zc
    # a histogram, then cursors, a block in shared memory
    nb = 2 if _SIMULATOR else max(1, min(8 * _n_sm(), -(-n // 4096), (1 << 22) // nz))
    rows_per = -(-n // nb)
    nb = -(-n // rows_per)
    block_counts = cuda.device_array((nb, nz), dtype=np.int32)
    args = (s.dev, *ylab, n, rows_per, nz, z, block_counts, totals)
    _launch(kern.z_block_counts, nb, THREADS, *args, shared=4 * nz)
    zc = totals.copy_to_host()
    if not sort:
        return z, None, zc
    offsets = cuda.to_device((np.cumsum(zc) - zc).astype(np.int32))
    _launch(kern.block_bases, -(-nz // THREADS), THREADS, block_counts, offsets, nz)
    perm, zs = cuda.device_array(n, dtype=np.int32), cuda.device_array(n, dtype=np.int32)
    args = (z, n, rows_per, nz, block_counts, perm, zs)
    _launch(kern.scatter_block, nb, THREADS, *args, shared=4 * nz)
    return z, (perm, zs), zc


def _counts_sorted(table: Any, order: tuple, zc: np.ndarray, nz: int, group: int) -> tuple:
    """The sums (coarse cells ``z // group``) of the joint histograms ``(K, levels *
    nz)`` of every candidate against ``Z``, counted from the rows sorted by ``Z``
    (:func:`~fsel.kernels.gpu._cuda_conditional.hist_sorted`), the candidates in
    chunks that fit the memory budget (the table's ``chunked_counts``)."""
    from numba import cuda

    from fsel.kernels.gpu import _cuda_conditional as kern

    K = table.n_features
    a = int(table.n_levels.max())
    per_block, span = sorted_plan(K, a, SORTED_CELLS)
    offsets = np.concatenate([[0], np.cumsum(zc)])
    tiles = sorted_tiles(offsets, span, TILE_ROWS)
    z0, p0, p1 = (cuda.to_device(v.astype(np.int32)) for v in tiles)
    perm, zs = order

    def count(hist: Any, k0: int, kc: int) -> None:
        if z0.size:
            grid = (z0.size, -(-kc // per_block))
            args = (table.codes.flat, K, perm, zs, z0, p0, p1, k0, kc, per_block, span, nz)
            shared = 4 * per_block * a * span
            _launch(kern.hist_sorted, grid, THREADS, *args, hist, shared=shared)

    return table.chunked_counts(a * nz, count, group)


def _fits_shared(table: Any, cells: int) -> bool:
    """Whether the table's own kernels count ``cells``-cell histograms in shared memory."""
    return table.counts_in_shared(cells)


def conditional_relevance(table: Any, s: GpuJointCodes) -> np.ndarray:
    """``I(Xk; Y | S)`` of every candidate of ``table`` (a
    :class:`~fsel.kernels.gpu.information_rows.GpuRowTable`), ``S`` held on the GPU
    (:func:`joint_codes`): the numbers of
    :meth:`fsel.kernels.information.InformationTable.conditional_relevance`."""
    t0 = time.perf_counter()
    ny = table.n_classes
    nz = s.n_states * ny
    a = int(table.n_levels.max())
    shared = _fits_shared(table, a * nz)
    z, order, zc = _device_z(table, s, nz, sort=not shared)
    step_time(table, "z_s" if shared else "z_sort_s", t0)
    t1 = time.perf_counter()
    if shared:  # the table's shared-memory kernels
        s_ksy, s_ks, m_ksy, m_ks = table._sums(nz, ny, z=z)
    else:
        s_ksy, s_ks, m_ksy, m_ks = _counts_sorted(table, order, zc, nz, ny)
        table.count_seconds += time.perf_counter() - t0
    step_time(table, "conditional_count_s", t1)  # the sums made where they are counted
    t1 = time.perf_counter()
    h_sy, h_s = table.conditioning_entropies(zc)
    out = table._cmi_from_sums(h_sy, h_s, s_ksy, s_ks, m_ksy, m_ks)
    step_time(table, "conditional_sums_s", t1)
    return out
