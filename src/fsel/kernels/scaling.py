"""How the Relief family scales a numeric difference: ``scaling="range"|"robust"|"rank"``.

Every rule is a per-column map ``z = s_j(x)`` applied once before the neighbour search;
the per-feature difference of two samples is then ``|z_a - z_b|``, in ``[0, 1]``:

* ``"range"`` (the papers' rule): ``z = (x - min) / (max - min)``; one extreme value
  sets the range and squeezes every other difference towards 0;
* ``"robust"``: the column is winsorised at its 5% and 95% quantiles (numpy's linear
  rule on the observed values) and divided by that interquantile range,
  ``z = (clip(x, q05, q95) - q05) / (q95 - q05)``: a difference is
  ``|x_a - x_b| / (q95 - q05)`` where both values lie inside, and never above 1, so
  fewer than 5% of outlying cells cannot set the scale. A column whose
  ``q95 == q05`` (more than 90% of its rows at one value) falls back to ``"range"``;
* ``"rank"``: ``z = (r - 1) / 2**m`` with ``r`` the column's average rank (ties
  share their mean rank) among its ``n`` observed values and ``2**m`` the smallest
  power of two ``>= n - 1`` (so ``z`` spans more than half of ``[0, 1]``): the
  difference is proportional to the share of the rows between the two values,
  whatever the distribution. The power of two keeps every difference and every
  distance exact (half-ranks are dyadic). (Under every rule the neighbour search
  takes distances equal up to rounding as ties, so dense and sparse input find the
  same neighbours: :func:`fsel.kernels.neighbors.tie_order`.)

A constant column maps to zeros (its weight is 0). Missing values (NaN) stay NaN; the
quantiles and ranks are those of the observed values.

Sparse columns keep their sparsity: each map is shifted so that the value 0 maps to 0
(differences do not change), ``z = s_j(x) - s_j(0)``; the quantiles and ranks come from
the stored values and the count of implicit zeros (``O(nnz log nnz)``, no column is
expanded).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsel.kernels.binning import sparse_quantiles
from fsel.kernels.quantiles import column_quantiles
from fsel.utils.parallel import any_nan, column_min_max, n_threads_for, spans, thread_map

__all__ = ["ROBUST_QUANTILES", "SCALINGS", "check_scaling", "scale_dense", "scale_sparse"]

SCALINGS = ("range", "robust", "rank")
ROBUST_QUANTILES = (0.05, 0.95)  #: the interquantile range of ``scaling="robust"``


def check_scaling(scaling: Any, name: str) -> str:
    """``scaling`` if it is one of :data:`SCALINGS`, else a ValueError."""
    if not isinstance(scaling, str) or scaling not in SCALINGS:
        raise ValueError(f"{name}: scaling must be one of {SCALINGS}, got {scaling!r}")
    return scaling


def _rank_scale(n: int) -> float:
    """The divisor of ``scaling="rank"``: the smallest power of two ``>= n - 1``."""
    return float(2 ** int(np.ceil(np.log2(max(n - 1, 1)))))


def _average_ranks(v: np.ndarray) -> np.ndarray:
    """1-based average ranks of ``v`` (ties share their mean rank)."""
    order = np.argsort(v, kind="stable")
    s = v[order]
    new = np.ones(s.size, dtype=bool)
    new[1:] = s[1:] != s[:-1]
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], s.size)
    mean_rank = (starts + ends + 1) / 2.0  # ranks starts+1 .. ends
    r = np.empty(s.size)
    r[order] = np.repeat(mean_rank, ends - starts)
    return r


def scale_dense(
    values: np.ndarray, scaling: str = "range", n_jobs: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Scale every column of a dense table by ``scaling``; NaN stays NaN.

    ``n_jobs`` threads share the columns of the ``"robust"`` and ``"rank"`` rules (each
    column is scaled on its own, so the result does not depend on it). The robust
    rule's quantiles come from :func:`~fsel.kernels.quantiles.column_quantiles`
    (compiled for a large table, numpy's numbers).

    Returns the scaled copy (values in ``[0, 1]``) and the mask of constant columns
    (all-zero there).

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 3.0], [3.0, 1000.0]])
    >>> scale_dense(X, "range")[0][:, 1].round(4).tolist()
    [0.0, 0.001, 0.002, 1.0]
    >>> scale_dense(X, "rank")[0][:, 1].tolist() == scale_dense(X, "rank")[0][:, 0].tolist()
    True
    """
    values = np.asarray(values, dtype=np.float64)
    holes = any_nan(values, n_jobs)
    if holes:  # fmin/fmax skip the NaN; a column without observed values gives NaN
        lo = np.fmin.reduce(values, axis=0)
        hi = np.fmax.reduce(values, axis=0)
        ptp = np.where(np.isfinite(lo), hi - lo, 0.0)
        constant = ~(ptp > 0)
    else:
        lo, hi = column_min_max(values, n_jobs)
        ptp = hi - lo
        constant = ptp == 0
    ok = ~constant
    # row blocks in threads (numpy's ufuncs release the GIL): the same numbers
    blocks = spans(values.shape[0], 4 * n_threads_for(values.nbytes, n_jobs))
    threads = n_threads_for(values.nbytes, n_jobs)
    if scaling == "range":
        if ok.all():  # the papers' arithmetic, without column gathers
            scaled = np.empty_like(values)

            def shift(a: int, b: int) -> None:
                np.subtract(values[a:b], lo, out=scaled[a:b])
                scaled[a:b] /= ptp

            thread_map(shift, blocks, threads)
        else:
            scaled = np.zeros_like(values)
            scaled[:, ok] = (values[:, ok] - lo[ok]) / ptp[ok]
        return scaled, constant
    cols = [(j,) for j in np.flatnonzero(ok).tolist()]
    if scaling == "robust":  # the bounds per column, then one pass by row blocks
        q_lo, q_hi, width = lo.copy(), hi.copy(), ptp.copy()
        # the 5% and 95% quantiles of each column's observed values; where they are
        # equal the column keeps its minimum, maximum and range (the range rule)
        at = np.flatnonzero(ok)
        found = np.array(column_quantiles(values, at, ROBUST_QUANTILES, n_jobs))
        found = found.reshape(at.size, 2)
        wide = found[:, 1] > found[:, 0]
        j = at[wide]
        q_lo[j], q_hi[j] = found[wide, 0], found[wide, 1]
        width[j] = found[wide, 1] - found[wide, 0]
        width[constant] = 1.0  # (their column is zeroed below)
        scaled = np.empty_like(values)

        def winsorise(a: int, b: int) -> None:
            np.clip(values[a:b], q_lo, q_hi, out=scaled[a:b])
            scaled[a:b] -= q_lo
            scaled[a:b] /= width

        thread_map(winsorise, blocks, threads)
        if constant.any():
            scaled[:, constant] = 0.0
        return scaled, constant
    scaled = np.empty_like(values)  # zeroed by row blocks in threads (no serial pass)
    thread_map(lambda a, b: scaled[a:b].fill(0.0), blocks, threads)
    thread_map(lambda j: _rank_column(values, scaled, j, holes), cols, n_jobs)
    return scaled, constant


def _rank_column(values: np.ndarray, scaled: np.ndarray, j: int, holes: bool) -> None:
    """Write column ``j`` of ``values`` scaled by the ``"rank"`` rule into ``scaled``
    (its holes stay NaN); the rule is stated in the module docstring."""
    col = values[:, j]
    obs = ~np.isnan(col) if holes else slice(None)
    v = col[obs]
    out = (_average_ranks(v) - 1.0) / _rank_scale(v.size)
    if holes:
        scaled[:, j] = np.nan
    scaled[obs, j] = out


def scale_sparse(Xc: Any, scaling: str = "range") -> tuple[Any, np.ndarray]:
    """Scale the columns of a sparse CSC matrix without densifying it: the map of
    :func:`scale_dense` shifted so that 0 maps to 0 (the same differences).

    Returns a CSR matrix (sorted indices, explicit zeros removed) and the mask of
    constant columns.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = np.array([[0.0, 5.0], [2.0, 0.0], [0.0, 0.0], [4.0, 1.0]])
    >>> Z, _ = scale_sparse(sp.csc_matrix(X), "rank")
    >>> D, _ = scale_dense(X, "rank")
    >>> bool(np.allclose(Z.toarray() - Z.toarray()[2], D - D[2]))
    True
    """
    Xc = Xc.tocsc()
    n, d = Xc.shape
    counts = np.diff(Xc.indptr)
    cols = np.repeat(np.arange(d), counts)
    if scaling == "range":  # the papers' rule: x / (max - min), no shift
        ptp = Xc.max(axis=0).toarray().ravel() - Xc.min(axis=0).toarray().ravel()
        constant = ptp == 0
        safe = np.where(constant, 1.0, ptp)
        Z = Xc.copy()
        Z.data = np.where(constant[cols], 0.0, Z.data / safe[cols])
    else:
        Z = Xc.copy().astype(np.float64)
        constant = np.zeros(d, dtype=bool)
        for j in range(d):
            p0, p1 = int(Xc.indptr[j]), int(Xc.indptr[j + 1])
            v = np.asarray(Xc.data[p0:p1], dtype=np.float64)
            z = n - (p1 - p0)  # implicit zeros
            lo = min(v.min(initial=np.inf), 0.0) if z else v.min(initial=np.inf)
            hi = max(v.max(initial=-np.inf), 0.0) if z else v.max(initial=-np.inf)
            if not hi > lo:
                constant[j] = True
                Z.data[p0:p1] = 0.0
                continue
            if scaling == "rank":  # ranks among the stored values and z zeros
                allv = np.append(v, 0.0) if z else v
                r = _average_ranks(allv)
                if z:  # one appended 0 stands for the z implicit ones: shift by z - 1
                    r0 = r[-1] + (z - 1) / 2.0
                    r = r[:-1] + np.where(v > 0, z - 1.0, np.where(v == 0, (z - 1) / 2.0, 0.0))
                else:
                    r0 = r[v == 0][0] if (v == 0).any() else 1.0
                Z.data[p0:p1] = (r - r0) / _rank_scale(n)
            else:
                q_lo, q_hi = sparse_quantiles(v, z, ROBUST_QUANTILES)
                if q_hi > q_lo:
                    zero = (min(max(0.0, q_lo), q_hi) - q_lo) / (q_hi - q_lo)
                    Z.data[p0:p1] = (np.clip(v, q_lo, q_hi) - q_lo) / (q_hi - q_lo) - zero
                else:
                    Z.data[p0:p1] = v / (hi - lo)
    Z.eliminate_zeros()
    Z = Z.tocsr()
    Z.sort_indices()
    return Z, constant
