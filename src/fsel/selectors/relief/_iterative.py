"""I-Relief (Sun 2007): iterative Relief with probabilistic hits, misses and outliers."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from fsel.kernels.distances import DEFAULT_MEMORY_BUDGET
from fsel.kernels.neighbors import absdiff_rows, map_distance_rows
from fsel.selectors.relief._base import _PARAMS_DOC, BaseRelief, positive_unit

__all__ = ["IRelief", "irelief_coefficients"]


def irelief_coefficients(D: np.ndarray, start: int, y: np.ndarray, sigma: float) -> np.ndarray:
    r"""Coefficient block of one I-Relief iteration.

    For the rows ``n = start..start+len(D)-1`` with weighted distances ``D[n, i]``
    and ``f = exp(-d / sigma)``:

    .. math::

        \alpha_{i,n} = \frac{f(d_{ni})}{\sum_{j \in M_n} f(d_{nj})},\quad
        \beta_{i,n} = \frac{f(d_{ni})}{\sum_{j \in H_n} f(d_{nj})},\quad
        \gamma_n = \frac{\sum_{i \in M_n} f(d_{ni})}{\sum_{i \ne n} f(d_{ni})}

    and the coefficient of ``|x_n - x_i|`` in the margin is ``(1 - gamma_n) alpha``
    for misses and ``-(1 - gamma_n) beta`` for hits (``M_n``: other classes, ``H_n``:
    same class without ``n``). Each row is shifted by its smallest off-diagonal
    distance before the exponential, which leaves the ratios unchanged and avoids
    underflow.
    """
    rows, n = D.shape
    r = np.arange(rows)
    self_mask = np.zeros((rows, n), dtype=bool)
    self_mask[r, start + r] = True
    Dm = np.where(self_mask, np.inf, D)
    dmin = Dm.min(axis=1, keepdims=True)
    F = np.exp(-(Dm - dmin) / sigma)
    same = y[None, :] == y[start : start + rows, None]
    miss = ~same
    hit = same & ~self_mask
    sm = np.where(miss, F, 0.0).sum(axis=1)
    sh = np.where(hit, F, 0.0).sum(axis=1)
    st = sm + sh
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = np.where(st > 0, 1.0 - sm / st, 0.0)
        a = np.where(sm > 0, keep / sm, 0.0)
        b = np.where(sh > 0, keep / sh, 0.0)
    return np.where(miss, F * a[:, None], 0.0) - np.where(hit, F * b[:, None], 0.0)


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
    ``ConvergenceWarning`` then). ``M_n`` are all samples of other classes (Sun's
    multiclass margin). Each iteration costs two passes over the ``N x N`` pairs,
    blocked under ``memory_budget``.

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
        missing: str = "error",
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
        w = np.full(d, 1.0 / np.sqrt(d))
        z = np.zeros(d)
        self.converged_ = False
        self.n_iter_ = 0
        for _ in range(int(self.max_iter)):
            self.n_iter_ += 1
            Zw = Z * w

            def fn(a: int, b: int, D: np.ndarray) -> np.ndarray:
                return absdiff_rows(Z, a, irelief_coefficients(D, a, y, sigma))

            parts = map_distance_rows(
                Zw,
                fn,
                metric=self.metric,
                memory_budget=int(self.memory_budget),
                n_jobs=self.n_jobs,
            )
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
