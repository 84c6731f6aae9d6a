"""Compiled (numba) kernel of the 1-D Gaussian kernel sums of P-Relief
(:mod:`fsel.kernels.gaussian_sums`; numpy twin ``_gauss_sums_numpy`` there).
Imported only when numba is usable.
"""

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def gauss_sums(t, cnt, p, L, sqrt_fact, G):
    """``G[s, c] += sum_u cnt[u, c] exp(-(t_s - t_u)^2 / 2)`` for sorted values ``t``
    (units of sigma; ``cnt`` (U, C) counts per value and class, ``G`` (U, C) output),
    by the Hermite/Taylor expansion on unit boxes: with box centre ``m`` and
    ``u = t_u - m``, ``v = t_s - m``, ``exp(-(v - u)^2 / 2) = sum_q e^{-u^2/2} u^q
    e^{-v^2/2} v^q / q!`` truncated at ``p`` terms, over the ``2L + 1`` boxes around
    ``t_s`` (the others are below the stated tolerance)."""
    U, C = cnt.shape
    lo = t[0]
    nb = math.floor(t[U - 1] - lo) + 1
    M = np.zeros((nb, p, C))
    for s in range(U):
        b = math.floor(t[s] - lo)
        if b >= nb:
            b = nb - 1
        u = t[s] - (lo + b + 0.5)
        e = math.exp(-0.5 * u * u)
        pw = e
        for q in range(p):
            for c in range(C):
                M[b, q, c] += pw * cnt[s, c] / sqrt_fact[q]
            pw *= u
    for s in range(U):
        bt = math.floor(t[s] - lo)
        if bt >= nb:
            bt = nb - 1
        for bb in range(max(0, bt - L), min(nb, bt + L + 1)):
            v = t[s] - (lo + bb + 0.5)
            pw = math.exp(-0.5 * v * v)
            for q in range(p):
                f = pw / sqrt_fact[q]
                for c in range(C):
                    G[s, c] += f * M[bb, q, c]
                pw *= v
