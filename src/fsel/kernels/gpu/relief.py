"""The Relief family's neighbour search on a CUDA GPU (numba's CUDA target).

:func:`knn_by_class_gpu` is :func:`fsel.kernels.neighbors.knn_by_class` with the
distances and the per-class nearest-neighbour selection on the GPU
(:mod:`fsel.kernels.gpu._cuda_relief`): the ``O(m N D)`` part of Relief and ReliefF
for ``m`` reference rows. The margins are then computed on the host from the
neighbour lists by the CPU's own functions, so a GPU fit gives the CPU's weights (to
rounding of the margin sums): the GPU adds the features of a distance in order, which
can differ from the CPU's sums in the last bits, and both follow the tie rule of
:func:`fsel.kernels.neighbors.tie_order`, so distances equal on paper pick the same
neighbour.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from fsel.kernels.quantiles import key_values, linear_quantile, quantile_ranks

__all__ = [
    "GpuRawSamples",
    "GpuSamples",
    "GpuScaledSamples",
    "class_order_positions",
    "inverse_permutation",
    "knn_by_class_gpu",
    "order_statistics_gpu",
    "radius_margin_gpu",
    "stable_class_order",
    "upload_staged",
]

_SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
#: threads per block (a warp under numba's simulator, which pays per thread)
THREADS = 8 if _SIMULATOR else 256
#: threads per block of the neighbour selection (each keeps its own lists)
SELECT_THREADS = 8 if _SIMULATOR else 128
#: bytes of distance rows in flight on the GPU
DISTANCE_BYTES = 1 << 30
#: whether ReliefF scales and sorts on the GPU (:class:`GpuScaledSamples`); False: on
#: the host as before (private, for benchmarks/bench_gpu.py's side-by-side timing)
_SCALE_ON_GPU = True
#: how :class:`GpuRawSamples` copies a host table: False, one ``cuda.to_device`` of the
#: whole (pageable) array; True, row blocks through two pinned staging buffers
#: (:func:`upload_staged`; the default: on an H200 it copied 1M x 100 float64 in 78 ms
#: against 121 ms). Private: benchmarks/bench_gpu.py times both
_STAGED_UPLOAD = True
#: whether the Relief selectors copy X to the GPU in a thread while the host checks
#: the labels (False: in the calling thread first; private, a switch for benchmarks)
_UPLOAD_IN_THREAD = True
#: bytes of each pinned staging buffer of :func:`upload_staged`
STAGE_BYTES = 1 << 26
_STAGES: list[Any] = []  # the two pinned buffers, allocated once per process


class GpuSamples:
    """The scaled sample matrix on the GPU, feature-major, made once per fit.

    Attributes
    ----------
    transfer_seconds : float
        Seconds spent copying it to the GPU.
    """

    def __init__(self, Z: np.ndarray) -> None:
        from numba import cuda

        from fsel.kernels.gpu import _cuda_relief as kern

        t0 = time.perf_counter()
        self.source = Z
        self.n, self.d = Z.shape
        rows = cuda.to_device(np.ascontiguousarray(Z, dtype=np.float64))
        self.xt = cuda.device_array((self.d, self.n), dtype=np.float64)
        tx, ty = (8, 8) if _SIMULATOR else (32, 8)
        grid = (-(-self.n // tx), -(-self.d // ty))
        _launch(kern.transpose, grid, (tx, ty), rows, self.xt)  # feature-major, on the GPU
        cuda.synchronize()
        del rows
        self.transfer_seconds = time.perf_counter() - t0
        self.search_seconds = 0.0

    def reference_rows(self, rows: np.ndarray) -> Any:
        """The rows ``rows`` of the scaled matrix on the GPU, sample-major."""
        from numba import cuda

        return cuda.to_device(np.ascontiguousarray(np.asarray(self.source)[rows]))


def _launch(kernel: Any, grid: Any, block: Any, *args: Any) -> None:
    import warnings

    from numba.core.errors import NumbaPerformanceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaPerformanceWarning)
        kernel[grid, block](*args)


def knn_by_class_gpu(
    samples: GpuSamples,
    y: np.ndarray,
    n_neighbors: int,
    n_classes: int,
    *,
    metric: str = "manhattan",
    rows: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_neighbors`` nearest samples of each class to every reference row: the
    result of :func:`fsel.kernels.neighbors.knn_by_class` (same shapes, the sample
    itself excluded, its tie rule: distances within
    :func:`~fsel.kernels.neighbors.tie_tolerance` are ties, the smaller index first;
    ``-1``/``inf`` where a class has fewer members; Euclidean distances ranked on
    their squares and rooted after).

    Parameters
    ----------
    samples : GpuSamples
        The (scaled, hole-free, dense) sample matrix on the GPU.
    y : ndarray of shape (n,)
        Class codes ``0..n_classes-1``.
    n_neighbors, n_classes : int
        ``n_classes * n_neighbors`` may not exceed 64.
    metric : {"manhattan", "euclidean"}
    rows : ndarray of int or None
        Reference rows (None: every sample).
    """
    from numba import cuda

    from fsel.kernels.gpu import _cuda_relief as kern
    from fsel.kernels.neighbors import tie_tolerance

    t0 = time.perf_counter()
    k, C = int(n_neighbors), int(n_classes)
    if C * k > kern.MAX_SLOTS:
        raise ValueError(
            f"device='cuda' keeps at most {kern.MAX_SLOTS} neighbours per reference "
            f"(n_classes * n_neighbors), got {C} * {k}; use device='cpu'"
        )
    n = samples.n
    ref = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    m = ref.size
    idx = np.empty((m, C, k), dtype=np.intp)
    dist = np.empty((m, C, k))
    dy = cuda.to_device(np.ascontiguousarray(y, dtype=np.int64))
    step = max(kern.REF_TILE, (DISTANCE_BYTES // max(8 * n, 1)) // kern.REF_TILE * kern.REF_TILE)
    squared = metric == "euclidean"
    eps = tie_tolerance(samples.d)
    # one set of buffers for every block of references (sliced for the last one)
    rows_max = max(1, min(m, step))
    nt = SELECT_THREADS
    D_all = cuda.device_array((rows_max, n), dtype=np.float64)
    sd_all = cuda.device_array((rows_max, nt, C * k), dtype=np.float64)
    si_all = cuda.device_array((rows_max, nt, C * k), dtype=np.int64)
    od_all = cuda.device_array((rows_max, C, k), dtype=np.float64)
    oi_all = cuda.device_array((rows_max, C, k), dtype=np.int64)
    for a in range(0, m, step):
        b = min(m, a + step)
        r = ref[a:b]
        refs = samples.reference_rows(r)
        D = D_all[: b - a]
        grid = (-(-n // THREADS), -(-(b - a) // kern.REF_TILE))
        _launch(kern.distances, grid, THREADS, samples.xt, refs, squared, D)
        sd, si = sd_all[: b - a], si_all[: b - a]
        od, oi = od_all[: b - a], oi_all[: b - a]
        selfs = cuda.to_device(np.ascontiguousarray(r, dtype=np.int64))
        _launch(kern.nearest_by_class, b - a, nt, D, dy, selfs, k, C, eps, sd, si, od, oi)
        idx[a:b] = oi.copy_to_host()
        dist[a:b] = od.copy_to_host()
    if squared:
        np.sqrt(dist, out=dist)
    samples.search_seconds += time.perf_counter() - t0
    return idx, dist


def radius_margin_gpu(
    samples: GpuSamples,
    y: np.ndarray,
    priors: np.ndarray,
    rule: str,
    *,
    metric: str = "manhattan",
    rows: np.ndarray | None = None,
) -> tuple[np.ndarray, float | None]:
    """The sum over the reference rows of SURF's or MultiSURF's margins on the GPU,
    and SURF's threshold (None for MultiSURF): the terms of
    :func:`fsel.kernels.neighbors.radius_margin_rows_at` without holes.

    ``rule="surf"``: one radius, the mean distance between a reference and another
    sample (``sum_r sum_j D[r, j] / (m (n - 1))``, a first pass over the references);
    ``"multisurf"``: each reference's own radius, the mean of its distances to the
    other samples less half their standard deviation (``/ (n - 1)``). Every sample
    (not the reference) closer than the radius is a neighbour (a distance within the
    tie tolerance of it is not: :func:`fsel.kernels.neighbors.tie_radius`, as on the
    CPU); its coefficient is
    :func:`fsel.kernels.neighbors.relieff_coefficients` of the reference's per-class
    neighbour counts (computed on the host, as on the CPU); the margin is
    ``sum_j coef[y_j] |x_r - x_j|``. The sums run in a fixed order on the GPU, so the
    margins equal the CPU's to rounding.
    """
    from numba import cuda

    from fsel.kernels.gpu import _cuda_relief as kern
    from fsel.kernels.neighbors import relieff_coefficients, tie_radius

    t0 = time.perf_counter()
    n, d = samples.n, samples.d
    C = int(priors.size)
    if C > kern.MAX_SLOTS:
        raise ValueError(f"device='cuda' handles at most {kern.MAX_SLOTS} classes, got {C}")
    ref = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    m = ref.size
    y = np.ascontiguousarray(y, dtype=np.int64)
    dy = cuda.to_device(y)
    squared = metric == "euclidean"
    step = max(kern.REF_TILE, (DISTANCE_BYTES // max(8 * n, 1)) // kern.REF_TILE * kern.REF_TILE)
    spans = [(a, min(m, a + step)) for a in range(0, m, step)]

    def block(a: int, b: int) -> tuple[Any, Any, Any]:
        r = ref[a:b]
        refs = samples.reference_rows(r)
        D = cuda.device_array((b - a, n), dtype=np.float64)
        grid = (-(-n // THREADS), -(-(b - a) // kern.REF_TILE))
        _launch(kern.distances, grid, THREADS, samples.xt, refs, squared, D)
        if squared:  # the radius compares distances, not their squares
            _launch(kern.sqrt_inplace, grid, THREADS, D)
        return refs, D, cuda.to_device(np.ascontiguousarray(r, dtype=np.int64))

    def sums(D: Any, selfs: Any, center: np.ndarray, sq: bool) -> np.ndarray:
        out = cuda.device_array(D.shape[0], dtype=np.float64)
        dc = cuda.to_device(np.ascontiguousarray(center, dtype=np.float64))
        _launch(kern.row_sums, D.shape[0], kern.ROW_THREADS, D, selfs, dc, sq, out)
        return out.copy_to_host()

    threshold = None
    if rule == "surf":
        total = 0.0
        for a, b in spans:
            _, D, selfs = block(a, b)
            total += float(sums(D, selfs, np.zeros(b - a), False).sum())
        threshold = total / (m * (n - 1))
    margin = np.zeros(d)
    for a, b in spans:
        refs, D, selfs = block(a, b)
        if rule == "surf":
            radius = np.full(b - a, threshold)
        else:
            mean = sums(D, selfs, np.zeros(b - a), False) / (n - 1)
            var = sums(D, selfs, mean, True) / (n - 1)
            radius = mean - 0.5 * np.sqrt(var)
        dr = cuda.to_device(tie_radius(radius, d))
        counts = cuda.device_array((b - a, C), dtype=np.int64)
        _launch(kern.radius_counts, b - a, SELECT_THREADS, D, selfs, dr, dy, counts)
        coef = relieff_coefficients(counts.copy_to_host().astype(np.float64), y[ref[a:b]], priors)
        grid = (-(-n // THREADS), b - a)
        _launch(kern.radius_weights, grid, THREADS, D, selfs, dr, dy, cuda.to_device(coef))
        out = cuda.device_array((b - a, d), dtype=np.float64)
        lanes = kern.FEATURE_LANES * kern.ROW_LANES
        grid = (-(-d // kern.FEATURE_LANES), -(-(b - a) // kern.REF_TILE))
        _launch(kern.weighted_absdiff, grid, lanes, samples.xt, refs, D, out)
        margin += out.copy_to_host().sum(axis=0)
    samples.search_seconds += time.perf_counter() - t0
    return margin, threshold


# --------------------------------------------------------------------------------------
# ReliefF's set-up on the GPU: the scaling's order statistics, the scaling and the sort
# by class, without a scaled or sorted copy on the host


def order_statistics_gpu(xt: Any, ranks: np.ndarray) -> np.ndarray:
    """``out[c, t]`` = the ``ranks[t]``-th smallest value (0-based) of row ``c`` of the
    feature-major float64 matrix ``xt`` on the GPU (no NaN), exact: eight passes of
    :func:`fsel.kernels.gpu._cuda_relief.radix_counts` over the 64-bit keys, each
    fixing one 8-bit digit of every target's key from the digit counts (no sort)."""
    from numba import cuda

    from fsel.kernels.gpu import _cuda_relief as kern

    d, n = xt.shape
    ranks = np.asarray(ranks, dtype=np.int64)
    T = ranks.size
    if T > kern.MAX_TARGETS:
        raise ValueError(f"at most {kern.MAX_TARGETS} order statistics at once")
    bits = xt.view(np.uint64)
    rank = np.tile(ranks, (d, 1))
    prefix = np.zeros((d, T), dtype=np.uint64)
    blocks = 1 if _SIMULATOR else max(1, min(-(-n // THREADS), 8 * _n_sm() // max(d, 1) + 1))
    for p in range(8):
        shift = 56 - 8 * p
        mask = np.uint64(0) if p == 0 else np.uint64(((1 << 64) - 1) ^ ((1 << (shift + 8)) - 1))
        hist = cuda.to_device(np.zeros((d, T, 256), dtype=np.int64))
        dprefix = cuda.to_device(prefix)
        args = (bits, dprefix, mask, np.uint64(shift), hist)
        _launch(kern.radix_counts, (blocks, d), THREADS, *args)
        cum = np.cumsum(hist.copy_to_host(), axis=2)
        digit = (cum <= rank[:, :, None]).sum(axis=2)  # the first bin past the rank
        before = np.take_along_axis(cum, np.maximum(digit - 1, 0)[:, :, None], axis=2)[:, :, 0]
        rank -= np.where(digit > 0, before, 0)
        prefix |= digit.astype(np.uint64) << np.uint64(shift)
    return key_values(prefix)


def _n_sm() -> int:
    from fsel.kernels.gpu.information import _n_sm as n_sm

    return n_sm()


def upload_staged(values: np.ndarray, n_jobs: int = 1) -> Any:
    """``cuda.to_device(values)`` (a float64 table, sample-major) by row blocks of
    :data:`STAGE_BYTES` through two pinned host buffers: ``n_jobs`` threads copy a
    block into one buffer while the previous block travels from the other (an
    asynchronous copy on one stream; a buffer is refilled once its copy is done). The
    same bytes on the GPU; pinned memory copies several times faster than the
    pageable memory a plain copy reads, and the buffers are made once per process."""
    from numba import cuda

    from fsel.utils.parallel import n_threads_for, spans, thread_map

    n, d = values.shape
    dev = cuda.device_array((n, d), dtype=np.float64)
    if n == 0 or d == 0:
        return dev
    if not _STAGES or _STAGES[0].size != STAGE_BYTES:
        _STAGES[:] = [cuda.pinned_array(STAGE_BYTES, dtype=np.uint8) for _ in range(2)]
    rows = max(1, STAGE_BYTES // (8 * d))
    if rows * 8 * d > STAGE_BYTES:  # a row wider than a buffer: the plain copy
        return cuda.to_device(np.ascontiguousarray(values, dtype=np.float64))
    stream = cuda.stream()
    done: list[Any] = [None, None]
    for k, a in enumerate(range(0, n, rows)):
        b = min(n, a + rows)
        slot = k % 2
        if done[slot] is not None:
            done[slot].synchronize()  # the buffer's previous block has arrived
        buf = _STAGES[slot].view(np.float64)[: (b - a) * d].reshape(b - a, d)
        threads = n_threads_for(buf.nbytes, n_jobs)

        def fill(p: int, q: int, buf: np.ndarray = buf, a: int = a) -> None:
            np.copyto(buf[p:q], values[a + p : a + q])

        thread_map(fill, spans(b - a, threads) or [(0, 0)], threads)
        dev[a:b].copy_to_device(buf, stream=stream)
        done[slot] = cuda.event()
        done[slot].record(stream)
    stream.synchronize()
    return dev


class GpuRawSamples:
    """A host float64 table copied to the GPU, feature-major, with the value checks of
    the host validation done there (:func:`fsel.kernels.gpu._cuda_relief.transpose_checked`
    in the transposing pass), so that the host never reads the table.

    Parameters
    ----------
    values : ndarray of shape (n, d)
        float64; a C-contiguous array is copied to the GPU as it is (no host copy).
    n_jobs : int
        Threads filling the staging buffers of :func:`upload_staged` (when used).

    Attributes
    ----------
    xt : device array of shape (d, n)
        The values, feature-major.
    flags : ndarray of int32, shape (d,)
        Per column, the bits :data:`~fsel.kernels.gpu._cuda_relief.FLAG_NAN`,
        ``FLAG_INF`` and ``FLAG_HUGE`` (a value beyond half the largest float64).
    clean : bool
        No flag anywhere: every value is finite and every column's range too (what
        the host validation checks, so it may skip those passes).
    has_nan : bool
        Some column holds a NaN.
    transfer_seconds, check_seconds : float
        The copy to the GPU; the transposing and checking pass (and the flags back).
    """

    def __init__(self, values: np.ndarray, n_jobs: int = 1) -> None:
        from numba import cuda

        from fsel.kernels.gpu import _cuda_relief as kern

        self.n, self.d = values.shape
        t0 = time.perf_counter()
        if _STAGED_UPLOAD:
            rows = upload_staged(values, n_jobs)
        else:
            rows = cuda.to_device(np.ascontiguousarray(values, dtype=np.float64))
        cuda.synchronize()
        self.transfer_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        self.xt = cuda.device_array((self.d, self.n), dtype=np.float64)
        flags = cuda.to_device(np.zeros(self.d, dtype=np.int32))
        tx, ty = (8, 8) if _SIMULATOR else (32, 8)
        grid = (-(-self.n // tx), -(-self.d // ty))
        _launch(kern.transpose_checked, grid, (tx, ty), rows, self.xt, flags)
        self.flags = flags.copy_to_host()
        del rows
        self.clean = not self.flags.any()
        self.has_nan = bool((self.flags & kern.FLAG_NAN).any())
        self.check_seconds = time.perf_counter() - t0


def stable_class_order(y: np.ndarray) -> np.ndarray:
    """``np.argsort(y, kind="stable")`` for class codes ``0..C-1``: the same
    permutation (a stable sort is unique), sorted as bytes (numpy's radix sort) when
    the codes fit in 8 bits.

    Examples
    --------
    >>> y = np.array([2, 0, 1, 0, 2, 1])
    >>> stable_class_order(y).tolist() == np.argsort(y, kind="stable").tolist()
    True
    """
    y = np.asarray(y)
    if y.size and y.dtype.kind in "iu" and int(y.min()) >= 0 and int(y.max()) < 256:
        y = y.astype(np.uint8)
    return np.argsort(y, kind="stable")


def inverse_permutation(order: np.ndarray) -> np.ndarray:
    """``inv`` with ``inv[order[i]] = i``: ``np.argsort(order)`` of a permutation, by
    one scatter instead of a sort.

    Examples
    --------
    >>> o = np.array([2, 0, 3, 1])
    >>> inverse_permutation(o).tolist() == np.argsort(o).tolist()
    True
    """
    inv = np.empty(order.size, dtype=np.intp)
    inv[order] = np.arange(order.size, dtype=np.intp)
    return inv


def class_order_positions(
    order: np.ndarray, y: np.ndarray, counts: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """``inverse_permutation(order)[rows]`` for ``order = stable_class_order(y)`` and
    class sizes ``counts`` (``np.bincount(y)``), without the full inverse: class
    ``c`` fills ``order[start_c : start_c + counts[c]]`` with its samples in
    increasing order, so row ``r`` of class ``c`` sits at ``start_c`` plus the
    number of class-``c`` samples before it (a binary search in that span).

    Examples
    --------
    >>> y = np.array([1, 0, 1, 1, 0, 2])
    >>> o = stable_class_order(y)
    >>> rows = np.array([0, 3, 5])
    >>> class_order_positions(o, y, np.bincount(y), rows).tolist()
    [2, 4, 5]
    >>> inverse_permutation(o)[rows].tolist()
    [2, 4, 5]
    """
    rows = np.asarray(rows, dtype=np.intp)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
    yr = np.asarray(y)[rows]
    out = np.empty(rows.size, dtype=np.intp)
    for c in np.unique(yr).tolist():
        sel = yr == c
        span = order[starts[c] : starts[c] + int(counts[c])]
        out[sel] = starts[c] + np.searchsorted(span, rows[sel])
    return out


class GpuScaledSamples(GpuSamples):
    """The sample matrix scaled and sorted by class on the GPU (ReliefF's set-up).

    The raw values go to the GPU once; there the columns' minimum, maximum and (for
    ``scaling="robust"``) the order statistics around the 5% and 95% quantiles are
    selected (:func:`order_statistics_gpu`), the quantiles are interpolated on the
    host as numpy does (:func:`fsel.kernels.quantiles.linear_quantile`), and one kernel
    (:func:`fsel.kernels.gpu._cuda_relief.scale_sorted`) writes the scaled columns
    with the samples in the stable order of their class: the feature-major matrix the
    neighbour search reads. The scaled values are those of
    :func:`fsel.kernels.scaling.scale_dense` (the same operations on the same
    numbers); no scaled or sorted copy is made on the host.

    Parameters
    ----------
    values : ndarray of shape (n, d)
        Dense, without NaN.
    y : ndarray of shape (n,)
        Class codes.
    scaling : {"range", "robust"}
    raw : GpuRawSamples or None
        ``values`` already on the GPU (checked there); None: copied here.
    sort : bool
        Put the samples in the stable order of their class (ReliefF); False keeps
        their order (SURF, MultiSURF: ``order`` is then ``arange(n)``).
    order : ndarray or None
        :func:`stable_class_order` of ``y`` when the caller has it already.

    Attributes
    ----------
    order : ndarray
        ``np.argsort(y, kind="stable")``: sample ``i`` of the GPU matrix is row
        ``order[i]`` of ``values``.
    constant : ndarray of bool
        The constant columns (scaled to 0).
    transfer_seconds, check_seconds, scale_seconds, search_seconds : float
        Copying the values to the GPU; the transposing pass that checks them
        (:class:`GpuRawSamples`); the order statistics, scaling and sort; the
        neighbour searches.
    """

    on_gpu = True

    def __init__(
        self,
        values: np.ndarray,
        y: np.ndarray,
        scaling: str,
        raw: GpuRawSamples | None = None,
        *,
        sort: bool = True,
        order: np.ndarray | None = None,
    ) -> None:
        from numba import cuda

        from fsel.kernels.gpu import _cuda_relief as kern
        from fsel.kernels.scaling import ROBUST_QUANTILES

        if scaling not in ("range", "robust"):
            raise ValueError(f"scaling {scaling!r} has no GPU kernel (range, robust)")
        self.source = None
        up = GpuRawSamples(values) if raw is None else raw
        raw = None  # the raw copy is freed once scaled (the caller passes its only reference)
        self.n, self.d = up.n, up.d
        n, d = self.n, self.d
        self.transfer_seconds, self.check_seconds = up.transfer_seconds, up.check_seconds
        raw_xt = up.xt
        del up
        t0 = time.perf_counter()
        prev, nxt, gamma = quantile_ranks(n, ROBUST_QUANTILES)
        ranks = [0, n - 1]
        if scaling == "robust":
            ranks += [prev[0], nxt[0], prev[1], nxt[1]]
        stats = order_statistics_gpu(raw_xt, np.array(ranks))
        lo, hi = stats[:, 0], stats[:, 1]
        ptp = hi - lo
        self.constant = ptp == 0
        shift, div = lo.copy(), ptp.copy()
        clip_lo = np.full(d, -np.inf)
        clip_hi = np.full(d, np.inf)
        if scaling == "robust":
            q_lo = linear_quantile(stats[:, 2], stats[:, 3], gamma[0])
            q_hi = linear_quantile(stats[:, 4], stats[:, 5], gamma[1])
            robust = q_hi > q_lo  # else more than 90% at one value: the range rule
            shift[robust], div[robust] = q_lo[robust], (q_hi - q_lo)[robust]
            clip_lo[robust], clip_hi[robust] = q_lo[robust], q_hi[robust]
        div[self.constant] = 0.0
        if order is None:
            order = stable_class_order(y) if sort else np.arange(n)
        self.order = order
        self.xt = cuda.device_array((d, n), dtype=np.float64)
        grid = (-(-n // THREADS), d)
        args = [cuda.to_device(a) for a in (self.order.astype(np.int64), shift, div)]
        args += [cuda.to_device(clip_lo), cuda.to_device(clip_hi)]
        _launch(kern.scale_sorted, grid, THREADS, raw_xt, *args, self.xt)
        cuda.synchronize()
        del raw_xt
        self.scale_seconds = time.perf_counter() - t0
        self.search_seconds = 0.0

    def reference_rows(self, rows: np.ndarray) -> Any:
        """Rows ``rows`` (positions in the sorted order) of the scaled matrix,
        sample-major, gathered on the GPU."""
        from numba import cuda

        from fsel.kernels.gpu import _cuda_relief as kern

        rows = np.ascontiguousarray(rows, dtype=np.int64)
        out = cuda.device_array((max(rows.size, 1), self.d), dtype=np.float64)
        tx, ty = (8, 8) if _SIMULATOR else (32, 8)
        grid = (max(1, -(-rows.size // tx)), max(1, -(-self.d // ty)))
        _launch(kern.gather_rows, grid, (tx, ty), self.xt, cuda.to_device(rows), out)
        return out[: rows.size] if rows.size else out

    def host_rows(self, rows: np.ndarray) -> np.ndarray:
        """Rows ``rows`` (sorted positions) of the scaled matrix on the host."""
        return self.reference_rows(rows).copy_to_host()[: np.asarray(rows).size]


def relieff_neighbours_gpu(
    samples: GpuScaledSamples,
    y_sorted: np.ndarray,
    n_neighbors: int,
    n_classes: int,
    *,
    metric: str = "manhattan",
    rows: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """ReliefF's neighbour lists on :class:`GpuScaledSamples` and the part of the
    scaled matrix the margins read: ``(Zc, yc, rc, idx)`` with ``Zc`` the rows of the
    references and of their neighbours (positions in the sorted order, gathered on
    the GPU), ``yc`` their classes, ``rc`` the references' rows in ``Zc`` and ``idx``
    the neighbours' rows in ``Zc`` (``-1`` past a class's members). The margins are
    then the CPU's, computed from ``Zc`` by the CPU's function (each reference's
    margin reads only its own row and its neighbours')."""
    idx, _ = knn_by_class_gpu(samples, y_sorted, n_neighbors, n_classes, metric=metric, rows=rows)
    ref = np.arange(samples.n) if rows is None else np.asarray(rows, dtype=np.int64)
    found = idx[idx >= 0]
    need = np.union1d(ref, found) if rows is not None else np.arange(samples.n)
    t0 = time.perf_counter()
    Zc = samples.host_rows(need) if need.size else np.zeros((0, samples.d))
    samples.search_seconds += time.perf_counter() - t0
    rc = np.searchsorted(need, ref)
    idx_c = np.where(idx >= 0, np.searchsorted(need, np.maximum(idx, 0)), -1)
    return Zc, np.asarray(y_sorted)[need], rc, idx_c
