"""Which GPU information table a fit builds, and building it.

:func:`device_table` takes integer codes already on the GPU, :func:`host_table` the
codes a fit made on the host; both build the table of :data:`_VARIANT` (by default
:class:`~fsel.kernels.gpu.information_columns.GpuColumnTable`, which counts the greedy
steps from a feature-major copy made on the GPU) or, where its conditions are not met
(more than 256 levels or classes, codes larger than the GPU's budget), the
feature-major :class:`~fsel.kernels.gpu.information.GpuInformationTable`, which
streams a larger table through the GPU. Every table gives the same numbers.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from fsel.kernels.gpu.information import (
    GpuInformationTable,
    _device_budget,
    as_device_array,
    device_codes_from_samples,
    encode_labels,
    is_device_array,
)
from fsel.kernels.gpu.information_columns import GpuColumnTable
from fsel.kernels.gpu.information_rows import (
    GpuRowTable,
    device_labels,
    rows_from_device,
    rows_from_feature_major,
)
from fsel.kernels.gpu.lanes import LANE_OPT_IN_BYTES, LANE_PLAIN_BYTES

__all__ = ["device_table", "host_table"]

#: which table :func:`device_table` and :func:`host_table` build: ``"columns"`` (the
#: default, :class:`~fsel.kernels.gpu.information_columns.GpuColumnTable`: a
#: feature-major copy made on the GPU at set-up, the steps counted from it),
#: ``"owned"`` (that table counting the steps one candidate a lane, ``hist_owned``,
#: where its plan fits), ``"private"`` (that table counting the steps one histogram
#: a thread without atomics, ``hist_private``, where its plan fits), ``"lanes"``
#: (:class:`GpuRowTable`
#: counting with :func:`~fsel.kernels.gpu._cuda_information.hist_lanes` where its
#: histograms fit, up to :data:`LANE_OPT_IN_BYTES` of shared memory a block),
#: ``"lanes48"`` (the same within 48 KiB), ``"lane_words"`` (``"lanes"`` with rows
#: read as 4-byte words, eight a warp at a time, ``hist_lane_words``, where ``K % 4 ==
#: 0`` and its plan fits), ``"rows"``
#: (:class:`GpuRowTable` counting with ``hist_rows`` only), ``"rows16"`` (that with
#: two 16-bit counts per shared word, ``packed16``) or ``"features"`` (the
#: feature-major table of :mod:`fsel.kernels.gpu.information`, its copy made by a
#: layout pass of before); private, for benchmarks/bench_gpu.py
_VARIANT = "columns"


def variant_lane_budget() -> int:
    """The ``lane_budget`` of :class:`GpuRowTable` under :data:`_VARIANT`."""
    budgets = {
        "lanes": LANE_OPT_IN_BYTES,
        "lanes48": LANE_PLAIN_BYTES,
        "columns": LANE_OPT_IN_BYTES,
        "owned": LANE_OPT_IN_BYTES,
        "private": LANE_OPT_IN_BYTES,
    }
    return budgets.get(_VARIANT, LANE_OPT_IN_BYTES if _VARIANT == "lane_words" else 0)


def variant_table() -> Any:
    """The table class of :data:`_VARIANT`: ``"columns"``, ``"owned"`` and ``"private"``
    (:class:`~fsel.kernels.gpu.information_columns.GpuColumnTable`), else
    :class:`GpuRowTable`."""
    return GpuColumnTable if _VARIANT in ("columns", "owned", "private") else GpuRowTable


def _variant_table(rows: Any, labels: Any, estimator: str, memory_budget: int | None) -> Any:
    """The table of :data:`_VARIANT` over row-major codes on the GPU and their labels
    (:func:`variant_table`, its options as the variant names them)."""
    cls = variant_table()
    extra = {_VARIANT: True} if _VARIANT in ("owned", "private") else {}  # "columns": its default
    return cls(
        rows,
        labels,
        estimator=estimator,
        packed16=_VARIANT == "rows16",
        lane_budget=variant_lane_budget(),
        lane_words=_VARIANT == "lane_words",
        memory_budget=memory_budget,
        **extra,
    )


def _feature_major_table(X: Any, y: Any, estimator: str, name: str) -> tuple[Any, np.ndarray]:
    """The table before :class:`GpuRowTable` (``_VARIANT = "features"``): ``y`` coded
    on the host, the codes copied into a feature-major matrix on the GPU, then
    :class:`~fsel.kernels.gpu.information.GpuInformationTable`."""
    t0 = time.perf_counter()
    if is_device_array(y):
        y = as_device_array(y).copy_to_host()
    y = np.asarray(y)
    if y.ndim != 1 or y.size != X.shape[0]:
        raise ValueError(f"{name}: y must be 1-D with one label per row of X")
    classes, y_codes = encode_labels(y)
    t_labels = time.perf_counter() - t0
    codes, n_levels, seconds = device_codes_from_samples(X)
    t0 = time.perf_counter()
    info = GpuInformationTable(codes, n_levels, y_codes.reshape(-1), estimator=estimator)
    info.codes.transfer_s = seconds  # the layout pass on the GPU (no host copy)
    info.setup_seconds = {  # where the set-up's time went (timings_)
        "labels_s": t_labels,
        "layout_s": seconds,
        "table_s": time.perf_counter() - t0,
        "relevance_s": info.count_seconds,
    }
    return info, classes


def device_table(
    X: Any, y: Any, *, estimator: str = "plugin", name: str = "selector"
) -> tuple[Any, np.ndarray]:
    """The information table of integer codes already on the GPU (``X``:
    ``__cuda_array_interface__``, ``(n_samples, n_features)``, codes ``0..255``) and
    ``y`` (on the host or the GPU), and the classes of ``y``.

    The table is a :class:`GpuRowTable` (the codes read in place), or, with
    :data:`_VARIANT` ``"features"`` or more than 256 classes, the feature-major
    :class:`~fsel.kernels.gpu.information.GpuInformationTable`. ``info.setup_seconds``
    says where the set-up's time went: ``labels_s`` (``y`` uploaded and counted),
    ``layout_s`` (the codes' check and copy: 0 for C-order ``uint8``), ``table_s``
    (the table, relevance included) and ``relevance_s`` (its counting pass).
    """
    from numba import cuda

    X = as_device_array(X)
    if _VARIANT == "features" or X.ndim != 2:
        return _feature_major_table(X, y, estimator, name)
    t0 = time.perf_counter()
    labels = device_labels(y, X.shape[0], name)
    if labels is None:  # more than 256 classes
        return _feature_major_table(X, y, estimator, name)
    cuda.synchronize()
    t_labels = time.perf_counter() - t0
    t0 = time.perf_counter()
    codes = rows_from_device(X, name)
    cuda.synchronize()
    t_layout = time.perf_counter() - t0
    t0 = time.perf_counter()
    info = _variant_table(codes, labels, estimator, None)
    info.setup_seconds = {
        "labels_s": t_labels,
        "layout_s": t_layout,
        "table_s": time.perf_counter() - t0,
        "relevance_s": info.count_seconds,
        **({"columns_s": info.column_seconds} if hasattr(info, "column_seconds") else {}),
    }
    return info, labels.classes


def host_table(
    codes: np.ndarray,
    n_levels: np.ndarray,
    y: np.ndarray,
    *,
    estimator: str = "plugin",
    memory_budget: int | None = None,
) -> Any:
    """The GPU information table of codes coded on the host (``codes``:
    feature-major, ``(n_features, n_samples)``; ``y``: class codes ``0..m-1``).

    Where every feature has at most 256 levels, ``y`` at most 256 classes and the
    ``uint8`` codes take at most half of the memory budget, the codes are uploaded
    once, sample-major, and counted by a :class:`GpuRowTable` (the kernels of codes
    already on the GPU), its ``n_levels`` the host's; otherwise (or with
    :data:`_VARIANT` ``"features"``) the feature-major
    :class:`~fsel.kernels.gpu.information.GpuInformationTable`, which streams a table
    larger than the budget through in row blocks. The same numbers either way.
    """
    from numba import cuda

    n_levels = np.asarray(n_levels, dtype=np.int64)
    y = np.asarray(y)
    K, n = np.shape(codes)
    n_classes = int(y.max()) + 1 if y.size else 1
    fits = (
        _VARIANT != "features"
        and K > 0
        and n > 0
        and int(n_levels.max()) <= 256
        and n_classes <= 256
        and n * K <= _device_budget(memory_budget) // 2
    )
    if not fits:
        return GpuInformationTable(
            codes, n_levels, y, estimator=estimator, memory_budget=memory_budget
        )
    t0 = time.perf_counter()
    rows = rows_from_feature_major(cuda.to_device(np.ascontiguousarray(codes, dtype=np.uint8)))
    cuda.synchronize()
    t_upload = time.perf_counter() - t0
    labels = device_labels(np.ascontiguousarray(y, dtype=np.uint8), n, "GpuRowTable")
    info = _variant_table(rows, labels, estimator, memory_budget)
    info.codes.transfer_s = t_upload
    info.n_levels = n_levels.copy()  # empty top levels (bins, a missing level) kept
    return info
