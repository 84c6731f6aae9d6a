"""I-Relief (Sun 2007): iterative Relief with probabilistic hits, misses and outliers."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from fsel.kernels.distances import DEFAULT_MEMORY_BUDGET, ROW_RUN, map_distance_rows
from fsel.kernels.neighbors import absdiff_rows
from fsel.selectors.relief._base import DEFAULT_SCALING, BaseRelief, positive_unit
from fsel.utils.validation import is_sparse

__all__ = ["IRelief", "irelief_coefficients"]

#: ``absdiff_rows`` is called on this many row slices of a coefficient block: its
#: pure-numpy path holds two ``rows x N`` temporaries per call, so the slices keep
#: them at half a block (see :func:`_irelief_rows`).
_ABSDIFF_SLICES = 4


def irelief_coefficients(D: np.ndarray, start: int, bounds: np.ndarray, sigma: float) -> np.ndarray:
    r"""Coefficient block of one I-Relief iteration.

    The samples are sorted by class: class ``c`` holds the columns
    ``bounds[c]:bounds[c + 1]``. For the rows ``n = start..start+len(D)-1`` with
    weighted distances ``D[n, i]`` and ``f = exp(-d / sigma)``:

    .. math::

        \alpha_{i,n} = \frac{f(d_{ni})}{\sum_{j \in M_n} f(d_{nj})},\quad
        \beta_{i,n} = \frac{f(d_{ni})}{\sum_{j \in H_n} f(d_{nj})},\quad
        \gamma_n = \frac{\sum_{i \in M_n} f(d_{ni})}{\sum_{i \ne n} f(d_{ni})}

    and the coefficient of ``|x_n - x_i|`` in the margin is ``(1 - gamma_n) alpha``
    for misses and ``-(1 - gamma_n) beta`` for hits (``M_n``: other classes, ``H_n``:
    same class without ``n``). A row's hit distances are shifted by its nearest hit's
    and its miss distances by its nearest miss's before the exponential (the ratios
    are unchanged, and ``gamma_n`` is put together in logarithms), so no group
    underflows as a whole however small ``sigma``: as ``sigma -> 0`` the weights go
    to the nearest hit and the nearest miss, Relief's own.

    One new ``rows x N`` array is allocated (the result; ``D`` is left unchanged)
    and everything else is done in place on it or on per-row vectors, so the kernel's
    block sizing (:func:`fsel.kernels.neighbors.rows_per_block`, which allows about
    three arrays of the block's size) holds.

    Examples
    --------
    >>> import numpy as np
    >>> D = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 2.0], [1.0, 2.0, 0.0]])
    >>> A = irelief_coefficients(D, 0, np.array([0, 2, 3]), sigma=1.0)
    >>> (A + 0.0).round(4).tolist()  # sample 2 has no hit: gamma = 1, all zero
    [[0.0, -0.5, 0.5], [-0.7311, 0.0, 0.7311], [0.0, 0.0, 0.0]]
    """
    rows = D.shape[0]
    r = np.arange(rows)
    A = np.array(D, dtype=np.float64, copy=True)
    A[r, start + r] = np.inf  # the sample itself: f = 0
    n_classes = bounds.size - 1
    own = np.searchsorted(bounds, start + r, side="right") - 1
    # each row's nearest hit and nearest miss: the hits are shifted by the one, the
    # misses by the other, so that each group's largest f is 1 (no underflow of a whole
    # group, however small sigma); the ratio of the groups' sums is put back below
    mins = np.full((rows, n_classes), np.inf)
    for c in range(n_classes):
        if bounds[c + 1] > bounds[c]:
            mins[:, c] = A[:, bounds[c] : bounds[c + 1]].min(axis=1)
    hit_min = mins[r, own].copy()
    mins[r, own] = np.inf
    miss_min = mins.min(axis=1)
    blocks = [(c, *np.searchsorted(own, [c, c + 1])) for c in np.unique(own)]
    for c, r0, r1 in blocks:  # the rows are sorted by class too
        lo, hi = bounds[c], bounds[c + 1]
        A[r0:r1, lo:hi] -= np.where(np.isfinite(hit_min[r0:r1]), hit_min[r0:r1], 0.0)[:, None]
        shift = np.where(np.isfinite(miss_min[r0:r1]), miss_min[r0:r1], 0.0)[:, None]
        A[r0:r1, :lo] -= shift
        A[r0:r1, hi:] -= shift
    A /= -sigma
    np.exp(A, out=A)
    sums = np.empty((rows, n_classes))
    for c in range(n_classes):
        sums[:, c] = A[:, bounds[c] : bounds[c + 1]].sum(axis=1)
    sh = sums[r, own]  # sum over the hits / f(nearest hit)
    sums[r, own] = 0.0
    sm = sums.sum(axis=1)  # sum over the misses / f(nearest miss)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # 1 - gamma = S_H / (S_H + S_M), S = the unshifted sums, in logarithms
        gap = np.log(sm) - np.log(sh) - (miss_min - hit_min) / sigma
        keep = np.where(sh > 0, np.where(sm > 0, 1.0 / (1.0 + np.exp(gap)), 1.0), 0.0)
        a = np.where(sm > 0, keep / sm, 0.0)[:, None]
        b = np.where(sh > 0, -keep / sh, 0.0)[:, None]
    for c, r0, r1 in blocks:  # scale each (row class, column class) rectangle
        lo, hi = bounds[c], bounds[c + 1]
        A[r0:r1, :lo] *= a[r0:r1]
        A[r0:r1, lo:hi] *= b[r0:r1]
        A[r0:r1, hi:] *= a[r0:r1]
    return A


def _irelief_rows(
    Z: np.ndarray,
    D: np.ndarray,
    start: int,
    bounds: np.ndarray,
    sigma: float,
    expected: Any = None,
) -> np.ndarray:
    """``sum_i coef[n, i] |x_n - x_i|`` for the block's rows (see
    :func:`irelief_coefficients`)."""
    A = irelief_coefficients(D, start, bounds, sigma)
    rows = A.shape[0]
    out = np.empty((rows, Z.shape[1]))
    step = max(1, -(-rows // _ABSDIFF_SLICES))
    for s in range(0, rows, step):
        e = min(s + step, rows)
        out[s:e] = absdiff_rows(Z, start + s, A[s:e], expected=expected)
    return out


class IRelief(BaseRelief):
    """The logic of :class:`fsel.selectors.relief.IRelief` (documented there)."""

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        sigma: float = 1.0,
        theta: float = 1e-3,
        max_iter: int = 100,
        metric: str = "manhattan",
        n_jobs: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        missing: str = "expected",
        categorical: Any = "auto",
        scaling: str = DEFAULT_SCALING,
    ) -> None:
        super().__init__(
            n_features_to_select,
            metric=metric,
            n_jobs=n_jobs,
            memory_budget=memory_budget,
            missing=missing,
            categorical=categorical,
            scaling=scaling,
        )
        self.sigma = sigma
        self.theta = theta
        self.max_iter = max_iter

    _param_kinds: ClassVar[dict[str, Any]] = {
        **BaseRelief._param_kinds,
        "sigma": "positive_real",
        "theta": "positive_real",
        "max_iter": "positive_int",
    }

    def _mean_margin(self, Z, y, priors, nominal=None):
        n, d = Z.shape
        sigma = float(self.sigma)
        # samples sorted by class (the margin is a sum over samples): each class is a
        # contiguous run of columns, so the coefficients are scaled in place
        order = np.argsort(y, kind="stable")
        Z = Z[order].tocsr() if is_sparse(Z) else np.ascontiguousarray(Z[order])
        bounds = np.r_[0, np.cumsum(np.bincount(y, minlength=priors.size))]
        y = y[order]
        # missing values: expected differences in the margins (of Z) and in the
        # weighted distances (of Z * w, rebuilt every iteration: E|w X - w v| is
        # w E|X - v|, and the squared form scales by w^2)
        ed_z = self._expected_model(Z, y, priors.size)
        sparse = is_sparse(Z)
        budget = int(self.memory_budget)
        w = np.full(d, 1.0 / np.sqrt(d))
        z = np.zeros(d)
        self.converged_ = False
        self.n_iter_ = 0
        for _ in range(int(self.max_iter)):
            self.n_iter_ += 1
            Zw = Z.multiply(w).tocsr() if is_sparse(Z) else Z * w
            ed_w = None if ed_z is None else self._expected_model(Zw, y, priors.size, always=True)

            def fn(a: int, b: int, D: np.ndarray) -> np.ndarray:
                if not sparse:
                    return _irelief_rows(Z, D, a, bounds, sigma, ed_z)
                # wide sparse data: sums of runs of ROW_RUN rows (which no block
                # splits), not N x D row margins; the dense margins of a few runs at a
                # time, within the memory budget (each row's margins are its own)
                step = max(ROW_RUN, budget // (8 * d) // ROW_RUN * ROW_RUN)
                return np.concatenate(
                    [
                        np.add.reduceat(
                            _irelief_rows(Z, D[s : s + step], a + s, bounds, sigma, ed_z),
                            np.arange(0, min(step, b - a - s), ROW_RUN),
                            axis=0,
                        )
                        for s in range(0, b - a, step)
                    ]
                )

            parts = map_distance_rows(
                Zw,
                fn,
                metric=self.metric,
                memory_budget=int(self.memory_budget),
                n_jobs=self.n_jobs,
                expected=ed_w,
                align=ROW_RUN,
            )
            z = np.concatenate(parts).sum(axis=0) / n
            w_new = positive_unit(z)
            step = float(np.linalg.norm(w_new - w))
            w = w_new
            if step < self.theta or not w.any():
                self.converged_ = True
                break
        if not self.converged_:
            from sklearn.exceptions import ConvergenceWarning  # only now: sklearn is slow to import

            warnings.warn(
                f"IRelief did not converge in max_iter={self.max_iter} iterations "
                f"(last change of w above theta={self.theta}); increase max_iter or sigma",
                ConvergenceWarning,
                stacklevel=3,
            )
        # the returned margin's positive part normalises to the final w
        return z
