"""P-Relief (Parzen-Relief, Yang & Hu 2012): per-feature Parzen-window margins."""

from __future__ import annotations

from typing import Any

import numpy as np

from fsel.kernels.distances import DEFAULT_MEMORY_BUDGET
from fsel.kernels.neighbors import (
    GAUSS_P,
    GAUSS_TOL,
    gaussian_class_sums,
    gaussian_hit_total_sums,
)
from fsel.selectors.relief._base import DEFAULT_SCALING, BaseRelief
from fsel.utils.parallel import effective_n_jobs
from fsel.utils.validation import is_sparse

__all__ = [
    "SIGMA_RULES",
    "PRelief",
    "expected_pair_sums",
    "parzen_mean_margin",
    "silverman_bandwidth",
]

SIGMA_RULES = ("silverman", "paper")
PAPER_SIGMA = 0.01


def silverman_bandwidth(Z: np.ndarray) -> np.ndarray:
    """Silverman's rule of thumb per column: ``0.9 min(sd, IQR/1.34) N^(-1/5)``.

    Falls back to ``sd`` when the IQR is 0, and to 1 for a constant column.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.linspace(0, 1, 101)[:, None]
    >>> np.round(silverman_bandwidth(Z), 4).tolist()
    [0.1043]
    """
    Z = np.asarray(Z, dtype=np.float64)
    n = Z.shape[0]
    sd = Z.std(axis=0)
    q75, q25 = np.percentile(Z, [75, 25], axis=0)
    iqr = (q75 - q25) / 1.34
    spread = np.where(iqr > 0, np.minimum(sd, iqr), sd)
    h = 0.9 * spread * n ** (-0.2)
    return np.where(h > 0, h, 1.0)


def expected_pair_sums(K: np.ndarray, observed: np.ndarray, counts: np.ndarray) -> np.ndarray:
    r"""Class-pair kernel sums over all samples when some values are missing.

    ``K[c, c']`` sums the kernel over the pairs of *observed* values (self pairs
    included), ``observed[c]`` and ``counts[c]`` are the observed and total members
    of class ``c``. A missing value is replaced by the expectation over its class's
    observed values (the pooled observed values when its class has none), so every
    pair with a hole contributes the expected kernel value:

    .. math:: S = W K W^T, \quad W_{cc} = n_c / o_c \;\; (o_c > 0), \quad
              W_{cu} = n_c / o \;\; (o_c = 0, o_u > 0)

    plus, on the diagonal, ``m_c (1 - S_cc / n_c^2)``: the ``m_c`` missing samples'
    self pairs are exactly 1, not the expectation over two independent draws.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[2.0, 0.5], [0.5, 1.0]])  # class 0: two observed, class 1: one
    >>> expected_pair_sums(K, np.array([2, 1]), np.array([2, 2])).round(3).tolist()
    [[2.0, 1.0], [1.0, 4.0]]
    """
    K = np.asarray(K, dtype=np.float64)
    o = np.asarray(observed, dtype=np.float64)
    nc = np.asarray(counts, dtype=np.float64)
    C = nc.size
    o_tot = o.sum()
    if o_tot == 0:
        return np.zeros((C, C))
    W = np.zeros((C, C))
    for c in range(C):
        if o[c] > 0:
            W[c, c] = nc[c] / o[c]
        else:
            W[c, o > 0] = nc[c] / o_tot
    S = W @ K @ W.T
    diag = np.diagonal(S).copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        fix = np.where(nc > 0, (nc - o) * (1.0 - diag / nc**2), 0.0)
    S[np.arange(C), np.arange(C)] = diag + fix
    return S


def parzen_mean_margin(S: np.ndarray, counts: np.ndarray) -> np.ndarray:
    r"""The mean P-Relief margin from the class-pair kernel sums ``S`` (d, C, C).

    .. math::

        \bar m_d = \frac1N \sum_c \Big[ \frac{S_{d,cc} - n_c}{n_c - 1}
                 - \sum_{c' \ne c} \frac{S_{d,cc'}}{N - n_c} \Big]

    (the ``n = i`` self terms, each exactly 1, are removed from the hit sums; a class
    with a single member has no hit term).
    """
    counts = np.asarray(counts, dtype=np.float64)
    N = counts.sum()
    diag = np.diagonal(S, axis1=1, axis2=2)  # (d, C)
    with np.errstate(divide="ignore", invalid="ignore"):
        hit = np.where(counts > 1, (diag - counts) / (counts - 1), 0.0)
        other = (S.sum(axis=2) - diag) / (N - counts)
    return (hit - other).sum(axis=1) / N


def check_kernel_span(
    Z: np.ndarray, sigma: np.ndarray, nominal: np.ndarray, n_classes: int, memory_budget: int
) -> None:
    """Refuse a numeric column that spans more kernel widths than the Gaussian sums can
    hold: the fast Gauss transform puts a column's values in boxes of width ``sigma``,
    ``floor((max - min) / sigma) + 1`` of them, each holding ``GAUSS_P x n_classes``
    moments (8 bytes each), and these must fit in ``memory_budget`` or 1 GiB, whichever
    is larger (and the span in float64).
    Extreme values (such as ``+/-1e308``) break it: after range scaling the other
    values collapse within a denormal spread, and so does the data-driven ``sigma``.

    Raises
    ------
    ValueError
        Naming the column, its span in kernel widths and what to do.

    Examples
    --------
    >>> Z, nominal = np.array([[0.0], [1.0]]), np.array([False])
    >>> check_kernel_span(Z, np.array([0.5]), nominal, 2, 2**20)
    >>> try:
    ...     check_kernel_span(Z, np.array([1e-300]), nominal, 2, 2**20)
    ... except ValueError as exc:
    ...     print(str(exc)[:60])
    PRelief: feature 0 spans 1e+300 kernel widths (sigma=1e-300)
    """
    if Z.shape[0] == 0:
        return
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        observed = ~np.isnan(Z)
        hi = np.max(np.where(observed, Z, -np.inf), axis=0)
        lo = np.min(np.where(observed, Z, np.inf), axis=0)
        span = np.where(observed.any(axis=0), (hi - lo) / sigma, 0.0)
        need = (np.floor(span) + 1.0) * (GAUSS_P * max(int(n_classes), 1) * 8.0)
    limit = max(int(memory_budget), 2**30)
    bad = np.flatnonzero(~np.asarray(nominal, bool) & ~(need <= limit))
    if bad.size:
        j = int(bad[0])
        raise ValueError(
            f"PRelief: feature {j} spans {float(span[j]):g} kernel widths "
            f"(sigma={float(sigma[j]):g}), more than its Gaussian sums can hold in "
            f"{limit} bytes (the column has extreme values, e.g. +/-1e308, or sigma is "
            "tiny); rescale or clip the column, or pass a larger sigma"
        )


class PRelief(BaseRelief):
    """The logic of :class:`fsel.selectors.relief.PRelief` (documented there)."""

    _expand_nominal = False

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        sigma: Any = "silverman",
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

    #: absolute tolerance of each per-sample kernel mean
    tolerance = GAUSS_TOL

    def _sigmas(self, Z: np.ndarray, holes: np.ndarray | None = None) -> np.ndarray:
        s = self.sigma
        d = Z.shape[1]
        name = type(self).__name__
        if isinstance(s, str):
            if s == "silverman":
                if holes is None:
                    return silverman_bandwidth(Z)
                out = np.ones(d)
                for j in range(d):
                    v = Z[~holes[:, j], j]
                    out[j] = silverman_bandwidth(v[:, None])[0] if v.size else 1.0
                return out
            if s == "paper":
                return np.full(d, PAPER_SIGMA)
            raise ValueError(
                f"{name}: sigma must be a positive number, an array or one of {SIGMA_RULES}, "
                f"got {s!r}"
            )
        try:
            if isinstance(s, (bool, np.bool_)):
                raise TypeError
            arr = np.asarray(s, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name}: sigma must be a positive number, an array or one of {SIGMA_RULES}, "
                f"got {s!r}"
            ) from None
        if arr.ndim == 0:
            arr = np.full(d, float(arr))
        if arr.shape != (d,) or not np.all(np.isfinite(arr)) or not np.all(arr > 0):
            raise ValueError(
                f"{name}: sigma must be positive and finite (a number or {d} values), got {s!r}"
            )
        return arr

    def _mean_margin(self, Z, y, priors, nominal=None):
        if not is_sparse(Z):
            return self._mean_margin_dense(Z, y, priors, nominal)
        # sparse: one densified column (N values) at a time; P-Relief is per feature
        Zc = Z.tocsc()
        d = Zc.shape[1]
        fixed = None if isinstance(self.sigma, str) and self.sigma == "silverman" else True
        sig_all = self._sigmas(np.zeros((1, d))) if fixed else np.ones(d)
        mbar = np.zeros(d)
        for j in range(d):
            col = Zc[:, [j]].toarray()
            sj = sig_all[j : j + 1] if fixed else silverman_bandwidth(col)
            sig_all[j] = sj[0]
            mbar[j] = self._mean_margin_dense(col, y, priors, None, sig=sj)[0]
        self.sigma_ = sig_all
        return mbar

    def _mean_margin_dense(self, Z, y, priors, nominal=None, sig=None):
        n, d = Z.shape
        C = priors.size
        holes = np.isnan(Z)
        hole_cols = holes.any(axis=0)
        if sig is None:
            sig = self._sigmas(Z, holes if hole_cols.any() else None)
        self.sigma_ = sig
        counts = np.bincount(y, minlength=C)
        nominal = np.zeros(d, bool) if nominal is None else nominal
        budget = int(self.memory_budget)
        check_kernel_span(Z, sig, nominal, C, budget)
        if 8 * C * max(n, d * C) > budget // 4:
            # many classes (e.g. one sample each): no C x C table, only its diagonal
            # and row sums (all the margin needs), in O(N) memory per feature
            if hole_cols.any():
                raise ValueError(
                    f"PRelief: missing='expected' with {C} classes needs {C} x {C} "
                    f"tables per feature, more than a quarter of memory_budget={budget}; "
                    "raise memory_budget or impute"
                )
            return self._margin_many_classes(Z, y, sig, nominal, counts)
        S = np.zeros((d, C, C))
        for j in np.flatnonzero(hole_cols):
            obs = ~holes[:, j]
            if nominal[j]:
                _, inv = np.unique(Z[obs, j], return_inverse=True)
                oh = np.zeros((int(obs.sum()), C))
                oh[np.arange(oh.shape[0]), y[obs]] = 1.0
                cnt = np.zeros((int(inv.max()) + 1 if inv.size else 0, C))
                np.add.at(cnt, inv.reshape(-1), oh)
                K = cnt.T @ cnt
            elif obs.any():
                K = gaussian_class_sums(Z[obs, j : j + 1], y[obs], sig[j : j + 1], n_classes=C)[0]
            else:
                continue
            S[j] = expected_pair_sums(K, np.bincount(y[obs], minlength=C), counts)
        nominal = nominal | hole_cols  # the columns with holes are done
        cont = np.flatnonzero(~nominal)
        # never more workers than chunks of columns (joblib refuses a huge n_jobs)
        workers = max(1, min(effective_n_jobs(self.n_jobs), cont.size))
        if cont.size:
            chunks = np.array_split(cont, min(cont.size, 4 * workers)) if workers > 1 else [cont]
            if workers > 1:
                from joblib import Parallel, delayed

                res = Parallel(n_jobs=workers, backend="threading")(
                    delayed(gaussian_class_sums)(Z[:, ch], y, sig[ch], n_classes=C) for ch in chunks
                )
            else:
                res = [gaussian_class_sums(Z[:, cont], y, sig[cont], n_classes=C)]
            for ch, r in zip(chunks, res, strict=True):
                S[ch] = r
        onehot = np.zeros((n, C))
        onehot[np.arange(n), y] = 1.0
        for j in np.flatnonzero(nominal & ~hole_cols):
            _, inv = np.unique(Z[:, j], return_inverse=True)
            cnt = np.zeros((int(inv.max()) + 1, C))
            np.add.at(cnt, inv.reshape(-1), onehot)
            S[j] = cnt.T @ cnt
        return parzen_mean_margin(S, counts)

    def _margin_many_classes(self, Z, y, sig, nominal, counts):
        d = Z.shape[1]
        C = counts.size
        hits = np.zeros((d, C))
        totals = np.zeros((d, C))
        cont = np.flatnonzero(~nominal)
        if cont.size:
            hits[cont], totals[cont] = gaussian_hit_total_sums(
                Z[:, cont], y, sig[cont], n_classes=C
            )
        for j in np.flatnonzero(nominal):
            _, inv = np.unique(Z[:, j], return_inverse=True)
            inv = inv.reshape(-1)
            level_n = np.bincount(inv)
            # same-level pairs: per class, sum over levels of (members at the level)^2
            key = y * level_n.size + inv
            ck = np.bincount(key).astype(np.float64)
            hits[j] = np.bincount(np.arange(ck.size) // level_n.size, weights=ck * ck, minlength=C)[
                :C
            ]
            totals[j] = np.bincount(y, weights=level_n[inv].astype(np.float64), minlength=C)
        N = counts.sum()
        cf = counts.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            hit = np.where(counts > 1, (hits - cf) / (cf - 1), 0.0)
            other = (totals - hits) / (N - cf)
        return (hit - other).sum(axis=1) / N
