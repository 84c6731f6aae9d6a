"""Discretisation: turn a numeric table into integer codes ``0..a-1`` per column.

Rules (SPEC section 1):

* columns flagged *discrete* (integer, boolean, categorical) are taken as codes as
  they are — their distinct values are remapped to ``0..a-1`` in sorted order and
  never re-binned;
* float columns are binned: equal-width into ``n_bins`` bins by default
  (``strategy="uniform"``), equal-frequency as an option (``strategy="quantile"``);
  a float column with no more distinct values than ``n_bins`` is kept as codes;
* ``strategy=None`` takes every column as codes.

Bin edges are learned once (:func:`fit_bin_edges`) and can be applied to new rows
(:func:`apply_bin_edges`); values outside the learned range fall into the first or
last bin.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from fsel.kernels._counting import numba_enabled

__all__ = [
    "apply_bin_edges",
    "compact_codes",
    "discretize",
    "fit_bin_edges",
    "smallest_code_dtype",
    "uniform_edges",
]

_STRATEGIES = ("uniform", "quantile", None)


def smallest_code_dtype(n_levels: int) -> type:
    """The smallest unsigned/signed integer dtype that holds codes ``0..n_levels-1``."""
    if n_levels <= 256:
        return np.uint8
    if n_levels <= 65536:
        return np.uint16
    return np.int32


def compact_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Remap each column of an integer-valued matrix to codes ``0..a_j-1``.

    The map keeps the sorted order of the distinct values. The work is vectorised over
    all columns when the value ranges are small, and falls back to one ``np.unique``
    per column otherwise.

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_features)
        Integer-valued numbers (any numeric dtype).

    Returns
    -------
    codes : ndarray of shape (n_features, n_samples)
        Feature-major codes, in the smallest integer dtype that holds them.
    n_levels : ndarray of shape (n_features,), int64
        Number of distinct values per column.
    """
    values = np.asarray(values)
    n, d = values.shape
    if values.dtype.kind in "iub" and n and d and numba_enabled():
        fast = _compact_integers_numba(values)
        if fast is not None:
            return fast
    out = np.empty((d, n), dtype=np.int64)
    n_levels = np.zeros(d, dtype=np.int64)
    done = np.zeros(d, dtype=bool)
    block = 256
    for c0 in range(0, d, block):
        c1 = min(c0 + block, d)
        vt = np.ascontiguousarray(values[:, c0:c1].T)  # (b, n), one transpose per block
        vmin = vt.min(axis=1)
        shifted = vt - vmin[:, None]
        as_int = shifted.astype(np.int64)
        span = as_int.max(axis=1)
        ok = (as_int == shifted).all(axis=1) & (span <= max(2 * n, 1024))
        if not ok.any():
            continue
        rows = np.flatnonzero(ok)
        sub = as_int[rows]
        width = int(span[rows].max()) + 1
        keys = sub + (np.arange(rows.size, dtype=np.int64) * width)[:, None]
        present = np.bincount(keys.ravel(), minlength=rows.size * width).reshape(-1, width) > 0
        cols = c0 + rows
        n_levels[cols] = present.sum(axis=1)
        done[cols] = True
        if (n_levels[cols] == span[rows] + 1).all():
            out[cols] = sub  # already 0..a-1 with no gaps
        else:
            out[cols] = (np.cumsum(present, axis=1) - 1).ravel()[keys]
    for j in np.flatnonzero(~done):
        uniq, inv = np.unique(values[:, j], return_inverse=True)
        out[j] = inv.reshape(-1)
        n_levels[j] = uniq.size
    dtype = smallest_code_dtype(int(n_levels.max()))
    return out.astype(dtype), n_levels


@lru_cache(maxsize=1)
def _numba_compact():  # pragma: no cover - compiled
    import numba

    @numba.njit(nogil=True, cache=True)
    def compact(X, vmin, width, out):
        n, d = X.shape
        tile = 32  # 2-D tiled transpose: reads and writes both stay in cache
        for i0 in range(0, n, tile):
            i1 = min(i0 + tile, n)
            for j0 in range(0, d, tile):
                j1 = min(j0 + tile, d)
                for j in range(j0, j1):
                    base = vmin[j]
                    for i in range(i0, i1):
                        out[j, i] = np.int64(X[i, j]) - base
        levels = np.zeros(d, np.int64)
        lut = np.zeros(width, np.int64)
        for j in range(d):  # per feature, on contiguous rows: presence, then remap gaps
            row = out[j]
            for v in range(width):
                lut[v] = 0
            for i in range(n):
                lut[row[i]] = 1
            c = 0
            top = 0
            for v in range(width):
                if lut[v]:
                    lut[v] = c
                    c += 1
                    top = v
            levels[j] = c
            if top + 1 != c:  # gaps: remap to 0..c-1
                for i in range(n):
                    row[i] = lut[row[i]]
        return levels

    return compact


def _compact_integers_numba(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """One-pass compaction of an integer matrix (numba back-end), or None when the
    value ranges are too wide for a lookup table."""
    vmin = values.min(axis=0).astype(np.int64)
    width = int((values.max(axis=0).astype(np.int64) - vmin).max()) + 1
    if width > 65536 or width * values.shape[1] > 1 << 26:
        return None
    out = np.empty((values.shape[1], values.shape[0]), dtype=smallest_code_dtype(width))
    levels = _numba_compact()(values, vmin, width, out)
    return out, levels


def uniform_edges(lo: np.ndarray, hi: np.ndarray, n_bins: int) -> np.ndarray:
    """Inner equal-width edges, one row per column, from the columns' minima and maxima
    (the same numbers as ``np.linspace(lo, hi, n_bins + 1)[1:-1]``).

    Examples
    --------
    >>> uniform_edges(np.array([0.0]), np.array([1.0]), 4).tolist()
    [[0.25, 0.5, 0.75]]
    """
    lo = np.asarray(lo, dtype=np.float64)
    step = (np.asarray(hi, dtype=np.float64) - lo) / n_bins  # as np.linspace does
    return np.arange(1, n_bins, dtype=np.float64)[None, :] * step[:, None] + lo[:, None]


def fit_bin_edges(
    values: np.ndarray,
    discrete: np.ndarray,
    n_bins: int = 5,
    strategy: str | None = "uniform",
) -> list[np.ndarray | None]:
    """Learn the inner bin edges of every float column.

    Returns a list with one entry per column: ``None`` for a column kept as codes, or
    the sorted inner edges (``searchsorted(edges, x, side="right")`` gives the bin).
    """
    if strategy not in _STRATEGIES:
        raise ValueError(f"strategy must be 'uniform', 'quantile' or None, got {strategy!r}")
    if strategy is not None and (not isinstance(n_bins, (int, np.integer)) or n_bins < 2):
        raise ValueError(f"n_bins must be an integer >= 2, got {n_bins!r}")
    edges: list[np.ndarray | None] = [None] * values.shape[1]
    if strategy is None:
        return edges
    cols = np.flatnonzero(~np.asarray(discrete, dtype=bool))
    if not cols.size:
        return edges
    # vectorised over columns (same edges as the per-column np.unique/np.linspace):
    # a column has more than n_bins distinct values if a head of its rows already does
    head = np.sort(values[: 8 * (n_bins + 1), cols], axis=0)
    many = 1 + np.count_nonzero(np.diff(head, axis=0), axis=0) > n_bins
    for i in np.flatnonzero(~many).tolist():
        many[i] = np.unique(values[:, cols[i]]).size > n_bins
    cols = cols[many]
    if strategy == "uniform":
        V = values[:, cols]
        inner = uniform_edges(V.min(axis=0), V.max(axis=0), n_bins)
        for i, j in enumerate(cols.tolist()):
            edges[j] = inner[i]
    else:
        for j in cols.tolist():
            col = values[:, j]
            edges[j] = np.unique(np.quantile(col, np.linspace(0, 1, n_bins + 1)[1:-1]))
    return edges


def apply_bin_edges(values: np.ndarray, edges: list[np.ndarray | None]) -> np.ndarray:
    """Bin float columns with learned edges; leave code columns as they are.

    Returns a matrix of integer values (not yet compacted): int64 when every code
    column holds integers, else float64.
    """
    code_cols = [j for j, e in enumerate(edges) if e is None]
    kept = values[:, code_cols]
    integral = kept.dtype.kind in "iub" or bool(np.all(kept == np.round(kept)))
    out = np.empty(values.shape, dtype=np.int64 if integral else np.float64)
    if code_cols:
        out[:, code_cols] = kept
    # columns with as many edges are binned together: searchsorted(e, x, "right") is
    # the number of edges <= x
    by_len: dict[int, list[int]] = {}
    for j, e in enumerate(edges):
        if e is not None:
            by_len.setdefault(len(e), []).append(j)
    block = max(1, (1 << 22) // max(1, values.shape[0]))
    for length, js in by_len.items():
        for b0 in range(0, len(js), block):
            idx = np.asarray(js[b0 : b0 + block])
            E = np.stack([edges[j] for j in idx.tolist()])
            whole = idx.size == values.shape[1]  # every column binned: no gather/scatter
            V = values if whole else values[:, idx]
            acc = np.zeros(V.shape, dtype=np.uint8 if length < 255 else np.intp)
            for m in range(length):
                acc += V >= E[:, m]
            if whole:
                out[...] = acc
            else:
                out[:, idx] = acc
    return out


def discretize(
    values: np.ndarray,
    discrete: np.ndarray | None = None,
    n_bins: int = 5,
    strategy: str | None = "uniform",
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray | None]]:
    """Discretise a table into feature-major integer codes.

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_features)
    discrete : bool ndarray of shape (n_features,) or None
        Columns that already are codes. None: no column is.
    n_bins : int
        Bins per float column.
    strategy : {"uniform", "quantile", None}

    Returns
    -------
    codes : ndarray of shape (n_features, n_samples)
    n_levels : ndarray of shape (n_features,)
    edges : list
        The learned inner edges (None for code columns).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 3], [0.5, 3], [1.0, 7], [0.9, 9], [0.1, 9], [0.2, 3]])
    >>> codes, levels, _ = discretize(X, np.array([False, True]), n_bins=2)
    >>> codes.tolist()
    [[0, 1, 1, 1, 0, 0], [0, 0, 1, 2, 2, 0]]
    >>> levels.tolist()
    [2, 3]
    """
    values = np.asarray(values)
    if values.dtype.kind not in "iubf":
        values = values.astype(np.float64)
    if discrete is None:
        discrete = np.zeros(values.shape[1], dtype=bool)
    if strategy is None:
        bad = np.flatnonzero(discrete == 0)
        bad = bad[np.any(values[:, bad] != np.round(values[:, bad]), axis=0)] if bad.size else bad
        if bad.size:
            raise ValueError(
                f"discretize=None takes every column as codes, but column {int(bad[0])} "
                "has non-integer values; bin it (discretize='uniform') or encode it"
            )
    edges = fit_bin_edges(values, discrete, n_bins, strategy)
    binned = values if all(e is None for e in edges) else apply_bin_edges(values, edges)
    codes, n_levels = compact_codes(binned)
    return codes, n_levels, edges
