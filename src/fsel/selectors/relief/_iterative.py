"""I-Relief (Sun 2007): iterative Relief with probabilistic hits, misses and outliers."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from fsel.kernels.distances import DEFAULT_MEMORY_BUDGET, _issparse, map_distance_rows
from fsel.kernels.neighbors import absdiff_rows
from fsel.selectors.relief._base import _PARAMS_DOC, BaseRelief, positive_unit

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
    same class without ``n``). Each row is shifted by its smallest off-diagonal
    distance before the exponential, which leaves the ratios unchanged and avoids
    underflow.

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
    A -= A.min(axis=1, keepdims=True)
    A /= -sigma
    np.exp(A, out=A)
    n_classes = bounds.size - 1
    sums = np.empty((rows, n_classes))
    for c in range(n_classes):
        sums[:, c] = A[:, bounds[c] : bounds[c + 1]].sum(axis=1)
    own = np.searchsorted(bounds, start + r, side="right") - 1
    sh = sums[r, own]
    sums[r, own] = 0.0
    sm = sums.sum(axis=1)
    st = sm + sh
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = np.where(st > 0, 1.0 - sm / st, 0.0)
        a = np.where(sm > 0, keep / sm, 0.0)[:, None]
        b = np.where(sh > 0, -keep / sh, 0.0)[:, None]
    # the rows are sorted by class too: scale each (row class, column class) rectangle
    for c in np.unique(own):
        r0, r1 = np.searchsorted(own, [c, c + 1])
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
    __doc__ = (
        r"""I-Relief (iterative Relief, Sun 2007).

    Starting from uniform weights ``w = 1/sqrt(D)``, repeat: compute the weighted
    distances ``d_w(x_n, x_i) = sum_d w_d |x_nd - x_id|`` (``metric="euclidean"``:
    ``||w * (x_n - x_i)||_2``), the kernel ``f(d) = exp(-d / sigma)``, the
    probabilities that ``x_i`` is the nearest miss (``alpha``) or nearest hit
    (``beta``) of ``x_n`` and the probability ``gamma_n`` that ``x_n`` is an outlier;
    then

    .. math::

        z = \frac1N \sum_n (1 - \gamma_n) \Big( \sum_{i \in M_n} \alpha_{i,n}
              |x_n - x_i| - \sum_{i \in H_n} \beta_{i,n} |x_n - x_i| \Big), \qquad
        w \leftarrow \frac{(z)_+}{\|(z)_+\|_2}

    until ``||w_new - w||_2 < theta`` or ``max_iter`` iterations (a
    ``ConvergenceWarning`` then). With ``missing="expected"`` a missing component
    contributes its expected difference to ``|x_n - x_i|`` and ``w_d`` times it to the
    weighted distance (the expected squared difference for the Euclidean metric).
    ``M_n`` are all samples of other classes (Sun's multiclass margin). Each
    iteration costs two passes over the ``N x N`` pairs, blocked under
    ``memory_budget``: per row block, the distances and one coefficient array of the
    same size (computed in place, with the samples sorted by class), plus ``O(N D)``
    arrays.

    Parameters
    ----------
    sigma : float, default=1.0
        Kernel width of ``f`` (in units of the weighted distance; features are scaled
        to [0, 1] and ``||w||_2 = 1``).
    theta : float, default=1e-3
        Stopping threshold on ``||w_new - w||_2``.
    max_iter : int, default=100
        Most iterations."""
        + _PARAMS_DOC
        + r"""
    Attributes
    ----------
    n_iter_ : int
        Iterations run.
    converged_ : bool
        Whether the stopping rule was met.
    feature_importances_, scores_, margin_, selection_order_, ranking_, support_,
    classes_, n_features_in_
        As for :class:`Relief` (``margin_`` is the last ``z``).

    Notes
    -----
    The fixed-point iteration need not converge. On pure interaction data, where no
    feature is informative alone, it can settle into a cycle of period two instead:
    on the benchmark's XOR data (``N = 1000``, ``D = 100``, ``y`` the XOR of the signs
    of ``x_0`` and ``x_1``, the other 98 features noise) the larger of ``w_0`` and
    ``w_1`` alternates from one iteration to the next for ``sigma`` = 0.5, 1 and 2,
    and the swing grows: after 100 iterations one of the two carries almost all the
    weight (0.88-0.99) and the other about 0, ranked around 40th among the noise
    features, which of the two depending on whether ``max_iter`` is odd or even. What
    the user sees is a ``ConvergenceWarning``, ``converged_ = False`` and
    ``n_iter_ = max_iter``; the weights are then the last iterate of the cycle, not a
    fixed point. For such data use :class:`ReliefF` or :class:`MultiSURF`, which rank
    both features of the XOR pair first.

    References
    ----------
    Y. Sun, "Iterative RELIEF for feature weighting: algorithms, theories, and
    applications", IEEE TPAMI 29(6):1035-1051, 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import IRelief
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((60, 5)); y = (X[:, 4] > 0.5).astype(int)
    >>> est = IRelief(n_features_to_select=1).fit(X, y)
    >>> est.selection_order_.tolist(), est.converged_
    ([4], True)
    """
    )

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
        categorical: Any = None,
    ) -> None:
        super().__init__(
            n_features_to_select,
            metric=metric,
            n_jobs=n_jobs,
            memory_budget=memory_budget,
            missing=missing,
            categorical=categorical,
        )
        self.sigma = sigma
        self.theta = theta
        self.max_iter = max_iter

    def _mean_margin(self, Z, y, priors, nominal=None):
        self._check_positive("sigma", self.sigma)
        self._check_positive("theta", self.theta)
        self._check_positive("max_iter", self.max_iter, integer=True)
        n, d = Z.shape
        sigma = float(self.sigma)
        # samples sorted by class (the margin is a sum over samples): each class is a
        # contiguous run of columns, so the coefficients are scaled in place
        order = np.argsort(y, kind="stable")
        Z = Z[order].tocsr() if _issparse(Z) else np.ascontiguousarray(Z[order])
        bounds = np.r_[0, np.cumsum(np.bincount(y, minlength=priors.size))]
        y = y[order]
        # missing values: expected differences in the margins (of Z) and in the
        # weighted distances (of Z * w, rebuilt every iteration: E|w X - w v| is
        # w E|X - v|, and the squared form scales by w^2)
        ed_z = self._expected_model(Z, y, priors.size)
        sparse = _issparse(Z)
        w = np.full(d, 1.0 / np.sqrt(d))
        z = np.zeros(d)
        self.converged_ = False
        self.n_iter_ = 0
        for _ in range(int(self.max_iter)):
            self.n_iter_ += 1
            Zw = Z.multiply(w).tocsr() if _issparse(Z) else Z * w
            ed_w = None if ed_z is None else self._expected_model(Zw, y, priors.size, always=True)

            def fn(a: int, b: int, D: np.ndarray) -> np.ndarray:
                m = _irelief_rows(Z, D, a, bounds, sigma, ed_z)
                return m.sum(axis=0, keepdims=True) if sparse else m

            parts = map_distance_rows(
                Zw,
                fn,
                metric=self.metric,
                memory_budget=int(self.memory_budget),
                n_jobs=self.n_jobs,
                expected=ed_w,
            )
            # (wide sparse data: block sums, not N x D row margins)
            z = np.concatenate(parts).sum(axis=0) / n
            w_new = positive_unit(z)
            step = float(np.linalg.norm(w_new - w))
            w = w_new
            if step < self.theta or not w.any():
                self.converged_ = True
                break
        if not self.converged_:
            warnings.warn(
                f"IRelief did not converge in max_iter={self.max_iter} iterations "
                f"(last change of w above theta={self.theta}); increase max_iter or sigma",
                ConvergenceWarning,
                stacklevel=3,
            )
        # the returned margin's positive part normalises to the final w
        return z
