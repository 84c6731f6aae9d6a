"""The sums of ``c log2 c`` of joint histograms counted on the GPU, made there.

A greedy step's numbers need, for every candidate, ``sum c log2 c`` and the number of
non-empty cells of its joint histogram and of the coarse histogram (``z // group``).
:func:`~fsel.kernels.gpu.information.sums_from_counts` makes them on the host from
the histograms copied back; :func:`device_sums` makes them where the histograms are,
one thread a candidate, adding the host's own tabulated ``c log2 c`` values in the
host's order, so the results are the same bit for bit and only four numbers a
candidate cross to the host. Counts beyond the table (``NlognTable.SMALL``) are rare
where it pays (:func:`pays`): the rows holding one are summed on the host.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsel.kernels.gpu.information import _SIMULATOR, NlognTable, _launch, sums_from_counts

__all__ = ["device_sums", "pays"]

#: threads of a block of ``nlogn_rows`` (one candidate a thread)
SUM_THREADS = 8 if _SIMULATOR else 64


def pays(n_samples: int, coarse_cells: int) -> bool:
    """Whether the sums of histograms of ``n_samples`` rows in ``coarse_cells``
    coarse cells a candidate are made on the GPU: always where no count can reach
    the table's end; otherwise where the average coarse count is a sixteenth of it
    (CMI's wide conditioning joints), not where most rows would go back to the host
    anyway (JMI's few cells on many rows: the histograms are small to copy).

    Examples
    --------
    >>> pays(60_000, 2), pays(20_000_000, 100), pays(20_000_000, 10_000)
    (True, False, True)
    """
    small = NlognTable.SMALL
    return n_samples < small or n_samples < coarse_cells * (small // 16)


def device_sums(
    hist: Any, group: int, table: NlognTable, small_dev: Any, n_jobs: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``sums_from_counts(hist, group, table)`` for ``hist`` (``int32``, ``(K, cells)``)
    on the GPU: the sums of every row made there by ``nlogn_rows`` from
    ``small_dev`` (``table.small()`` on the GPU), the rows holding a count beyond it
    copied back and summed on the host (``n_jobs`` threads)."""
    from numba import cuda

    from fsel.kernels.gpu import _cuda_sums as kern

    K = hist.shape[0]
    outs = (
        cuda.device_array(K, dtype=np.float64),
        cuda.device_array(K, dtype=np.float64),
        cuda.device_array(K, dtype=np.int64),
        cuda.device_array(K, dtype=np.int64),
    )
    beyond = cuda.device_array(K, dtype=np.uint8)
    blocks = max(1, -(-K // SUM_THREADS))
    _launch(kern.nlogn_rows, blocks, SUM_THREADS, hist, int(group), small_dev, *outs, beyond)
    found = [o.copy_to_host() for o in outs]
    rows = np.flatnonzero(beyond.copy_to_host())
    if rows.size:
        host = hist.copy_to_host()[rows].astype(np.int64)
        for mine, theirs in zip(found, sums_from_counts(host, group, table, n_jobs), strict=True):
            mine[rows] = theirs
    return found[0], found[1], found[2], found[3]
