"""Exact quantiles: numpy's ``"linear"`` rule from order statistics, and the order
statistics of the columns of a table by a compiled radix selection.

fsel's quantiles are always numpy's (``np.quantile``, ``method="linear"``), bit for
bit, however they are found:

* :func:`quantile_ranks` - which two order statistics a quantile needs and its weight:
  for ``n`` values and level ``q`` the *virtual index* ``v = (n - 1) q``, the
  ``floor(v)``-th and the next smallest value (0-based; the last where there is none),
  and ``g = v - floor(v)``;
* :func:`linear_quantile` - numpy's interpolation between them: ``a + (b - a) g``, or
  ``b - (b - a)(1 - g)`` from ``g >= 0.5`` on (so that ``g = 1`` gives ``b`` exactly),
  the difference taken in the values' own type;
* :func:`column_quantiles` - the quantiles of many columns of a float table at once,
  ``O(N)`` per column: each value becomes an unsigned integer *key* of the same
  order (:func:`key_values` is the way back), and the keys at the wanted ranks are
  found by a radix selection (:mod:`fsel.kernels._numba_select`), several times
  faster than ``np.quantile``'s partition around every rank.

The binned estimators' quantile edges (in memory, sparse and Dask), the Relief
family's robust scaling and the GPU's order statistics all use these functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsel.kernels._counting import SMALL_TABLE_CELLS
from fsel.utils.parallel import n_threads_for, numba_available, spans, thread_map

__all__ = [
    "GATHER_BYTES",
    "GATHER_COLUMNS",
    "column_quantiles",
    "key_values",
    "linear_quantile",
    "quantile_ranks",
]

#: bytes of keys one thread makes at once for adjacent columns (at least one column)
GATHER_BYTES = 1 << 25
#: most adjacent columns read together into their keys
GATHER_COLUMNS = 4

_SIGN = np.uint64(1 << 63)


def quantile_ranks(n: int, qs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """numpy's ``"linear"`` quantile rule on ``n`` sorted values: the 0-based order
    statistics below and above each level of ``qs`` and the interpolation weight.

    Examples
    --------
    >>> [a.tolist() for a in quantile_ranks(5, [0.25, 0.9])]
    [[1, 3], [2, 4], [0.0, 0.6000000000000001]]
    """
    virtual = (n - 1) * np.asarray(qs, dtype=np.float64)
    prev = np.floor(virtual)
    gamma = virtual - prev
    prev = prev.astype(np.int64)
    nxt = np.minimum(prev + 1, n - 1)
    return prev, nxt, gamma


def linear_quantile(a: Any, b: Any, gamma: Any) -> np.ndarray:
    """numpy's interpolation between the order statistics ``a`` and ``b`` (weight
    ``gamma``): ``a + (b - a) * gamma``, or ``b - (b - a) * (1 - gamma)`` from
    ``gamma >= 0.5`` on, so that the result equals ``np.quantile`` bit for bit (the
    difference taken in the type of ``a`` and ``b``, the rest in float64).

    Examples
    --------
    >>> x = np.array([3.0, 1.0, 10.0, 7.0, 2.0])
    >>> s = np.sort(x)  # 4 * 0.375 = 1.5: halfway between s[1] and s[2]
    >>> bool(linear_quantile(s[1:2], s[2:3], np.array([0.5]))[0] == np.quantile(x, 0.375))
    True
    """
    a = np.asarray(a)
    b = np.asarray(b)
    gamma = np.asarray(gamma, dtype=np.float64)
    diff = b - a  # in the values' own type, as numpy (float32 values: a float32 diff)
    out = np.asarray(a + diff * gamma, dtype=np.float64)
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return out


def key_values(keys: Any) -> np.ndarray:
    """The float64 values of order-preserving 64-bit keys: a key with its top bit set
    is a non-negative float's bits with the sign bit set, any other the complement of a
    negative float's bits (so the keys compare, unsigned, as the floats do).

    Examples
    --------
    >>> key_values(np.array([0xC000000000000000, 0x3FFFFFFFFFFFFFFF], dtype=np.uint64))
    array([ 2., -2.])
    """
    keys = np.asarray(keys, dtype=np.uint64)
    return np.where(keys & _SIGN, keys ^ _SIGN, ~keys).view(np.float64)


def column_quantiles(values: np.ndarray, cols: Any, qs: Any, n_jobs: int = 1) -> list:
    """``np.quantile(c[~np.isnan(c)], qs)`` of each column ``c = values[:, j]``, ``j``
    in ``cols``, of a float64 or float32 table (its values read as float64, as every
    fsel quantile does), bit for bit, in ``O(N)`` per column.

    The order statistics are found by a radix selection on order-preserving integer
    keys of the values (:mod:`fsel.kernels._numba_select`: a few counting passes over
    the keys still in play, where ``np.quantile`` partitions the column around every
    rank), then interpolated by numpy's rule (:func:`linear_quantile`). Up to
    :data:`GATHER_COLUMNS` adjacent columns are read together (one pass over their
    rows); ``n_jobs`` threads take runs of columns (the same results). A column with
    no observed value gives an empty array. A table of at most
    :data:`~fsel.kernels._counting.SMALL_TABLE_CELLS` cells, an integer table, or no
    numba: ``np.quantile`` itself, column by column in threads (no numba import).

    Examples
    --------
    >>> X = np.array([[3.0, 1], [1, np.nan], [10, 4], [7, 2], [2, 8]])
    >>> qs = np.array([0.25, 0.5, 0.75])
    >>> [c.tolist() for c in column_quantiles(X, [0, 1], qs)]
    [[2.0, 3.0, 7.0], [1.75, 3.0, 5.0]]
    >>> np.quantile(X[:, 0], qs).tolist(), np.quantile([1.0, 4, 2, 8], qs).tolist()
    ([2.0, 3.0, 7.0], [1.75, 3.0, 5.0])
    """
    cols = np.asarray(cols, dtype=np.int64)
    qs = np.asarray(qs, dtype=np.float64)
    n = values.shape[0]
    threads = n_threads_for(values.itemsize * n * cols.size, n_jobs)
    if not (values.dtype.kind == "f" and values.size > SMALL_TABLE_CELLS and numba_available()):
        if values.size <= SMALL_TABLE_CELLS and cols.size > 1 and n > 0:
            # a small table: one np.quantile over the columns (the same numbers as
            # column by column) where none of them has a hole
            sub = np.asarray(values[:, cols], dtype=np.float64)
            if not np.isnan(sub).any():
                found = np.quantile(sub, qs, axis=0)
                return [found[:, i].copy() for i in range(cols.size)]
        items = [(j,) for j in cols.tolist()]
        return thread_map(lambda j: _numpy_quantiles(values[:, j], qs), items, threads)
    from fsel.kernels import _numba_select as kernel

    width = max(1, min(GATHER_COLUMNS, GATHER_BYTES // max(8 * n, 1)))
    # runs of adjacent columns, cut into groups of at most `width`
    groups: list[tuple[int, int]] = []
    for j in cols.tolist():
        if groups and groups[-1][0] + groups[-1][1] == j and groups[-1][1] < width:
            groups[-1] = (groups[-1][0], groups[-1][1] + 1)
        else:
            groups.append((j, 1))

    def run(g0: int, g1: int) -> list[np.ndarray]:
        keys = np.empty((width, n), dtype=np.uint64)
        scratch = np.empty(n, dtype=np.uint64)
        counts = np.zeros(width, dtype=np.int64)
        found: list[np.ndarray] = []
        plans: dict[int, tuple] = {}  # by number of observed values (often all n)
        for j0, g in groups[g0:g1]:
            kernel.float_keys(values, j0, keys[:g], counts)
            for i in range(g):
                found.append(_key_quantiles(keys[i], int(counts[i]), qs, scratch, plans))
        return found

    parts = spans(len(groups), threads)
    return [q for part in thread_map(run, parts, len(parts)) for q in part]


def _numpy_quantiles(col: np.ndarray, qs: np.ndarray) -> np.ndarray:
    """``np.quantile`` of a column's observed values as float64 (empty: none)."""
    c = np.asarray(col, dtype=np.float64)
    c = c[~np.isnan(c)]
    return np.quantile(c, qs) if c.size else np.zeros(0)


def _key_quantiles(
    keys: np.ndarray,
    m: int,
    qs: np.ndarray,
    scratch: np.ndarray,
    plans: dict[int, tuple],
) -> np.ndarray:
    """The quantiles at ``qs`` (numpy's linear rule) of the ``m`` values whose keys are
    ``keys[:m]`` (:func:`fsel.kernels._numba_select.float_keys`; used as scratch).
    ``plans``: the ranks wanted for each ``m`` met so far (columns without holes
    share theirs), kept between calls."""
    from fsel.kernels import _numba_select as kernel

    if m == 0:
        return np.zeros(0)
    if m not in plans:
        prev, nxt, gamma = quantile_ranks(m, qs)
        ranks = np.union1d(prev, nxt)
        plans[m] = (ranks, np.searchsorted(ranks, prev), np.searchsorted(ranks, nxt), gamma)
    ranks, at_prev, at_next, gamma = plans[m]
    out = np.empty(ranks.size, dtype=np.uint64)
    kernel.select_keys(keys, m, ranks, out, scratch)
    stats = key_values(out)  # the column's values, as float64
    return linear_quantile(stats[at_prev], stats[at_next], gamma)
