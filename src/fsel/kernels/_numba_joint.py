"""Compiled (numba) kernels of CMI's conditioning joint on the CPU, one row range of
one thread each (:func:`fsel.kernels.value_ranks.joint_ranks` and
:func:`~fsel.kernels.value_ranks.joint_target`): the states present, each row's rank,
and ``Z = S |Y| + Y`` with its counts, without the temporaries of the numpy
expressions.

Imported only on first use (numba stays optional).
"""

import numba
import numpy as np


@numba.njit(nogil=True, cache=True)
def mark_states(s, c, a, present, r0, r1):
    """``present[s[r] * a + c[r]] = True`` for ``r0 <= r < r1``. Threads share
    ``present``: a state is written only while it is unmarked (they write the same
    value), so once the states are marked the threads only read it and its cache
    lines are not passed from core to core at every row."""
    for r in range(r0, r1):
        k = np.int64(s[r]) * a + np.int64(c[r])
        if not present[k]:
            present[k] = True


@numba.njit(nogil=True, cache=True)
def state_ranks(s, c, a, rank, out, r0, r1):
    """``out[r] = rank[s[r] * a + c[r]]`` for ``r0 <= r < r1``."""
    for r in range(r0, r1):
        out[r] = rank[np.int64(s[r]) * a + np.int64(c[r])]


@numba.njit(nogil=True, cache=True)
def target_joint(s, y, ny, z, counts, r0, r1):
    """``z[r] = s[r] * ny + y[r]`` for ``r0 <= r < r1``, and ``counts[v] += #{r : z[r]
    = v}`` over those rows (each thread its own ``counts``)."""
    for r in range(r0, r1):
        v = np.int64(s[r]) * ny + np.int64(y[r])
        z[r] = v
        counts[v] += 1
