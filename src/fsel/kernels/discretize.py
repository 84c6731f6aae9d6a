"""Discretisation: turn a numeric table into integer codes ``0..a-1`` per column.

Rules (docs/user_guide/information.rst):

* columns flagged *discrete* are taken as codes as they are — their distinct values
  are remapped to ``0..a-1`` in sorted order and never re-binned (the selectors flag
  the categorical columns, :func:`fsel.utils.column_types.code_columns`);
* the other columns, integer or float, are binned: equal-width
  (``strategy="uniform"``) or equal-frequency (``strategy="quantile"``) into
  ``n_bins`` bins, an int or ``"auto"`` (a count that grows with the number of rows,
  :func:`fsel.kernels.binning.auto_n_bins`); a column with no more distinct values
  than ``n_bins`` is kept as codes;
* ``strategy=None`` takes every column as codes;
* missing values (NaN, docs/user_guide/missing_sparse.rst), when allowed: the edges of a column are
  learned
  on its observed values only, the observed values are binned/compacted as above, and
  the missing cells get one more code, the last one (``a - 1``): "is missing" is a
  level of its column. Columns without NaN are coded exactly as without the option.

Bin edges are learned once (:func:`fit_bin_edges`) and can be applied to new rows
(:func:`apply_bin_edges`); values outside the learned range fall into the first or
last bin.
"""

from __future__ import annotations

import numpy as np

from fsel.kernels._counting import SMALL_TABLE_CELLS
from fsel.kernels.binning import (
    check_n_bins,
    edge_fractions,
    lift_edges,
    quantile_edges,
    smallest_above,
)
from fsel.kernels.quantiles import column_quantiles
from fsel.utils.parallel import n_threads_for, numba_available, spans, thread_map

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


def compact_codes(values: np.ndarray, n_jobs: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Remap each column of an integer-valued matrix to codes ``0..a_j-1``.

    The map keeps the sorted order of the distinct values. The work is vectorised over
    all columns when the value ranges are small, and falls back to one ``np.unique``
    per column otherwise.

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_features)
        Integer-valued numbers (any numeric dtype).
    n_jobs : int, default=1
        Threads for an integer table on the numba back-end (the same codes for any
        number).

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
    if values.dtype.kind in "iub" and n and d and n * d > SMALL_TABLE_CELLS and numba_available():
        fast = _compact_integers_numba(values, n_jobs)
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


def _kernels():  # type: ignore[no-untyped-def]
    """The compiled kernels (imported on first use: numba stays optional)."""
    from fsel.kernels import _numba_discretize

    return _numba_discretize


def _compact_integers_numba(
    values: np.ndarray, n_jobs: int = 1
) -> tuple[np.ndarray, np.ndarray] | None:
    """Compaction of an integer matrix (numba back-end) in ``n_jobs`` threads over row
    spans, or None when the value ranges are too wide for a lookup table.

    Three passes: the column ranges (each thread its rows, then the extremes of the
    threads' extremes), the feature-major offsets ``X[i, j] - min_j`` with the set of
    offsets present (each thread its own set, then their union), and, only for the
    columns whose present offsets have gaps, their ranks among them. The codes are the
    same whatever the number of threads."""
    n, d = values.shape
    kernels = _kernels()
    threads = max(1, min(int(n_jobs), n // _ROWS_PER_THREAD))
    parts = spans(n, threads)
    los = np.empty((len(parts), d), dtype=values.dtype)
    his = np.empty((len(parts), d), dtype=values.dtype)
    thread_map(
        lambda t, a, b: kernels.int_ranges(values, los[t], his[t], a, b),
        [(t, a, b) for t, (a, b) in enumerate(parts)],
        threads,
    )
    lo, hi = los.min(axis=0), his.max(axis=0)
    # the true span max - min: a modular uint64 difference, exact for any int64/uint64
    span = int((hi.astype(np.uint64) - lo.astype(np.uint64)).max())
    width = span + 1
    if width > 65536 or width * d > 1 << 26:
        return None
    vmin = lo.astype(np.int64)  # wraps for uint64 above 2**63; X - vmin wraps back
    out = np.empty((d, n), dtype=smallest_code_dtype(width))
    # one presence table per thread (at most 64 MiB together)
    threads = max(1, min(threads, (1 << 26) // (width * d)))
    parts = spans(n, threads)
    present = np.zeros((len(parts), d, width), dtype=np.bool_)
    thread_map(
        lambda t, a, b: kernels.transpose_offsets(values, vmin, out, present[t], a, b),
        [(t, a, b) for t, (a, b) in enumerate(parts)],
        threads,
    )
    seen = present.any(axis=0) if len(parts) > 1 else present[0]
    levels = np.count_nonzero(seen, axis=1).astype(np.int64)
    top = width - 1 - np.argmax(seen[:, ::-1], axis=1)  # the largest present offset
    need = top + 1 != levels
    if need.any():
        lut = (np.cumsum(seen, axis=1) - 1).astype(out.dtype)
        thread_map(lambda a, b: kernels.remap_codes(out, lut, need, a, b), parts, len(parts))
    return out, levels


#: Rows a set-up thread takes at least (fewer: not worth a thread).
_ROWS_PER_THREAD = 1 << 16


def _compact_float_codes_numba(
    values: np.ndarray, missing: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """Float columns taken as codes, NaN cells of the ``missing`` columns as their last
    level: the codes of :func:`discretize` in two passes over the table and no
    full-size temporary (numba back-end). None when a cell is not an integer, a value
    or a span is too large for a lookup table, or a column not flagged in ``missing``
    holds NaN: the caller takes the general path (which also raises its errors)."""
    n, d = values.shape
    kernels = _kernels()
    compact, float_ranges = kernels.compact, kernels.float_ranges
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
    n_jobs: int = 1,
) -> list[np.ndarray | None]:
    """Learn the inner bin edges of every float column.

    Returns a list with one entry per column: ``None`` for a column kept as codes, or
    the sorted inner edges (``searchsorted(edges, x, side="right")`` gives the bin).
    ``missing`` (bool per column, or None) flags the columns that hold NaN: their
    edges are learned on the observed values only. ``n_jobs``: threads over the
    columns for the quantile edges (the same edges).
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
            found = _observed_edges(values, mcols, n_bins, strategy, n_jobs)
            for j, e in zip(mcols.tolist(), found, strict=True):
                edges[j] = e
        cols = cols[~holes[cols]]
    if not cols.size:
        return edges
    # vectorised over columns (same edges as the per-column np.unique/np.linspace):
    # a column has more than n_bins distinct values if a head of its rows already does
    head = np.sort(values[: 8 * (n_bins + 1), cols], axis=0)
    many = 1 + np.count_nonzero(head[1:] != head[:-1], axis=0) > n_bins  # no arithmetic
    few = np.flatnonzero(~many)
    if few.size and values.dtype.kind in "iub":
        # integers: a range of at most n_bins values has at most n_bins distinct ones
        sub = values[:, cols[few]]
        narrow = sub.max(axis=0).astype(np.int64) - sub.min(axis=0) < n_bins
        few = few[~narrow]
    for i in few.tolist():
        many[i] = np.unique(values[:, cols[i]]).size > n_bins
    cols = cols[many]
    if strategy == "uniform":
        V = values if cols.size == values.shape[1] else values[:, cols]  # no gather
        inner = uniform_edges(V.min(axis=0), V.max(axis=0), n_bins)
        for i, j in enumerate(cols.tolist()):
            edges[j] = inner[i]
    else:
        found = _quantile_edges(values, cols, n_bins, n_jobs)
        for j, e in zip(cols.tolist(), found, strict=True):
            edges[j] = e
    return edges


def _quantile_edges(values: np.ndarray, cols: np.ndarray, n_bins: int, n_jobs: int) -> list:
    """The inner edges of ``n_bins`` equal-frequency bins of the columns ``cols``: each
    column's distinct quantiles at ``1/n_bins, 2/n_bins, ...`` of its observed values
    (numpy's linear rule on float64 values; :func:`fsel.kernels.quantiles.
    column_quantiles`, compiled for a large float table, in ``n_jobs`` threads), an
    value holding a ``1/n_bins`` share of the rows a bin of its own
    (:func:`fsel.kernels.binning.quantile_edges`).

    Examples
    --------
    >>> X = np.array([[0.0, 0], [1, np.nan], [2, 1], [3, 1], [4, 1]])
    >>> [e.tolist() for e in _quantile_edges(X, np.array([0, 1]), 2, 1)]
    [[2.0], [1.0]]
    >>> Z = np.array([[0.0], [0], [0], [0], [0], [0], [0], [3], [1], [np.nan]])
    >>> [e.tolist() for e in _quantile_edges(Z, np.array([0]), 3, 1)]  # zeros | the rest
    [[1.0]]
    """
    found = column_quantiles(values, cols, edge_fractions(n_bins), n_jobs)
    out = []
    for j, q in zip(np.asarray(cols).tolist(), found, strict=True):
        edges, ties = quantile_edges(q)
        if ties.size:
            above = [smallest_above(values[:, j], v) for v in ties.tolist()]
            edges = lift_edges(edges, ties, above, q[0])
        out.append(edges)
    return out


def _observed_edges(
    values: np.ndarray, cols: np.ndarray, n_bins: int, strategy: str, n_jobs: int = 1
) -> list[np.ndarray | None]:
    """Inner edges of the columns ``cols`` (which hold NaN) learned on their observed
    values, with the same arithmetic as the complete-column path of
    :func:`fit_bin_edges`."""
    out: list[np.ndarray | None] = [None] * cols.size
    head = np.sort(values[: 8 * (n_bins + 1)][:, cols], axis=0)  # NaN sorts last
    distinct = (~np.isnan(head[0])).astype(np.int64) + np.count_nonzero(
        (head[1:] != head[:-1]) & ~np.isnan(head[1:]), axis=0
    )
    many = distinct > n_bins
    for i in np.flatnonzero(~many).tolist():
        col = values[:, cols[i]]
        many[i] = np.unique(col[~np.isnan(col)]).size > n_bins
    idx = np.flatnonzero(many)
    if not idx.size:
        return out
    if strategy == "uniform":
        at = cols[idx]
        W = values if np.array_equal(at, np.arange(values.shape[1])) else values[:, at]
        # fmin/fmax skip NaN (every column here has an observed value)
        inner = uniform_edges(np.fmin.reduce(W, axis=0), np.fmax.reduce(W, axis=0), n_bins)
        for r, i in enumerate(idx.tolist()):
            out[i] = inner[r]
    else:  # read in place: no gathered copy of the columns
        found = _quantile_edges(values, cols[idx], n_bins, n_jobs)
        for i, e in zip(idx.tolist(), found, strict=True):
            out[i] = e
    return out


def apply_bin_edges(
    values: np.ndarray, edges: list[np.ndarray | None], nan_bin: bool = False, n_jobs: int = 1
) -> np.ndarray:
    """Bin float columns with learned edges; leave code columns as they are.

    Returns a matrix of integer values (not yet compacted): of the smallest of uint8,
    int16, int32 and int64 that holds every bin number and every code column's value
    when the code columns hold integers (uint8, an eighth of float64's memory, for
    bins alone up to 255), else float64. ``nan_bin``: a NaN cell of a
    binned column gets the bin ``len(edges[j]) + 1``, above every observed one (else
    bin 0: NaN is not >= any edge). ``n_jobs``: threads over row ranges (numpy's
    comparisons and sums release the GIL; the same matrix).
    """
    code_cols = [j for j, e in enumerate(edges) if e is None]
    top = 1 + max((len(e) for e in edges if e is not None), default=0)  # NaN's bin
    lo, hi = 0, top
    dtype: type = np.float64
    if code_cols:
        kept = values[:, code_cols]
        integral = kept.dtype.kind in "iub" or bool(
            np.all(kept == np.round(kept)) and np.all(np.abs(kept) <= 2.0**62)
        )
        if integral and kept.size:
            lo, hi = min(lo, int(kept.min())), max(hi, int(kept.max()))
        del kept
    else:
        integral = True
    if integral:
        dtype = next(
            t
            for t in (np.uint8, np.int16, np.int32, np.int64)
            if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max
        )
    out = np.empty(values.shape, dtype=dtype)
    parts = spans(values.shape[0], n_threads_for(values.nbytes, n_jobs))
    cells = max(1 << 16, (1 << 22) // max(1, len(parts)))  # each thread's temporaries
    # the compiled search for a large float table (a small one: numpy, no numba import)
    compiled = (
        values.dtype in (np.float32, np.float64)
        and values.size > SMALL_TABLE_CELLS
        and numba_available()
    )
    if compiled:  # the count of edges at or below each value, in one compiled pass
        cols = np.array([j for j, e in enumerate(edges) if e is not None], dtype=np.intp)
        lengths = np.array([len(edges[j]) for j in cols.tolist()], dtype=np.intp)
        E = np.zeros((cols.size, max(1, int(lengths.max(initial=0)))))
        for q, j in enumerate(cols.tolist()):
            E[q, : lengths[q]] = edges[j]
        kernel = _kernels().bin_by_edges
        copied = np.array(code_cols, dtype=np.intp)

        def run(r0: int, r1: int) -> None:
            kernel(values, cols, E, lengths, nan_bin, copied, out, r0, r1)

    else:

        def run(r0: int, r1: int) -> None:
            _bin_rows(values[r0:r1], edges, code_cols, nan_bin, out[r0:r1], cells)

    thread_map(run, parts, len(parts))
    return out


def _bin_rows(
    values: np.ndarray,
    edges: list[np.ndarray | None],
    code_cols: list[int],
    nan_bin: bool,
    out: np.ndarray,
    cells: int = 1 << 22,
) -> None:
    """:func:`apply_bin_edges` with numpy (a pass per edge) for a block of rows, into
    ``out`` (the same rows), in blocks of about ``cells`` cells."""
    if code_cols:
        out[:, code_cols] = values[:, code_cols]
    # columns with as many edges are binned together: searchsorted(e, x, "right") is
    # the number of edges <= x
    by_len: dict[int, list[int]] = {}
    for j, e in enumerate(edges):
        if e is not None:
            by_len.setdefault(len(e), []).append(j)
    block = max(1, cells // max(1, values.shape[0]))
    if len(by_len) == 1 and len(next(iter(by_len.values()))) == values.shape[1]:
        # every column binned with as many edges: blocks of rows, read in place (views,
        # no gathered copy of the columns)
        ((length, js),) = by_len.items()
        E = np.stack([edges[j] for j in js])
        rows = max(1, cells // max(1, values.shape[1]))
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
        return
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


def discretize(
    values: np.ndarray,
    discrete: np.ndarray | None = None,
    n_bins: int = 5,
    strategy: str | None = "uniform",
    missing: np.ndarray | None = None,
    n_jobs: int = 1,
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
    n_jobs : int, default=1
        Threads of the quantile edges (over columns), the binning and the coding pass
        (over rows); the codes do not depend on it.

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
        and numba_available()
    ):
        # every column is codes: check, compact and code the holes in two passes, with
        # no rounded or integer copy of the table (None: the general path below)
        edges = fit_bin_edges(values, discrete, n_bins, strategy, missing, n_jobs)  # validates
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
    edges = fit_bin_edges(values, discrete, n_bins, strategy, missing, n_jobs)
    if missing is not None:
        return _discretize_with_missing(values, edges, missing, n_jobs)
    binned = (
        values if all(e is None for e in edges) else apply_bin_edges(values, edges, n_jobs=n_jobs)
    )
    codes, n_levels = compact_codes(binned, n_jobs)
    return codes, n_levels, edges


def _discretize_with_missing(
    values: np.ndarray, edges: list[np.ndarray | None], missing: np.ndarray, n_jobs: int = 1
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray | None]]:
    """The coding of :func:`discretize` with the NaN cells of the flagged columns as one
    more level, the last code of each such column."""
    cols = np.flatnonzero(missing)
    every = cols.size == values.shape[1]  # no gather/scatter when every column has holes
    if all(edges[j] is not None for j in cols.tolist()):
        # every flagged column binned (so each has an observed value): the holes get a
        # bin above every observed one while binning, so that the compaction itself
        # gives them the last code, instead of writing a filled copy of the whole table
        # (the other columns have no NaN to place; code columns are copied)
        with np.errstate(invalid="ignore"):
            binned = apply_bin_edges(values, edges, nan_bin=True, n_jobs=n_jobs)
            has_hole = np.isnan(values.max(axis=0))  # max propagates NaN
        codes, n_levels = compact_codes(binned, n_jobs)
        # a flagged column without a hole still gets its (empty) missing level
        n_levels = n_levels + (np.asarray(missing, dtype=bool) & ~has_hole)
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
        binned = apply_bin_edges(filled, edges, n_jobs=n_jobs)
    del filled
    codes, n_levels = _code_holes(binned, cols, observed_any, nan, every, n_jobs)
    return codes, n_levels, edges


def _code_holes(
    binned: np.ndarray,
    cols: np.ndarray,
    observed_any: np.ndarray,
    nan: np.ndarray,
    every: bool,
    n_jobs: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """Compact the binned table (holes already carrying an observed code) and give the
    holes of the flagged columns ``cols`` the extra last code."""
    codes, n_levels = compact_codes(binned, n_jobs)
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
