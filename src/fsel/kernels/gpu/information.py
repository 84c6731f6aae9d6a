r"""The greedy step of the information criteria on a CUDA GPU (numba's CUDA target).

The one expensive part of every step is counting, for every candidate feature
``Xk``, the joint histogram of ``(Xk, Z)``, ``Z`` being a variable the step conditions
on (``Y`` for the relevance, ``Xj * |Y| + Y`` for the pair terms of the newest pick
``Xj``, ``S * |Y| + Y`` for CMI). The kernels of
:mod:`fsel.kernels.gpu._cuda_information` count it on the GPU: one thread block per
(candidate, row range), its histogram in shared memory (one copy per warp where they
fit, which spreads the atomic adds), the codes read as 4-byte words (four rows per
load); in global memory when the histogram is too large for shared memory.

Only the counts come back to the host (``K x cells`` integers, a few kilobytes for
codes of ten levels); the entropies are computed from them exactly as the CPU path
does (``sum_c c log2 c`` summed in cell order, :func:`sums_from_counts`), so a GPU fit
selects the same features with the same scores as a CPU fit, bit for bit.

Tables larger than the GPU's memory budget stay on the host and stream through the
GPU in row blocks; codes travel as ``uint8`` where they fit (256 levels or fewer).
"""

from __future__ import annotations

import math
import os
import time
from typing import Any

import numpy as np

from fsel.kernels._counting import histogram_nlogn, numba_enabled
from fsel.kernels.information import InformationTable, PairTerms, miller_madow_per_cell
from fsel.utils.parallel import spans, thread_map

__all__ = [
    "GpuBlockCounts",
    "GpuInformationTable",
    "NlognTable",
    "byte_label_counts",
    "device_codes_from_samples",
    "encode_labels",
    "sums_from_counts",
]

#: int32 cells of the shared-memory histograms of one thread block (48 KiB; the
#: kernels module holds the same constant)
SHARED_CELLS = 12288
#: threads per block (numba's simulator runs one Python thread per GPU thread: a
#: warp per block keeps it fast enough for the test suite)
_SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
THREADS = 8 if _SIMULATOR else 256
#: bytes of GPU memory the table may hold when no budget is given: a fraction of free
DEFAULT_FRACTION = 0.6
#: histogram cells a thread takes at least in :func:`sums_from_counts`
SUMS_THREAD_CELLS = 1 << 17
#: cells of histograms from which their sums are compiled (numba,
#: :func:`~fsel.kernels._counting.histogram_nlogn`; fewer: numpy, no import)
COMPILED_SUMS_CELLS = 1 << 16


def _kernels() -> dict[str, Any]:
    """The compiled kernels of :mod:`fsel.kernels.gpu._cuda_information` (imported
    here, not before: it imports numba's CUDA target)."""
    from fsel.kernels.gpu import _cuda_information as k

    return {
        "hist_shared": k.hist_shared,
        "hist_global": k.hist_global,
        "pair_z": k.pair_z,
        "transpose_codes": k.transpose_codes,
        "column_range": k.column_range,
    }


def sums_from_counts(
    full: np.ndarray, group: int, table: Any, n_jobs: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``sum c log2 c`` and non-empty cells of the histograms ``full`` (rows:
    candidates, cells ``x * nz + z``) and of their coarse version over ``z // group``
    — the CPU kernels' numbers bit for bit: the terms are added one after the other
    in cell order (a cumulative sum), as :func:`fsel.kernels._counting.grouped_nlogn`
    adds them. ``n_jobs`` threads take blocks of candidates where there are at least
    :data:`SUMS_THREAD_CELLS` cells (each row's sums are its own: the same numbers).

    Examples
    --------
    >>> from fsel.kernels._counting import nlogn_table
    >>> full = np.array([[2, 0, 1, 1]])  # one candidate, x in {0, 1}, z in {0, 1}
    >>> s_full, s_coarse, m_full, m_coarse = sums_from_counts(full, 2, nlogn_table(4))
    >>> s_full.tolist(), s_coarse.tolist(), m_full.tolist(), m_coarse.tolist()
    ([2.0], [4.0], [3], [2])
    """
    kb, cells = full.shape
    dense = _dense_table(full, group, table) if full.size >= COMPILED_SUMS_CELLS else None
    if dense is not None:  # compiled, the same order: the same sums
        return histogram_nlogn(full, group, dense, n_jobs)
    threads = min(int(n_jobs), kb, full.size // SUMS_THREAD_CELLS)
    if threads > 1:
        found = thread_map(
            lambda a, b: sums_from_counts(full[a:b], group, table), spans(kb, threads), threads
        )
        return tuple(np.concatenate(part) for part in zip(*found, strict=True))  # type: ignore[return-value]
    parts = full.reshape(kb, cells // group, group)
    coarse = parts[:, :, 0].copy()
    for g in range(1, group):  # integer sums: any order; strided adds beat sum(axis=2)
        coarse += parts[:, :, g]
    tf, tc = table[full], table[coarse]
    return (
        np.cumsum(tf, axis=1, out=tf)[:, -1],
        np.cumsum(tc, axis=1, out=tc)[:, -1],
        np.count_nonzero(full, axis=1),
        np.count_nonzero(coarse, axis=1),
    )


def _dense_table(full: np.ndarray, group: int, table: Any) -> np.ndarray | None:
    """A tabulated ``c log2 c`` covering every count of ``full`` and of its coarse
    version for the compiled sums (``table`` itself, or :class:`NlognTable`'s small
    table; a coarse count is at most ``group`` times the largest count), or None where
    numba is not available or a count may lie beyond the table."""
    if full.dtype.kind not in "iu" or not numba_enabled() or int(full.min(initial=0)) < 0:
        return None
    top = int(full.max(initial=0)) * group
    dense = table.small() if isinstance(table, NlognTable) else np.asarray(table)
    return dense if top < dense.size else None


class NlognTable:
    """``t[c] = c log2 c`` (``t[0] = 0``) for the counts asked for: indexing it gives
    the values of :func:`fsel.kernels._counting.nlogn_table` (the same float64
    operations on the same numbers) without tabulating every count up to ``n``.

    Examples
    --------
    >>> from fsel.kernels._counting import nlogn_table
    >>> c = np.array([[0, 1, 2], [7, 3, 0]])
    >>> bool(np.array_equal(NlognTable()[c], nlogn_table(7)[c]))
    True
    """

    #: counts below this are looked up in a table made once (the same operations
    #: on the same numbers: :func:`~fsel.kernels._counting.nlogn_table`'s values)
    SMALL = 1 << 16

    def __init__(self) -> None:
        self._small: np.ndarray | None = None

    def small(self) -> np.ndarray:
        """The values for the counts ``0 .. SMALL - 1`` (made once)."""
        if self._small is None:
            self._small = self._values(np.arange(self.SMALL))
        return self._small

    def __getitem__(self, counts: Any) -> np.ndarray:
        counts = np.asarray(counts)
        if (
            counts.size
            and counts.dtype.kind in "iu"
            and 0 <= counts.min() <= counts.max() < self.SMALL
        ):
            return self.small()[counts]
        return self._values(counts)

    @staticmethod
    def _values(counts: Any) -> np.ndarray:
        c = np.asarray(counts, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(c == 0, 0.0, c * np.log2(c))


def _launch(kernel: Any, grid: Any, block: Any, *args: Any, shared: int = 0) -> None:
    """Launch ``kernel[grid, block, 0, shared](*args)`` (``shared``: bytes of dynamic
    shared memory), without numba's low-occupancy warning (small tables make small
    grids on purpose)."""
    import warnings

    from numba.core.errors import NumbaPerformanceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaPerformanceWarning)
        if shared:
            kernel[grid, block, 0, shared](*args)
        else:
            kernel[grid, block](*args)


def _device_budget(memory_budget: int | None) -> int:
    if memory_budget is not None:
        return int(memory_budget)
    from numba import cuda

    try:
        free, _total = cuda.current_context().get_memory_info()
    except Exception:  # no memory query
        return 1 << 30
    if not np.isfinite(free):  # the simulator
        return 1 << 30
    return int(free * DEFAULT_FRACTION)


def _n_sm() -> int:
    from numba import cuda

    try:
        return int(cuda.get_current_device().MULTIPROCESSOR_COUNT)
    except Exception:
        return 16


#: thread blocks per multiprocessor a counting pass launches in all: about four waves
#: of 8 resident blocks (a whole number of waves matters less with several: the
#: last, partly idle one is a small share), each block then merging its histogram
#: into global memory once
BLOCKS_PER_SM = 32


def _grid_x(items: int, n_candidates: int) -> int:
    """Row-range blocks per candidate: about :data:`BLOCKS_PER_SM` blocks of
    ``THREADS`` threads per multiprocessor in all, never more than one per ``THREADS``
    items."""
    if _SIMULATOR:  # one block per candidate: the simulator pays per thread
        return 1
    return max(1, min(-(-items // THREADS), BLOCKS_PER_SM * _n_sm() // max(n_candidates, 1)))


def byte_label_counts(y: np.ndarray) -> np.ndarray:
    """``np.bincount(y, minlength=256)`` of a 1-D ``uint8`` array in one compiled pass
    (no ``intp`` copy of the labels).

    Examples
    --------
    >>> byte_label_counts(np.array([2, 0, 2], dtype=np.uint8))[:3].tolist()
    [1, 0, 2]
    """
    from fsel.kernels._numba_labels import byte_counts

    return byte_counts(np.ascontiguousarray(y, dtype=np.uint8))


def encode_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(y, return_inverse=True)`` in one counting pass for integer labels
    of a small range (the sort it replaces costs seconds on tens of millions of rows).
    Labels of fewer than 256 distinct values come back as ``uint8`` codes; byte-sized
    labels that are already the codes ``0..m-1`` come back as a view of ``y`` (no
    pass over the rows beyond their minimum, maximum and counts).

    Examples
    --------
    >>> classes, codes = encode_labels(np.array([5, 3, 5, 9]))
    >>> classes.tolist(), codes.tolist()
    ([3, 5, 9], [1, 0, 1, 2])
    """
    y = np.asarray(y)
    if y.dtype.kind in "iub" and y.size and y.ndim == 1:
        lo, hi = int(y.min()), int(y.max())
        if hi - lo < 256:
            if y.dtype.itemsize == 1 and lo >= 0:
                shifted, lo_used = y.view(np.uint8), 0
            else:
                shifted = (y.astype(np.int64, copy=False) - lo).astype(np.uint8)
                lo_used = lo
            present = byte_label_counts(shifted)[: hi - lo_used + 1] > 0
            values = np.flatnonzero(present)
            classes = (values + lo_used).astype(y.dtype)
            if values.size == present.size:  # the labels are their own codes
                return classes, shifted
            lookup = np.zeros(256, dtype=np.uint8)
            lookup[values] = np.arange(values.size, dtype=np.uint8)
            return classes, lookup[shifted]
        if hi - lo < 1 << 20:
            present = np.bincount((y - lo).astype(np.intp, copy=False), minlength=hi - lo + 1) > 0
            lookup = np.cumsum(present) - 1
            codes = lookup[(y - lo).astype(np.intp, copy=False)]
            classes = (np.flatnonzero(present) + lo).astype(y.dtype)
            return classes, codes
    classes, codes = np.unique(y, return_inverse=True)
    return classes, codes.reshape(-1)


def is_device_array(x: Any) -> bool:
    """Whether ``x`` lives on a CUDA device (``__cuda_array_interface__``)."""
    return hasattr(x, "__cuda_array_interface__")


def as_device_array(x: Any) -> Any:
    """``x`` (``__cuda_array_interface__``) as a numba device array; under numba's
    simulator, whose arrays have neither the interface nor ``cuda.as_cuda_array``,
    a simulated device array is taken as it is."""
    from numba import cuda

    if hasattr(cuda, "as_cuda_array"):
        return cuda.as_cuda_array(x)
    return x


def device_codes_from_samples(X: Any) -> tuple[Any, np.ndarray, float]:
    """Feature-major ``uint8`` codes on the device from a sample-major integer matrix
    already there (``__cuda_array_interface__``, shape ``(n, K)``, values ``0..255``),
    the number of levels of every column (its maximum + 1; codes are taken as given)
    and the seconds it took. Raises ValueError for non-integer or out-of-range codes.
    """
    from numba import cuda

    t0 = time.perf_counter()
    X = as_device_array(X)
    if X.ndim != 2:
        raise ValueError(f"X on the GPU must be 2-D, got {X.ndim} dimension(s)")
    if np.dtype(X.dtype).kind not in "iu":
        raise ValueError(
            f"X on the GPU must hold integer codes (discretize=None), got dtype {X.dtype}"
        )
    n, K = X.shape
    kern = _kernels()
    lo = cuda.to_device(np.full(K, np.iinfo(np.int64).max, np.int64))
    hi = cuda.to_device(np.full(K, np.iinfo(np.int64).min, np.int64))
    rows_per = max(256, -(-n // (64 * _n_sm())))
    grid_range = (math.ceil(K / 32), max(1, math.ceil(n / rows_per)))
    _launch(kern["column_range"], grid_range, 32, X, rows_per, lo, hi)
    lo_h, hi_h = lo.copy_to_host(), hi.copy_to_host()
    if n and (lo_h.min() < 0 or hi_h.max() > 255):
        raise ValueError(
            "X on the GPU must hold codes 0..255 (discretize=None takes values as codes); "
            f"found values in [{int(lo_h.min())}, {int(hi_h.max())}]"
        )
    n_pad = -(-n // 4) * 4
    out = cuda.device_array((K, n_pad), dtype=np.uint8)
    from fsel.kernels.gpu._cuda_information import TILE

    grid = (math.ceil(n_pad / TILE), math.ceil(K / TILE))
    _launch(kern["transpose_codes"], grid, THREADS, X, out)
    cuda.synchronize()
    return out, (hi_h.astype(np.int64) + 1), time.perf_counter() - t0


class _GpuCodes:
    """The code matrix for :class:`GpuInformationTable`: resident on the GPU
    (``dev``, feature-major, rows padded to a multiple of 4) or, when it does not fit
    the budget, on the host (``host``) streamed through in row blocks."""

    def __init__(self, codes: Any, n: int, budget: int, levels: int) -> None:
        from numba import cuda

        self.n = n
        self.host: np.ndarray | None = None
        self.dev: Any = None
        self.transfer_s = 0.0
        if is_device_array(codes):
            self.dev = as_device_array(codes)
            self.shape = (self.dev.shape[0], n)
            self.dtype = np.dtype(self.dev.dtype)
            self.block_rows = n
            return
        codes = np.asarray(codes)
        self.shape = codes.shape
        if levels <= 256:
            self.dtype = np.dtype(np.uint8)
        else:
            self.dtype = np.dtype(np.int32)
        K = codes.shape[0]
        per_row = K * self.dtype.itemsize
        if per_row * n <= budget // 2:  # half: room for the histograms and z
            t0 = time.perf_counter()
            self.dev = cuda.to_device(self._pad(codes, 0, n))
            cuda.synchronize()
            self.transfer_s = time.perf_counter() - t0
            self.block_rows = n
        else:
            self.host = codes
            self.block_rows = max(4, (budget // 4) // max(per_row, 1) // 4 * 4)

    def _pad(self, codes: np.ndarray, r0: int, r1: int) -> np.ndarray:
        """Rows ``r0..r1-1`` as a contiguous block, padded to a multiple of 4."""
        if (
            r0 == 0
            and r1 == codes.shape[1]
            and codes.dtype == self.dtype
            and codes.flags.c_contiguous
            and (self.dtype != np.uint8 or r1 % 4 == 0)
        ):
            return codes  # already the device layout: no host copy
        width = -(-(r1 - r0) // 4) * 4 if self.dtype == np.uint8 else r1 - r0
        out = np.zeros((codes.shape[0], width), dtype=self.dtype)
        out[:, : r1 - r0] = codes[:, r0:r1]
        return out

    def blocks(self) -> list[tuple[int, int]]:
        step = self.block_rows
        return [(a, min(a + step, self.n)) for a in range(0, self.n, step)] or [(0, 0)]

    def block(self, r0: int, r1: int) -> Any:
        """The device codes of rows ``r0..r1`` (uploaded when streaming)."""
        if self.dev is not None:
            return self.dev
        from numba import cuda

        t0 = time.perf_counter()
        out = cuda.to_device(self._pad(self.host, r0, r1))
        self.transfer_s += time.perf_counter() - t0
        return out

    def __getitem__(self, j: int) -> np.ndarray:
        if self.host is not None:
            return self.host[j]
        return self.dev[j].copy_to_host()[: self.n]


class GpuInformationTable(InformationTable):
    """:class:`~fsel.kernels.information.InformationTable` whose counting passes run
    on a CUDA GPU: the same protocol, the same numbers.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), or a device array
        Feature-major codes; a device array (``__cuda_array_interface__``) must be
        ``uint8`` with rows padded to a multiple of 4 (see
        :func:`device_codes_from_samples`).
    n_levels, y, estimator
        As in :class:`InformationTable` (``y`` on the host).
    memory_budget : int or None
        Bytes of GPU memory the table may use (None: 60% of the free memory); a
        larger host table streams through in row blocks.

    Attributes
    ----------
    transfer_seconds : float
        Seconds spent copying codes to the GPU (0 for codes already there).
    count_seconds : float
        Seconds spent in the counting passes (kernels and copying counts back).

    Pairwise deletion (``missing_codes``) is not available on the GPU.
    """

    def __init__(
        self,
        codes: Any,
        n_levels: np.ndarray,
        y: np.ndarray,
        *,
        estimator: str = "plugin",
        memory_budget: int | None = None,
    ) -> None:
        if estimator not in ("plugin", "miller_madow"):
            raise ValueError(f"estimator must be 'plugin' or 'miller_madow', got {estimator!r}")
        self._budget = _device_budget(memory_budget)
        self.count_seconds = 0.0
        self._dev_y: dict[str, Any] = {}
        # the InformationTable state, set here rather than by its __init__: the labels
        # stay in their smallest dtype and c log2 c is computed for the counts that
        # occur (NlognTable), not tabulated for 0..n (a pass over n values per fit)
        y = np.asarray(y)
        self.n_levels = np.asarray(n_levels, dtype=np.int64)
        self.n_classes = int(y.max()) + 1
        self.y = y.astype(np.uint8 if self.n_classes <= 256 else np.int64, copy=False)
        self.n_samples = self.y.size
        self.codes = _GpuCodes(
            codes, self.n_samples, self._budget, int(self.n_levels.max(initial=1))
        )
        self._pack_in_place = False
        self.estimator = estimator
        self.n_jobs = 1
        self._table = NlognTable()
        self._log2n = float(np.log2(self.n_samples))
        self._mm = miller_madow_per_cell(estimator, self.n_samples)
        ycounts = byte_label_counts(self.y) if self.y.dtype == np.uint8 else np.bincount(self.y)
        ycounts = ycounts[: self.n_classes]
        self._s_y = float(self._table[ycounts].sum())
        self._m_y = int(np.count_nonzero(ycounts))
        self.missing_codes = None
        self.target_entropy = float(self._h(np.array(self._s_y), np.array(self._m_y)))
        self._init_relevance()

    @property
    def transfer_seconds(self) -> float:
        return self.codes.transfer_s

    # ------------------------------------------------------------------ counting
    def _upload_z(self, z: np.ndarray, nz: int, r0: int, r1: int) -> tuple[Any, bool]:
        from numba import cuda

        if z is self.y and self.codes.dev is not None:  # the labels: on the GPU once
            dy = self._device_y()
            return (dy.view(np.uint32), True) if dy.dtype == np.uint8 else (dy, False)

        part = z[r0:r1]
        if nz <= 256:
            pad = np.zeros(-(-part.size // 4) * 4, dtype=np.uint8)
            pad[: part.size] = part
            return cuda.to_device(pad).view(np.uint32), True
        return cuda.to_device(np.ascontiguousarray(part, dtype=np.int32)), False

    def _device_y(self) -> Any:
        if "y" not in self._dev_y:
            from numba import cuda

            dt = np.uint8 if self.n_classes <= 256 else np.int32
            width = self.codes.dev.shape[1]
            if width == self.n_samples and self.y.dtype == dt:  # no padding: as it is
                pad = np.ascontiguousarray(self.y)
            else:
                pad = np.zeros(width, dtype=dt)
                pad[: self.n_samples] = self.y
            self._dev_y["y"] = cuda.to_device(pad)
        return self._dev_y["y"]

    def _row_z(self, j: int, mult: int, with_y: bool, nz: int) -> tuple[Any, bool]:
        """``Z = Xj * mult + Y`` (``with_y`` False: ``Xj`` alone), made on the GPU."""
        from numba import cuda

        dev = self.codes.dev
        dt = np.uint8 if nz <= 256 else np.int32
        key = f"z_{np.dtype(dt).name}"  # one buffer per dtype, reused every step
        out = self._dev_y.get(key)
        if out is None:
            out = self._dev_y[key] = cuda.device_array(dev.shape[1], dtype=dt)
        if with_y:
            y = self._device_y()
        else:
            y = self._dev_y.get("zero")
            if y is None:
                y = self._dev_y["zero"] = cuda.to_device(np.zeros(dev.shape[1], np.uint8))
        blocks = 1 if _SIMULATOR else min(32 * _n_sm(), max(1, -(-dev.shape[1] // THREADS)))
        _launch(_kernels()["pair_z"], blocks, THREADS, dev, j, y, mult, dev.shape[1], out)
        if dt == np.uint8:
            return out.view(np.uint32), True
        return out, False

    def _counts(self, nz: int, z: np.ndarray | None = None, row: tuple | None = None):
        """Joint histograms ``(K, a * nz)`` of every candidate against ``Z``, given on
        the host (``z``) or made on the GPU from a feature (``row = (j, mult)``)."""
        from numba import cuda

        t0 = time.perf_counter()
        K = self.n_features
        a = int(self.n_levels.max()) if self.n_levels.size else 1
        cells = a * nz
        store = self.codes
        if row is not None and store.dev is None:  # streaming: Z from the host codes
            j, mult, with_y = row
            z = store[j].astype(np.int64) * mult + (self.y if with_y else 0)
            row = None
        words_ok = store.dtype == np.uint8
        shared = words_ok and cells <= SHARED_CELLS
        chunk = K if shared else max(1, min(K, (self._budget // 4) // max(cells * 4, 1)))
        kern = _kernels()
        out = np.empty((K, cells), dtype=np.int64)
        n_sub = max(1, min(THREADS // 32, SHARED_CELLS // max(cells, 1)))
        for k0 in range(0, K, chunk):
            k1 = min(K, k0 + chunk)
            for k0g in range(k0, k1, 65535):  # the grid's y dimension
                k1g = min(k1, k0g + 65535)
                hist = cuda.to_device(np.zeros((k1g - k0g, cells), dtype=np.int32))
                for r0, r1 in store.blocks():
                    if r1 <= r0:
                        continue
                    block = store.block(r0, r1)
                    if row is not None:
                        dz, packed = self._row_z(*row, nz)
                    else:
                        dz, packed = self._upload_z(z, nz, r0, r1)
                    sub = block[k0g:k1g]
                    m = r1 - r0
                    if shared:
                        words = sub.view(np.uint32)
                        gx = _grid_x(words.shape[1], k1g - k0g)
                        _launch(
                            kern["hist_shared"],
                            (gx, k1g - k0g),
                            THREADS,
                            *(words, dz, packed, m, nz, cells, n_sub, hist),
                            shared=4 * cells * n_sub,
                        )
                    else:
                        gx = _grid_x(m, k1g - k0g)
                        grid = (gx, k1g - k0g)
                        _launch(kern["hist_global"], grid, THREADS, sub, dz, packed, m, nz, hist)
                out[k0g:k1g] = hist.copy_to_host()
        self.count_seconds += time.perf_counter() - t0
        return out

    def _count(self, z: np.ndarray, nz: int, group: int) -> tuple[np.ndarray, ...]:
        """:func:`~fsel.kernels._counting.grouped_nlogn`'s sums, counted on the GPU."""
        if nz % group:
            raise ValueError("nz must be a multiple of group")
        return self._sums(nz, group, z=np.asarray(z))

    def _sums(
        self, nz: int, group: int, z: Any = None, row: tuple | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:func:`sums_from_counts` of :meth:`_counts`' histograms (``Z`` as there),
        the coarse cells ``z // group``."""
        full = self._counts(nz, z=z, row=row)
        return sums_from_counts(full, group, self._table, self.n_jobs)

    def pair_terms(self, j: int) -> PairTerms:
        """All pairwise terms of every candidate against feature ``j``; ``Z = Xj *
        |Y| + Y`` is made on the GPU (no host pass over the rows)."""
        ny = self.n_classes
        nz = int(self.n_levels[j]) * ny
        return self._terms_from_sums(j, *self._sums(nz, ny, row=(j, ny, True)))

    def pair_mi(self, j: int) -> np.ndarray:
        """``I(Xk;Xj)`` of every candidate from the ``(Xk, Xj)`` histograms alone (the
        same values as ``pair_terms(j).mi``)."""
        aj = int(self.n_levels[j])
        s_kj, _, m_kj, _ = self._sums(aj, 1, row=(j, 1, False))
        h_k = self.feature_entropy
        return np.maximum(0.0, h_k + h_k[j] - self._h(s_kj, m_kj))

    def lazy_cmim(self, k: int, tol: float) -> None:
        """No lazy CMIM on the GPU: the engine's vectorised steps run (same picks)."""
        return None


class GpuBlockCounts(GpuInformationTable):
    """One row block of a table (the block a Dask worker holds) on this process's GPU:
    the joint count tables of every feature against a variable ``Z``, nothing else
    (the caller adds the blocks' tables and turns the sums into entropies, as the
    CPU's :func:`fsel.kernels._counting.joint_histograms` tables are).

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_rows)
        Feature-major codes of the block.
    y : ndarray of shape (n_rows,)
        Class codes ``0..n_classes-1`` of the block's rows.
    n_levels : ndarray of shape (n_features,)
        Levels of every feature over the whole table (the tables are
        ``max(n_levels)`` levels wide, whatever this block holds).
    n_classes : int
        Classes over the whole table.
    memory_budget : int or None
        As for :class:`GpuInformationTable` (a larger block streams in row blocks).

    A pickled block (moved to another process) is rebuilt there from its host codes,
    on that process's GPU.
    """

    def __init__(
        self,
        codes: np.ndarray,
        y: np.ndarray,
        n_levels: np.ndarray,
        n_classes: int,
        *,
        memory_budget: int | None = None,
    ) -> None:
        self._args = (codes, y, n_levels, n_classes, memory_budget)
        self._budget = _device_budget(memory_budget)
        self.count_seconds = 0.0
        self._dev_y: dict[str, Any] = {}
        self.n_levels = np.asarray(n_levels, dtype=np.int64)
        self.n_classes = int(n_classes)
        self.y = np.asarray(y).astype(np.uint8 if self.n_classes <= 256 else np.int64, copy=False)
        self.n_samples = self.y.size
        self.codes = _GpuCodes(
            codes, self.n_samples, self._budget, int(self.n_levels.max(initial=1))
        )

    def __reduce__(self) -> tuple:
        codes, y, n_levels, n_classes, budget = self._args
        return _rebuild_block, (codes, y, n_levels, n_classes, budget)

    def joint_counts(self, nz: int, z: np.ndarray | None = None, row: tuple | None = None):
        """``out[k, a, b]``, the rows of this block with ``codes[k] == a`` and ``Z ==
        b``, int64 of shape ``(n_features, max(n_levels), nz)``: ``Z`` the labels (no
        ``z``, no ``row``), the host codes ``z``, or ``Xj * mult + Y`` (``Xj`` alone
        when ``with_y`` is False) made on the GPU from ``row = (j, mult, with_y)``."""
        if z is None and row is None:
            z = self.y
        out = self._counts(int(nz), z=z, row=row)
        return out.reshape(out.shape[0], -1, int(nz))


def _rebuild_block(
    codes: np.ndarray, y: np.ndarray, n_levels: np.ndarray, n_classes: int, budget: Any
) -> GpuBlockCounts:
    return GpuBlockCounts(codes, y, n_levels, n_classes, memory_budget=budget)
