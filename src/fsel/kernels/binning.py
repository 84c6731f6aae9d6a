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

from fsel.kernels.quantiles import linear_quantile, quantile_ranks
from fsel.utils.parallel import n_threads_for, thread_map

__all__ = [
    "AUTO_MAX_BINS",
    "CROWDED_MIN_DISTINCT",
    "CROWDED_SHARE",
    "auto_n_bins",
    "check_n_bins",
    "crowded_columns",
    "dask_edges",
    "dask_quantiles",
    "edge_fractions",
    "lift_edges",
    "quantile_edges",
    "quantile_fractions",
    "smallest_above",
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


def edge_fractions(n_bins: int) -> np.ndarray:
    """The quantile levels :func:`quantile_edges` reads: ``0`` (the column's smallest
    value) then the inner levels of ``n_bins`` equal-frequency bins."""
    return np.concatenate([[0.0], quantile_fractions(n_bins)])


def quantile_edges(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The equal-frequency inner edges of a column from its quantiles ``q`` at
    :func:`edge_fractions` (``q[0]`` its smallest value), and the tied values that
    need the next value above them (:func:`lift_edges`).

    The edges are the distinct inner quantiles. A value that two or more of them
    equal holds at least a ``1/n_bins`` share of the rows (the zeros of a
    zero-inflated column: amounts, counts, term frequencies; a sentinel; a mode): it
    gets a bin of its own, closed by an edge at the next value above it. A value is
    coded by the number of edges at or below it, so an edge at the column's smallest
    value separates nothing: that edge is replaced by the next value too. Without
    this rule a column of more than ``1 - 1/n_bins`` zeros would be one bin, its
    information lost.

    Examples
    --------
    >>> x = np.array([0.0, 0, 0, 0, 0, 0, 0, 2, 5, 9])  # 70% zeros, 3 bins
    >>> edges, ties = quantile_edges(np.quantile(x, edge_fractions(3)))
    >>> edges.tolist(), ties.tolist()
    ([0.0], [0.0])
    >>> lift_edges(edges, ties, [2.0], low=0.0).tolist()  # zeros | the rest
    [2.0]
    >>> quantile_edges(np.quantile(np.arange(9.0), edge_fractions(3)))[0].tolist()
    [2.6666666666666665, 5.333333333333333]
    """
    q = np.asarray(q, dtype=np.float64)
    inner = np.sort(q[1:])
    edges = np.unique(inner)
    repeated = inner[1:][inner[1:] == inner[:-1]]
    ties = np.unique(np.concatenate([repeated, edges[:1][edges[:1] == q[0]]]))
    return edges, ties


def lift_edges(edges: np.ndarray, ties: Any, above: Any, low: float) -> np.ndarray:
    """``edges`` with an edge added at ``above[i]``, the next value above ``ties[i]``
    (NaN or None: there is none), and the edge at the column's smallest value
    ``low`` dropped (it separates nothing): every tied value a bin of its own."""
    extra = [float(a) for a in np.asarray(above, dtype=np.float64).tolist() if not np.isnan(a)]
    out = np.unique(np.concatenate([np.asarray(edges, dtype=np.float64), extra]))
    return out[out != low]


def smallest_above(col: np.ndarray, low: float) -> float:
    """The smallest value of ``col`` above ``low`` (NaN skipped; NaN if none).

    Examples
    --------
    >>> smallest_above(np.array([0.0, np.nan, 3, 0, 1]), 0.0)
    1.0
    """
    above = col[col > low]
    return float(above.min()) if above.size else float("nan")


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

    prev, nxt, gamma = quantile_ranks(s.size + z, np.asarray(qs, dtype=np.float64))
    return linear_quantile(order_stat(prev), order_stat(nxt), gamma)


def sparse_quantile_edges(stored: np.ndarray, n_zeros: int, n_bins: int) -> np.ndarray:
    """Equal-frequency inner edges of a sparse column: the edges of
    :func:`quantile_edges` of the expanded column (:func:`sparse_quantiles` at
    :func:`edge_fractions`), the column never expanded.

    Examples
    --------
    >>> dense = np.array([0, 0, 5.0, -1, 0, 2, 0, 9])
    >>> stored = dense[dense != 0]
    >>> q = np.quantile(dense, edge_fractions(3))
    >>> bool(np.array_equal(sparse_quantile_edges(stored, 4, 3), quantile_edges(q)[0]))
    True
    >>> sparse_quantile_edges(np.array([3.0, 7.0]), 8, 3).tolist()  # 80% zeros
    [3.0]
    """
    q = sparse_quantiles(stored, n_zeros, edge_fractions(n_bins))
    edges, ties = quantile_edges(q)
    if not ties.size:
        return edges
    s = np.asarray(stored, dtype=np.float64)
    above = []
    for v in ties.tolist():
        a = smallest_above(s, v)
        if n_zeros and v < 0.0 and not a <= 0.0:  # the implicit zeros lie above
            a = 0.0
        above.append(a)
    return lift_edges(edges, ties, above, q[0])


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


_GRID = 128  # the most sub-intervals of an interval in one counting pass
_CELLS = 1 << 15  # histogram cells of one counting pass, all its intervals together
_GATHER = 64  # an interval's values are gathered once at most this many remain


def _search_pass(
    x: Any, cols: np.ndarray, state: tuple[np.ndarray, ...], g: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One chunk's part of a counting pass over the intervals ``state = (col, a, b,
    gather)`` (column index into ``cols``, the interval ``(a, b]``, whether to gather):
    ``(hist, counts, values)``, ``hist`` one row per counted interval, the counts of
    the chunk's values over the edges :func:`_grid` ``(a, b, g)`` (first the count at or
    below ``a``, then one per part, then the count above ``b``, zero-padded to
    ``g + 2``); ``values`` the chunk's values inside each gathered interval, one
    interval after the other, ``counts`` how many each."""
    X = np.asarray(x)
    col, a, b, gather = state
    hist = np.zeros((int((~gather).sum()), g + 2), dtype=np.int64)
    counts = np.zeros(int(gather.sum()), dtype=np.int64)
    values: list[np.ndarray] = []
    sorted_cols: dict[int, np.ndarray] = {}
    h = k = 0
    for c, lo, hi, gat in zip(col.tolist(), a.tolist(), b.tolist(), gather.tolist(), strict=True):
        if c not in sorted_cols:  # each column sorted once per pass
            v = X[:, cols[c]].astype(np.float64, copy=False)
            sorted_cols[c] = np.sort(v[~np.isnan(v)])
        v = sorted_cols[c]
        if gat:
            i, j = np.searchsorted(v, [lo, hi], side="right")
            values.append(v[i:j])
            counts[k] = j - i
            k += 1
        else:
            pos = np.searchsorted(v, _grid(lo, hi, g), side="right")  # values <= each edge
            hist[h, 0] = pos[0]
            hist[h, 1 : pos.size] = np.diff(pos)
            hist[h, pos.size] = v.size - pos[-1]
            h += 1
    flat = np.concatenate(values) if values else np.zeros(0)
    return hist, counts, flat


def _merge_search(*parts: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple:
    """The sum of the histograms of :func:`_search_pass` parts and their gathered
    values regrouped per interval (a combine step of the tree reduction)."""
    hist = parts[0][0].copy()
    for p in parts[1:]:
        hist += p[0]
    counts = np.sum([p[1] for p in parts], axis=0)
    ids = np.concatenate([np.repeat(np.arange(p[1].size), p[1]) for p in parts])
    values = np.concatenate([p[2] for p in parts])[np.argsort(ids, kind="stable")]
    return hist, counts, values


def _grid(a: float, b: float, g: int) -> np.ndarray:
    """The ``g + 1`` edges ``a = e_0 < ... < e_g = b`` of a counting pass (repeats
    removed where ``(a, b]`` holds few floats)."""
    e = a + (b - a) * (np.arange(g + 1, dtype=np.float64) / g)
    e[0], e[-1] = a, b
    return np.unique(e)


def _smallest_above_chunk(x: Any, cols: np.ndarray, low: np.ndarray) -> np.ndarray:
    """Per pair ``(cols[i], low[i])`` of a chunk: the smallest observed value of that
    column above ``low[i]`` (inf if none)."""
    V = np.asarray(x)[:, cols].astype(np.float64, copy=False)
    with np.errstate(invalid="ignore"):
        W = np.where(V > low[None, :], V, np.inf)
    return W.min(axis=0) if W.shape[0] else np.full(cols.size, np.inf)


def _least(*parts: np.ndarray) -> np.ndarray:
    return np.minimum.reduce(list(parts))


def dask_edges(blocks: list[Any], cols: np.ndarray, n_bins: int) -> list[np.ndarray]:
    """The :func:`quantile_edges` of columns ``cols`` of Dask row chunks, equal to the
    in-memory edges: exact quantiles (:func:`dask_quantiles` at
    :func:`edge_fractions`), then one more pass over the chunks, only where an edge
    lies at a column's smallest value, for the smallest value above it."""
    import dask

    from fsel.kernels._dask import tree_reduce

    cols = np.asarray(cols, dtype=np.int64)
    found = dask_quantiles(blocks, cols, edge_fractions(n_bins))
    out, tied = [], []
    for i, q in enumerate(found):
        edges, ties = quantile_edges(q) if q.size else (np.zeros(0), np.zeros(0))
        out.append(edges)
        tied += [(i, v) for v in ties.tolist()]
    if tied:
        at = np.asarray([cols[i] for i, _ in tied], dtype=np.int64)
        low = np.array([v for _, v in tied])
        parts = [dask.delayed(_smallest_above_chunk)(x, at, low) for x in blocks]
        got = tree_reduce(parts, _least).compute()
        above = np.where(np.isinf(got), np.nan, got)
        for i in sorted({i for i, _ in tied}):
            mine = [r for r, (c, _) in enumerate(tied) if c == i]
            out[i] = lift_edges(out[i], low[mine], above[mine], found[i][0])
    return out


def dask_quantiles(blocks: list[Any], cols: np.ndarray, qs: np.ndarray) -> list[np.ndarray]:
    """Exact quantiles (numpy's ``"linear"`` rule) of the observed values of columns
    ``cols`` of Dask row chunks: ``out[i]`` equals ``np.quantile(column[~nan], qs)``
    of the whole column ``cols[i]`` (an all-missing column gives an empty array).

    Each wanted order statistic is found by counting passes: the interval that holds
    it is cut into equal parts and every chunk counts its values per part (from its
    sorted column; the chunks' histograms are summed in a tree on the workers); the
    part that holds the rank becomes the next interval; once at most 64 values remain
    in it they are gathered and sorted. The interpolation is then numpy's own
    (:func:`linear_quantile`). Order statistics in one interval share its histogram
    (the first pass counts one per column), and a pass has at most ``2**15`` cells in
    all (up to 128 parts per interval, fewer when many intervals are open), so the
    client holds ``O(columns * quantiles)`` numbers, whatever the number of chunks.
    Usually four or five passes; each reads every chunk once.

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
    # the targets (order statistics): column, rank, interval (a, b] that holds it, the
    # count at or below a, whether to gather, and the value once found (NaN before)
    plan: list[tuple | None] = []
    t_col, t_rank = [], []
    for c in range(cols.size):
        n = int(count[c])
        if n == 0:
            plan.append(None)
            continue
        prev, nxt, gamma = quantile_ranks(n, qs)
        plan.append((prev, nxt, gamma))
        r = np.union1d(prev, nxt)
        t_col.append(np.full(r.size, c, dtype=np.int64))
        t_rank.append(r)
    col = np.concatenate(t_col) if t_col else np.zeros(0, dtype=np.int64)
    rank = np.concatenate(t_rank) if t_rank else np.zeros(0, dtype=np.int64)
    a = np.nextafter(lo[col], -np.inf)
    b = hi[col].astype(np.float64)
    below = np.zeros(col.size, dtype=np.int64)
    gather = count[col] <= _GATHER
    value = np.where(lo[col] == hi[col], lo[col], np.nan)
    while True:
        open_ = np.flatnonzero(np.isnan(value))
        if not open_.size:
            break
        # one histogram (or gather) per distinct interval of the open targets
        key = np.column_stack([col[open_], a[open_], b[open_], gather[open_]])
        key, inv = np.unique(key, axis=0, return_inverse=True)
        inv = inv.ravel()
        state = (key[:, 0].astype(np.int64), key[:, 1], key[:, 2], key[:, 3] > 0)
        g = int(min(_GRID, max(8, _CELLS // max(int((~state[3]).sum()), 1))))
        parts = [dask.delayed(_search_pass)(x, cols, state, g) for x in blocks]
        hist, counts, values = tree_reduce(parts, _merge_search).compute()
        del parts
        offsets = np.concatenate(([0], np.cumsum(counts)))
        h = k = 0
        for s in range(key.shape[0]):
            m = open_[inv == s]
            if state[3][s]:  # gathered: the ranks are read off the sorted values
                got = np.sort(values[offsets[k] : offsets[k + 1]])
                value[m] = got[rank[m] - below[m]]
                k += 1
                continue
            edges = _grid(state[1][s], state[2][s], g)
            inside = hist[h, 1 : edges.size]  # the parts (e[i-1], e[i]], i = 1, 2, ...
            h += 1
            cum = below[m[0]] + np.cumsum(inside)  # ``below`` is one per interval
            i = np.searchsorted(cum, rank[m], side="right")  # the part of each rank
            below[m] = np.where(i > 0, cum[np.maximum(i - 1, 0)], below[m])
            a[m], b[m] = edges[i], edges[i + 1]
            gather[m] = inside[i] <= _GATHER
            single = np.nextafter(a[m], np.inf) >= b[m]  # a single float left in (a, b]
            value[m[single]] = b[m[single]]
    out: list[np.ndarray] = []
    found = {(int(c), int(r)): v for c, r, v in zip(col, rank, value, strict=True)}
    for c in range(cols.size):
        if plan[c] is None:
            out.append(np.zeros(0))
            continue
        prev, nxt, gamma = plan[c]
        lo_v = np.array([found[(c, int(r))] for r in prev])
        hi_v = np.array([found[(c, int(r))] for r in nxt])
        out.append(linear_quantile(lo_v, hi_v, gamma))
    return out


# -------------------------------------------------------------------- crowded bins


def crowded_columns(
    codes: Any,
    n_levels: np.ndarray,
    edges: list[np.ndarray | None],
    values: Any = None,
    missing: np.ndarray | None = None,
    n_jobs: int = 1,
) -> list[int]:
    """The binned columns whose bins lost their information: one bin holds more than
    95% of the column's observed rows while those rows hold at least 10 distinct values
    and no single value holds 95% of the rows (an outlier or a heavy tail set the bins;
    equal-frequency bins would split them).

    ``codes`` are feature-major codes (a dense matrix or
    :class:`fsel.kernels.discretize.SparseCodes`); ``values`` the binned table
    (dense ``(n_samples, n_features)`` or a sparse matrix), read only for the crowded
    columns. A column with holes (``missing``) has its last code as the missing level,
    left out of the shares. ``n_jobs``: threads over the columns' code counts.

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

    def code_counts(j: int) -> np.ndarray:
        if dense:
            return np.bincount(codes[j], minlength=int(n_levels[j]))
        # sparse codes: the stored codes and the rows at the zero code, O(nnz)
        p0, p1 = int(codes.indptr[j]), int(codes.indptr[j + 1])
        counts = np.bincount(codes.codes[p0:p1], minlength=int(n_levels[j]))
        counts[int(codes.zero_code[j])] += codes.n_samples - (p1 - p0)
        return counts

    threads = n_threads_for(codes.nbytes, n_jobs) if dense else 1
    all_counts = thread_map(code_counts, [(j,) for j in binned], threads)
    for j, counts in zip(binned, all_counts, strict=True):
        row = codes[j] if dense else None
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
