"""Relief's margins with missing values: Kononenko's expected difference.

:class:`ExpectedDiff` holds, for a table with holes, what the expected difference of a
missing component needs (the sorted observed values of every class and feature, their
prefix sums, the both-missing table); :func:`expected_distance_block` gives distance
rows with that rule and :func:`expected_absdiff` the weighted per-feature differences
that the Relief family adds to its margins (next to the neighbour code of
:mod:`fsel.kernels.neighbors`).

The compiled kernels are module-level functions of
:mod:`fsel.kernels._numba_relief_margins`, imported only when numba is usable; the
numpy paths here are their twins.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsel.kernels.distances import (
    DEFAULT_MEMORY_BUDGET,
    METRICS,
    _block,
    _use_numba,
    balanced_upper_chunks,
)
from fsel.utils.parallel import numba_available, thread_map

__all__ = ["ExpectedDiff", "expected_absdiff", "expected_distance_block"]


def _kernels() -> Any:
    """The compiled kernels (imported on first use: numba stays optional)."""
    from fsel.kernels import _numba_relief_margins

    return _numba_relief_margins


def _no_segments(C: int, d: int) -> tuple[np.ndarray, ...]:
    """The sorted segments of :class:`ExpectedDiff` when no feature has a hole: every
    segment empty (``vals``), a single leading zero of prefix sums each (``cum``),
    offsets, counts, means and variances zero."""
    segments = (C + 1) * d
    zeros = np.zeros((C + 1, d))
    return (
        np.zeros(0),
        np.zeros(segments),
        np.zeros(segments + 1, dtype=np.intp),
        np.zeros((C + 1, d), dtype=np.intp),
        zeros,
        zeros.copy(),
    )


class ExpectedDiff:
    r"""Kononenko's expected difference for missing components.

    Built once from a (range-scaled) matrix ``X`` with NaN holes and the class code of
    every row. For one feature ``k`` and two rows ``i``, ``j`` of classes ``c_i``,
    ``c_j``, the per-feature difference is

    * both observed: ``|x_ik - x_jk|``;
    * ``x_ik`` missing: ``E|X - x_jk|`` with ``X`` drawn from the observed values of
      feature ``k`` in class ``c_i`` (the empirical class-conditional distribution;
      computed exactly from the sorted values and their prefix sums);
    * ``x_jk`` missing: the same with the roles swapped;
    * both missing: ``E|X - X'|`` with ``X`` from class ``c_i`` and ``X'`` independently
      from class ``c_j`` (a ``C x C`` table per feature with holes).

    A class without any observed value of a feature uses the pooled observed values of
    that feature; a feature without any observed value contributes 0. On one-hot
    columns (entries 0 or ``s``) this rule sums to ``2 s (1 - P(v | c_i))`` and
    ``2 s (1 - sum_v P(v|c_i) P(v|c_j))``: Kononenko's rule for symbolic features.

    The squared metrics use the expected *squared* difference: ``(x - mu_c)^2 + var_c``
    with one side missing and ``(mu_ci - mu_cj)^2 + var_ci + var_cj`` with both
    (``mu``, ``var``: mean and population variance of the observed values).

    Attributes used by the kernels: ``filled`` (``X`` with holes set to 0), ``mask``
    (uint8), ``mptr``/``midx`` (each row's missing features), ``y``, the segment arrays
    ``vals``/``cum``/``off``/``cnt`` (sorted observed values per (class, feature);
    segment ``e * d + k`` with ``e = eff[c, k]``, ``C`` standing for the pooled values),
    ``H`` (``C x C x d``; more than ``memory_budget / 4`` bytes is refused with a
    ValueError), ``mu``/``var`` (``(C + 1) x d``) and, when it fits
    ``memory_budget / 8``, the table ``G[c, j, k] = E|X_ck - x_jk| - |x_jk|`` of every
    observed entry (``has_table``): distances are then matrix products of the hole
    indicators with it (:func:`expected_distance_block`); without it the compiled
    kernels binary-search the sorted values. With numba the build is one compiled pass
    per feature over its argsort, and the table is kept as ``W`` (``C x d x n``;
    :func:`_w_table`: ``G`` with half the both-missing difference at the holes) and
    its per-row layout ``V`` (``C x n x d``; :func:`_v_table`): the compiled Manhattan
    distances add rows of ``W`` for the holes (each unordered pair once when the full
    matrix fits), the margins add ``m_i V[c_i, j] + m_j V[c_j, i]`` to the filled
    difference in one vectorised pass per pair; ``G`` is then derived from ``V`` only
    if a numpy path asks for it. These tables come on top of the distance blocks'
    budget.
    """

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        n_classes: int,
        *,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        X = np.asarray(X, dtype=np.float64)
        n, d = X.shape
        C = int(n_classes)
        self.n_classes = C
        self.y = np.ascontiguousarray(y, dtype=np.intp)
        miss = np.isnan(X)
        self.mask = np.ascontiguousarray(miss, dtype=np.uint8)
        self.filled = np.ascontiguousarray(np.where(miss, 0.0, X))
        counts = miss.sum(axis=1)
        self.mptr = np.r_[0, np.cumsum(counts)].astype(np.intp)
        self.midx = np.ascontiguousarray(np.nonzero(miss)[1], dtype=np.intp)
        obs = ~miss
        # per (class, feature) sorted observed values, segment s = e * d + k (e = C:
        # the pooled values); only features with holes ever look them up
        feats = np.flatnonzero(miss.any(axis=0))
        has = np.zeros(d, bool)
        has[feats] = True
        if feats.size and 8 * C * C * d > memory_budget // 4:
            raise ValueError(
                f"missing='expected' with {C} classes needs a {C} x {C} x {d} table "
                f"({8 * C * C * d} bytes), more than a quarter of "
                f"memory_budget={memory_budget}; raise memory_budget or impute"
            )
        self.H = np.zeros((C, C, d) if feats.size else (1, 1, 1))
        self.has_table = bool(feats.size) and 8 * C * n * d <= memory_budget // 8
        self._feats = feats
        self._obs = obs
        self._Q_sq: np.ndarray | None = None
        self._G: np.ndarray | None = None
        self._V: np.ndarray | None = None
        compiled = bool(feats.size) and numba_available()
        if compiled:
            # one argsort per column (holes last, as inf), then one compiled pass per
            # feature: the class segments, prefix sums, means, variances, H and the
            # table W (C x d x n, see _w_table), each feature's observed entries
            # merged in sorted order against the class segments (no binary search).
            # V (C x n x d, see _v_table) is W's per-row layout; G is derived from V
            # only if a numpy path asks for it
            kern = _kernels()
            Xt = np.where(miss.T, np.inf, X.T)  # (d, n): each feature's column, contiguous
            order = np.argsort(Xt, axis=1)
            W = np.zeros((C, d, n) if self.has_table else (1, 1, 1))
            vals, cum, off, cnt, mu, var, eff = kern.build(
                Xt, order, self.y, C, feats.astype(np.intp), self.has_table, self.H, W
            )
            self.vals, self.cum, self.off = vals, cum, off
            self.cnt = np.ascontiguousarray(cnt.ravel())
            self.mu, self.var, self.eff = mu, var, eff
            if self.has_table:
                self._W = W
                V = np.empty((C, n, d))
                kern.transpose(W, V)
                self._V = V
            else:
                self._G = np.zeros((1, 1, 1))
        else:
            if feats.size:
                vals, cum, off, cnt, mu, var = self._segments_numpy(X, C, has)
            else:  # no holes: no feature looks a segment up (what the sort would give)
                vals, cum, off, cnt, mu, var = _no_segments(C, d)
            self.vals, self.cum, self.off = vals, cum, off
            self.cnt = np.ascontiguousarray(cnt.ravel())
            self.mu, self.var = mu, var
            have = cnt[:C] > 0
            self.eff = np.ascontiguousarray(np.where(have, np.arange(C)[:, None], C), dtype=np.intp)
        # G[c, j, k] = E|X_ck - x_jk| - |x_jk| for observed x_jk (0 elsewhere): the
        # correction to the filled difference |0 - x_jk| when the other side is
        # missing; distances then take matrix products (expected_distance_block).
        # Built feature by feature (as C x d x n), from the values H needs anyway
        Gt = np.zeros((C, d, n)) if self.has_table and not compiled else None
        for k in feats if not compiled else ():
            ok = np.flatnonzero(obs[:, k])
            xk = X[ok, k]
            cls = self.y[ok]
            srt = np.argsort(xk, kind="stable")
            xs = xk[srt]  # sorted queries: a fast binary search
            nb = np.bincount(cls, minlength=C)
            for c2 in range(C):
                ev = np.empty(xk.size)
                ev[srt] = self._expected_seg(int(self.eff[c2, k]) * d + int(k), xs)
                by = np.bincount(cls, weights=ev, minlength=C)
                pooled = ev.sum() / xk.size if xk.size else 0.0
                self.H[:, c2, k] = np.where(nb > 0, by / np.maximum(nb, 1), pooled)
                if Gt is not None:
                    Gt[c2, k, ok] = ev - np.abs(xk)
        if not compiled:
            self._G = (
                np.ascontiguousarray(Gt.transpose(0, 2, 1))
                if Gt is not None
                else np.zeros((1, 1, 1))
            )
        del Gt
        self.has_missing = bool(miss.any())

    @property
    def G(self) -> np.ndarray:
        """``G[c, j, k] = E|X_ck - x_jk| - |x_jk|`` for observed ``x_jk``, 0 at the holes
        (``C x n x d``; derived once from ``V`` when the compiled build made that)."""
        if self._G is None:
            self._G = np.where(self.mask.astype(bool)[None], 0.0, self._V)
        return self._G

    def _segments_numpy(self, X: np.ndarray, C: int, has: np.ndarray) -> tuple[np.ndarray, ...]:
        """The sorted segments (numpy): ``vals, cum, off, cnt, mu, var``."""
        d = X.shape[1]
        # per segment group e (a class, or C: all rows), the columns sorted at once
        # (holes last); only features with holes get values
        groups = [np.flatnonzero(self.y == e) for e in range(C)] + [None]
        cnt = np.zeros((C + 1, d), np.intp)
        sorted_t = []
        for e, g in enumerate(groups):
            Xe = X if g is None else X[g]
            St = np.sort(Xe.T, axis=1)  # (d, n_e), the NaN last
            ob = ~np.isnan(St)
            ob[~has] = False
            cnt[e] = ob.sum(axis=1)
            sorted_t.append((St, ob))
        off = np.r_[0, np.cumsum(cnt.ravel())].astype(np.intp)
        vals_parts, cum_parts = [], []
        mu = np.zeros((C + 1, d))
        var = np.zeros((C + 1, d))
        for e, (St, ob) in enumerate(sorted_t):
            Z = np.where(ob, St, 0.0)
            vals_parts.append(St[ob])
            cs = np.zeros((d, St.shape[1] + 1))
            np.cumsum(Z, axis=1, out=cs[:, 1:])
            lead = np.ones((d, 1), bool)
            cum_parts.append(cs[np.hstack([lead, ob])])
            ne = np.maximum(cnt[e], 1)
            mu[e] = Z.sum(axis=1) / ne
            dev = np.where(ob, St - mu[e][:, None], 0.0)
            var[e] = np.einsum("ij,ij->i", dev, dev) / ne
        return np.concatenate(vals_parts), np.concatenate(cum_parts), off, cnt, mu, var

    @property
    def table_bytes(self) -> int:
        """Bytes held by the lookup tables ``G``, ``V``, ``H`` and ``W`` (if built)."""
        tabs = (self._G, self._V, self.H, getattr(self, "_W", None))
        return int(sum(0 if t is None else t.nbytes for t in tabs))

    def _sq_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """The squared-metric analogues of ``G`` and ``H`` (built once, on demand)."""
        if self._Q_sq is None:
            C, (n, d) = self.n_classes, self.filled.shape
            F = self.filled
            Q = np.zeros((C, n, d))
            for c in range(C):
                e = self.eff[c]
                t = F - self.mu[e, np.arange(d)]
                Q[c] = (t * t + self.var[e, np.arange(d)] - F * F) * self._obs
            H2 = np.zeros((C, C, d))
            for c1 in range(C):
                for c2 in range(C):
                    H2[c1, c2] = self.both(np.full(d, c1), np.full(d, c2), np.arange(d), True)
            self._Q_sq, self._H_sq = Q, H2
        return self._Q_sq, self._H_sq

    def expected(self, c: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``E|X_{c,k} - v|`` elementwise (class ``c``'s observed values of feature ``k``)."""
        d = self.mu.shape[1]
        c = np.asarray(c, dtype=np.intp)
        k = np.asarray(k, dtype=np.intp)
        v = np.asarray(v, dtype=np.float64)
        seg = self.eff[c, k] * d + k
        if seg.size and np.all(seg == seg.flat[0]):  # one segment: no grouping
            return self._expected_seg(int(seg.flat[0]), v)
        out = np.zeros(v.shape)
        for s in np.unique(seg):
            sel = seg == s
            out[sel] = self._expected_seg(int(s), v[sel])
        return out

    def _expected_seg(self, s: int, b: np.ndarray) -> np.ndarray:
        """``E|X - b|`` over the sorted values of segment ``s`` (binary search and
        prefix sums, the compiled kernels' formula)."""
        n_s = int(self.cnt[s])
        if n_s == 0:
            return np.zeros(b.shape)
        lo = int(self.off[s])
        sv = self.vals[lo : lo + n_s]
        P = self.cum[lo + s : lo + s + n_s + 1]
        L = np.searchsorted(sv, b, side="left")
        below = b * L - P[L]
        above = (P[n_s] - P[L]) - b * (n_s - L)
        return (below + above) / n_s

    def expected_sq(self, c: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``E(X_{c,k} - v)^2 = (v - mu)^2 + var`` elementwise."""
        e = self.eff[np.asarray(c, dtype=np.intp), np.asarray(k, dtype=np.intp)]
        t = np.asarray(v, dtype=np.float64) - self.mu[e, k]
        return t * t + self.var[e, k]

    def both(self, ci: np.ndarray, cj: np.ndarray, k: np.ndarray, sq: bool) -> np.ndarray:
        """Both components missing: ``E|X_ci - X'_cj|`` (or its squared form)."""
        ci, cj, k = (np.asarray(a, dtype=np.intp) for a in (ci, cj, k))
        if not sq:
            return self.H[ci, cj, k]
        e1, e2 = self.eff[ci, k], self.eff[cj, k]
        t = self.mu[e1, k] - self.mu[e2, k]
        return t * t + self.var[e1, k] + self.var[e2, k]

    def args(self) -> tuple:
        """The arrays the compiled kernels take, in their order (``G`` only when it
        exists: the kernels then binary-search the segments instead)."""
        G = self._G if self._G is not None else np.zeros((1, 1, 1))
        return (
            self.filled,
            self.mask,
            self.mptr,
            self.midx,
            self.y,
            G,
            self.has_table and self._G is not None,
            self.vals,
            self.cum,
            self.off,
            self.cnt,
            self.eff,
            self.H,
            self.mu,
            self.var,
        )

    # The distance traversal (fsel.kernels.distances.map_distance_rows) calls these on
    # the object it is given, so that it needs no import of this module (which imports
    # it): the module-level functions below hold the formulas.
    def full_manhattan(self, workers: int) -> np.ndarray:
        """:func:`_expected_full_manhattan` of this table."""
        return _expected_full_manhattan(self, workers)

    def add_corrections(self, rows: np.ndarray, out: np.ndarray, sq: bool) -> None:
        """:func:`_add_expected_corrections` of this table."""
        _add_expected_corrections(self, rows, out, sq)

    def row_block(
        self, rows: np.ndarray, *, metric: str = "manhattan", use_numba: bool | None = None
    ) -> np.ndarray:
        """:func:`expected_distance_block` of this table."""
        return expected_distance_block(self, rows, metric=metric, use_numba=use_numba)


def _w_tile(W: np.ndarray) -> int:
    """Columns per tile of the compiled ``w_rows``: the largest power of two in
    [64, 1024] whose slice of ``W`` (``C x d x tile``) takes at most 2 MiB (a core's
    level-2 cache: it stays there while every row adds its holes' slices)."""
    per = max(1, 8 * W.shape[0] * W.shape[1])
    tile = 64
    while tile < 1024 and 2 * tile * per <= 2**21:
        tile *= 2
    return tile


def _w_table(ed: ExpectedDiff) -> np.ndarray:
    """``W[c, k, j]``: the Manhattan correction of a hole at feature ``k`` of a row of
    class ``c`` against row ``j`` (``G[c, j, k]`` when ``x_jk`` is observed, half the
    both-missing ``H[c, c_j, k]`` when not, so that ``P(i, j) + P(j, i)`` with
    ``P(i, j) = sum_{k missing in i} W[c_i, k, j]`` is the whole correction of the
    filled distance). Built once, ``C x d x n`` (the size of ``G``)."""
    W = getattr(ed, "_W", None)
    if W is None:
        C, (n, d) = ed.n_classes, ed.filled.shape
        W = np.zeros((C, d, n))
        M = ed.mask.astype(bool)
        for k in ed._feats:
            mk = M[:, k]
            for c in range(C):
                W[c, k] = np.where(mk, 0.5 * ed.H[c, ed.y, k], ed.G[c, :, k])
        ed._W = W
    return W


def _v_table(ed: ExpectedDiff) -> np.ndarray:
    """``V[c, j, k] = W[c, k, j]`` (:func:`_w_table`), each row's corrections contiguous:
    the margin of a pair ``(i, j)`` adds ``m_i V[c_i, j] + m_j V[c_j, i]`` to the
    filled ``|f_i - f_j|`` (``m`` the hole indicators). Built once, ``C x n x d``."""
    if ed._V is None:
        W = _w_table(ed)
        V = np.empty((W.shape[0], W.shape[2], W.shape[1]))
        _kernels().transpose(W, V)
        ed._V = V
    return ed._V


def _expected_full_manhattan(ed: ExpectedDiff, workers: int) -> np.ndarray:
    """The full Manhattan matrix with expected differences (compiled, needs the table):
    ``P`` row by row, then one symmetric pass over the upper triangle adding the filled
    distance and ``P``'s transpose (each unordered pair once)."""
    kern = _kernels()
    W = _w_table(ed)
    tile = _w_tile(W)
    n = ed.filled.shape[0]
    out = np.empty((n, n))
    step = max(1, -(-n // (4 * workers))) if workers > 1 else n
    all_rows = np.arange(n, dtype=np.intp)

    def rows_p(a: int, b: int) -> None:
        kern.w_rows(all_rows[a:b], ed.mptr, ed.midx, ed.y, W, tile, out[a:b])

    thread_map(rows_p, [(a, min(a + step, n)) for a in range(0, n, step)], workers)
    chunks = balanced_upper_chunks(n, 4 * workers if workers > 1 else 1)

    def upper(a: int, b: int) -> None:
        kern.w_upper(ed.filled, a, b, out)

    thread_map(upper, chunks, workers)
    return out


def _expected_block_w(ed: ExpectedDiff, rows: np.ndarray) -> np.ndarray:
    """Row block of the Manhattan distances with expected differences (compiled, needs
    the table): ``P(i, j)`` by rows of ``W``, ``P(j, i)`` and the filled distance fused."""
    kern = _kernels()
    W = _w_table(ed)
    out = np.empty((rows.size, ed.filled.shape[0]))
    kern.w_rows(rows, ed.mptr, ed.midx, ed.y, W, _w_tile(W), out)
    Wr = np.ascontiguousarray(W[:, :, rows])
    kern.w_block(rows, ed.filled, ed.mptr, ed.midx, ed.y, Wr, out)
    return out


def _expected_block_numpy(ed: ExpectedDiff, rows: np.ndarray, sq: bool) -> np.ndarray:
    F, M, y = ed.filled, ed.mask.astype(bool), ed.y
    A = F[rows]
    out = _block(A, F, "sqeuclidean" if sq else "manhattan", None, use_numba=False)
    one = ed.expected_sq if sq else ed.expected
    ya = y[rows]
    for k in np.flatnonzero(M.any(axis=0)):
        ma, mb = M[rows, k], M[:, k]
        fb, fa = F[:, k], A[:, k]
        J = np.flatnonzero(mb)
        for c in np.unique(ya[ma]):
            rr = np.flatnonzero(ma & (ya == c))
            true = one(np.full(F.shape[0], c), np.full(F.shape[0], k), fb)
            true[J] = ed.both(np.full(J.size, c), y[J], np.full(J.size, k), sq)
            wrong = fa[rr, None] - fb[None, :]
            wrong = wrong * wrong if sq else np.abs(wrong)
            out[rr] += true[None, :] - wrong
        nm = np.flatnonzero(~ma)
        if nm.size == 0:
            continue
        for c2 in np.unique(y[J]):
            jj = J[y[J] == c2]
            vec = one(np.full(nm.size, c2), np.full(nm.size, k), fa[nm])
            wrong = fa[nm, None] - fb[None, jj]
            wrong = wrong * wrong if sq else np.abs(wrong)
            out[np.ix_(nm, jj)] += vec[:, None] - wrong
    return out


def _class_spans(y: np.ndarray, C: int) -> list[Any]:
    """Per class, its rows: a slice when ``y`` is sorted, else an index array."""
    if y.size < 2 or np.all(y[1:] >= y[:-1]):
        b = np.searchsorted(y, np.arange(C + 1))
        return [slice(int(b[c]), int(b[c + 1])) for c in range(C)]
    return [np.flatnonzero(y == c) for c in range(C)]


def _expected_block_table(
    ed: ExpectedDiff, rows: np.ndarray, sq: bool, numba_on: bool
) -> np.ndarray:
    F = ed.filled
    out = _block(F[rows], F, "sqeuclidean" if sq else "manhattan", None, numba_on)
    return _add_expected_corrections(ed, rows, out, sq)


def _add_expected_corrections(
    ed: ExpectedDiff, rows: np.ndarray, out: np.ndarray, sq: bool
) -> np.ndarray:
    # D = filled distance + MA_i . Q_ci[j] + Q_cj[i] . MA_j + (MA_i * H_cicj) . MA_j, with
    # MA the hole indicator and Q the correction table: one matrix product per pair of
    # (row class, column class) blocks, the three terms stacked along the inner axis
    F, y, C = ed.filled, ed.y, ed.n_classes
    if sq:
        Q, Hm = ed._sq_tables()
    else:
        Q, Hm = ed.G, ed.H
    feats = ed._feats
    MA = ed.mask[:, feats].astype(np.float64)
    Qf = Q[:, :, feats]
    yr = y[rows]
    pos = np.arange(rows.size)
    row_sets = _class_spans(yr, C)
    col_sets = _class_spans(y, C)
    MAr = MA[rows]
    for ci in range(C):
        ri = row_sets[ci]
        left_a = MAr[ri]
        if left_a.shape[0] == 0:
            continue
        for cj in range(C):
            cols = col_sets[cj]
            MAc = MA[cols]
            if MAc.shape[0] == 0:
                continue
            # Q_ci is 0 where x_j is missing: the both-missing term joins it
            left = np.hstack([left_a, Qf[cj][rows[ri]]])
            right = np.hstack([Qf[ci][cols] + MAc * Hm[ci, cj, feats], MAc])
            prod = left @ right.T
            if isinstance(ri, slice) and isinstance(cols, slice):
                out[ri, cols] += prod
            else:
                out[np.ix_(pos[ri], np.arange(F.shape[0])[cols])] += prod
    return out


def expected_distance_block(
    ed: ExpectedDiff,
    rows: np.ndarray,
    *,
    metric: str = "manhattan",
    use_numba: bool | None = None,
) -> np.ndarray:
    """Distances of the rows ``rows`` to all rows, with :class:`ExpectedDiff`'s rule
    for the missing components (``D[r, j]``; the diagonal is not zeroed here).

    Manhattan sums the expected absolute differences; ``"sqeuclidean"`` the expected
    squared differences; ``"euclidean"`` is the square root of the latter.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [np.nan], [0.5]])
    >>> ed = ExpectedDiff(X, np.array([0, 0, 0, 1]), 2)
    >>> expected_distance_block(ed, np.array([2])).tolist()  # E|X_0 - v|, X_0 in {0, 1}
    [[0.5, 0.5, 0.5, 0.5]]
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    sq = metric != "manhattan"
    if ed.has_table and not sq and _use_numba(use_numba):
        out = _expected_block_w(ed, rows)
    elif ed.has_table:
        out = _expected_block_table(ed, rows, sq, _use_numba(use_numba))
    elif _use_numba(use_numba):
        out = np.empty((rows.size, ed.filled.shape[0]))
        _kernels().block(rows, *ed.args(), sq, out)
    else:
        out = _expected_block_numpy(ed, rows, sq)
    if metric == "euclidean":
        np.maximum(out, 0.0, out=out)
        np.sqrt(out, out=out)
    return out


def expected_absdiff(
    ed: Any,
    rows: np.ndarray,
    idx: np.ndarray | None,
    coef: np.ndarray,
    *,
    use_numba: bool | None = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> np.ndarray:
    """``out[r] = sum_m coef[r, m] diff(x_{rows[r]}, x_{idx[r, m]})`` with missing values.

    ``diff`` is the per-feature absolute difference, the expected one
    (:class:`~fsel.kernels.relief_margins.ExpectedDiff`) for a missing component;
    ``idx=None`` means ``idx[r, m] = m`` (a dense coefficient block over all rows).
    Pairs with ``idx < 0``, ``idx == rows[r]`` or a zero coefficient are skipped.

    Examples
    --------
    >>> import numpy as np
    >>> ed = ExpectedDiff(np.array([[0.0], [1.0], [np.nan]]), np.array([0, 0, 1]), 2)
    >>> expected_absdiff(ed, np.array([2]), np.array([[0]]), np.array([[1.0]])).tolist()
    [[0.5]]
    """
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    coef = np.ascontiguousarray(coef, dtype=np.float64)
    dense = idx is None
    idx_a = np.zeros((1, 1), np.intp) if dense else np.ascontiguousarray(idx, dtype=np.intp)
    d = ed.filled.shape[1]
    out = np.zeros((rows.size, d))
    if _use_numba(use_numba):
        if ed.has_table:
            # one vectorised pass per pair over the filled difference and the table
            V = _v_table(ed)
            _kernels().absdiff_v(rows, idx_a, coef, dense, ed.filled, ed.mask, ed.y, V, out)
        else:
            _kernels().absdiff(rows, idx_a, coef, dense, *ed.args(), out)
        return out
    F, M, y = ed.filled, ed.mask.astype(bool), ed.y
    m = max(coef.shape[1], 1)
    step = max(1, int(memory_budget // (8 * m * (d + 4))))
    for a in range(0, rows.size, step):
        b = min(a + step, rows.size)
        jj = np.broadcast_to(np.arange(m), (b - a, m)) if dense else idx_a[a:b]
        ri = rows[a:b]
        cc = np.where((jj >= 0) & (jj != ri[:, None]), coef[a:b], 0.0)
        jj = np.maximum(jj, 0)
        diff = np.abs(F[ri][:, None, :] - F[jj])
        ma = M[ri][:, None, :]
        mb = M[jj]
        r_, t_, k_ = np.nonzero(ma | mb)
        if r_.size:
            i_, j_ = ri[r_], jj[r_, t_]
            ci, cj = y[i_], y[j_]
            a_miss, b_miss = ma[r_, 0, k_], mb[r_, t_, k_]
            true = np.empty(r_.size)
            sel = a_miss & b_miss
            true[sel] = ed.both(ci[sel], cj[sel], k_[sel], False)
            sel = a_miss & ~b_miss
            true[sel] = ed.expected(ci[sel], k_[sel], F[j_[sel], k_[sel]])
            sel = ~a_miss & b_miss
            true[sel] = ed.expected(cj[sel], k_[sel], F[i_[sel], k_[sel]])
            diff[r_, t_, k_] = true
        out[a:b] = np.einsum("rm,rmd->rd", cc, diff)
    return out
