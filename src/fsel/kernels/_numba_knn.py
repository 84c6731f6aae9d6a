"""Compiled neighbour searches of the nearest-neighbour information estimator.

Imported only by :mod:`fsel.kernels.knn_mi` when numba is installed and enabled (it
imports numba at the top). A balanced k-d tree over max-norm (Chebyshev) distances:

* :func:`kd_build` splits each node at the median of one coordinate, the coordinates
  in turn by depth (quickselect, ``O(N)`` per level, ``O(N log N)`` in all) down to
  leaves of at most ``leaf`` points, and stores the points in tree order with each
  node's bounding box;
* :func:`kth_neighbour_radius` is the distance ``max_t |p_t - q_t|`` from a query
  point to its ``kk``-th nearest point of the tree (the query itself, when in the tree,
  counts as one at distance 0), by a depth-first search pruned with the boxes;
* :func:`count_within` counts the points at distance ``<= r``, adding whole nodes whose
  box lies within ``r`` and pruning those entirely beyond it.

Distances are computed as ``max_t |p_t - q_t|`` everywhere, and the box tests are
monotone in floating point, so a radius returned by one search gives exact counts in
another (callers pass ``nextafter(rho, 0)`` for "strictly closer than ``rho``").
:func:`knn_radius` and :func:`count_within_all` run the queries of all points of a set.
All kernels release the GIL (``nogil``): callers run terms in threads.
"""

from __future__ import annotations

import numba
import numpy as np

from fsel.kernels.distances import max_norm_row

__all__ = ["count_within_all", "kd_build", "knn_radius"]

LEAF = 32


@numba.njit(cache=True, nogil=True)
def tree_levels(n: int, leaf: int) -> int:
    """Levels of the balanced tree: halve ``n`` (rounding up) until a node holds at most
    ``leaf`` points."""
    levels = 1
    size = n
    while size > leaf:
        size = (size + 1) // 2
        levels += 1
    return levels


@numba.njit(cache=True, nogil=True)
def quickselect(idx: np.ndarray, pts: np.ndarray, dim: int, s: int, e: int, m: int) -> None:
    """Reorder ``idx[s:e]`` so that ``pts[idx[m], dim]`` holds the value of rank ``m - s``
    among them, with no larger value before ``m`` and no smaller one after (Hoare
    partitions around a median-of-three pivot)."""
    lo = s
    hi = e - 1
    while hi > lo:
        a = pts[idx[lo], dim]
        b = pts[idx[(lo + hi) // 2], dim]
        c = pts[idx[hi], dim]
        pivot = max(min(a, b), min(max(a, b), c))
        i = lo
        j = hi
        while i <= j:
            while pts[idx[i], dim] < pivot:
                i += 1
            while pts[idx[j], dim] > pivot:
                j -= 1
            if i <= j:
                t = idx[i]
                idx[i] = idx[j]
                idx[j] = t
                i += 1
                j -= 1
        if m <= j:
            hi = j
        elif m >= i:
            lo = i
        else:
            return


@numba.njit(cache=True, nogil=True)
def kd_build(pts: np.ndarray, leaf: int):
    """The k-d tree of ``pts`` (n, d): points in tree order and their original indices,
    node start/end offsets and
    bounding boxes (lo, hi), in heap layout (children of node ``i``: ``2i+1``, ``2i+2``),
    and the index of the first leaf."""
    n, d = pts.shape
    levels = tree_levels(n, leaf)
    n_nodes = 2**levels - 1
    first_leaf = 2 ** (levels - 1) - 1
    idx = np.arange(n)
    ns = np.zeros(n_nodes, dtype=np.int64)
    ne = np.zeros(n_nodes, dtype=np.int64)
    lo = np.empty((n_nodes, d))
    hi = np.empty((n_nodes, d))
    ne[0] = n
    for node in range(first_leaf):  # top-down: split each inner node at its median
        s = ns[node]
        e = ne[node]
        # the coordinates in turn, by depth (columns are scaled alike by the caller)
        depth = 0
        up = node
        while up > 0:
            up = (up - 1) // 2
            depth += 1
        dim = depth % d
        m = (s + e) // 2
        if e - s > 1:
            quickselect(idx, pts, dim, s, e, m)
        ns[2 * node + 1] = s
        ne[2 * node + 1] = m
        ns[2 * node + 2] = m
        ne[2 * node + 2] = e
    for node in range(n_nodes - 1, -1, -1):  # bottom-up: boxes of leaves, then merged
        for t in range(d):
            lo[node, t] = np.inf
            hi[node, t] = -np.inf
        if node >= first_leaf:
            for p in range(ns[node], ne[node]):
                for t in range(d):
                    v = pts[idx[p], t]
                    if v < lo[node, t]:
                        lo[node, t] = v
                    if v > hi[node, t]:
                        hi[node, t] = v
        else:
            for c in (2 * node + 1, 2 * node + 2):
                for t in range(d):
                    if lo[c, t] < lo[node, t]:
                        lo[node, t] = lo[c, t]
                    if hi[c, t] > hi[node, t]:
                        hi[node, t] = hi[c, t]
    rp = np.empty((n, d))
    for p in range(n):
        for t in range(d):
            rp[p, t] = pts[idx[p], t]
    return rp, idx, ns, ne, lo, hi, first_leaf, levels


@numba.njit(cache=True, nogil=True, inline="always")
def _box_min(q: np.ndarray, lo: np.ndarray, hi: np.ndarray, node: int) -> float:
    """Max-norm distance from ``q`` to the box of ``node`` (0 inside)."""
    md = 0.0
    for t in range(q.size):
        a = lo[node, t] - q[t]
        b = q[t] - hi[node, t]
        v = a if a > b else b
        if v > md:
            md = v
    return md


@numba.njit(cache=True, nogil=True, inline="always")
def _box_max(q: np.ndarray, lo: np.ndarray, hi: np.ndarray, node: int) -> float:
    """Largest max-norm distance from ``q`` to a point of the box of ``node``."""
    md = -np.inf
    for t in range(q.size):
        a = q[t] - lo[node, t]
        b = hi[node, t] - q[t]
        v = a if a > b else b
        if v > md:
            md = v
    return md


#: the one max-norm distance of the searches (defined in the distance kernel)
point_distance = numba.njit(cache=True, nogil=True, inline="always")(max_norm_row)


@numba.njit(cache=True, nogil=True)
def kth_neighbour_radius(q, rp, ns, ne, lo, hi, first_leaf, kk, best, stack):
    """Distance ``max_t |p_t - q_t|`` from ``q`` to its ``kk``-th nearest tree point
    (``best``, ``stack``: work arrays of sizes ``kk`` and ``2 * levels + 2``)."""
    for t in range(kk):
        best[t] = np.inf
    top = 1
    stack[0] = 0
    while top > 0:
        top -= 1
        node = stack[top]
        if _box_min(q, lo, hi, node) >= best[kk - 1]:
            continue
        if node >= first_leaf:
            for p in range(ns[node], ne[node]):
                dist = point_distance(rp, p, q)
                if dist < best[kk - 1]:
                    j = kk - 1
                    while j > 0 and best[j - 1] > dist:
                        best[j] = best[j - 1]
                        j -= 1
                    best[j] = dist
        else:
            left = 2 * node + 1
            dl = _box_min(q, lo, hi, left)
            dr = _box_min(q, lo, hi, left + 1)
            if dl <= dr:  # the nearer child is searched first (pushed last)
                stack[top] = left + 1
                stack[top + 1] = left
            else:
                stack[top] = left
                stack[top + 1] = left + 1
            top += 2
    return best[kk - 1]


@numba.njit(cache=True, nogil=True)
def count_within(q, r, rp, ns, ne, lo, hi, first_leaf, stack):
    """Number of tree points ``p`` with ``max_t |p_t - q_t| <= r``."""
    cnt = 0
    top = 1
    stack[0] = 0
    while top > 0:
        top -= 1
        node = stack[top]
        if _box_min(q, lo, hi, node) > r:
            continue
        if _box_max(q, lo, hi, node) <= r:
            cnt += ne[node] - ns[node]
            continue
        if node >= first_leaf:
            for p in range(ns[node], ne[node]):
                if point_distance(rp, p, q) <= r:
                    cnt += 1
        else:
            stack[top] = 2 * node + 1
            stack[top + 1] = 2 * node + 2
            top += 2
    return cnt


@numba.njit(cache=True, nogil=True)
def knn_radius(pts: np.ndarray, k: int, leaf: int) -> np.ndarray:
    """For every point of ``pts`` the max-norm distance to its ``k``-th nearest *other*
    point (the ``k + 1``-th nearest, itself included)."""
    rp, idx, ns, ne, lo, hi, first_leaf, levels = kd_build(pts, leaf)
    n = pts.shape[0]
    out = np.empty(n)
    best = np.empty(k + 1)
    stack = np.empty(2 * levels + 2, dtype=np.int64)
    for p in range(n):  # queries in tree order: neighbouring queries share the cache
        out[idx[p]] = kth_neighbour_radius(
            rp[p], rp, ns, ne, lo, hi, first_leaf, k + 1, best, stack
        )
    return out


@numba.njit(cache=True, nogil=True)
def count_within_all(pts: np.ndarray, radius: np.ndarray, leaf: int) -> np.ndarray:
    """For every point of ``pts`` the number of *other* points at max-norm distance
    ``<= radius[i]``."""
    rp, idx, ns, ne, lo, hi, first_leaf, levels = kd_build(pts, leaf)
    n = pts.shape[0]
    out = np.empty(n, dtype=np.int64)
    stack = np.empty(2 * levels + 2, dtype=np.int64)
    for p in range(n):  # queries in tree order
        i = idx[p]
        out[i] = count_within(rp[p], radius[i], rp, ns, ne, lo, hi, first_leaf, stack) - 1
    return out
