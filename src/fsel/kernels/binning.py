"""Data-adaptive binning rules: the bin count ``n_bins="auto"``, exact quantile edges
(in memory, for sparse columns in ``O(nnz)``, and on Dask), and the crowded-bin check.

The binned estimators cut a float column into ``n_bins`` bins: equal-width
(``discretize="uniform"``) or equal-frequency (``discretize="quantile"``, the edges the
column's quantiles at ``1/n_bins, 2/n_bins, ...``, numpy's ``"linear"`` rule, repeated
edges merged). This module adds:

* :func:`auto_n_bins`, the rule behind ``n_bins="auto"``: ``B = max(2, min(64,
  round(N ** (1/3) / 2)))`` bins for a table of ``N`` rows (``N = 2,000``: 6 bins;
  ``N = 100``: 2; ``N = 10**6``: 50). The cube root grows with ``N`` while the joint
  table of two binned features and the target (``B**2 * classes`` cells, the table
  JMI, CMIM and mRMR count) keeps about ``4 N**(1/3) / classes`` rows per cell, so
  the plug-in bias of its entropies shrinks as ``N`` grows;
* :func:`sparse_quantile_edges`, the quantile edges of a sparse column from its stored
  values and its count of implicit zeros (``O(nnz log nnz)``, the column is never
  expanded);
* :func:`dask_quantiles`, exact quantiles of Dask row chunks, equal to ``np.quantile``
  of the whole column (the order statistics are found by a few counting passes over
  the chunks, then interpolated with numpy's own rule), so Dask fits equal in-memory
  ones under ``"quantile"`` too;
* :func:`crowded_columns`, the check behind the warning that a column's bins lost its
  information (one bin holding more than 95% of the observed rows, which hold many
  distinct values).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "AUTO_MAX_BINS",
    "CROWDED_MIN_DISTINCT",
    "CROWDED_SHARE",
    "auto_n_bins",
    "check_n_bins",
    "crowded_columns",
    "dask_quantiles",
    "linear_quantile",
    "quantile_fractions",
    "sparse_quantile_edges",
    "sparse_quantiles",
]

AUTO_MAX_BINS = 64  #: the most bins ``n_bins="auto"`` gives
CROWDED_SHARE = 0.95  #: a bin with more than this share of the rows is crowded
CROWDED_MIN_DISTINCT = 10  #: ... when its rows hold at least this many distinct values


def auto_n_bins(n_samples: int) -> int:
    """The bin count of ``n_bins="auto"``: ``max(2, min(64, round(N ** (1/3) / 2)))``.

    Examples
    --------
    >>> [auto_n_bins(n) for n in (10, 100, 2000, 10**6, 10**9)]
    [2, 2, 6, 50, 64]
    """
    b = round(float(max(int(n_samples), 1)) ** (1.0 / 3.0) / 2.0)
    return max(2, min(AUTO_MAX_BINS, b))


def check_n_bins(n_bins: Any, n_samples: int) -> int:
    """Validate ``n_bins`` (an int ``>= 2`` or ``"auto"``) and return the bin count.

    Examples
    --------
    >>> check_n_bins(5, 100), check_n_bins("auto", 2000)
    (5, 6)
    """
    if isinstance(n_bins, str) and n_bins == "auto":
        return auto_n_bins(n_samples)
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 2:
        raise ValueError(f"n_bins must be an integer >= 2 or 'auto', got {n_bins!r}")
    return int(n_bins)


def quantile_fractions(n_bins: int) -> np.ndarray:
    """The inner quantile levels of ``n_bins`` equal-frequency bins (as in memory)."""
    return np.linspace(0, 1, n_bins + 1)[1:-1]


def _ranks(n: int, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """numpy's ``"linear"`` quantile rule on ``n`` sorted values: the 0-based order
    statistics below and above each level and the interpolation weight."""
    virtual = (n - 1) * np.asarray(qs, dtype=np.float64)
    prev = np.floor(virtual)
    gamma = virtual - prev
    prev = prev.astype(np.int64)
    nxt = np.minimum(prev + 1, n - 1)
    return prev, nxt, gamma


def linear_quantile(a: np.ndarray, b: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """numpy's interpolation between the order statistics ``a`` and ``b`` (weight
    ``gamma``): ``a + (b - a) * gamma``, or ``b - (b - a) * (1 - gamma)`` from
    ``gamma >= 0.5`` on, so that the result equals ``np.quantile`` bit for bit.

    Examples
    --------
    >>> x = np.array([3.0, 1.0, 10.0, 7.0, 2.0])
    >>> s = np.sort(x)  # 4 * 0.375 = 1.5: halfway between s[1] and s[2]
    >>> bool(linear_quantile(s[1:2], s[2:3], np.array([0.5]))[0] == np.quantile(x, 0.375))
    True
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    gamma = np.asarray(gamma, dtype=np.float64)
    diff = b - a
    out = a + diff * gamma
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return out


def sparse_quantiles(stored: np.ndarray, n_zeros: int, qs: Any) -> np.ndarray:
    """``np.quantile`` (linear rule) of a sparse column at levels ``qs``, from its
    stored (observed, not NaN) values and its number of implicit zeros, in
    ``O(nnz log nnz)``: the expanded sorted column is the negative stored values, the
    zeros, then the others, so each order statistic is read without expanding it.

    Examples
    --------
    >>> dense = np.array([0, 0, 5.0, -1, 0, 2, 0, 9])
    >>> qs = [0.1, 0.5, 0.9]
    >>> bool(np.array_equal(sparse_quantiles(dense[dense != 0], 4, qs), np.quantile(dense, qs)))
    True
    """
    s = np.sort(np.asarray(stored, dtype=np.float64))
    k_neg = int(np.searchsorted(s, 0.0, side="left"))
    z = int(n_zeros)

    def order_stat(r: np.ndarray) -> np.ndarray:
        out = np.zeros(r.shape)
        low = r < k_neg
        high = r >= k_neg + z
        out[low] = s[r[low]]
        out[high] = s[r[high] - z]
        return out

    prev, nxt, gamma = _ranks(s.size + z, np.asarray(qs, dtype=np.float64))
    return linear_quantile(order_stat(prev), order_stat(nxt), gamma)


def sparse_quantile_edges(stored: np.ndarray, n_zeros: int, n_bins: int) -> np.ndarray:
    """Equal-frequency inner edges of a sparse column: the same numbers as
    ``np.unique(np.quantile(dense, levels))`` of the expanded column
    (:func:`sparse_quantiles` at :func:`quantile_fractions`).

    Examples
    --------
    >>> dense = np.array([0, 0, 5.0, -1, 0, 2, 0, 9])
    >>> stored = dense[dense != 0]
    >>> levels = quantile_fractions(3)
    >>> bool(np.array_equal(sparse_quantile_edges(stored, 4, 3),
    ...                     np.unique(np.quantile(dense, levels))))
    True
    """
    return np.unique(sparse_quantiles(stored, n_zeros, quantile_fractions(n_bins)))


# ---------------------------------------------------------------------------- Dask


def _observed_stats(x: Any, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column of a chunk: the number of observed (not NaN) values, their min, max."""
    V = np.asarray(x)[:, cols].astype(np.float64, copy=False)
    obs = ~np.isnan(V)
    count = obs.sum(axis=0).astype(np.int64)
    with np.errstate(invalid="ignore"):
        lo = np.where(count > 0, np.fmin.reduce(V, axis=0) if V.shape[0] else np.inf, np.inf)
        hi = np.where(count > 0, np.fmax.reduce(V, axis=0) if V.shape[0] else -np.inf, -np.inf)
    return count, lo, hi


def _merge_observed(*parts: tuple) -> tuple:
    count = sum(p[0] for p in parts)
    lo = np.minimum.reduce([p[1] for p in parts])
    hi = np.maximum.reduce([p[2] for p in parts])
    return count, lo, hi


_GRID = 1024  # sub-intervals per target and counting pass
_GATHER = 4096  # a target's candidates are gathered once at most this many remain


def _search_pass(x: Any, cols: np.ndarray, state: list[tuple]) -> list[np.ndarray]:
    """One chunk's part of a counting pass. ``state`` holds per target its column
    (index into ``cols``), the interval ``(a, b]`` and whether to gather: a histogram of
    the values over ``_GRID`` equal parts of ``(a, b]`` (with the counts at or below
    ``a`` first and above ``b`` last), or the values in ``(a, b]`` themselves."""
    X = np.asarray(x)
    out: list[np.ndarray] = []
    cache: dict[int, np.ndarray] = {}
    for c, a, b, gather in state:
        if c not in cache:
            v = X[:, cols[c]].astype(np.float64, copy=False)
            cache[c] = v[~np.isnan(v)]
        v = cache[c]
        if gather:
            out.append(v[(v > a) & (v <= b)])
        else:
            edges = _grid(a, b)
            idx = np.searchsorted(edges, v, side="left")  # (e[i-1], e[i]] -> i
            out.append(np.bincount(idx, minlength=edges.size + 1).astype(np.int64))
    return out


def _merge_search(*parts: list[np.ndarray]) -> list[np.ndarray]:
    out = []
    for items in zip(*parts, strict=True):
        if items[0].dtype.kind == "f":
            out.append(np.concatenate(items))
        else:
            out.append(np.sum(items, axis=0))
    return out


def _grid(a: float, b: float) -> np.ndarray:
    """The ``_GRID + 1`` edges ``a = e_0 < ... < e_G = b`` of a counting pass (repeats
    removed where ``(a, b]`` holds few floats)."""
    e = a + (b - a) * (np.arange(_GRID + 1, dtype=np.float64) / _GRID)
    e[0], e[-1] = a, b
    return np.unique(e)


def dask_quantiles(blocks: list[Any], cols: np.ndarray, qs: np.ndarray) -> list[np.ndarray]:
    """Exact quantiles (numpy's ``"linear"`` rule) of the observed values of columns
    ``cols`` of Dask row chunks: ``out[i]`` equals ``np.quantile(column[~nan], qs)``
    of the whole column ``cols[i]`` (an all-missing column gives an empty array).

    Each wanted order statistic is found by counting passes: the interval that holds
    it is cut into 1,024 equal parts and every chunk counts its values per part (a
    tree reduction of histograms); the part that holds the rank becomes the next
    interval; once at most 4,096 values remain in it they are gathered and sorted. The
    interpolation is then numpy's own (:func:`linear_quantile`). Usually two or three
    passes; each reads every chunk once.

    Parameters
    ----------
    blocks : list of dask.delayed.Delayed (or futures)
        Row chunks ``(n_i, n_features)``.
    cols : int ndarray
        The columns.
    qs : float ndarray in [0, 1]
        The quantile levels.
    """
    import dask

    from fsel.kernels._dask import tree_reduce

    cols = np.asarray(cols, dtype=np.int64)
    qs = np.asarray(qs, dtype=np.float64)
    parts = [dask.delayed(_observed_stats)(x, cols) for x in blocks]
    count, lo, hi = tree_reduce(parts, _merge_observed).compute()
    # targets: (column index, rank) -> interval (a, b], count <= a, gather?, value
    targets: dict[tuple[int, int], dict[str, Any]] = {}
    plan: list[tuple | None] = []
    for c in range(cols.size):
        n = int(count[c])
        if n == 0:
            plan.append(None)
            continue
        prev, nxt, gamma = _ranks(n, qs)
        plan.append((prev, nxt, gamma))
        for r in np.union1d(prev, nxt).tolist():
            one = bool(lo[c] == hi[c])
            targets[(c, int(r))] = {
                "a": float(np.nextafter(lo[c], -np.inf)),
                "b": float(hi[c]),
                "below": 0,
                "gather": n <= _GATHER,
                "value": float(lo[c]) if one else None,
            }
    while True:
        open_ = [(key, t) for key, t in targets.items() if t["value"] is None]
        if not open_:
            break
        state = [(key[0], t["a"], t["b"], t["gather"]) for key, t in open_]
        parts = [dask.delayed(_search_pass)(x, cols, state) for x in blocks]
        res = tree_reduce(parts, _merge_search).compute()
        for (key, t), got in zip(open_, res, strict=True):
            r = key[1]
            if t["gather"]:
                t["value"] = float(np.sort(got)[r - t["below"]])
                continue
            edges = _grid(t["a"], t["b"])
            inside = got[1 : edges.size]  # the parts (e[i-1], e[i]], i = 1, 2, ...
            cum = t["below"] + np.cumsum(inside)
            i = int(np.searchsorted(cum, r, side="right"))  # the part that holds rank r
            t["below"] = int(cum[i - 1]) if i else t["below"]
            t["a"], t["b"] = float(edges[i]), float(edges[i + 1])
            t["gather"] = int(inside[i]) <= _GATHER
            if np.nextafter(t["a"], np.inf) >= t["b"]:  # a single float left in (a, b]
                t["value"] = t["b"]
    out: list[np.ndarray] = []
    for c in range(cols.size):
        if plan[c] is None:
            out.append(np.zeros(0))
            continue
        prev, nxt, gamma = plan[c]
        a = np.array([targets[(c, int(r))]["value"] for r in prev])
        b = np.array([targets[(c, int(r))]["value"] for r in nxt])
        out.append(linear_quantile(a, b, gamma))
    return out


# -------------------------------------------------------------------- crowded bins


def crowded_columns(
    codes: Any,
    n_levels: np.ndarray,
    edges: list[np.ndarray | None],
    values: Any = None,
    missing: np.ndarray | None = None,
) -> list[int]:
    """The binned columns whose bins lost their information: one bin holds more than
    95% of the column's observed rows while those rows hold at least 10 distinct values
    and no single value holds 95% of the rows (an outlier or a heavy tail set the bins;
    equal-frequency bins would split them).

    ``codes`` are feature-major codes (a dense matrix or
    :class:`fsel.kernels.discretize.SparseCodes`); ``values`` the binned table
    (dense ``(n_samples, n_features)`` or a sparse matrix), read only for the crowded
    columns. A column with holes (``missing``) has its last code as the missing level,
    left out of the shares.

    Examples
    --------
    >>> from fsel.kernels.discretize import discretize
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); X[0, 1] = 1e6
    >>> codes, levels, edges = discretize(X, np.zeros(2, bool), 5, "uniform")
    >>> crowded_columns(codes, levels, edges, X)
    [1]
    """
    out: list[int] = []
    binned = [j for j, e in enumerate(edges) if e is not None]
    if not binned:
        return out
    dense = isinstance(codes, np.ndarray)
    for j in binned:
        if dense:
            row = codes[j]
            counts = np.bincount(row, minlength=int(n_levels[j]))
        else:  # sparse codes: the stored codes and the rows at the zero code, O(nnz)
            p0, p1 = int(codes.indptr[j]), int(codes.indptr[j + 1])
            counts = np.bincount(codes.codes[p0:p1], minlength=int(n_levels[j]))
            counts[int(codes.zero_code[j])] += codes.n_samples - (p1 - p0)
        if missing is not None and missing[j]:
            counts = counts[:-1]
        total = counts.sum()
        if total == 0:
            continue
        big = int(np.argmax(counts))
        if counts[big] <= CROWDED_SHARE * total:
            continue
        if values is None:
            out.append(j)
            continue
        if dense:
            col = values[:, j].astype(np.float64, copy=False)
            in_bin, zeros = col[(row == big) & ~np.isnan(col)], 0
        else:
            in_bin, zeros = _sparse_bin_values(values, codes, j, big)
        u, c = np.unique(in_bin, return_counts=True)
        if zeros:
            at = np.searchsorted(u, 0.0)
            if at < u.size and u[at] == 0.0:
                c[at] += zeros
            else:
                u, c = np.insert(u, at, 0.0), np.insert(c, at, zeros)
        # many distinct values, none of them alone filling the bin: another rule would
        # split these rows
        if u.size >= CROWDED_MIN_DISTINCT and c.max() <= CROWDED_SHARE * total:
            out.append(j)
    return out


def _sparse_bin_values(values: Any, codes: Any, j: int, big: int) -> tuple[np.ndarray, int]:
    """The stored values of sparse column ``j`` whose code is ``big`` and how many
    implicit zeros fall there, from its stored entries only."""
    C = values[:, [j]].tocsc()
    rows, data = C.indices, C.data.astype(np.float64)
    p0, p1 = int(codes.indptr[j]), int(codes.indptr[j + 1])
    srows, scodes = codes.rows[p0:p1], codes.codes[p0:p1]
    if big == int(codes.zero_code[j]):  # rows not stored in the codes have the zero code
        return data[~np.isin(rows, srows)], values.shape[0] - C.nnz
    return data[np.isin(rows, srows[scodes == big])], 0
