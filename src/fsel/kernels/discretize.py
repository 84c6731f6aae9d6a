"""Discretisation: turn a numeric table into integer codes ``0..a-1`` per column.

Rules (SPEC section 1):

* columns flagged *discrete* (integer, boolean, categorical) are taken as codes as
  they are — their distinct values are remapped to ``0..a-1`` in sorted order and
  never re-binned;
* float columns are binned: equal-width (``strategy="uniform"``) or equal-frequency
  (``strategy="quantile"``) into ``n_bins`` bins, an int or ``"auto"`` (a count that
  grows with the number of rows, :func:`fsel.kernels.binning.auto_n_bins`);
  a float column with no more distinct values than ``n_bins`` is kept as codes;
* ``strategy=None`` takes every column as codes;
* missing values (NaN, SPEC section 10), when allowed: the edges of a column are learned
  on its observed values only, the observed values are binned/compacted as above, and
  the missing cells get one more code, the last one (``a - 1``): "is missing" is a
  level of its column. Columns without NaN are coded exactly as without the option.

Bin edges are learned once (:func:`fit_bin_edges`) and can be applied to new rows
(:func:`apply_bin_edges`); values outside the learned range fall into the first or
last bin.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from fsel.kernels._counting import SMALL_TABLE_CELLS, numba_enabled
from fsel.kernels.binning import check_n_bins, sparse_quantile_edges

__all__ = [
    "SparseCodes",
    "apply_bin_edges",
    "compact_codes",
    "discretize",
    "discretize_sparse",
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
    if values.dtype.kind == "b":  # numpy cannot subtract booleans
        values = values.view(np.uint8)
    n, d = values.shape
    # small tables: numpy (exact integer codes either way; no numba import or JIT load)
    if values.dtype.kind in "iub" and n and d and n * d > SMALL_TABLE_CELLS and numba_enabled():
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
        if vt.dtype.kind in "iu":
            # exact even for int64 extremes and uint64 above 2**63: the modular uint64
            # difference max - min is the true span; columns with a small one shift
            # without overflow
            span_u = vt.max(axis=1).astype(np.uint64) - vmin.astype(np.uint64)
            small = span_u <= np.uint64(max(2 * n, 1024))
            as_int = (vt.astype(np.uint64) - vmin.astype(np.uint64)[:, None]).astype(np.int64)
            as_int[~small] = 0
            span = np.where(small, span_u, 0).astype(np.int64)
            ok = small
        else:
            shifted = vt - vmin[:, None]
            with np.errstate(invalid="ignore"):  # huge or non-integral: not ok below
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
    def compact(X, vmin, width, out, holes, nan_as):
        """Codes ``0..a-1`` of every column in ``out`` (feature-major); returns ``a`` per
        column. A NaN cell (float input) is read as ``nan_as[j]`` (``vmin[j] + width``,
        in the dtype of ``X``) and written as ``width`` first, then gets the code after
        its column's observed levels; ``holes`` flags the columns that take that extra
        level (an all-missing one has the single code 0)."""
        n, d = X.shape
        tile = 32  # 2-D tiled transpose: reads and writes both stay in cache
        for i0 in range(0, n, tile):
            i1 = min(i0 + tile, n)
            for j0 in range(0, d, tile):
                j1 = min(j0 + tile, d)
                for j in range(j0, j1):
                    base = vmin[j]
                    hole = nan_as[j]
                    for i in range(i0, i1):
                        x = X[i, j]
                        # NaN (never true for integers): branch-free select, then cast
                        out[j, i] = np.int64(x if x == x else hole) - base
        levels = np.zeros(d, np.int64)
        lut = np.zeros(width + 1, np.int64)
        for j in range(d):  # per feature, on contiguous rows: presence, then remap gaps
            row = out[j]
            for v in range(width + 1):
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
            hole = lut[width] != 0
            lut[width] = c  # the missing level: after the observed ones
            levels[j] = c + 1 if holes[j] else c
            if top + 1 != c or (hole and c != width):  # gaps or holes: remap
                for i in range(n):
                    row[i] = lut[row[i]]
        return levels

    @numba.njit(nogil=True, cache=True)
    def float_ranges(X, lo, hi, nan_seen):
        """Observed minimum and maximum of every column (``inf``/``-inf`` when it has
        none) and whether it holds NaN, in one row-major pass; False as soon as a cell
        is not an integer."""
        n, d = X.shape
        for j in range(d):
            lo[j] = np.inf
            hi[j] = -np.inf
        for i in range(n):
            frac = 0.0
            for j in range(d):  # branch-free (selects): comparisons with NaN are False
                x = X[i, j]
                nan_seen[j] |= x != x
                lo[j] = x if x < lo[j] else lo[j]
                hi[j] = x if x > hi[j] else hi[j]
                f = x - np.floor(x)  # NaN - NaN and inf - inf: NaN, not > frac
                frac = f if f > frac else frac
            if frac > 0.0:
                return False
        return True

    return compact, float_ranges


def _compact_integers_numba(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """One-pass compaction of an integer matrix (numba back-end), or None when the
    value ranges are too wide for a lookup table."""
    lo = values.min(axis=0)
    # the true span max - min: a modular uint64 difference, exact for any int64/uint64
    span = int((values.max(axis=0).astype(np.uint64) - lo.astype(np.uint64)).max())
    width = span + 1
    if width > 65536 or width * values.shape[1] > 1 << 26:
        return None
    vmin = lo.astype(np.int64)  # wraps for uint64 above 2**63; X - vmin wraps back
    out = np.empty((values.shape[1], values.shape[0]), dtype=smallest_code_dtype(width))
    holes = np.zeros(values.shape[1], dtype=bool)
    nan_as = np.zeros(values.shape[1], dtype=values.dtype)  # integers: never read
    levels = _numba_compact()[0](values, vmin, width, out, holes, nan_as)
    return out, levels


def _compact_float_codes_numba(
    values: np.ndarray, missing: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """Float columns taken as codes, NaN cells of the ``missing`` columns as their last
    level: the codes of :func:`discretize` in two passes over the table and no
    full-size temporary (numba back-end). None when a cell is not an integer, a value
    or a span is too large for a lookup table, or a column not flagged in ``missing``
    holds NaN: the caller takes the general path (which also raises its errors)."""
    n, d = values.shape
    compact, float_ranges = _numba_compact()
    lo = np.empty(d)
    hi = np.empty(d)
    nan_seen = np.zeros(d, dtype=bool)
    if not float_ranges(values, lo, hi, nan_seen):
        return None
    holes = np.zeros(d, dtype=bool) if missing is None else missing
    if (nan_seen & ~holes).any():
        return None
    observed = lo <= hi  # False: an all-missing column
    lo = np.where(observed, lo, 0.0)
    hi = np.where(observed, hi, 0.0)
    if max(-lo.min(), hi.max()) > 2.0**62:  # inf included
        return None
    width = int((hi - lo).max()) + 1
    if width > 65536 or (width + 1) * d > 1 << 26:
        return None
    out = np.empty((d, n), dtype=smallest_code_dtype(width + 1))  # NaN: ``width`` first
    levels = compact(values, lo.astype(np.int64), width, out, holes, lo + width)
    dtype = smallest_code_dtype(int(levels.max()))
    return (out if out.dtype == dtype else out.astype(dtype)), levels


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
    missing: np.ndarray | None = None,
) -> list[np.ndarray | None]:
    """Learn the inner bin edges of every float column.

    Returns a list with one entry per column: ``None`` for a column kept as codes, or
    the sorted inner edges (``searchsorted(edges, x, side="right")`` gives the bin).
    ``missing`` (bool per column, or None) flags the columns that hold NaN: their
    edges are learned on the observed values only.
    """
    if strategy not in _STRATEGIES:
        raise ValueError(f"strategy must be 'uniform', 'quantile' or None, got {strategy!r}")
    if strategy is not None:
        n_bins = check_n_bins(n_bins, values.shape[0])  # "auto": binning.auto_n_bins
    edges: list[np.ndarray | None] = [None] * values.shape[1]
    if strategy is None:
        return edges
    cols = np.flatnonzero(~np.asarray(discrete, dtype=bool))
    if missing is not None:
        holes = np.asarray(missing, dtype=bool)
        mcols = cols[holes[cols]]
        if mcols.size:
            for j, e in zip(
                mcols.tolist(), _observed_edges(values, mcols, n_bins, strategy), strict=True
            ):
                edges[j] = e
        cols = cols[~holes[cols]]
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
        V = values if cols.size == values.shape[1] else values[:, cols]  # no gather
        inner = uniform_edges(V.min(axis=0), V.max(axis=0), n_bins)
        for i, j in enumerate(cols.tolist()):
            edges[j] = inner[i]
    else:
        for j in cols.tolist():
            col = values[:, j]
            edges[j] = np.unique(np.quantile(col, np.linspace(0, 1, n_bins + 1)[1:-1]))
    return edges


def _observed_edges(
    values: np.ndarray, cols: np.ndarray, n_bins: int, strategy: str
) -> list[np.ndarray | None]:
    """Inner edges of the columns ``cols`` (which hold NaN) learned on their observed
    values, with the same arithmetic as the complete-column path of
    :func:`fit_bin_edges`."""
    out: list[np.ndarray | None] = [None] * cols.size
    V = values if cols.size == values.shape[1] else values[:, cols]
    head = np.sort(V[: 8 * (n_bins + 1)], axis=0)  # NaN sorts last
    step_ = np.diff(head, axis=0)
    distinct = (~np.isnan(head[0])).astype(np.int64) + np.count_nonzero(
        (step_ != 0) & ~np.isnan(step_), axis=0
    )
    many = distinct > n_bins
    for i in np.flatnonzero(~many).tolist():
        col = V[:, i]
        many[i] = np.unique(col[~np.isnan(col)]).size > n_bins
    idx = np.flatnonzero(many)
    if not idx.size:
        return out
    if strategy == "uniform":
        W = V if idx.size == V.shape[1] else V[:, idx]
        # fmin/fmax skip NaN (every column here has an observed value)
        inner = uniform_edges(np.fmin.reduce(W, axis=0), np.fmax.reduce(W, axis=0), n_bins)
        for r, i in enumerate(idx.tolist()):
            out[i] = inner[r]
    else:
        for i in idx.tolist():
            col = V[:, i]
            col = col[~np.isnan(col)]
            out[i] = np.unique(np.quantile(col, np.linspace(0, 1, n_bins + 1)[1:-1]))
    return out


def apply_bin_edges(
    values: np.ndarray, edges: list[np.ndarray | None], nan_bin: bool = False
) -> np.ndarray:
    """Bin float columns with learned edges; leave code columns as they are.

    Returns a matrix of integer values (not yet compacted): uint8 when every column is
    binned into at most 255 bins (the bin numbers, an eighth of the memory), else int64
    when every code column holds integers, else float64. ``nan_bin``: a NaN cell of a
    binned column gets the bin ``len(edges[j]) + 1``, above every observed one (else
    bin 0: NaN is not >= any edge).
    """
    code_cols = [j for j, e in enumerate(edges) if e is None]
    if edges and not code_cols and max(len(e) for e in edges if e is not None) < 255:
        dtype: type = np.uint8
    else:
        kept = values[:, code_cols]
        integral = kept.dtype.kind in "iub" or bool(
            np.all(kept == np.round(kept)) and np.all(np.abs(kept) <= 2.0**62)
        )
        dtype = np.int64 if integral else np.float64
    out = np.empty(values.shape, dtype=dtype)
    if code_cols:
        out[:, code_cols] = kept
    # columns with as many edges are binned together: searchsorted(e, x, "right") is
    # the number of edges <= x
    by_len: dict[int, list[int]] = {}
    for j, e in enumerate(edges):
        if e is not None:
            by_len.setdefault(len(e), []).append(j)
    block = max(1, (1 << 22) // max(1, values.shape[0]))
    if len(by_len) == 1 and len(next(iter(by_len.values()))) == values.shape[1]:
        # every column binned with as many edges: blocks of rows, read in place (views,
        # no gathered copy of the columns)
        ((length, js),) = by_len.items()
        E = np.stack([edges[j] for j in js])
        rows = max(1, (1 << 22) // max(1, values.shape[1]))
        in_place = out.dtype == np.uint8  # fewer than 255 edges: count into out itself
        for r0 in range(0, values.shape[0], rows):
            V = values[r0 : r0 + rows]
            if in_place:
                acc = out[r0 : r0 + rows]
                acc[...] = 0
            else:
                acc = np.zeros(V.shape, dtype=np.intp)
            for m in range(length):
                acc += V >= E[:, m]
            if nan_bin:
                # NaN counted no edge (acc 0); a masked copyto is ~8x slower
                acc += np.isnan(V).view(np.uint8) * acc.dtype.type(length + 1)
            if not in_place:
                out[r0 : r0 + rows] = acc
        return out
    for length, js in by_len.items():
        for b0 in range(0, len(js), block):
            idx = np.asarray(js[b0 : b0 + block])
            E = np.stack([edges[j] for j in idx.tolist()])
            whole = idx.size == values.shape[1]  # every column binned: no gather/scatter
            V = values if whole else values[:, idx]
            acc = np.zeros(V.shape, dtype=np.uint8 if length < 255 else np.intp)
            for m in range(length):
                acc += V >= E[:, m]
            if nan_bin:
                # NaN counted no edge (acc 0); a masked copyto is ~8x slower
                acc += np.isnan(V).view(np.uint8) * acc.dtype.type(length + 1)
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
    missing: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray | None]]:
    """Discretise a table into feature-major integer codes.

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_features)
    discrete : bool ndarray of shape (n_features,) or None
        Columns that already are codes. None: no column is.
    n_bins : int or "auto"
        Bins per float column (``"auto"``: :func:`fsel.kernels.binning.auto_n_bins`).
    strategy : {"uniform", "quantile", None}
    missing : bool ndarray of shape (n_features,) or None
        Columns that hold missing values (NaN), e.g. ``Table.missing``. Their edges
        are learned on the observed values, and their missing cells get one extra
        code, the last (``n_levels - 1``; an all-missing column has the single code
        0). None: no column holds NaN (nothing is checked, no extra pass).

    Returns
    -------
    codes : ndarray of shape (n_features, n_samples)
    n_levels : ndarray of shape (n_features,)
        Including the missing level of the columns flagged in ``missing``.
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

    A missing value is one more level, the last code of its column:

    >>> X = np.array([[0.0, 1], [np.nan, 1], [1.0, np.nan], [0.8, 2]])
    >>> codes, levels, _ = discretize(X, np.array([False, True]), 2, missing=np.array([True, True]))
    >>> codes.tolist()
    [[0, 2, 1, 1], [0, 0, 2, 1]]
    >>> levels.tolist()
    [3, 3]
    """
    values = np.asarray(values)
    if values.dtype.kind not in "iubf":
        values = values.astype(np.float64)
    if strategy is not None:
        n_bins = check_n_bins(n_bins, values.shape[0])
    if discrete is None:
        discrete = np.zeros(values.shape[1], dtype=bool)
    if missing is not None:
        missing = np.asarray(missing, dtype=bool)
        if not missing.any():
            missing = None
    if (
        values.dtype.kind == "f"
        and values.size > SMALL_TABLE_CELLS
        and (strategy is None or bool(np.all(discrete)))
        and numba_enabled()
    ):
        # every column is codes: check, compact and code the holes in two passes, with
        # no rounded or integer copy of the table (None: the general path below)
        edges = fit_bin_edges(values, discrete, n_bins, strategy, missing)  # validates
        fast = _compact_float_codes_numba(values, missing)
        if fast is not None:
            return fast[0], fast[1], edges
    if strategy is None:
        bad = np.flatnonzero(discrete == 0)
        if bad.size:
            V = values if bad.size == values.shape[1] else values[:, bad]  # no gather
            frac = V != np.round(V)
            if missing is not None:
                frac &= ~np.isnan(V)
            bad = bad[np.any(frac, axis=0)]
        if bad.size:
            raise ValueError(
                f"discretize=None takes every column as codes, but column {int(bad[0])} "
                "has non-integer values; bin it (discretize='uniform') or encode it"
            )
    edges = fit_bin_edges(values, discrete, n_bins, strategy, missing)
    if missing is not None:
        return _discretize_with_missing(values, edges, missing)
    binned = values if all(e is None for e in edges) else apply_bin_edges(values, edges)
    codes, n_levels = compact_codes(binned)
    return codes, n_levels, edges


def _discretize_with_missing(
    values: np.ndarray, edges: list[np.ndarray | None], missing: np.ndarray
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray | None]]:
    """The coding of :func:`discretize` with the NaN cells of the flagged columns as one
    more level, the last code of each such column."""
    cols = np.flatnonzero(missing)
    every = cols.size == values.shape[1]  # no gather/scatter when every column has holes
    if every and all(e is not None for e in edges):
        # every column binned (so each has an observed value): the holes get a bin
        # above every observed one while binning, so that the compaction itself gives
        # them the last code, instead of writing a filled copy of the whole table
        with np.errstate(invalid="ignore"):
            binned = apply_bin_edges(values, edges, nan_bin=True)
            has_hole = np.isnan(values.max(axis=0))  # max propagates NaN
        codes, n_levels = compact_codes(binned)
        # a flagged column without a hole still gets its (empty) missing level
        n_levels = n_levels + ~has_hole
        dtype = smallest_code_dtype(int(n_levels.max()))
        return (codes if dtype == codes.dtype else codes.astype(dtype)), n_levels, edges
    sub = values if every else values[:, cols]  # only the flagged columns are scanned
    nan = np.isnan(sub)
    observed_any = ~nan.all(axis=0)
    if every and values.dtype.kind == "f" and all(e is None for e in edges):
        # every column is float codes: cast once and give the holes their column's
        # observed maximum + 1 in place (no filled float copy), so that the compaction
        # itself gives them the last code; integer-valued iff every observed cell
        # equals its cast (values beyond int64 fail the equality)
        del sub
        with np.errstate(invalid="ignore"):
            as_int = values.astype(np.int64)
            top = np.where(observed_any, np.fmax.reduce(values, axis=0), 0.0)
            integral = bool(np.all(top == np.round(top))) and bool(np.all(top < 2.0**62))
            if integral:  # the + 1 in int64: exact where float64 would round it away
                above = top.astype(np.int64) + observed_any
                np.copyto(as_int, above[None, :], where=nan)
                integral = bool(np.all((as_int == values) | nan))
        if integral:
            codes, n_levels = compact_codes(as_int)
            # holes were the last level already, but a flagged column without a hole
            # still gets its (empty) missing level, as in _code_holes
            n_levels = n_levels + (observed_any & ~nan.any(axis=0))
            dtype = smallest_code_dtype(int(n_levels.max()))
            return (codes if dtype == codes.dtype else codes.astype(dtype)), n_levels, edges
        del as_int
        sub = values
    # a hole first takes a value its column already has (its observed minimum), so that
    # binning and compaction see the observed values alone (and integer-valued columns
    # stay integers, on the fast compaction path); then it becomes the extra level
    fill = np.zeros(cols.size)
    if observed_any.any():
        with np.errstate(invalid="ignore"):
            fill = np.where(observed_any, np.fmin.reduce(sub, axis=0), 0.0)
    if every:
        filled = np.where(nan, fill[None, :], values)
    else:
        filled = values.copy()
        filled[:, cols] = np.where(nan, fill[None, :], sub)
    del sub
    if all(e is None for e in edges) and filled.dtype.kind == "f":
        # every column is codes: integer-valued floats go to the integer compaction
        with np.errstate(invalid="ignore"):  # values beyond int64 fail the equality
            as_int = filled.astype(np.int64)
        binned = as_int if np.array_equal(as_int, filled) else filled
    else:
        binned = apply_bin_edges(filled, edges)
    del filled
    codes, n_levels = _code_holes(binned, cols, observed_any, nan, every)
    return codes, n_levels, edges


def _code_holes(
    binned: np.ndarray, cols: np.ndarray, observed_any: np.ndarray, nan: np.ndarray, every: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Compact the binned table (holes already carrying an observed code) and give the
    holes of the flagged columns ``cols`` the extra last code."""
    codes, n_levels = compact_codes(binned)
    n_levels = n_levels.copy()
    n_levels[cols[observed_any]] += 1  # all-missing columns keep the single code 0
    dtype = smallest_code_dtype(int(n_levels.max()))
    if dtype != codes.dtype:
        codes = codes.astype(dtype)
    last = (n_levels[cols] - 1).astype(dtype)[:, None]
    if every:
        np.copyto(codes, last, where=nan.T)
    else:
        codes[cols] = np.where(nan.T, last, codes[cols])
    return codes, n_levels


# ----------------------------------------------------------------------------- sparse


@dataclass
class SparseCodes:
    """Feature-major sparse codes: per feature the rows whose code differs from the
    feature's *zero code* (the code of the value 0), and their codes.

    ``codes[k]`` (or :meth:`row`) gives the dense code vector of one feature, of length
    ``n_samples``; the whole matrix is never built.

    Attributes
    ----------
    indptr : ndarray of shape (n_features + 1,), int32 or int64
    rows : ndarray of shape (nnz,), :func:`row_index_dtype` (uint16 up to 65,536 rows)
    codes : ndarray of shape (nnz,), the smallest unsigned dtype that holds them
    zero_code : ndarray of shape (n_features,), the smallest unsigned dtype that holds it
    n_samples : int
    """

    indptr: np.ndarray
    rows: np.ndarray
    codes: np.ndarray
    zero_code: np.ndarray
    n_samples: int

    @property
    def shape(self) -> tuple[int, int]:
        return (self.indptr.size - 1, self.n_samples)

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1])

    def row(self, k: int) -> np.ndarray:
        """Dense codes of feature ``k``."""
        dtype = np.result_type(self.codes.dtype, smallest_code_dtype(int(self.zero_code[k]) + 1))
        out = np.full(self.n_samples, self.zero_code[k], dtype=dtype)
        p0, p1 = int(self.indptr[k]), int(self.indptr[k + 1])
        out[self.rows[p0:p1]] = self.codes[p0:p1]
        return out

    def __getitem__(self, k: int) -> np.ndarray:
        return self.row(int(k))

    def toarray(self) -> np.ndarray:
        """Dense ``(n_features, n_samples)`` codes (for tests and small data)."""
        return np.stack([self.row(k) for k in range(self.shape[0])])


@lru_cache(maxsize=1)
def _numba_column_ranks():  # pragma: no cover - compiled
    import numba

    @numba.njit(nogil=True, cache=True)
    def column_ranks(indptr, key, has_zero, zero_val, n_levels, zero_code, out, write):
        """Per column: sort its stored values (and the zero value where it has implicit
        zeros), count the distinct ones; with ``write``, store every entry's rank in
        ``out``. Returns the number of entries whose rank differs from the zero code."""
        d = indptr.size - 1
        kept = 0
        widest = 0
        for k in range(d):
            widest = max(widest, indptr[k + 1] - indptr[k])
        scratch = np.empty(widest + 1)  # one buffer for every column
        for k in range(d):
            p0 = indptr[k]
            p1 = indptr[k + 1]
            w = p1 - p0
            m = w + 1 if has_zero[k] else w
            buf = scratch[:m]
            for p in range(p0, p1):
                v = key[p]
                buf[p - p0] = np.inf if np.isnan(v) else v  # NaN: the last level
            if has_zero[k]:
                buf[w] = zero_val[k]
            if m <= 32:  # short columns (the usual sparse case): insertion sort
                for t in range(1, m):
                    v = buf[t]
                    q = t - 1
                    while q >= 0 and buf[q] > v:
                        buf[q + 1] = buf[q]
                        q -= 1
                    buf[q + 1] = v
            else:
                buf.sort()
            nu = 0
            for t in range(m):  # distinct values, in place
                if t == 0 or buf[t] != buf[nu - 1]:
                    buf[nu] = buf[t]
                    nu += 1
            u = buf[:nu]
            n_levels[k] = nu
            zc = np.searchsorted(u, zero_val[k]) if has_zero[k] else 0
            zero_code[k] = zc
            if write:
                for p in range(p0, p1):
                    v = key[p]
                    r = np.searchsorted(u, np.inf if np.isnan(v) else v)
                    out[p] = r
                    if r != zc:
                        kept += 1
        return kept

    @numba.njit(nogil=True, cache=True)
    def compact(indptr, rows, codes, zero_code, new_indptr, new_rows, new_codes):
        d = indptr.size - 1
        q = 0
        for k in range(d):
            for p in range(indptr[k], indptr[k + 1]):
                if codes[p] != zero_code[k]:
                    new_rows[q] = rows[p]
                    new_codes[q] = codes[p]
                    q += 1
            new_indptr[k + 1] = q

    @numba.njit(nogil=True, cache=True)
    def csr_to_columns(indptr, indices, data, col_ptr, cursor, rows_out, data_out):
        """CSR -> column-major arrays (rows ascending within a column)."""
        for p in range(indices.size):
            col_ptr[indices[p] + 1] += 1
        for c in range(cursor.size):
            col_ptr[c + 1] += col_ptr[c]
            cursor[c] = col_ptr[c]
        for r in range(indptr.size - 1):
            for p in range(indptr[r], indptr[r + 1]):
                c = indices[p]
                q = cursor[c]
                rows_out[q] = r
                data_out[q] = data[p]
                cursor[c] = q + 1

    return column_ranks, compact, csr_to_columns


def row_index_dtype(n_samples: int) -> type:
    """The dtype of the row numbers of sparse codes: uint16 up to 65,536 rows."""
    if n_samples <= 65536:
        return np.uint16
    return np.int32 if n_samples < 2**31 else np.int64


def _column_arrays(M: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """``indptr``, row numbers (:func:`row_index_dtype`) and values of the columns of a
    CSR or CSC matrix, in one pass and without a second copy of its indices; the last
    item tells whether the values are a copy (that the caller may overwrite)."""
    n, d = M.shape
    rdt = row_index_dtype(n)
    if M.format == "csc":
        return M.indptr, M.indices.astype(rdt, copy=False), M.data, False
    if M.format != "csr" or not numba_enabled():
        C = M.tocsc()
        C.sort_indices()
        return C.indptr, C.indices.astype(rdt, copy=False), C.data, True
    idt = np.int32 if M.nnz < 2**31 else np.int64
    col_ptr = np.zeros(d + 1, dtype=idt)
    cursor = np.empty(d, dtype=idt)
    rows = np.empty(M.nnz, dtype=rdt)
    data = np.empty(M.nnz, dtype=M.data.dtype)
    _numba_column_ranks()[2](M.indptr, M.indices, M.data, col_ptr, cursor, rows, data)
    return col_ptr, rows, data, True


def _column_ranks(
    indptr: np.ndarray,
    owner: Callable[[], np.ndarray],
    key: np.ndarray,
    has_zero: np.ndarray,
    zero_val: np.ndarray,
    levels_only: bool = False,
    out: np.ndarray | None = None,
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, int]:
    """Rank of every stored entry among the distinct values of its column, the implicit
    zeros (value ``zero_val``) included where a column has them; NaN ranks last.

    Returns the ranks (in the smallest code dtype; None with ``levels_only``), the
    number of distinct values per column, the rank of the zero value and the number of
    entries whose rank differs from it. ``owner()`` gives each entry's column (only the
    numpy back-end needs it). ``out``: where the numba back-end writes the ranks when
    its dtype is the smallest code dtype (``key`` itself may be given: each entry is
    read before it is overwritten).
    """
    d = indptr.size - 1
    zero_code = np.zeros(d, dtype=np.int64)
    n_levels = np.zeros(d, dtype=np.int64)
    if numba_enabled():
        kernel = _numba_column_ranks()[0]
        zv = np.asarray(zero_val, dtype=np.float64)
        dummy = np.zeros(1, dtype=np.uint8)
        kernel(indptr, key, has_zero, zv, n_levels, zero_code, dummy, False)
        if levels_only:
            return None, n_levels, zero_code, 0
        dt = smallest_code_dtype(int(n_levels.max(initial=1)))
        if out is None or out.dtype != dt:
            out = np.empty(key.size, dtype=dt)
        kept = kernel(indptr, key, has_zero, zv, n_levels, zero_code, out, True)
        return out, n_levels, zero_code, int(kept)
    own = owner()
    zcols = np.flatnonzero(has_zero)
    allo = np.concatenate((own, zcols))
    k_all = np.concatenate((np.where(np.isnan(key), np.inf, key), zero_val[zcols]))
    order = np.lexsort((k_all, allo))
    so = allo[order]
    sk = k_all[order]
    new = np.ones(so.size, dtype=bool)
    if so.size > 1:
        new[1:] = (so[1:] != so[:-1]) | (sk[1:] != sk[:-1])
    csum = np.cumsum(new)
    n_levels = np.bincount(so[new], minlength=d)
    start = np.concatenate(([0], np.cumsum(n_levels)[:-1]))
    r_all = np.empty(so.size, dtype=np.int64)
    r_all[order] = csum - 1 - start[so]
    zero_code[zcols] = r_all[own.size :]
    ranks = r_all[: own.size]
    kept = int(np.count_nonzero(ranks != zero_code[own]))
    return (
        ranks.astype(smallest_code_dtype(int(n_levels.max(initial=1)))),
        n_levels,
        zero_code,
        kept,
    )


def discretize_sparse(
    M: Any,
    discrete: np.ndarray | None = None,
    n_bins: int = 5,
    strategy: str | None = "uniform",
) -> tuple[SparseCodes, np.ndarray, list[np.ndarray | None]]:
    """:func:`discretize` for a scipy.sparse CSC matrix, without densifying it.

    The same codes as ``discretize(M.toarray(), ...)``: implicit zeros are the value 0,
    so they count in the equal-width range (min/max include 0 when a column has an
    implicit zero) and in the quantiles, and 0 falls in its bin as usual. A stored NaN
    is a missing value: one more code after the observed levels of its column.

    Cost: one sort of each column's stored values (numba; a ``lexsort`` of all of them
    in the numpy fallback). ``strategy="quantile"`` expands one float column at a time
    to take its quantiles (``O(n_samples)`` per binned column); ``"uniform"`` needs the
    column min/max only.

    Parameters
    ----------
    M : scipy.sparse CSC matrix of shape (n_samples, n_features), float64, sorted
        indices, no duplicates (as :func:`fsel.utils.validation.check_table` returns).
    discrete, n_bins, strategy
        As in :func:`discretize`.

    Returns
    -------
    codes : SparseCodes
    n_levels : ndarray of shape (n_features,)
    edges : list
        The learned inner edges (None for code columns).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = np.array([[0.0, 3], [0.5, 0], [1.0, 7], [0.9, 0], [0.1, 9], [0.0, 3]])
    >>> sc, levels, _ = discretize_sparse(sp.csc_matrix(X), np.array([False, True]), n_bins=2)
    >>> sc.toarray().tolist()
    [[0, 1, 1, 1, 0, 0], [1, 0, 2, 0, 3, 1]]
    >>> levels.tolist()
    [2, 4]
    """
    if strategy not in _STRATEGIES:
        raise ValueError(f"strategy must be 'uniform', 'quantile' or None, got {strategy!r}")
    if strategy is not None:
        n_bins = check_n_bins(n_bins, M.shape[0])  # "auto": binning.auto_n_bins
    if M.format not in ("csr", "csc"):
        M = M.tocsc()
    n, d = M.shape
    indptr, rows, data, own_data = _column_arrays(M)
    if data.dtype.kind not in "iubf":
        data, own_data = data.astype(np.float64), True
    elif data.dtype.kind == "b":
        data = data.view(np.uint8)
    counts = np.diff(indptr)
    has_zero = counts < n
    cache: dict[str, np.ndarray] = {}

    def owner_of() -> np.ndarray:  # each entry's column, built only when needed
        if "owner" not in cache:
            cache["owner"] = np.repeat(np.arange(d, dtype=np.int64), counts)
        return cache["owner"]

    is_float = data.dtype.kind == "f"
    nan = np.isnan(data) if is_float else np.zeros(0, dtype=bool)
    has_nan = is_float and bool(nan.any())
    if discrete is None:
        discrete = np.zeros(d, dtype=bool)
    discrete = np.asarray(discrete, dtype=bool)
    edges: list[np.ndarray | None] = [None] * d
    if strategy is None and is_float:
        owner = owner_of()
        bad = ~discrete[owner] & ~nan & (data != np.round(data))
        if bad.any():
            raise ValueError(
                f"discretize=None takes every column as codes, but column "
                f"{int(owner[np.argmax(bad)])} has non-integer values; bin it "
                "(discretize='uniform') or encode it"
            )
    elif strategy is not None:
        fcols = ~discrete
        if fcols.any():
            # distinct observed values per column (NaN is not a value; 0 is, if implicit)
            _, n_distinct, _, _ = _column_ranks(
                indptr, owner_of, data, has_zero, np.zeros(d), levels_only=True
            )
            n_obs = n_distinct
            if has_nan:
                n_obs = n_distinct - (np.bincount(owner_of()[nan], minlength=d) > 0)
            many = fcols & (n_obs > n_bins)
            cols = np.flatnonzero(many)
            if cols.size and strategy == "uniform":
                big = np.where(nan, np.inf, data) if has_nan else data
                small = np.where(nan, -np.inf, data) if has_nan else data
                lo = np.where(has_zero, 0.0, np.inf)
                hi = np.where(has_zero, 0.0, -np.inf)
                nonempty = counts > 0
                starts = indptr[:-1][nonempty]
                if starts.size:
                    lo[nonempty] = np.minimum(lo[nonempty], np.minimum.reduceat(big, starts))
                    hi[nonempty] = np.maximum(hi[nonempty], np.maximum.reduceat(small, starts))
                lo_c = lo[cols]
                step = (hi[cols] - lo_c) / n_bins  # as np.linspace does (and discretize)
                inner = np.arange(1, n_bins, dtype=np.float64)[None, :] * step[:, None]
                inner += lo_c[:, None]
                for i, j in enumerate(cols.tolist()):
                    edges[j] = inner[i]  # views: no copy
            elif cols.size:
                for j in cols.tolist():  # O(nnz log nnz): from the stored values
                    p0, p1 = int(indptr[j]), int(indptr[j + 1])
                    stored = data[p0:p1]
                    if has_nan:
                        stored = stored[~nan[p0:p1]]
                    edges[j] = sparse_quantile_edges(stored, n - (p1 - p0), n_bins)
    # values after binning (implicit zeros: the bin of 0)
    is_binned = np.zeros(d, dtype=bool)
    if strategy is not None and fcols.any():
        is_binned[cols] = True  # the columns given edges above
    binned = np.flatnonzero(is_binned)
    zero_val = np.zeros(d)
    vals = data
    if binned.size:
        if strategy == "uniform":  # all of length n_bins - 1
            E = np.full((d, n_bins - 1), np.inf)
            E[binned] = inner
        else:
            E = np.full((d, max(len(edges[j]) for j in binned.tolist())), np.inf)
            for j in binned.tolist():
                E[j, : len(edges[j])] = edges[j]
        length = E.shape[1]
        zero_val[binned] = (E[binned] <= 0.0).sum(axis=1)
        owner = owner_of()
        vals = data.astype(np.float64)  # a copy: bins replace the values
        ent = np.flatnonzero(is_binned[owner] & ~nan) if has_nan else None
        if ent is None:
            ent = np.flatnonzero(is_binned[owner])
        acc = np.zeros(ent.size)
        for m in range(length):
            acc += data[ent] >= E[owner[ent], m]
        vals[ent] = acc
    # codes: ranks among the distinct values of each column (NaN last: its own level)
    # the ranks overwrite the values where those are a copy of the right dtype
    writable = own_data or vals is not data
    codes, n_levels, zero_code, kept = _column_ranks(
        indptr, owner_of, vals, has_zero, zero_val, out=vals if writable else None
    )
    del vals, data, zero_val
    assert codes is not None
    if kept == codes.size:  # every stored entry differs from its zero code: reuse rows
        new_indptr, new_rows, new_codes = indptr, rows, codes
    elif numba_enabled():
        new_indptr = np.zeros(d + 1, dtype=indptr.dtype)
        new_rows = np.empty(kept, dtype=rows.dtype)
        new_codes = np.empty(kept, dtype=codes.dtype)
        _numba_column_ranks()[1](indptr, rows, codes, zero_code, new_indptr, new_rows, new_codes)
    else:
        owner = owner_of()
        keep = codes != zero_code[owner]
        new_indptr = np.zeros(d + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner[keep], minlength=d), out=new_indptr[1:])
        new_rows, new_codes = rows[keep], codes[keep]
    cache.clear()
    zero_code = zero_code.astype(smallest_code_dtype(int(n_levels.max(initial=1))))
    sc = SparseCodes(
        indptr=new_indptr, rows=new_rows, codes=new_codes, zero_code=zero_code, n_samples=n
    )
    return sc, n_levels, edges
