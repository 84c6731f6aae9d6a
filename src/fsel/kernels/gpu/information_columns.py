r"""The GPU information table that counts the greedy steps from a feature-major copy.

:class:`GpuColumnTable` is :class:`~fsel.kernels.gpu.information_rows.GpuRowTable`
(codes already on the GPU, labels counted there, the relevance pass giving the numbers
of levels) plus one copy of the codes made on the GPU at set-up, feature by feature
(:func:`~fsel.kernels.gpu._cuda_columns.columns_from_rows`): a candidate's rows are
then consecutive bytes, read eight at a time. The greedy step's pair terms count
``(Xk, Xj |Y| + Y)`` with :func:`~fsel.kernels.gpu._cuda_columns.hist_columns`: each
thread makes the ``Z`` of eight rows once and adds those rows of a group of
candidates to their histograms in shared memory, so a step reads every candidate's
bytes once and the newest pick's and the labels' bytes once per group.

With ``owned`` (``tables._VARIANT = "owned"``) the steps count with
:func:`~fsel.kernels.gpu._cuda_columns.hist_owned` instead where its plan fits
(:func:`owned_plan`): the step's ``Z`` is first written as words of eight rows, and
lane ``l`` of a warp counts candidate ``g0 + l`` into its own column of the shared
histograms, so no two lanes of an atomic add share a bank. With ``private``
(``tables._VARIANT = "private"``) they count with
:func:`~fsel.kernels.gpu._cuda_columns.hist_private` where :func:`private_plan` fits:
each thread adds its rows to a histogram of its own in shared memory, two 16-bit
counts a word, with plain adds instead of atomics.

CMI's conditioning joint is counted from the copy too while its ``Z`` (given on the
GPU) fits a byte. Histograms whose ``Z`` does not (the joint after a few picks, wide
codes) and those too large for the shared-memory plan are counted by the row table's
kernels, as is everything when the copy does not fit the GPU's memory budget. The counts are the
same integers as on the CPU, so the selections and scores are the CPU's bit for bit.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from fsel.kernels.gpu.information import _device_budget, _launch, _n_sm, is_device_array
from fsel.kernels.gpu.information_rows import SIMULATOR, GpuRowTable, _word_aligned
from fsel.kernels.gpu.lanes import BLOCK_SHARED_EXTRA, SM_SHARED_BYTES, allow_shared

__all__ = ["COLUMN_SHARED_BYTES", "GpuColumnTable", "column_plan"]

#: 32-bit registers of a multiprocessor (H100/H200)
REGISTERS_PER_SM = 65536
#: threads of a block of ``hist_columns`` (a warp's worth under the simulator)
COLUMN_THREADS = 8 if SIMULATOR else 256
#: shared memory a block of ``hist_columns`` takes at most for its histograms: 24 KiB
#: lets eight blocks (2,048 threads) share a multiprocessor
COLUMN_SHARED_BYTES = 24 * 1024
#: candidates a block counts at most, and copies of their histograms at most
COLUMN_GROUP = 32
COLUMN_COPIES = 8
#: blocks the grid holds, in waves of the blocks resident on every multiprocessor
COLUMN_WAVES = 1
#: whether a thread reads four candidates' words before adding them (else two)
COLUMN_WIDE = True
#: whether the steps count with ``hist_owned`` (one candidate a lane) where its plan
#: fits, rather than ``hist_columns``; and its plan: shared memory a block (above 48
#: KiB the driver's opt-in), warps a block, copies of the histograms at most
COLUMN_OWNED = False
OWNED_SHARED_BYTES = 47 * 1024
OWNED_WARPS = 2 if SIMULATOR else 8
OWNED_COPIES = 1
#: whether the steps count with ``hist_private`` (one histogram a thread, no atomics)
#: where its plan fits; and its plan: shared memory a block at most (above 48 KiB the
#: driver's opt-in), and whether a shared word holds two 16-bit counts (else one
#: 32-bit count)
COLUMN_PRIVATE = False
PRIVATE_SHARED_BYTES = 100 * 1024
PRIVATE_HALF = True


def column_plan(
    n_features: int,
    cells: int,
    shared_bytes: int = COLUMN_SHARED_BYTES,
    group_max: int = COLUMN_GROUP,
    copies_max: int = COLUMN_COPIES,
) -> Any:
    """How ``hist_columns`` splits the candidates: ``(group, n_groups, n_sub,
    shared)`` (candidates per block, blocks along the candidates, copies of their
    histograms, bytes of shared memory a block), or None when one candidate's
    ``cells`` 32-bit counts do not fit ``shared_bytes``. The groups are as even as
    possible; the copies fill what the group leaves of ``shared_bytes``.

    Examples
    --------
    >>> column_plan(100, 200)  # JMI's step: 10 levels x (10 levels x 2 classes)
    (25, 4, 1, 20000)
    >>> column_plan(100, 200, group_max=16)
    (15, 7, 2, 24000)
    >>> column_plan(100, 512)  # the relevance pass: 256 codes x 2 classes
    (12, 9, 1, 24576)
    >>> column_plan(3, 20_000) is None
    True
    """
    per = 4 * max(cells, 1)
    fit = min(group_max, shared_bytes // per)
    if fit < 1 or n_features < 1:
        return None
    n_groups = -(-n_features // fit)
    group = -(-n_features // n_groups)
    n_sub = max(1, min(copies_max, shared_bytes // (per * group)))
    return group, n_groups, n_sub, per * group * n_sub


def owned_plan(
    n_features: int,
    cells: int,
    lanes: int = 32,
    shared_bytes: int = OWNED_SHARED_BYTES,
    copies_max: int = OWNED_COPIES,
) -> Any:
    """How ``hist_owned`` splits the candidates: ``(n_groups, n_sub, shared)``
    (blocks along the candidates, one candidate a lane of ``lanes``; copies of the
    histograms; bytes of shared memory a block), or None when one copy of ``lanes``
    candidates' ``cells`` 32-bit counts does not fit ``shared_bytes``.

    Examples
    --------
    >>> owned_plan(100, 200)  # JMI's step: 10 levels x (10 levels x 2 classes)
    (4, 1, 25600)
    >>> owned_plan(100, 200, copies_max=4, shared_bytes=100 * 1024)
    (4, 4, 102400)
    >>> owned_plan(100, 512) is None  # the relevance pass: 256 codes x 2 classes
    True
    """
    per = 4 * max(cells, 1) * lanes
    if per > shared_bytes or n_features < 1:
        return None
    n_sub = max(1, min(copies_max, shared_bytes // per))
    return -(-n_features // lanes), n_sub, per * n_sub


def private_plan(
    cells: int,
    threads: int,
    shared_bytes: int = PRIVATE_SHARED_BYTES,
    half: bool = PRIVATE_HALF,
) -> Any:
    """How ``hist_private`` holds its histograms: ``(hs, shared)`` (``hs`` 1 for two
    16-bit counts a shared word, 0 for one 32-bit count; bytes of shared memory a
    block of ``threads`` threads, one histogram of ``cells`` counts a thread), or
    None when they do not fit ``shared_bytes``.

    Examples
    --------
    >>> private_plan(200, 128)  # JMI's step: 10 levels x (10 levels x 2 classes)
    (1, 51200)
    >>> private_plan(200, 128, half=False)
    (0, 102400)
    >>> private_plan(512, 128) is None  # the relevance pass: 256 codes x 2 classes
    True
    """
    hs = 1 if half else 0
    shared = 4 * threads * (((max(cells, 1) - 1) >> hs) + 1)
    return None if shared > shared_bytes else (hs, shared)


def padded_bytes(src: Any, n: int, width: int, out: Any = None) -> Any:
    """The first ``n`` bytes of ``src`` (``uint8`` on the GPU) padded with zeros to
    ``width`` bytes (a multiple of 8), in ``out`` when given, as ``uint64`` words."""
    from numba import cuda

    from fsel.kernels.gpu import _cuda_columns as kern

    if out is None:
        out = cuda.device_array(width, dtype=np.uint8)
    blocks = 1 if SIMULATOR else max(1, min(32 * _n_sm(), -(-width // 256)))
    _launch(kern.pad_bytes, blocks, COLUMN_THREADS, src, n, out)
    return out.view(np.uint64)


def columns_of(rows: Any) -> Any:
    """The feature-major copy of row-major ``uint8`` codes ``(n, K)`` on the GPU:
    ``(K, ceil(n / 8))`` ``uint64`` words, word ``w`` of feature ``k`` holding rows
    ``8 w .. 8 w + 7`` (zeros past ``n``)."""
    from numba import cuda

    from fsel.kernels.gpu import _cuda_columns as kern

    n, K = rows.shape
    width = -(-n // 8)
    out = cuda.device_array((K, max(width, 1)), dtype=np.uint64)
    flat = rows.reshape(n * K)
    aligned = K % 4 == 0 and _word_aligned(rows) and n * K > 0
    words = flat.view(np.uint32) if aligned else cuda.device_array(1, dtype=np.uint32)
    grid = (max(1, -(-n // kern.COLUMN_TILE_ROWS)), max(1, -(-K // kern.COLUMN_TILE_FEATURES)))
    _launch(kern.columns_from_rows, grid, COLUMN_THREADS, words, flat, n, K, aligned, out)
    return out


class GpuColumnTable(GpuRowTable):
    """:class:`~fsel.kernels.gpu.information_rows.GpuRowTable` whose counts of a
    feature against the labels (or a feature alone, or the labels alone) come from a
    feature-major copy of the codes (see the module docstring): the same protocol and
    the same numbers.

    Parameters
    ----------
    codes, labels, memory_budget, **row_table
        As for :class:`~fsel.kernels.gpu.information_rows.GpuRowTable` (``estimator``,
        ``packed16``, ``lane_budget``, ``lane_words``; its kernels count what the copy
        does not).
    shared_bytes, group, copies, waves, wide
        The plan of ``hist_columns``: shared memory a block, candidates a block at
        most, copies of their histograms at most, the grid in waves of resident
        blocks, and whether a thread has four candidates' loads in flight (else two)
        (None: the module's ``COLUMN_*`` values).
    owned : bool, optional
        Count with ``hist_owned`` (one candidate a lane) where :func:`owned_plan`
        fits, with the module's ``OWNED_*`` plan (None: :data:`COLUMN_OWNED`).
    private : bool, optional
        Count with ``hist_private`` (one histogram a thread, no atomics) where
        :func:`private_plan` fits, with the module's ``PRIVATE_*`` plan (None:
        :data:`COLUMN_PRIVATE`); before ``owned``.

    Attributes
    ----------
    plan : tuple
        ``(shared_bytes, group, copies, waves, wide)`` as used
        (may be set between passes: the next count uses it).
    owned_plan : tuple or None
        ``(shared_bytes, warps, copies)`` of ``hist_owned``, None when it is not used
        (may be set between passes too).
    private_plan : tuple or None
        ``(shared_bytes, half, waves)`` of ``hist_private``, None when it is not used
        (may be set between passes too).
    column_seconds : float
        Seconds spent making the feature-major copy (0 when it did not fit).
    """

    def __init__(
        self,
        codes: Any,
        labels: Any,
        *,
        memory_budget: int | None = None,
        shared_bytes: int | None = None,
        group: int | None = None,
        copies: int | None = None,
        waves: int | None = None,
        wide: bool | None = None,
        owned: bool | None = None,
        private: bool | None = None,
        **row_table: Any,
    ) -> None:
        from numba import cuda

        n, K = codes.shape
        self.plan = (
            COLUMN_SHARED_BYTES if shared_bytes is None else int(shared_bytes),
            COLUMN_GROUP if group is None else int(group),
            COLUMN_COPIES if copies is None else int(copies),
            COLUMN_WAVES if waves is None else max(1, int(waves)),
            COLUMN_WIDE if wide is None else bool(wide),
        )
        use_owned = COLUMN_OWNED if owned is None else bool(owned)
        self.owned_plan = (OWNED_SHARED_BYTES, OWNED_WARPS, OWNED_COPIES) if use_owned else None
        use_private = COLUMN_PRIVATE if private is None else bool(private)
        self.private_plan = (PRIVATE_SHARED_BYTES, PRIVATE_HALF, 1) if use_private else None
        self._zbuf: Any = None
        self._cols = self._y64 = None
        self.column_seconds = 0.0
        if n and K and K * -(-n // 8) * 8 <= _device_budget(memory_budget) // 2:
            t0 = time.perf_counter()
            self._cols = columns_of(codes)
            self._y64 = padded_bytes(labels.dev, n, self._cols.shape[1] * 8)
            cuda.synchronize()
            self.column_seconds = time.perf_counter() - t0
        super().__init__(codes, labels, memory_budget=memory_budget, **row_table)

    def _counts(
        self,
        nz: int,
        z: np.ndarray | None = None,
        row: tuple | None = None,
        group: int | None = None,
    ):
        """The row table's joint histograms (or their sums, with ``group``), counted
        from the feature-major copy where ``Z`` fits a byte: made from a feature and
        the labels, or given on the GPU as ``uint8`` (CMI's conditioning joint)."""
        K, n = self.codes.shape
        a = int(self.n_levels.max()) if self.n_levels.size else 1
        cells = a * nz
        shared_bytes, group_max, copies, _waves, wide = self.plan
        plan = column_plan(K, cells, shared_bytes, group_max, copies)
        given = row is None
        bytes_z = given and is_device_array(z) and np.dtype(z.dtype) == np.uint8
        if self._cols is None or nz > 256 or plan is None or (given and not bytes_z):
            return super()._counts(nz, z=z, row=row, group=group)
        from numba import cuda

        from fsel.kernels.gpu import _cuda_columns as kern
        from fsel.kernels.gpu import _cuda_information as ckern

        t0 = time.perf_counter()
        if given:
            j, mult, has_z, use_lut, z64 = -1, 0, False, False, self._padded_z(z)
        else:
            j, mult, has_z = row
            use_lut, z64 = bool(has_z and self._labels.lut is not None), self._y64
        hist = self._hist
        if hist is None or hist.shape != (K, cells):
            hist = self._hist = cuda.device_array((K, cells), dtype=np.int32)
        zb = 1 if SIMULATOR else max(1, min(32 * _n_sm(), -(-K * cells // 256)))
        _launch(ckern.zero_cells, zb, COLUMN_THREADS, hist)
        row = (j, mult, has_z, use_lut)
        done = self._count_private(hist, nz, cells, given, z64, row)
        if not done and not self._count_owned(hist, nz, cells, given, z64, row):
            per_block, _n_groups, n_sub, shared = plan
            args = (self._cols, n, K, per_block, j, mult, self._y64, bool(has_z), use_lut)
            args = (*args, self._lut_dev, z64, given, nz, cells, n_sub, wide, hist)
            _launch(kern.hist_columns, self.grid(plan), COLUMN_THREADS, *args, shared=shared)
        out = self._result(hist, group)
        self.count_seconds += time.perf_counter() - t0
        return out

    def _count_owned(
        self, hist: Any, nz: int, cells: int, given: bool, z64: Any, row: tuple
    ) -> bool:
        """Count into ``hist`` with ``hist_owned`` (``Z`` given, else made first by
        ``z_words`` from ``row = (j, mult, has_z, use_lut)``) where
        :attr:`owned_plan` is set and fits; False where it does not (nothing done)."""
        from fsel.kernels.gpu import _cuda_columns as kern

        if self.owned_plan is None:
            return False
        shared_bytes, warps, copies = self.owned_plan
        K, n = self.codes.shape
        plan = owned_plan(K, cells, kern.OWNED_LANES, shared_bytes, copies)
        if plan is None:
            return False
        n_groups, n_sub, shared = plan
        threads = int(warps) * kern.OWNED_LANES
        args = (self._cols, n, K, z64, nz, cells, n_sub, hist)
        if not allow_shared(kern.hist_owned, args, shared):
            return False
        if not given:
            z64 = self._z_words(*row)
            args = (self._cols, n, K, z64, nz, cells, n_sub, hist)
        resident = min(
            2048 // threads,
            SM_SHARED_BYTES // (shared + BLOCK_SHARED_EXTRA),
            REGISTERS_PER_SM // (kern.OWNED_REGISTERS * threads),
        )
        chunks = -(-self._cols.shape[1] // kern.OWNED_WORDS)
        gx = max(1, -(-resident * _n_sm() * self.plan[3] // n_groups))
        gx = min(gx, max(1, -(-chunks // int(warps))))
        grid = (min(gx, 2) if SIMULATOR else gx), n_groups
        _launch(kern.hist_owned, grid, threads, *args, shared=shared)
        return True

    def _count_private(
        self, hist: Any, nz: int, cells: int, given: bool, z64: Any, row: tuple
    ) -> bool:
        """Count into ``hist`` with ``hist_private`` (``Z`` given, else made first by
        ``z_words`` from ``row = (j, mult, has_z, use_lut)``) where
        :attr:`private_plan` is set and fits; False where it does not (nothing
        done). The grid: the blocks resident on every multiprocessor (by threads,
        shared memory and registers) times the plan's waves."""
        from fsel.kernels.gpu import _cuda_columns as kern

        if self.private_plan is None:
            return False
        shared_bytes, half, waves = self.private_plan
        threads = kern.PRIVATE_THREADS
        plan = private_plan(cells, threads, shared_bytes, half)
        if plan is None:
            return False
        hs, shared = plan
        K, n = self.codes.shape
        args = (self._cols, n, K, z64, nz, cells, hs, hist)
        if not allow_shared(kern.hist_private, args, shared):
            return False
        if not given:
            z64 = self._z_words(*row)
            args = (self._cols, n, K, z64, nz, cells, hs, hist)
        resident = min(
            2048 // threads,
            SM_SHARED_BYTES // (shared + BLOCK_SHARED_EXTRA),
            REGISTERS_PER_SM // (kern.PRIVATE_REGISTERS * threads),
        )
        blocks = max(1, resident) * _n_sm() * max(1, int(waves))
        blocks = min(blocks, max(1, K * -(-self._cols.shape[1] // threads)))
        _launch(kern.hist_private, 3 if SIMULATOR else blocks, threads, *args, shared=shared)
        return True

    def _z_words(self, j: int, mult: int, has_z: bool, use_lut: bool) -> Any:
        """The step's ``Z`` (``Xj * mult + Y``, ``Xj`` or ``Y``) one byte a row on the
        GPU, as the copy's ``uint64`` words (``z_words``), in the buffer of
        :meth:`_padded_z`."""
        from numba import cuda

        from fsel.kernels.gpu import _cuda_columns as kern

        width = self._cols.shape[1]
        if self._zbuf is None:
            self._zbuf = cuda.device_array(width * 8, dtype=np.uint8)
        out = self._zbuf.view(np.uint64)
        blocks = 1 if SIMULATOR else max(1, min(32 * _n_sm(), -(-width // 256)))
        args = (self._cols, self._y64, j, mult, bool(has_z), use_lut, self._lut_dev, out)
        _launch(kern.z_words, blocks, COLUMN_THREADS, *args)
        return out

    def grid(self, plan: tuple) -> tuple[int, int]:
        """The grid of ``hist_columns`` for a :func:`column_plan`: ``(row blocks,
        candidate groups)``, the row blocks filling the plan's waves of the blocks
        that fit a multiprocessor together (its threads, shared memory and registers),
        at most one per ``COLUMN_THREADS`` words
        (two under the simulator: the grid stride and the merge exercised)."""
        from fsel.kernels.gpu._cuda_columns import COLUMN_REGISTERS

        _group, n_groups, _n_sub, shared = plan
        waves = self.plan[3]  # (shared_bytes, group, copies, waves, wide)
        resident = min(
            2048 // COLUMN_THREADS,
            SM_SHARED_BYTES // (shared + BLOCK_SHARED_EXTRA),
            REGISTERS_PER_SM // (COLUMN_REGISTERS * COLUMN_THREADS),
        )
        gx = max(1, -(-resident * _n_sm() * waves // n_groups))
        gx = min(gx, max(1, -(-self._cols.shape[1] // COLUMN_THREADS)))
        return (min(gx, 2) if SIMULATOR else gx), n_groups

    def _padded_z(self, z: Any) -> Any:
        """``Z`` (``uint8`` on the GPU, one byte a row) padded to the copy's whole
        8-byte words, in a buffer kept for the next step."""
        from numba import cuda

        width = self._cols.shape[1] * 8
        if self._zbuf is None:
            self._zbuf = cuda.device_array(width, dtype=np.uint8)
        return padded_bytes(z, self.n_samples, width, self._zbuf)
