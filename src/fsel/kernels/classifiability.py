"""Neighbourhood class-purity counts of Dong & Kothari's classifiability
(docs/user_guide/classifiability.rst).

Pure numpy functions on validated arrays (the estimator in
:mod:`fsel.selectors.classifiability` validates once and calls them).

Distances
---------
Numeric columns are divided by their range (here: ``(x - min) / (max - min)``, the
same differences); a symbolic column contributes 1 to the squared distance when two
values differ and 0 otherwise. The squared distance over a feature list ``v`` is
accumulated feature by feature *in the order of the list*,

.. math:: D^2_v(i, j) = \\sum_{f \\in v} \\delta_f(i, j), \\qquad
          \\delta_f(i, j) = (x_{if} - x_{jf})^2 \\;\\text{or}\\; [x_{if} \\ne x_{jf}],

so the incremental update ``D2(v + f) = D2(v) + delta_f`` of the forward search and the
from-scratch computation of :func:`subset_scores` perform the very same floating-point
operations and agree bit for bit. This module computes no distance itself: ``delta_f``
and the accumulated row blocks come from the one distance kernel
(:func:`fsel.kernels.distances.sq_delta`, :func:`~fsel.kernels.distances.mixed_sq_distances`),
and the compiled scans, which fuse the update with their counting, call its numba
primitive :func:`~fsel.kernels.distances.numba_sq_delta_add`.

Neighbourhoods
--------------
``nn2_i = min_{j != i} D2(i, j)``, ``r = sqrt(mean_i nn2_i)``, ``d = radius_factor * r``.
The neighbours of ``i`` are the other samples with ``D2(i, j) <= max(d**2, nn2_i)``
(so an empty neighbourhood falls back to the nearest other sample(s), ties included).
With ``p_i(c)`` the fraction of neighbours in class ``c``, the per-sample value is
``sum_c p_i(c)**2`` and ``L`` is its mean.

Two exact evaluation strategies
-------------------------------
* :func:`subset_scores` -- from scratch, dense row blocks under a memory budget.
* :class:`IncrementalSearch` -- the forward search. It keeps ``D2(v)`` of the selected
  features (updated incrementally) with every row sorted, and evaluates a candidate
  ``f`` by scanning each row only as far as it can matter: ``D2(v + f) >= D2(v)``, so
  pairs with ``D2(v) > bound`` can neither be a nearest neighbour nor lie inside the
  radius. For an empty ``v`` a candidate is one-dimensional and is evaluated on its
  sorted values (neighbourhoods are intervals). Both skip only pairs that provably do
  not count, so they give exactly the dense result.

Reference: Dong, M. & Kothari, R. (2003). Feature subset selection using a new
definition of classifiability. Pattern Recognition Letters 24, 1215-1225.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fsel.kernels.distances import (
    DEFAULT_MEMORY_BUDGET,
    block_rows_for_budget,
    mixed_sq_distances,
    numba_available,
    sq_delta,
)
from fsel.utils.parallel import effective_n_jobs, n_threads_for, spans, thread_map

__all__ = [
    "IncrementalSearch",
    "ScaledColumns",
    "empty_subset_value",
    "radius_sq",
    "scale_columns",
    "subset_scores",
]


def scale_columns(values: np.ndarray, symbolic: np.ndarray) -> np.ndarray:
    """Range-normalise numeric columns to ``[0, 1]``; symbolic columns are kept as codes.

    Constant numeric columns become 0 (they contribute nothing to any distance). A
    missing value (NaN) stays NaN; the range is that of the observed values.
    """
    Xs = np.array(values, dtype=np.float64, copy=True)
    num = ~np.asarray(symbolic, dtype=bool)
    if num.any():
        block = Xs[:, num]
        if np.isnan(block).any():  # fmin/fmax skip NaN (an all-NaN column stays NaN)
            lo = np.fmin.reduce(block, axis=0)
            span = np.fmax.reduce(block, axis=0) - lo
            lo[np.isnan(lo)] = 0.0
            span[np.isnan(span)] = 1.0
        else:
            lo = block.min(axis=0)
            span = block.max(axis=0) - lo
        span[span == 0] = 1.0
        Xs[:, num] = (block - lo) / span
    return Xs


class ScaledColumns:
    """:func:`scale_columns` of a scipy.sparse CSC matrix, one dense column at a time.

    The search reads ``Xs[:, f]`` only, so a sparse table is never densified whole:
    each access builds one column (``O(N)`` memory, far below any ``memory_budget``)
    with exactly the values ``scale_columns(M.toarray(), symbolic)[:, f]`` holds (the
    range includes the implicit zeros; a stored NaN is a missing value).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> M = sparse.csc_matrix(np.array([[0.0, 2.0], [4.0, 0.0], [2.0, 1.0]]))
    >>> cols = ScaledColumns(M, np.array([False, True]))
    >>> cols[:, 0].tolist(), cols[:, 1].tolist(), cols.shape
    ([0.0, 1.0, 0.5], [2.0, 0.0, 1.0], (3, 2))
    """

    def __init__(self, M: Any, symbolic: np.ndarray) -> None:
        self.M = M.tocsc()
        self.shape = self.M.shape
        n, d = self.shape
        self.symbolic = np.asarray(symbolic, dtype=bool)
        lo = np.zeros(d)
        span = np.ones(d)
        for f in np.flatnonzero(~self.symbolic):
            vals = self.M.data[self.M.indptr[f] : self.M.indptr[f + 1]]
            vals = vals[~np.isnan(vals)]
            has_zero = self.M.indptr[f + 1] - self.M.indptr[f] < n
            if has_zero:
                vals = np.append(vals, 0.0)
            if vals.size:
                lo[f] = vals.min()
                width = vals.max() - lo[f]
                span[f] = width if width != 0 else 1.0
        self.lo, self.span = lo, span

    def __getitem__(self, key: Any) -> np.ndarray:
        rows, f = key
        if not (isinstance(rows, slice) and rows == slice(None)):
            raise IndexError("ScaledColumns supports whole columns only: cols[:, f]")
        f = int(f)
        a, b = self.M.indptr[f], self.M.indptr[f + 1]
        z = np.zeros(self.shape[0])
        z[self.M.indices[a:b]] = self.M.data[a:b]
        if not self.symbolic[f]:
            z = (z - self.lo[f]) / self.span[f]
        return z


def radius_sq(nn2: np.ndarray, radius_factor: float) -> float:
    """Squared neighbourhood radius ``(radius_factor * sqrt(mean(nn2)))**2``."""
    r = float(np.sqrt(np.mean(nn2)))
    return (radius_factor * r) ** 2


def empty_subset_value(y: np.ndarray, n_classes: int) -> float:
    """``L`` of the empty feature set: ``sum_c prior(c)**2``
    (docs/user_guide/classifiability.rst)."""
    prior = np.bincount(y, minlength=n_classes) / y.size
    return float(np.sum(prior**2))


def _purity(counts: np.ndarray) -> np.ndarray:
    """``sum_c (counts[:, c] / total)**2`` per row, accumulated class by class."""
    total = counts.sum(axis=1)
    out = np.zeros(counts.shape[0])
    for c in range(counts.shape[1]):
        p = counts[:, c] / total
        out += p * p
    return out


def all_zero(Xs: np.ndarray, symbolic: np.ndarray, features: Sequence[int]) -> bool:
    """Whether every feature of the subset is constant (all samples coincide on it).

    Then every other sample is at distance 0 and a neighbour; the subset carries no
    information and gets the empty set's value ``sum_c prior(c)**2`` (the sample's
    own class left out of its neighbourhood would otherwise give a leave-one-out
    value that differs by ``O(1/N)`` and looks like a gain over the empty set).
    Missing numeric values (NaN) are ignored.
    """
    for f in features:
        col = Xs[:, int(f)]
        obs = col[~np.isnan(col)]
        if obs.size and (obs != obs[0]).any():
            return False
        if bool(symbolic[int(f)]) and obs.size not in (0, col.size):
            return False  # a missing symbolic value mismatches the observed ones
    return True


#: Above this many classes the neighbourhood counts are kept per (sample, class) pair
#: found instead of as a dense ``(rows, n_classes)`` table (issue 17 item 6: many
#: classes, e.g. one sample per class, made the dense table O(N * n_classes)).
_DENSE_CLASSES = 64


def _purity_pairs(row_of: np.ndarray, cls: np.ndarray, n_rows: int, n_classes: int) -> np.ndarray:
    """:func:`_purity` from the neighbour list: ``row_of[p]`` has a neighbour of class
    ``cls[p]``. Same value bit for bit (the squares are added per row in class order;
    the zero counts the dense table adds change nothing), in O(pairs log pairs)."""
    key = row_of.astype(np.int64) * n_classes + cls
    uniq, cnt = np.unique(key, return_counts=True)
    r = uniq // n_classes
    total = np.bincount(r, weights=cnt, minlength=n_rows)
    p = cnt / total[r]
    return np.bincount(r, weights=p * p, minlength=n_rows)


def _onehot(y: np.ndarray, n_classes: int) -> np.ndarray | None:
    """The ``(n, n_classes)`` class indicator matrix; None above ``_DENSE_CLASSES``."""
    if n_classes > _DENSE_CLASSES:
        return None
    onehot = np.zeros((y.size, n_classes))
    onehot[np.arange(y.size), y] = 1.0
    return onehot


def _within_purity(
    within: np.ndarray, y: np.ndarray, onehot: np.ndarray | None, n_classes: int
) -> np.ndarray:
    """Per-row purity of a block of neighbour flags (dense counts, or the pair list)."""
    if onehot is not None:
        return _purity(within.astype(np.float64) @ onehot)
    rows, cols = np.nonzero(within)
    return _purity_pairs(rows, y[cols], within.shape[0], n_classes)


def _blocks(n_rows: int, block: int) -> list[slice]:
    return [slice(a, min(a + block, n_rows)) for a in range(0, n_rows, block)]


def subset_scores(
    Xs: np.ndarray,
    symbolic: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    features: Sequence[int],
    radius_factor: float,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    use_numba: bool = True,
) -> tuple[np.ndarray, float]:
    """Per-sample values ``sum_c p_i(c)**2`` and the squared radius, from scratch.

    Dense computation in row blocks whose distance block fits ``memory_budget``; the
    reference that the incremental search must reproduce exactly. ``features`` must
    not be empty (the empty set is :func:`empty_subset_value`). With numba two
    compiled scans over all pairs do the same arithmetic without any distance block
    (identical results).
    """
    n = Xs.shape[0]
    features = [int(f) for f in features]
    if not features:
        raise ValueError("features must not be empty; use empty_subset_value")
    kernels = _numba_kernels() if use_numba else None
    if kernels is not None:
        Xf = np.ascontiguousarray(np.column_stack([Xs[:, f] for f in features]))
        sym = np.array([bool(symbolic[f]) for f in features])
        nn2 = np.empty(n)
        kernels.dense_nn(Xf, sym, nn2)
        thr = radius_sq(nn2, radius_factor)
        if thr == 0.0 and all_zero(Xs, symbolic, features):
            return np.full(n, empty_subset_value(y, n_classes)), thr
        theta, codes = np.maximum(thr, nn2), np.asarray(y, dtype=np.intp)
        if n_classes > _DENSE_CLASSES:
            out = np.empty(n)
            kernels.dense_purity(Xf, sym, theta, codes, n_classes, out)
            return out, thr
        counts = np.zeros((n, n_classes))
        kernels.dense_count(Xf, sym, theta, codes, counts)
        return _purity(counts), thr
    onehot = _onehot(y, n_classes)
    blocks = _blocks(n, block_rows_for_budget(n, memory_budget, factor=3))
    cache_all = 8 * n * n * 2 <= memory_budget
    cached: list[np.ndarray] = []
    nn2 = np.empty(n)
    for blk in blocks:
        D2 = mixed_sq_distances(Xs, symbolic, features, blk)
        idx = np.arange(blk.start, blk.stop)
        diag = D2[idx - blk.start, idx].copy()
        D2[idx - blk.start, idx] = np.inf
        nn2[blk] = D2.min(axis=1)
        D2[idx - blk.start, idx] = diag
        if cache_all:
            cached.append(D2)
    thr = radius_sq(nn2, radius_factor)
    if thr == 0.0 and all_zero(Xs, symbolic, features):
        return np.full(n, empty_subset_value(y, n_classes)), thr
    scores = np.empty(n)
    for b_i, blk in enumerate(blocks):
        D2 = cached[b_i] if cache_all else mixed_sq_distances(Xs, symbolic, features, blk)
        idx = np.arange(blk.start, blk.stop)
        theta = np.maximum(thr, nn2[blk])
        within = D2 <= theta[:, None]
        within[idx - blk.start, idx] = False
        scores[blk] = _within_purity(within, y, onehot, n_classes)
    return scores, thr


# ----------------------------------------------------------------- incremental search
def _count_le(S: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Per row of the row-sorted ``S``, how many entries are ``<= bound`` (bisection)."""
    r, n = S.shape
    rows = np.arange(r)
    lo = np.zeros(r, dtype=np.intp)
    hi = np.full(r, n, dtype=np.intp)
    active = lo < hi
    while active.any():
        mid = (lo + hi) // 2
        go = S[rows, np.minimum(mid, n - 1)] <= bound
        lo = np.where(active & go, mid + 1, lo)
        hi = np.where(active & ~go, mid, hi)
        active = lo < hi
    return lo


def _ragged(m: np.ndarray, n_cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row of each gathered entry, its flat index into an ``(r, n_cols)`` array, and
    the start of every row's segment, for the first ``m[i]`` entries of row ``i``."""
    starts = np.concatenate(([0], np.cumsum(m)[:-1]))
    row_of = np.repeat(np.arange(m.size), m)
    k = np.arange(row_of.size) - np.repeat(starts, m)
    return row_of, row_of * n_cols + k, starts


def _nn_pass(
    S: np.ndarray, J: np.ndarray, rows: np.ndarray, z: np.ndarray, sym: bool
) -> np.ndarray:
    """Nearest-neighbour squared distances in ``v + f`` for the rows of a sorted block."""
    n = S.shape[1]
    m0 = min(8, n)
    Jh = J[:, :m0]
    zr = z[rows]
    t = S[:, :m0] + sq_delta(zr[:, None], z[Jh], sym)
    t[Jh == rows[:, None]] = np.inf
    ub = t.min(axis=1)  # a real neighbour's distance: an upper bound of the minimum
    m = _count_le(S, ub)  # >= 2: self (0) and the neighbour giving ub
    row_of, flat, starts = _ragged(m, n)
    j = J.ravel()[flat]
    t = S.ravel()[flat] + sq_delta(zr[row_of], z[j], sym)
    t[j == rows[row_of]] = np.inf
    return np.minimum.reduceat(t, starts)


def _count_pass(
    S: np.ndarray,
    J: np.ndarray,
    rows: np.ndarray,
    z: np.ndarray,
    sym: bool,
    theta: np.ndarray,
    y: np.ndarray,
    n_classes: int,
) -> np.ndarray:
    """Per-sample purity for the rows of a sorted block, given per-row thresholds."""
    r, n = S.shape
    m = _count_le(S, theta)
    row_of, flat, _ = _ragged(m, n)
    j = J.ravel()[flat]
    zr = z[rows]
    t = S.ravel()[flat] + sq_delta(zr[row_of], z[j], sym)
    ok = (t <= theta[row_of]) & (j != rows[row_of])
    if n_classes > _DENSE_CLASSES:
        return _purity_pairs(row_of[ok], y[j[ok]], r, n_classes)
    counts = np.bincount(row_of[ok] * n_classes + y[j[ok]], minlength=r * n_classes)
    return _purity(counts.reshape(r, n_classes).astype(np.float64))


# ----------------------------------------------------------------- optional numba path


def _numba_kernels() -> Any:
    """The compiled scans (:mod:`fsel.kernels._numba_classifiability`; imported on
    first use), or None when numba is not installed or ``FSEL_DISABLE_NUMBA=1``."""
    if not numba_available():
        return None
    from fsel.kernels import _numba_classifiability

    return _numba_classifiability


def _nn_pass_numba(
    kernels: Any, S: np.ndarray, J: np.ndarray, rows: np.ndarray, z: np.ndarray, sym: bool
) -> np.ndarray:
    out = np.empty(S.shape[0])
    kernels.nn_rows(S, J, rows, z, sym, out)
    return out


def _count_pass_numba(
    kernels: Any,
    S: np.ndarray,
    J: np.ndarray,
    rows: np.ndarray,
    z: np.ndarray,
    sym: bool,
    theta: np.ndarray,
    y: np.ndarray,
    n_classes: int,
) -> np.ndarray:
    counts = np.zeros((S.shape[0], n_classes))
    kernels.count_rows(S, J, rows, z, sym, theta, y, counts)
    return _purity(counts)


def _single_feature(
    z: np.ndarray, sym: bool, y: np.ndarray, n_classes: int, radius_factor: float
) -> np.ndarray:
    """Per-sample purity for one feature alone, via its sorted values: exact, O(N log N).

    ``delta(z_p, z_q)`` is monotone in ``|z_p - z_q|`` (also after rounding), so the
    nearest other sample is adjacent in sorted order and every neighbourhood is an
    interval of the sorted values.
    """
    n = z.size
    o = np.argsort(z, kind="stable")
    zs = z[o]
    gap = sq_delta(zs[1:], zs[:-1], sym)
    if not gap.any():  # a constant column: all samples coincide, no information
        return np.full(n, empty_subset_value(y, n_classes))
    nn2s = np.full(n, np.inf)
    nn2s[1:] = gap
    nn2s[:-1] = np.minimum(nn2s[:-1], gap)
    nn2 = np.empty(n)
    nn2[o] = nn2s
    thr = radius_sq(nn2, radius_factor)
    theta = np.maximum(thr, nn2s)
    pos = np.arange(n)
    # left end: smallest q <= p with delta(z_p, z_q) <= theta_p (predicate true on [q, p])
    lo, hi = np.zeros(n, dtype=np.intp), pos.copy()
    while (lo < hi).any():
        mid = (lo + hi) // 2
        ok = sq_delta(zs, zs[mid], sym) <= theta
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid + 1)
    left = lo
    # right end: largest q >= p with delta <= theta_p
    lo, hi = pos.copy(), np.full(n, n - 1, dtype=np.intp)
    while (lo < hi).any():
        mid = (lo + hi + 1) // 2
        ok = sq_delta(zs, zs[mid], sym) <= theta
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid - 1)
    right = lo
    ys = y[o]
    if n_classes > _DENSE_CLASSES:  # the intervals as neighbour lists, in row chunks
        scores_s = np.empty(n)
        size = right - left + 1
        step = max(1, int((1 << 22) // max(1.0, float(size.mean()))))
        for a in range(0, n, step):
            b = min(n, a + step)
            row_of, flat, _ = _ragged(size[a:b], 1)
            q = left[a:b][row_of] + (flat - row_of)
            keep = q != pos[a:b][row_of]
            scores_s[a:b] = _purity_pairs(row_of[keep], ys[q[keep]], b - a, n_classes)
        scores = np.empty(n)
        scores[o] = scores_s
        return scores
    cum = np.zeros((n + 1, n_classes), dtype=np.int64)
    cum[1:] = np.cumsum(np.eye(n_classes, dtype=np.int64)[ys], axis=0)
    counts = cum[right + 1] - cum[left]
    counts[pos, ys] -= 1
    scores_s = _purity(counts.astype(np.float64))
    scores = np.empty(n)
    scores[o] = scores_s
    return scores


class IncrementalSearch:
    """State of the forward search: ``D2`` of the selected features, sorted per row.

    Parameters
    ----------
    Xs : ndarray of shape (n_samples, n_features)
        Output of :func:`scale_columns`.
    symbolic : ndarray of bool, shape (n_features,)
    y : ndarray of int, class codes ``0..n_classes-1``
    radius_factor : float
    memory_budget : int
        Bytes. When ``D2`` of all rows and its row sort (24 bytes per pair) fit in
        half the budget they are kept between steps and updated incrementally;
        otherwise each row block's ``D2(v)`` is rebuilt per step from the selected
        features (same operations, same bits) and the rows are processed in blocks.
    n_jobs : int or None
        Candidates are split over joblib threads (numpy and the compiled scans release
        the GIL).
    engine : {"auto", "numba", "numpy"}
        ``"auto"`` uses the compiled scans when numba is installed. Both engines give
        identical results.
    """

    def __init__(
        self,
        Xs: np.ndarray,
        symbolic: np.ndarray,
        y: np.ndarray,
        n_classes: int,
        radius_factor: float,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        n_jobs: int | None = None,
        engine: str = "auto",
    ) -> None:
        if engine not in ("auto", "numba", "numpy"):
            raise ValueError(f"engine must be 'auto', 'numba' or 'numpy', got {engine!r}")
        self.kernels = None if engine == "numpy" else _numba_kernels()
        if engine == "numba" and self.kernels is None:
            raise ImportError("engine='numba' needs numba; install fsel[fast]")
        self.Xs = Xs
        self.symbolic = np.asarray(symbolic, dtype=bool)
        self.y = y
        self.n_classes = n_classes
        self.radius_factor = float(radius_factor)
        self.memory_budget = int(memory_budget)
        self.n_jobs = n_jobs
        self.selected: list[int] = []
        n = Xs.shape[0]
        self.cache = 24 * n * n <= self.memory_budget // 2
        # gathered entries per block: up to ~8 arrays of rows x n per thread
        n_threads = 1 if n_jobs in (None, 0, 1) else (2 if n_jobs < 0 else int(n_jobs))
        per_row = 8 * n * (8 * n_threads + (0 if self.cache else 3))
        self.block = max(1, min(n, self.memory_budget // per_row))
        self._D2: np.ndarray | None = np.zeros((n, n)) if self.cache else None
        self._sorted: tuple[np.ndarray, np.ndarray] | None = None

    def _row_spans(self, D: np.ndarray) -> list[tuple[int, int]]:
        """Row ranges of ``D`` for the threads (one where the matrix is small)."""
        return spans(D.shape[0], n_threads_for(D.nbytes, effective_n_jobs(self.n_jobs)))

    def add(self, f: int) -> None:
        """Add feature ``f`` to the selected set (incremental ``D2`` update, by row
        ranges in threads: the same sums)."""
        f = int(f)
        if self._D2 is not None:
            z, sym, D2 = self.Xs[:, f], bool(self.symbolic[f]), self._D2

            def update(a: int, b: int) -> None:
                D2[a:b] += sq_delta(z[a:b, None], z[None, :], sym)

            parts = self._row_spans(D2)
            thread_map(update, parts, len(parts))
        self.selected.append(f)
        self._sorted = None

    def _sorted_rows(self, rows: slice) -> tuple[np.ndarray, np.ndarray]:
        """The rows ``rows`` of the squared distances (of ``D2`` when it is kept, else
        :func:`mixed_sq_distances`), each sorted, and the order (``argsort`` row by
        row): by row ranges in threads, the same rows sorted the same way."""
        start, stop, _ = rows.indices(self.Xs.shape[0])
        n = self.Xs.shape[0]
        S, J = np.empty((stop - start, n)), np.empty((stop - start, n), dtype=np.intp)

        def sort(a: int, b: int) -> None:
            r = slice(start + a, start + b)
            if self._D2 is not None:
                D2 = self._D2[r]
            else:
                D2 = mixed_sq_distances(self.Xs, self.symbolic, self.selected, r)
            J[a:b] = np.argsort(D2, axis=1)
            S[a:b] = np.take_along_axis(D2, J[a:b], axis=1)

        parts = self._row_spans(S)
        thread_map(sort, parts, len(parts))
        return S, J

    def _sorted_block(self, blk: slice) -> tuple[np.ndarray, np.ndarray]:
        if self._D2 is not None:
            if self._sorted is None:
                self._sorted = self._sorted_rows(slice(None))
            S, J = self._sorted
            return S[blk], J[blk]
        return self._sorted_rows(blk)

    def _chunks(self, candidates: np.ndarray) -> list[np.ndarray]:
        k = max(1, min(effective_n_jobs(self.n_jobs), candidates.size))
        return [c for c in np.array_split(candidates, k) if c.size]

    def _run(self, fn, chunks: list[np.ndarray]) -> list:  # type: ignore[no-untyped-def]
        return thread_map(fn, [(c,) for c in chunks], len(chunks))

    def evaluate(self, candidates: Sequence[int]) -> np.ndarray:
        """Per-sample values of ``v + f`` for every candidate ``f``: shape (k, n)."""
        cand = np.asarray(candidates, dtype=np.intp)
        n = self.Xs.shape[0]
        out = np.empty((cand.size, n))
        if cand.size == 0:
            return out
        chunks = self._chunks(np.arange(cand.size))
        if not self.selected:

            def one(idx: np.ndarray) -> None:
                for q in idx:
                    f = cand[q]
                    out[q] = _single_feature(
                        self.Xs[:, f],
                        bool(self.symbolic[f]),
                        self.y,
                        self.n_classes,
                        self.radius_factor,
                    )

            self._run(one, chunks)
            return out
        k = len(self.selected) + 1
        if cand.size * k < 0.5 * np.log2(max(n, 2)):
            # few candidates: sorting every row (N^2 log N) would cost more than
            # computing their distances from scratch; same numbers (subset_scores is
            # the exact reference of this search)
            for q, f in enumerate(cand):
                feats = [*self.selected, int(f)]
                out[q] = subset_scores(
                    self.Xs,
                    self.symbolic,
                    self.y,
                    self.n_classes,
                    feats,
                    self.radius_factor,
                    self.memory_budget,
                    use_numba=self.kernels is not None,
                )[0]
            return out
        nn2 = np.empty((cand.size, n))
        blocks = _blocks(n, self.block)
        for blk in blocks:
            S, J = self._sorted_block(blk)
            rows = np.arange(blk.start, blk.stop)

            def first(idx: np.ndarray, S=S, J=J, rows=rows, blk=blk) -> None:
                for q in idx:
                    f = cand[q]
                    z, sym = self.Xs[:, f], bool(self.symbolic[f])
                    if self.kernels is not None:
                        nn2[q, blk] = _nn_pass_numba(self.kernels, S, J, rows, z, sym)
                    else:
                        nn2[q, blk] = _nn_pass(S, J, rows, z, sym)

            self._run(first, chunks)
        thr = np.array([radius_sq(nn2[q], self.radius_factor) for q in range(cand.size)])
        for blk in blocks:
            S, J = self._sorted_block(blk)
            rows = np.arange(blk.start, blk.stop)

            def second(idx: np.ndarray, S=S, J=J, rows=rows, blk=blk) -> None:
                for q in idx:
                    f = cand[q]
                    theta = np.maximum(thr[q], nn2[q, blk])
                    z, sym = self.Xs[:, f], bool(self.symbolic[f])
                    if self.kernels is not None and self.n_classes <= _DENSE_CLASSES:
                        out[q, blk] = _count_pass_numba(
                            self.kernels, S, J, rows, z, sym, theta, self.y, self.n_classes
                        )
                    else:
                        out[q, blk] = _count_pass(S, J, rows, z, sym, theta, self.y, self.n_classes)

            self._run(second, chunks)
        for q, f in enumerate(cand):  # constant subsets: no information (see all_zero)
            if all_zero(self.Xs, self.symbolic, [*self.selected, int(f)]):
                out[q] = empty_subset_value(self.y, self.n_classes)
        return out
