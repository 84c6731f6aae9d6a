"""Compiled (numba) kernel for class labels of a small range: the label counts of
``fsel.kernels.gpu.information.encode_labels`` and of the GPU information table in
one pass over ``uint8`` labels (``np.bincount`` first widens every label to ``intp``,
which costs a 20,000,000-row table a few hundred milliseconds).

Imported only on first use (numba stays optional).
"""

import numba
import numpy as np


@numba.njit(nogil=True, cache=True)
def byte_counts(y):
    """``counts[v] = #{r : y[r] = v}`` for ``v < 256`` of a 1-D ``uint8`` array (the
    ``np.bincount(y, minlength=256)`` of it); four interleaved tables break the
    dependency chain of runs of equal labels, then are added up."""
    tables = np.zeros((4, 256), dtype=np.int64)
    n = y.size
    n4 = n - n % 4
    for r in range(0, n4, 4):
        tables[0, y[r]] += 1
        tables[1, y[r + 1]] += 1
        tables[2, y[r + 2]] += 1
        tables[3, y[r + 3]] += 1
    for r in range(n4, n):
        tables[0, y[r]] += 1
    return tables[0] + tables[1] + tables[2] + tables[3]


@numba.njit(nogil=True, cache=True)
def label_counts_rows(y, y_small, counts, i0, i1):
    """For the rows ``i0 <= i < i1`` of integer labels ``y``: ``counts[v] += #{i :
    y[i] = v}`` for ``v < 256`` and ``y_small[i] = y[i]`` (one byte a label); returns
    False (at once) on a label outside ``0..255``.

    One pass of one thread of the table's set-up (each thread its own rows and its own
    ``counts``); four interleaved tables break the dependency chain of runs of equal
    labels (a target sorted by class), then are added to ``counts``."""
    tables = np.zeros((4, 256), dtype=np.int64)
    for i in range(i0, i1):
        v = np.int64(y[i])
        if v < 0 or v > 255:
            return False
        y_small[i] = v
        tables[i & 3, v] += 1
    for v in range(256):
        counts[v] += tables[0, v] + tables[1, v] + tables[2, v] + tables[3, v]
    return True
