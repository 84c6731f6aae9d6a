"""The Relief family's neighbour search on a CUDA GPU (numba's CUDA target).

:func:`knn_by_class_gpu` is :func:`fsel.kernels.neighbors.knn_by_class` with the
distances and the per-class nearest-neighbour selection on the GPU
(:mod:`fsel.kernels.gpu._cuda_relief`): the ``O(m N D)`` part of Relief and ReliefF
for ``m`` reference rows. The margins are then computed on the host from the
neighbour lists by the CPU's own functions, so a GPU fit gives the CPU's weights (to
rounding of the distance sums: the GPU adds the features in order, which can differ
from the CPU's order in the last bits; only exactly tied neighbours could then be
ordered differently).
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

__all__ = ["GpuSamples", "knn_by_class_gpu", "radius_margin_gpu"]

_SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
#: threads per block (a warp under numba's simulator, which pays per thread)
THREADS = 8 if _SIMULATOR else 256
#: threads per block of the neighbour selection (each keeps its own lists)
SELECT_THREADS = 8 if _SIMULATOR else 128
#: bytes of distance rows in flight on the GPU
DISTANCE_BYTES = 1 << 30


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
    itself excluded, ties by the smaller index, ``-1``/``inf`` where a class has
    fewer members; Euclidean distances ranked on their squares and rooted after).

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
    src = np.asarray(samples.source, dtype=np.float64)
    step = max(kern.REF_TILE, (DISTANCE_BYTES // max(8 * n, 1)) // kern.REF_TILE * kern.REF_TILE)
    squared = metric == "euclidean"
    for a in range(0, m, step):
        b = min(m, a + step)
        r = ref[a:b]
        refs = cuda.to_device(np.ascontiguousarray(src[r]))
        D = cuda.device_array((b - a, n), dtype=np.float64)
        grid = (-(-n // THREADS), -(-(b - a) // kern.REF_TILE))
        _launch(kern.distances, grid, THREADS, samples.xt, refs, squared, D)
        nt = SELECT_THREADS
        sd = cuda.device_array((b - a, nt, C * k), dtype=np.float64)
        si = cuda.device_array((b - a, nt, C * k), dtype=np.int64)
        od = cuda.device_array((b - a, C, k), dtype=np.float64)
        oi = cuda.device_array((b - a, C, k), dtype=np.int64)
        selfs = cuda.to_device(np.ascontiguousarray(r, dtype=np.int64))
        _launch(kern.nearest_by_class, b - a, nt, D, dy, selfs, k, C, sd, si, od, oi)
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
    (not the reference) closer than the radius is a neighbour; its coefficient is
    :func:`fsel.kernels.neighbors.relieff_coefficients` of the reference's per-class
    neighbour counts (computed on the host, as on the CPU); the margin is
    ``sum_j coef[y_j] |x_r - x_j|``. The sums run in a fixed order on the GPU, so the
    margins equal the CPU's to rounding.
    """
    from numba import cuda

    from fsel.kernels.gpu import _cuda_relief as kern
    from fsel.kernels.neighbors import relieff_coefficients

    t0 = time.perf_counter()
    n, d = samples.n, samples.d
    C = int(priors.size)
    if C > kern.MAX_SLOTS:
        raise ValueError(f"device='cuda' handles at most {kern.MAX_SLOTS} classes, got {C}")
    ref = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    m = ref.size
    y = np.ascontiguousarray(y, dtype=np.int64)
    dy = cuda.to_device(y)
    src = np.asarray(samples.source, dtype=np.float64)
    squared = metric == "euclidean"
    step = max(kern.REF_TILE, (DISTANCE_BYTES // max(8 * n, 1)) // kern.REF_TILE * kern.REF_TILE)
    spans = [(a, min(m, a + step)) for a in range(0, m, step)]

    def block(a: int, b: int) -> tuple[Any, Any, Any]:
        r = ref[a:b]
        refs = cuda.to_device(np.ascontiguousarray(src[r]))
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
        dr = cuda.to_device(radius)
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
