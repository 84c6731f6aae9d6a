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
