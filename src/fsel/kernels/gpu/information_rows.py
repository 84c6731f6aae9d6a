r"""The information table of integer codes already on the GPU, read where they are.

A fit on a device array (``__cuda_array_interface__``, shape ``(n_samples,
n_features)``, codes ``0..255``) builds :class:`GpuRowTable`, whose counting passes
read the caller's row-major ``uint8`` matrix directly
(:func:`fsel.kernels.gpu._cuda_information.hist_rows`: 4-byte words of four
consecutive features of a row, a warp reading consecutive words of consecutive rows).
Against :class:`~fsel.kernels.gpu.information.GpuInformationTable`, which first copies
the codes into a feature-major matrix, the set-up loses three passes over the data:

* no feature-major copy (the codes are used as given when they are C-order ``uint8``;
  other integer dtypes or layouts are range-checked and narrowed once);
* no label coding on the host: ``y`` (a byte-sized integer or boolean array, on the
  host or the GPU) is counted on the GPU (:func:`~fsel.kernels.gpu._cuda_information.
  byte_counts`, 256 bins), its classes and a 256-entry lookup table from label byte to
  code are made from those counts on the host, and the counting kernels apply the
  table as they read ``y`` (no coded copy of ``y`` is written);
* the relevance pass counts ``(Xk, Y)`` over all 256 possible codes of every feature,
  which gives the numbers of levels (the largest code seen, plus one) in the same
  pass: no separate range pass over ``X``.

The greedy step's pair terms count ``(Xk, Xj |Y| + Y)`` with ``Z`` made inside the
counting kernel from the same row (``X[r, j]`` and ``y[r]``): no ``Z`` buffer either.
The counts are the same integers as on the CPU, so the selections and scores are the
CPU's, bit for bit (the entropies are computed from the counts on the host by
:func:`~fsel.kernels.gpu.information.sums_from_counts`).

Which table a fit builds (this one, the default feature-major copy of
:mod:`fsel.kernels.gpu.information_columns`, or the feature-major table of before) is
decided in :mod:`fsel.kernels.gpu.tables`.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from fsel.kernels.gpu import conditional
from fsel.kernels.gpu.information import _SIMULATOR as SIMULATOR
from fsel.kernels.gpu.information import (
    SHARED_CELLS,
    GpuInformationTable,
    NlognTable,
    _device_budget,
    _launch,
    _n_sm,
    as_device_array,
    encode_labels,
    is_device_array,
    sums_from_counts,
)
from fsel.kernels.gpu.lanes import (
    BLOCK_SHARED_EXTRA,
    LANE_PLAIN_BYTES,
    LANE_TILE,
    LANE_WORDS_MAX_BYTES,
    SM_SHARED_BYTES,
    allow_shared,
    lane_groups,
    lane_word_blocks,
    lane_word_plan,
)
from fsel.kernels.gpu.sums import device_sums, pays
from fsel.kernels.information import miller_madow_per_cell

__all__ = [
    "GpuRowTable",
    "byte_classes",
    "device_labels",
    "resident_blocks",
    "row_groups",
    "rows_from_device",
]

#: entries of the labels' lookup table (the kernels module holds the same constant)
LUT_SIZE = 256
#: int32 cells of the row kernel's shared histograms: 48 KiB less the lookup table
ROW_SHARED_CELLS = SHARED_CELLS - LUT_SIZE
#: threads per block of the row kernel (a warp's worth under the simulator)
ROW_THREADS = 8 if SIMULATOR else 256
#: row-kernel blocks per multiprocessor at most: ptxas (CUDA 13, sm_90) gives the
#: kernel 48 registers a thread, and 5 blocks of 256 threads fill 61,440 of the 65,536
#: registers of a multiprocessor
ROW_BLOCKS_PER_SM = 5


def resident_blocks(shared_bytes: int) -> int:
    """Row-kernel blocks that fit on one multiprocessor together, each with
    ``shared_bytes`` of histograms: the grid is this many per multiprocessor, one
    wave in which every block merges its histograms into global memory once.

    Examples
    --------
    >>> resident_blocks(4 * 52 * 200)  # JMI's pair step, 52 features a block
    5
    >>> resident_blocks(48 * 1024 - 1024)
    4
    """
    fit = SM_SHARED_BYTES // (shared_bytes + BLOCK_SHARED_EXTRA)
    return max(1, min(ROW_BLOCKS_PER_SM, fit))


#: blocks along a grid's ``y`` at most (CUDA's limit)
GRID_Y_MAX = 65535
#: rows one block of the packed (16-bit) row kernel may count: a cell's count must fit
HALF_MAX_ROWS = 65535


def row_groups(
    n_features: int, cells: int, budget: int = ROW_SHARED_CELLS, half: bool = False
) -> Any:
    """How :func:`~fsel.kernels.gpu._cuda_information.hist_rows` splits the features:
    ``(group, n_groups, wpr, n_sub)`` (features per block, blocks along the features,
    4-byte words a row's span of a group can touch, shared copies of the
    histograms), or None when one feature's ``cells``-cell histogram does not fit
    ``budget`` 32-bit shared words (``half``: two 16-bit cells a word).

    The groups are as even as possible and a multiple of 4 features where several fit
    (a row's span is then whole words when ``n_features`` is a multiple of 4).

    Examples
    --------
    >>> row_groups(100, 200)  # JMI's pair step: 10 levels x (10 levels x 2 classes)
    (52, 2, 13, 1)
    >>> row_groups(7, 20)  # 7 features: a row's 7 bytes can touch 3 words
    (8, 1, 3, 8)
    >>> row_groups(5, 20_000) is None
    True
    >>> row_groups(100, 200, half=True)  # 16-bit cells: every feature in one block
    (100, 1, 25, 1)
    """
    n_features = max(n_features, 1)
    per_word = 2 if half else 1
    fit = budget * per_word // max(cells, 1)
    if fit < 1:
        return None
    if fit >= 4:
        fit -= fit % 4
    n_groups = -(-n_features // fit)
    group = -(-n_features // n_groups)
    if fit >= 4:
        group = min(fit, -(-group // 4) * 4)
    n_groups = -(-n_features // group)
    aligned = n_features % 4 == 0 and group % 4 == 0
    wpr = group // 4 if aligned else (group + 6) // 4
    warps = max(1, ROW_THREADS // 32)
    n_sub = max(1, min(warps, budget // -(-group * cells // per_word)))
    return group, n_groups, wpr, n_sub


def byte_classes(counts: np.ndarray, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """The classes and the lookup table ``label byte -> code`` of byte-sized labels
    from their 256 byte counts: the classes are the present values in increasing
    order (as ``np.unique`` sorts them, an ``int8`` byte ``255`` being ``-1``), the
    table maps each present byte to its class's index (0 elsewhere).

    Examples
    --------
    >>> counts = np.zeros(256, dtype=np.int64)
    >>> counts[[0, 3, 255]] = 5
    >>> classes, lut = byte_classes(counts, np.int8)
    >>> classes.tolist(), lut[[255, 0, 3]].tolist()
    ([-1, 0, 3], [0, 1, 2])
    """
    present = np.flatnonzero(np.asarray(counts) > 0)
    values = np.arange(256, dtype=np.uint8).view(np.dtype(dtype))[present]
    order = np.argsort(values, kind="stable")
    lut = np.zeros(LUT_SIZE, dtype=np.int32)
    lut[present[order]] = np.arange(present.size, dtype=np.int32)
    return values[order], lut


class _DeviceLabels:
    """``y`` on the GPU for :class:`GpuRowTable`: one byte a row (``dev``), the
    lookup table from byte to code (``lut``, None when the bytes are the codes), the
    classes, the per-class counts, and the bytes on the host when they were given
    there (``host``)."""

    def __init__(self, dev: Any, lut: np.ndarray | None, classes: np.ndarray, counts: Any) -> None:
        self.dev = dev
        self.lut = lut
        self.classes = classes
        self.counts = np.asarray(counts, dtype=np.int64)
        self.host: np.ndarray | None = None

    def host_codes(self) -> np.ndarray:
        """The class codes ``0..m-1`` of every row on the host (``uint8``)."""
        raw = self.host if self.host is not None else self.dev.copy_to_host()
        raw = np.asarray(raw).view(np.uint8)
        if self.lut is None:
            return raw
        return self.lut.astype(np.uint8)[raw]


def device_labels(y: Any, n: int, name: str) -> _DeviceLabels | None:
    """``y`` for :class:`GpuRowTable`: byte-sized integer or boolean labels (on the
    host or the GPU) are uploaded as they are (or used in place) and counted on the
    GPU; other labels are coded on the host (:func:`encode_labels`) and their codes
    uploaded. None for more than 256 classes (the feature-major table takes those)."""
    from numba import cuda

    from fsel.kernels.gpu import _cuda_information as kern

    dev = host = dtype = None
    if is_device_array(y):
        yd = as_device_array(y)
        dt = np.dtype(yd.dtype)
        if yd.ndim == 1 and dt.itemsize == 1 and dt.kind in "iub" and yd.is_c_contiguous():
            dev, dtype = yd, dt
        else:
            y = yd.copy_to_host()
    if dev is None:
        y = np.asarray(y)
        if y.ndim == 1 and y.dtype.itemsize == 1 and y.dtype.kind in "iub":
            host, dtype = np.ascontiguousarray(y).view(np.uint8), y.dtype
    size = dev.shape[0] if dev is not None else (y.shape[0] if y.ndim == 1 else -1)
    if size != n:
        raise ValueError(f"{name}: y must be 1-D with one label per row of X")
    if dev is None and host is None:  # wider labels: coded on the host, codes uploaded
        classes, codes = encode_labels(y)
        if classes.size > 256:
            return None
        codes = np.ascontiguousarray(codes, dtype=np.uint8)
        counts = np.bincount(codes, minlength=classes.size)
        out = _DeviceLabels(cuda.to_device(codes), None, classes, counts)
        out.host = codes
        return out
    dev = cuda.to_device(host) if dev is None else dev.view(np.uint8)
    counts = cuda.to_device(np.zeros(LUT_SIZE, dtype=np.int64))
    blocks = 1 if SIMULATOR else max(1, min(4 * _n_sm(), -(-n // 1024)))
    _launch(kern.byte_counts, blocks, 8 if SIMULATOR else 256, dev, counts)
    counts = counts.copy_to_host()
    classes, lut = byte_classes(counts, dtype)
    present = np.flatnonzero(counts > 0)
    class_counts = np.zeros(classes.size, dtype=np.int64)
    class_counts[lut[present]] = counts[present]  # in class order, as on the CPU
    if np.array_equal(lut[present], present):
        lut = None  # the bytes are the codes 0..m-1: no lookup
    out = _DeviceLabels(dev, lut, classes, class_counts)
    out.host = host
    return out


def _word_aligned(x: Any) -> bool:
    """Whether a device array starts on a 4-byte boundary (the kernels read it as
    4-byte words; a slice of a larger array may not). Arrays of numba's simulator,
    which have no device pointer, count as aligned."""
    ptr = getattr(x, "device_ctypes_pointer", None)
    value = getattr(ptr, "value", None)
    return value is None or value % 4 == 0


def rows_from_device(X: Any, name: str) -> Any:
    """The codes on the GPU as a C-order ``uint8`` ``(n, K)`` matrix starting on a
    4-byte boundary: ``X`` itself when it is one, else a range-checked narrowed copy
    (ValueError for non-integer codes or codes outside ``0..255``)."""
    from numba import cuda

    from fsel.kernels.gpu import _cuda_information as kern

    X = as_device_array(X)
    if X.ndim != 2:
        raise ValueError(f"{name}: X on the GPU must be 2-D, got {X.ndim} dimension(s)")
    dt = np.dtype(X.dtype)
    if dt.kind not in "iub":
        raise ValueError(
            f"{name}: X on the GPU must hold integer codes (discretize=None), got dtype {dt}"
        )
    if dt == np.uint8 and X.is_c_contiguous() and _word_aligned(X):
        return X
    n, K = X.shape
    if dt.kind != "b" and dt != np.uint8:  # (bytes are in range)
        lo = cuda.to_device(np.full(K, np.iinfo(np.int64).max, np.int64))
        hi = cuda.to_device(np.full(K, np.iinfo(np.int64).min, np.int64))
        rows_per = max(256, -(-n // (64 * _n_sm())))
        grid = (math.ceil(K / 32), max(1, math.ceil(n / rows_per)))
        _launch(kern.column_range, grid, 32, X, rows_per, lo, hi)
        lo_h, hi_h = lo.copy_to_host(), hi.copy_to_host()
        if n and K and (lo_h.min() < 0 or hi_h.max() > 255):
            raise ValueError(
                f"{name}: X on the GPU must hold codes 0..255 (discretize=None takes "
                f"values as codes); found values in [{int(lo_h.min())}, {int(hi_h.max())}]"
            )
    out = cuda.device_array((n, K), dtype=np.uint8)
    tx, ty = (8, 8) if SIMULATOR else (16, 16)
    _launch(kern.narrow_codes, (max(1, -(-n // tx)), max(1, -(-K // ty))), (tx, ty), X, out)
    return out


def rows_from_feature_major(codes: Any) -> Any:
    """The sample-major ``(n, K)`` copy, on the GPU, of feature-major ``uint8`` codes
    ``(K, n)`` already there (:func:`~fsel.kernels.gpu._cuda_information.
    transpose_codes`, whose tiles keep both sides coalesced), made in column chunks
    that keep the grid within CUDA's 65535 blocks along ``y``. The host's codes thus
    travel as they were made: no transposed copy on the host."""
    from numba import cuda

    from fsel.kernels.gpu import _cuda_information as kern

    K, n = codes.shape
    out = cuda.device_array((n, K), dtype=np.uint8)
    span = kern.TILE * GRID_Y_MAX
    threads = 8 if SIMULATOR else 256
    for c0 in range(0, n, span):
        c1 = min(n, c0 + span)
        grid = (max(1, -(-K // kern.TILE)), max(1, -(-(c1 - c0) // kern.TILE)))
        _launch(kern.transpose_codes, grid, threads, codes[:, c0:c1], out[c0:c1])
    return out


class _RowCodes:
    """The row-major code matrix of :class:`GpuRowTable` (``dev``, ``(n, K)`` C-order
    ``uint8``), its flat byte view and its whole 4-byte words; ``shape`` is the
    feature-major ``(K, n)`` of the table protocol and ``codes[j]`` copies feature
    ``j`` to the host."""

    def __init__(self, dev: Any) -> None:
        from numba import cuda

        self.dev = dev
        self.host = None
        n, K = dev.shape
        self.n = n
        self.shape = (K, n)
        self.dtype = np.dtype(np.uint8)
        self.transfer_s = 0.0
        self.flat = dev.reshape(n * K)
        whole = (n * K) // 4
        if whole:
            self.words = self.flat[: 4 * whole].view(np.uint32)
        else:
            self.words = cuda.device_array(0, dtype=np.uint32)

    def __getitem__(self, j: int) -> np.ndarray:
        from numba import cuda

        from fsel.kernels.gpu import _cuda_information as kern

        K = self.shape[0]
        out = cuda.device_array(self.n, dtype=np.uint8)
        blocks = 1 if SIMULATOR else max(1, min(32 * _n_sm(), -(-self.n // 256)))
        _launch(kern.column_rows, blocks, 8 if SIMULATOR else 256, self.flat, self.n, K, j, out)
        return out.copy_to_host()


class GpuRowTable(GpuInformationTable):
    """:class:`~fsel.kernels.gpu.information.GpuInformationTable` over row-major
    ``uint8`` codes on the GPU, counted in place (see the module docstring): the same
    protocol and the same numbers.

    Parameters
    ----------
    codes : device array of shape (n_samples, n_features)
        C-order ``uint8`` codes (:func:`rows_from_device`).
    labels : _DeviceLabels
        ``y`` on the GPU (:func:`device_labels`).
    estimator : {"plugin", "miller_madow"}
    packed16 : bool
        Two 16-bit counts per 32-bit shared-memory word (``half`` of
        :func:`~fsel.kernels.gpu._cuda_information.hist_rows`): more features per
        block (each row read by fewer blocks), the grid sized so that no block
        counts more than :data:`HALF_MAX_ROWS` rows. The same counts.
    lane_budget : int
        Bytes of shared memory a block of
        :func:`~fsel.kernels.gpu._cuda_information.hist_lanes` may take (one bank per
        lane: no bank conflicts); 0: that kernel is not used. Where its histograms do
        not fit, the other kernels count. The same counts.
    lane_words : bool
        Count with :func:`~fsel.kernels.gpu._cuda_information.hist_lane_words` (rows
        read as 4-byte words, eight a warp at a time) where ``n_features % 4 == 0``
        and its plan fits ``lane_budget``. The same counts.
    memory_budget : int or None
        Bytes of GPU memory for histograms too large for shared memory (counted in
        global memory for groups of candidates within a quarter of it); None: a
        fraction of the free memory.

    Attributes
    ----------
    n_levels : ndarray
        The largest code of every feature plus one, from the relevance pass.
    present_levels : ndarray
        The number of distinct codes of every feature, from the same pass.
    count_seconds : float
        Seconds of the counting passes (kernels and copying counts back).
    """

    def __init__(
        self,
        codes: Any,
        labels: _DeviceLabels,
        *,
        estimator: str = "plugin",
        packed16: bool = False,
        lane_budget: int = 0,
        lane_words: bool = False,
        memory_budget: int | None = None,
    ) -> None:
        from numba import cuda

        if estimator not in ("plugin", "miller_madow"):
            raise ValueError(f"estimator must be 'plugin' or 'miller_madow', got {estimator!r}")
        self.count_seconds = 0.0
        self._half = bool(packed16)
        self._lane_budget = int(lane_budget)
        self._lane_words = bool(lane_words)
        self._large_words = True  # hist_lane_words may take one block a multiprocessor
        self._labels = labels
        self._y_host: np.ndarray | None = None
        self._hist: Any = None
        self._lut_dev = cuda.to_device(
            labels.lut if labels.lut is not None else np.zeros(LUT_SIZE, np.int32)
        )
        self.codes = _RowCodes(codes)
        self.n_classes = int(labels.classes.size)
        self.n_samples = int(codes.shape[0])
        self._budget = 0
        self._memory_budget = memory_budget
        self._pack_in_place = False
        self.estimator = estimator
        self.n_jobs = 1
        self._table = NlognTable()
        self._small_dev: Any = None  # the table's small values on the GPU (device sums)
        self._log2n = float(np.log2(self.n_samples))
        self._mm = miller_madow_per_cell(estimator, self.n_samples)
        self._s_y = float(self._table[labels.counts].sum())
        self._m_y = int(np.count_nonzero(labels.counts))
        self.missing_codes = None
        self.target_entropy = float(self._h(np.array(self._s_y), np.array(self._m_y)))
        self._init_relevance()

    @property
    def y(self) -> np.ndarray:  # type: ignore[override]
        """The class codes on the host (copied from the GPU when first asked for: only
        CMI's conditioning joint needs them)."""
        if self._y_host is None:
            self._y_host = self._labels.host_codes()
        return self._y_host

    def joint_codes(self, s: Any, j: int) -> Any:
        """CMI's conditioning joint with feature ``j``, kept on the GPU
        (:func:`fsel.kernels.gpu.conditional.joint_codes`; the CPU's codes)."""
        if not conditional.ON_DEVICE:
            return super().joint_codes(s, j)
        return conditional.joint_codes(self, s, j)

    def conditional_relevance(self, s: Any) -> np.ndarray:
        """``I(Xk;Y|S)`` of every candidate, ``S`` from :meth:`joint_codes`
        (:func:`fsel.kernels.gpu.conditional.conditional_relevance`)."""
        if not isinstance(s, conditional.GpuJointCodes):
            return super().conditional_relevance(s)
        return conditional.conditional_relevance(self, s)

    def counts_in_shared(self, cells: int) -> bool:
        """Whether :meth:`_counts` counts ``cells``-cell histograms in shared memory
        (else in global memory)."""
        return row_groups(self.n_features, cells, half=self._half) is not None

    def _init_relevance(self) -> None:
        """The numbers of levels, ``feature_entropy`` and ``relevance`` from one pass
        counting ``(Xk, Y)`` over every possible code ``0..255`` of every feature (a
        range pass first where that histogram is too large for shared memory)."""
        ny = self.n_classes
        K = self.n_features
        if row_groups(K, 256 * ny, half=self._half) is not None or K == 0:
            self.n_levels = np.full(K, 256, dtype=np.int64)
            full = self._counts(ny, row=(-1, 0, True))
            seen = full.reshape(K, 256, ny).sum(axis=2) > 0
            self.n_levels = 256 - np.argmax(seen[:, ::-1], axis=1).astype(np.int64)
            a = int(self.n_levels.max(initial=1))
            full = np.ascontiguousarray(full[:, : a * ny])
        else:  # many classes: the levels first, then the relevance at their width
            hi = self._column_max()
            self.n_levels = hi + 1
            full = self._counts(ny, row=(-1, 0, True))
        # the distinct codes of each feature (the host's number of levels for codes)
        self.present_levels = np.count_nonzero(full.reshape(K, -1, ny).sum(axis=2), axis=1)
        s_ky, s_k, m_ky, m_k = sums_from_counts(full, ny, self._table)
        self._s_ky, self._s_k, self._m_ky, self._m_k = s_ky, s_k, m_ky, m_k
        self.feature_entropy = self._h(s_k, m_k)
        self.relevance = self._relevance(self.feature_entropy, s_ky, m_ky)

    def _column_max(self) -> np.ndarray:
        from numba import cuda

        from fsel.kernels.gpu import _cuda_information as kern

        n, K = self.codes.dev.shape
        lo = cuda.to_device(np.full(K, np.iinfo(np.int64).max, np.int64))
        hi = cuda.to_device(np.full(K, np.iinfo(np.int64).min, np.int64))
        rows_per = max(256, -(-n // (64 * _n_sm())))
        grid = (math.ceil(K / 32), max(1, math.ceil(n / rows_per)))
        _launch(kern.column_range, grid, 32, self.codes.dev, rows_per, lo, hi)
        return hi.copy_to_host().astype(np.int64)

    def _sums(
        self, nz: int, group: int, z: Any = None, row: tuple | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The sums of :meth:`_counts`' histograms (coarse cells ``z // group``), made
        on the GPU where :func:`~fsel.kernels.gpu.sums.pays` (:meth:`_result`)."""
        return self._counts(nz, z=z, row=row, group=group)

    def _result(self, hist: Any, group: int | None) -> Any:
        """The histograms ``hist`` (``int32`` on the GPU) copied to the host as
        ``int64`` (``group`` None), or their sums
        (:func:`~fsel.kernels.gpu.information.sums_from_counts`' four arrays), made on
        the GPU where it pays, else on the host: the same numbers either way."""
        cells = hist.shape[1]
        if group is not None and pays(self.n_samples, cells // group):
            if self._small_dev is None:
                from numba import cuda

                self._small_dev = cuda.to_device(self._table.small())
            return device_sums(hist, group, self._table, self._small_dev, self.n_jobs)
        out = hist.copy_to_host().astype(np.int64)
        return out if group is None else sums_from_counts(out, group, self._table, self.n_jobs)

    def _counts(
        self,
        nz: int,
        z: np.ndarray | None = None,
        row: tuple | None = None,
        group: int | None = None,
    ):
        """Joint histograms ``(K, a * nz)`` of every candidate against ``Z``: given on
        the host (``z``), or made in the kernel from a feature and the labels (``row =
        (j, mult, with_y)``: ``Z = Xj * mult + Y``; ``j = -1``: ``Y`` alone); with
        ``group``, their sums instead (:meth:`_result`)."""
        from numba import cuda

        from fsel.kernels.gpu import _cuda_information as kern

        t0 = time.perf_counter()
        K, n = self.codes.shape
        a = int(self.n_levels.max()) if self.n_levels.size else 1
        cells = a * nz
        lab = self._labels
        if row is not None:
            j, mult, has_z = row
            zsrc = lab.dev
            use_lut = has_z and lab.lut is not None
        else:
            j, mult, has_z, use_lut = -1, 0, True, False
            dt = np.uint8 if nz <= 256 else np.int32
            # CMI's Z made on the GPU (int32) is read where it is
            zsrc = z if is_device_array(z) else cuda.to_device(np.ascontiguousarray(z, dtype=dt))
        if not has_z:
            zsrc = lab.dev  # unread
        half = self._half
        plan = row_groups(K, cells, half=half)
        cd = self.codes
        if plan is None and n and K:
            out = self._counts_global(cells, nz, (j, mult, zsrc, has_z, use_lut), group)
            self.count_seconds += time.perf_counter() - t0
            return out
        hist = self._hist
        if hist is None or hist.shape != (K, cells):
            hist = self._hist = cuda.device_array((K, cells), dtype=np.int32)
        zb = 1 if SIMULATOR else max(1, min(32 * _n_sm(), -(-K * cells // 256)))
        _launch(kern.zero_cells, zb, 8 if SIMULATOR else 256, hist)
        zargs = (j, mult, zsrc, has_z, use_lut)
        if self._lane_budget and n and K and self._count_lanes(cells, nz, zargs, hist):
            pass
        elif plan is not None and n and K:
            per_block, n_groups, wpr, n_sub = plan
            tile = max(1, ROW_THREADS // wpr)
            tiles = -(-n // tile)
            shared = 4 * n_sub * -(-per_block * cells // (2 if half else 1))
            gx = max(1, min(tiles, resident_blocks(shared) * _n_sm() // n_groups))
            if SIMULATOR:  # two blocks: the grid stride and the merge are exercised
                gx = min(gx, 2)
            if half:  # no block counts more than HALF_MAX_ROWS rows
                gx = max(gx, -(-tiles // max(1, HALF_MAX_ROWS // tile)))
            args = (cd.words, cd.flat, n, K, per_block, wpr, j, mult, zsrc, has_z, use_lut)
            _launch(
                kern.hist_rows,
                (gx, n_groups),
                ROW_THREADS,
                *args,
                *(self._lut_dev, nz, cells, n_sub, half, hist),
                shared=shared,
            )
        out = self._result(hist, group)
        self.count_seconds += time.perf_counter() - t0
        return out

    def _count_lanes(self, cells: int, nz: int, zargs: tuple, hist: Any) -> bool:
        """Add the joint histograms of :meth:`_counts` to ``hist`` with
        :func:`~fsel.kernels.gpu._cuda_information.hist_lanes` (or, with
        ``lane_words``, ``hist_lane_words`` where its plan fits the budget, or one
        block a multiprocessor when the budget is the opt-in one; 16-bit shared
        counts, at most 65535 rows a block); False, launching nothing, where 32
        features' histograms do not fit the shared-memory budget."""
        from fsel.kernels.gpu import _cuda_information as kern

        K, n = self.codes.shape
        j, mult, zsrc, has_z, use_lut = zargs
        budget = self._lane_budget
        plan = lane_groups(K, cells, True, budget)
        words = lane_word_plan(K, cells, True, budget) if self._lane_words else None
        large = words is None and self._lane_words and budget > LANE_PLAIN_BYTES
        if large and self._large_words:
            words = lane_word_plan(K, cells, True, LANE_WORDS_MAX_BYTES)
        if words is not None:
            n_groups, shared = words
            threads, resident = lane_word_blocks(shared)
            kernel = kern.hist_lane_words
        elif plan is not None:
            nf, n_groups, shared = plan
            threads = LANE_TILE
            resident = min(2048 // threads, SM_SHARED_BYTES // (shared + BLOCK_SHARED_EXTRA))
            kernel = kern.hist_lanes
        else:
            return False
        gx = max(1, resident * _n_sm() // n_groups, -(-n // HALF_MAX_ROWS))
        if SIMULATOR:
            threads, gx = 32, max(min(gx, 2), -(-n // HALF_MAX_ROWS))
        rows_per = -(-n // gx)
        gx = -(-n // rows_per)
        if words is not None:
            args = (self.codes.words, self.codes.flat, n, K, rows_per)
        else:
            args = (self.codes.flat, n, K, nf, rows_per, LANE_TILE)
        args = (*args, j, mult, zsrc, has_z, use_lut, self._lut_dev, nz, cells, True, hist)
        if not allow_shared(kernel, args, shared):
            if large and words is not None:  # a card with less shared memory a block
                self._large_words = False
                return self._count_lanes(cells, nz, zargs, hist)
            if lane_groups(K, cells, True, LANE_PLAIN_BYTES) is None:
                return False
            self._lane_budget = LANE_PLAIN_BYTES
            return self._count_lanes(cells, nz, zargs, hist)
        _launch(kernel, (gx, n_groups), threads, *args, shared=shared)
        return True

    def _counts_global(self, cells: int, nz: int, zargs: tuple, group: int | None = None) -> Any:
        """The histograms of :meth:`_counts` too large for shared memory (or their
        sums, with ``group``), counted in global memory, one atomic add a row and
        candidate (:meth:`chunked_counts`)."""
        from fsel.kernels.gpu import _cuda_information as kern

        K, n = self.codes.shape
        j, mult, zsrc, has_z, use_lut = zargs
        flat = self.codes.flat

        def count(hist: Any, k0: int, kc: int) -> None:
            blocks = 2 if SIMULATOR else max(1, min(32 * _n_sm(), -(-n * kc // 256)))
            args = (flat, n, K, k0, kc, j, mult, zsrc, has_z, use_lut, self._lut_dev, nz, hist)
            _launch(kern.hist_rows_global, blocks, 8 if SIMULATOR else 256, *args)

        return self.chunked_counts(cells, count, group)

    def chunked_counts(self, cells: int, count: Any, group: int | None = None) -> Any:
        """Histograms of ``cells`` cells for every candidate, in global memory: the
        candidates in groups whose ``int32`` counts take at most a quarter of the
        memory budget (the feature-major table's rule); ``count(hist, k0, kc)`` adds
        the counts of candidates ``k0 .. k0 + kc - 1`` to the zeroed ``hist``. With
        ``group``, the histograms' sums instead (:meth:`_result`, a group at a
        time)."""
        from numba import cuda

        from fsel.kernels.gpu import _cuda_information as kern

        K = self.n_features
        if not self._budget:
            self._budget = _device_budget(self._memory_budget)
        chunk = max(1, min(K, (self._budget // 4) // max(cells * 4, 1)))
        parts = []
        for k0 in range(0, K, chunk):
            kc = min(K, k0 + chunk) - k0
            hist = cuda.device_array((kc, cells), dtype=np.int32)
            zb = 1 if SIMULATOR else max(1, min(32 * _n_sm(), -(-kc * cells // 256)))
            _launch(kern.zero_cells, zb, 8 if SIMULATOR else 256, hist)
            count(hist, k0, kc)
            parts.append(self._result(hist, group))
        if group is None:
            return np.concatenate(parts) if parts else np.empty((0, cells), dtype=np.int64)
        return tuple(np.concatenate(p) for p in zip(*parts, strict=True))
