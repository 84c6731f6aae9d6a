r"""Model-X knockoffs: the Gaussian construction, the statistics and the thresholds.

Every formula of :class:`fsel.meta.knockoffs.KnockoffFilter` lives here, one
documented function each.

**Second-order Gaussian knockoffs** (Candès, Fan, Janson & Lv 2018, section 3.1). With
:math:`X \sim N(\mu, \Sigma)` and :math:`S = \mathrm{diag}(s)` such that
:math:`2\Sigma - S \succeq 0`, the knockoff copy is drawn from

.. math::

    \tilde X \mid X \sim N\big(\mu + (X - \mu)(I - \Sigma^{-1} S),\;
    2S - S\Sigma^{-1}S\big),

so that :math:`[X, \tilde X]` has covariance
:math:`G = \begin{pmatrix}\Sigma & \Sigma - S\\ \Sigma - S & \Sigma\end{pmatrix}`,
which is unchanged when any column is swapped with its knockoff; together with the
Gaussian law this is the exchangeability that makes the knockoff filter's false
discovery rate at most ``q``. :math:`\Sigma` is estimated by Ledoit & Wolf's shrinkage
(:func:`shrinkage_covariance`); with an estimated covariance the guarantee is
approximate (it holds for the estimate, not the truth).

**Choosing s** on the correlation scale :math:`C` (``s`` is then multiplied by the
variances): equicorrelated :math:`s_j = \min(1, 2\lambda_{\min}(C))`
(:func:`equicorrelated_s`); the semidefinite programme
:math:`\max \sum_j s_j` s.t. :math:`0 \le s_j \le 1`, :math:`2C - \mathrm{diag}(s) \succeq 0`,
solved by a log-barrier coordinate ascent (:func:`sdp_s`); and the approximate SDP
(ASDP, Candès et al. 2018, section 3.4.2): the SDP on the diagonal blocks of a
hierarchical clustering of the features, then the largest :math:`\gamma \le 1` with
:math:`2C - \gamma\,\mathrm{diag}(s) \succeq 0` (:func:`asdp_s`, :func:`max_feasible_scale`).

**Statistics and threshold.** Importances :math:`Z` of the ``2p`` columns give
:math:`W_j = Z_j - Z_{j+p}` (:func:`knockoff_w`); a pick order gives
:math:`Z = 2p - \text{position}` to picked columns, 0 to the rest
(:func:`pick_order_importances`). The knockoff+ threshold (Barber & Candès 2015) is

.. math::

    T = \min\Big\{t \in \{|W_j| : W_j \ne 0\} :
        \frac{1 + \#\{j : W_j \le -t\}}{\max(1, \#\{j : W_j \ge t\})} \le q\Big\}

(:func:`knockoff_threshold`; :math:`+\infty` when no ``t`` qualifies). Several draws
are combined by the e-values of Ren & Barber (2024) and the e-BH procedure
(:func:`knockoff_evalues`, :func:`ebh_select`).

References
----------
Barber, R. F. & Candès, E. J. (2015). Controlling the false discovery rate via
knockoffs. Ann. Statist. 43(5), 2055-2085.
Candès, E., Fan, Y., Janson, L. & Lv, J. (2018). Panning for gold: model-X knockoffs
for high dimensional controlled variable selection. JRSS-B 80(3), 551-577.
Ledoit, O. & Wolf, M. (2004). A well-conditioned estimator for large-dimensional
covariance matrices. J. Multivariate Anal. 88(2), 365-411.
Ren, Z. & Barber, R. F. (2024). Derandomised knockoffs: leveraging e-values for false
discovery rate control. JRSS-B 86(1), 122-154.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "asdp_s",
    "cluster_blocks",
    "ebh_select",
    "equicorrelated_s",
    "gaussian_knockoffs",
    "knockoff_conditional",
    "knockoff_evalues",
    "knockoff_sampler",
    "knockoff_threshold",
    "knockoff_w",
    "max_feasible_scale",
    "pick_order_importances",
    "sdp_s",
    "shrinkage_covariance",
    "solve_s",
]

S_METHODS = ("equicorrelated", "asdp", "sdp")
#: s is multiplied by this so that the conditional covariance stays positive definite
_SAFETY = 1.0 - 1e-6


# --------------------------------------------------------------------------- covariance
def shrinkage_covariance(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Mean and Ledoit-Wolf shrinkage covariance of the rows of ``X``.

    :math:`\hat\Sigma = (1 - \delta) S_n + \delta\,\bar\sigma^2 I` with the sample
    covariance :math:`S_n` (divided by ``n``), :math:`\bar\sigma^2 = \mathrm{tr}(S_n)/p`
    and Ledoit & Wolf's (2004) estimate of the optimal :math:`\delta`
    (:func:`sklearn.covariance.ledoit_wolf`). It is positive definite whenever
    :math:`\delta > 0`, also for ``p > n``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(500, 3))
    >>> mu, cov = shrinkage_covariance(X)
    >>> cov.shape, bool(np.all(np.linalg.eigvalsh(cov) > 0))
    ((3, 3), True)
    """
    from sklearn.covariance import ledoit_wolf

    X = np.asarray(X, dtype=np.float64)
    mu = X.mean(axis=0)
    if X.shape[1] == 1:
        return mu, np.array([[float(X.var())]])
    cov, _ = ledoit_wolf(X - mu, assume_centered=True)
    return mu, cov


def _to_correlation(sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Correlation matrix and standard deviations (a zero variance is taken as 1)."""
    sd = np.sqrt(np.clip(np.diag(sigma), 0.0, None))
    sd = np.where(sd > 0, sd, 1.0)
    corr = sigma / np.outer(sd, sd)
    np.fill_diagonal(corr, 1.0)
    return corr, sd


# --------------------------------------------------------------------------- choosing s
def equicorrelated_s(corr: np.ndarray) -> np.ndarray:
    r"""Equicorrelated knockoffs: :math:`s_j = \min(1, 2\lambda_{\min}(C))` for all j.

    ``corr`` is a correlation matrix :math:`C`; this is the largest common ``s`` with
    :math:`2C - sI \succeq 0`.

    Examples
    --------
    >>> import numpy as np
    >>> equicorrelated_s(np.array([[1.0, 0.5], [0.5, 1.0]])).tolist()  # 2 * 0.5
    [1.0, 1.0]
    >>> equicorrelated_s(np.array([[1.0, 0.8], [0.8, 1.0]])).round(3).tolist()
    [0.4, 0.4]
    """
    lam = float(np.linalg.eigvalsh(corr)[0])
    return np.full(corr.shape[0], max(0.0, min(1.0, 2.0 * lam)))


def sdp_s(corr: np.ndarray, *, tol: float = 1e-4, max_sweeps: int = 20) -> np.ndarray:
    r"""SDP knockoffs by a log-barrier coordinate ascent.

    Maximises :math:`\sum_j s_j + \mu \log\det(2C - \mathrm{diag}(s))` over
    :math:`0 \le s_j \le 1` for a barrier weight :math:`\mu` halved from 0.1 down to
    ``tol`` (up to ``max_sweeps`` sweeps per value), which follows the central path to
    the SDP :math:`\max \sum_j s_j` s.t. :math:`2C - \mathrm{diag}(s) \succeq 0`. With
    :math:`G = 2C - \mathrm{diag}(s)`, the objective in :math:`s_j` alone is
    :math:`s_j + \mu\log(c_j - s_j)` with the Schur complement
    :math:`c_j = s_j + 1/(G^{-1})_{jj}`, maximised at
    :math:`s_j = \mathrm{clip}(c_j - \mu, 0, 1)`; :math:`G^{-1}` follows each update by
    Sherman-Morrison and is recomputed at every sweep. A sweep costs :math:`O(p^3)`.
    The result is within about ``tol`` per coordinate of the SDP's optimum.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[1.0, 0.9], [0.9, 1.0]])
    >>> round(float(sdp_s(C).sum()), 2)   # the SDP optimum: s = (0.2, 0.2), sum 0.4
    0.4
    """
    p = corr.shape[0]
    if p == 1:
        return np.ones(1)
    s = equicorrelated_s(corr) * 0.5
    mu = 0.1
    while True:
        for _ in range(max_sweeps):
            Ginv = np.linalg.inv(2.0 * corr - np.diag(s))
            moved = 0.0
            for j in range(p):
                c = s[j] + 1.0 / Ginv[j, j]
                new = min(1.0, max(0.0, c - mu))
                delta = new - s[j]
                if delta == 0.0:
                    continue
                # G_new = G - delta e_j e_j^T (Sherman-Morrison)
                col = Ginv[:, j].copy()
                Ginv += np.outer(col, col) * (delta / (1.0 - delta * Ginv[j, j]))
                s[j] = new
                moved = max(moved, abs(delta))
            if moved < mu * 1e-2:
                break
        if mu <= tol:
            return s
        mu = max(tol, mu * 0.5)


def max_feasible_scale(corr: np.ndarray, s: np.ndarray) -> float:
    r"""The largest :math:`\gamma \le 1` with :math:`2C - \gamma\,\mathrm{diag}(s) \succeq 0`.

    For positive definite :math:`C` it is
    :math:`\min\big(1, 1/\lambda_{\max}\big)` with :math:`\lambda_{\max}` the largest
    generalised eigenvalue of :math:`\mathrm{diag}(s)\,v = \lambda\,2C\,v`.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[1.0, 0.8], [0.8, 1.0]])
    >>> round(max_feasible_scale(C, np.array([1.0, 1.0])), 3)   # 2 * 0.2 / 1
    0.4
    """
    from scipy.linalg import eigh

    if not np.any(s > 0):
        return 1.0
    p = corr.shape[0]
    lam = float(eigh(np.diag(s), 2.0 * corr, eigvals_only=True, subset_by_index=[p - 1, p - 1])[0])
    return 1.0 if lam <= 1.0 else 1.0 / lam


def cluster_blocks(corr: np.ndarray, max_block: int) -> list[np.ndarray]:
    """Groups of features of at most ``max_block``, by average-linkage clustering on
    the distance :math:`1 - |C_{jk}|` (the fewest clusters whose largest group fits).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.eye(4); C[0, 1] = C[1, 0] = C[2, 3] = C[3, 2] = 0.9
    >>> sorted(b.tolist() for b in cluster_blocks(C, 2))
    [[0, 1], [2, 3]]
    """
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    p = corr.shape[0]
    if p <= max_block:
        return [np.arange(p)]
    dist = np.clip(1.0 - np.abs(corr), 0.0, None)
    np.fill_diagonal(dist, 0.0)
    tree = linkage(squareform(dist, checks=False), method="average")

    def groups(k: int) -> list[np.ndarray]:
        labels = fcluster(tree, t=k, criterion="maxclust")
        return [np.flatnonzero(labels == c) for c in np.unique(labels)]

    lo, hi = max(1, math.ceil(p / max_block)), p  # the largest group shrinks as k grows
    while lo < hi:
        mid = (lo + hi) // 2
        if max(g.size for g in groups(mid)) <= max_block:
            hi = mid
        else:
            lo = mid + 1
    return groups(lo)


def asdp_s(corr: np.ndarray, *, max_block: int = 50) -> np.ndarray:
    """Approximate SDP: :func:`sdp_s` on the blocks of :func:`cluster_blocks`, then
    scaled by :func:`max_feasible_scale` so that the whole matrix is feasible; the
    equicorrelated ``s`` is returned instead when its sum is larger (both are feasible
    and depend on ``C`` only, so taking the larger keeps the construction valid).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.eye(4); C[0, 1] = C[1, 0] = C[2, 3] = C[3, 2] = 0.9
    >>> round(float(asdp_s(C, max_block=2).sum()), 2)   # each block's SDP; no overlap
    0.8
    """
    p = corr.shape[0]
    s = np.empty(p)
    for block in cluster_blocks(corr, max_block):
        s[block] = sdp_s(corr[np.ix_(block, block)])
    s = s * max_feasible_scale(corr, s)
    equi = equicorrelated_s(corr)
    return equi if equi.sum() > s.sum() else s


def solve_s(sigma: np.ndarray, method: str = "asdp", *, max_block: int = 50) -> np.ndarray:
    """The diagonal ``s`` for covariance ``sigma`` by ``method`` (on the correlation
    scale, multiplied back by the variances and by ``1 - 1e-6`` for numerical safety).

    Examples
    --------
    >>> import numpy as np
    >>> solve_s(np.diag([4.0, 1.0]), "equicorrelated").round(4).tolist()  # s = var
    [4.0, 1.0]
    """
    corr, sd = _to_correlation(sigma)
    if method == "equicorrelated":
        s = equicorrelated_s(corr)
    elif method == "asdp":
        s = asdp_s(corr, max_block=max_block)
    elif method == "sdp":
        s = sdp_s(corr)
        s = s * max_feasible_scale(corr, s)
    else:
        raise ValueError(f"s_method must be one of {S_METHODS}, got {method!r}")
    return np.clip(s, 0.0, 1.0) * _SAFETY * sd**2


# --------------------------------------------------------------------------- sampling
def knockoff_conditional(sigma: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The conditional law of Gaussian knockoffs: :math:`A = I - \Sigma^{-1}S` and
    :math:`V = 2S - S\Sigma^{-1}S`, so that :math:`\tilde X = \mu + (X - \mu)A + E`
    with :math:`E \sim N(0, V)`.

    Then :math:`\mathrm{Cov}(X, \tilde X) = \Sigma A = \Sigma - S` and
    :math:`\mathrm{Cov}(\tilde X) = A^\top\Sigma A + V = \Sigma`.

    Examples
    --------
    >>> import numpy as np
    >>> A, V = knockoff_conditional(np.eye(2), np.array([1.0, 1.0]))
    >>> A.tolist(), V.tolist()    # independent features: X~ is a fresh draw
    ([[0.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]])
    """
    S = np.diag(s)
    sinv_s = np.linalg.solve(sigma, S)  # Sigma^{-1} S
    A = np.eye(sigma.shape[0]) - sinv_s
    # S @ sinv_s with S diagonal: row i scaled by s_i (the same numbers as the dense
    # product, whose other terms are exact zeros, in O(p^2) instead of O(p^3))
    V = 2.0 * S - s[:, None] * sinv_s
    V = (V + V.T) / 2.0
    return A, V


def _psd_sqrt(V: np.ndarray) -> np.ndarray:
    """``L`` with ``L @ L.T == V`` for a symmetric PSD ``V`` (negative eigenvalues from
    rounding are set to 0)."""
    lam, U = np.linalg.eigh(V)
    return U * np.sqrt(np.clip(lam, 0.0, None))


def knockoff_sampler(sigma: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The draw-independent part of the Gaussian knockoffs: ``A`` of
    :func:`knockoff_conditional` and ``L`` with :math:`LL^\top = V` (from
    :math:`V`'s eigendecomposition, rounding's negative eigenvalues set to 0).

    Both cost :math:`O(p^3)` and depend on ``sigma`` and ``s`` only: a caller drawing
    several times computes them once and passes them to :func:`gaussian_knockoffs`
    (``sampler=``), as :class:`~fsel.meta.knockoffs.KnockoffFilter` does for its draws.

    Examples
    --------
    >>> import numpy as np
    >>> sigma = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> A, L = knockoff_sampler(sigma, np.array([0.5, 0.5]))
    >>> np.allclose(L @ L.T, knockoff_conditional(sigma, np.array([0.5, 0.5]))[1])
    True
    """
    A, V = knockoff_conditional(sigma, s)
    return A, _psd_sqrt(V)


def gaussian_knockoffs(
    X: np.ndarray,
    mu: np.ndarray,
    sigma: np.ndarray,
    s: np.ndarray,
    rng: np.random.Generator,
    sampler: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    r"""Draw second-order Gaussian knockoffs of the rows of ``X``:
    :math:`\tilde X = \mu + (X - \mu)A + E L^\top` with ``A, L`` from
    :func:`knockoff_sampler` (:math:`LL^\top = V`) and ``E`` standard normal.

    The :math:`O(p^3)` set-up ``A, L`` depends on ``sigma`` and ``s`` only: pass it as
    ``sampler`` (:func:`knockoff_sampler`) to draw several times for one set-up (the
    draws of one :class:`~fsel.meta.knockoffs.KnockoffFilter` fit); without it, it is
    computed here.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 2))
    >>> Xk = gaussian_knockoffs(X, np.zeros(2), np.eye(2), np.ones(2) * 0.5,
    ...                         np.random.default_rng(1))
    >>> Xk.shape
    (5, 2)
    """
    A, L = knockoff_sampler(sigma, s) if sampler is None else sampler
    E = rng.standard_normal(X.shape)
    return mu + (X - mu) @ A + E @ L.T


# --------------------------------------------------------------------------- statistics
def pick_order_importances(order: Any, n_columns: int) -> np.ndarray:
    """Importances from a pick order: ``n_columns - position`` (position 0 for the
    first pick) for picked columns, 0 for the others.

    Examples
    --------
    >>> pick_order_importances([2, 0], 4).tolist()
    [3.0, 0.0, 4.0, 0.0]
    """
    z = np.zeros(n_columns)
    order = np.asarray(order, dtype=np.intp)
    z[order] = n_columns - np.arange(order.size)
    return z


def knockoff_w(z: np.ndarray) -> np.ndarray:
    r"""The antisymmetric statistic :math:`W_j = Z_j - Z_{j+p}` from ``2p`` importances
    (originals first, knockoffs second). Swapping a feature with its knockoff flips the
    sign of its :math:`W_j` only.

    Examples
    --------
    >>> knockoff_w([3.0, 1.0, 0.5, 2.0]).tolist()
    [2.5, -1.0]
    """
    z = np.asarray(z, dtype=np.float64)
    if z.ndim != 1 or z.size % 2:
        raise ValueError(f"need 2p importances (originals then knockoffs), got shape {z.shape}")
    p = z.size // 2
    return z[:p] - z[p:]


def knockoff_threshold(W: Any, fdr: float, offset: int = 1) -> float:
    r"""The knockoff+ threshold (``offset=1``; ``offset=0`` is the plain knockoff
    threshold, which controls a modified FDR only).

    :math:`T = \min\{t \in \{|W_j|: W_j \ne 0\} : (\text{offset} + \#\{W_j \le -t\})
    / \max(1, \#\{W_j \ge t\}) \le q\}`, ``inf`` when no ``t`` qualifies. Features with
    :math:`W_j \ge T` are selected.

    Examples
    --------
    >>> knockoff_threshold([5, 4, 3, 2, 1, -1], 0.5)   # t = 1: (1 + 1) / 5 <= 0.5
    1.0
    >>> knockoff_threshold([5, 4, 3, 2, 1, -1], 0.2)   # t = 2: (1 + 0) / 4 > 0.2
    inf
    """
    W = np.asarray(W, dtype=np.float64)
    t = np.unique(np.abs(W[W != 0]))  # ascending
    if t.size == 0:
        return math.inf
    neg = np.sort(-W[W < 0])  # |negative W|, ascending
    pos = np.sort(W[W > 0])
    n_neg = neg.size - np.searchsorted(neg, t, side="left")  # #{W <= -t}
    n_pos = pos.size - np.searchsorted(pos, t, side="left")  # #{W >= t}
    ratio = (offset + n_neg) / np.maximum(1, n_pos)
    ok = np.flatnonzero(ratio <= fdr)
    return float(t[ok[0]]) if ok.size else math.inf


def knockoff_evalues(W: Any, threshold: float) -> np.ndarray:
    r"""Knockoff e-values (Ren & Barber 2024):
    :math:`e_j = p\,\mathbf 1\{W_j \ge T\} / (1 + \#\{k : W_k \le -T\})`;
    all zero when :math:`T = \infty`. The ``1 +`` holds whatever offset chose ``T``:
    it keeps every e-value finite with mean at most 1 under the null (without it a
    draw with no negative statistic beyond ``T`` divided by zero).

    Examples
    --------
    >>> knockoff_evalues([3.0, 2.0, -1.0, 0.5], 2.0).tolist()   # 4 / (1 + 0)
    [4.0, 4.0, 0.0, 0.0]
    """
    W = np.asarray(W, dtype=np.float64)
    if not math.isfinite(threshold):
        return np.zeros(W.size)
    return W.size * (W >= threshold) / (1 + np.count_nonzero(W <= -threshold))


def ebh_select(e: Any, fdr: float) -> np.ndarray:
    r"""The e-BH procedure (Wang & Ramdas 2022): with :math:`e_{(1)} \ge \dots`, select
    the ``k`` largest e-values for the largest ``k`` with :math:`e_{(k)} \ge p/(qk)`.
    Returns the selected indices (by decreasing e-value, then index).

    Examples
    --------
    >>> ebh_select([10.0, 0.0, 25.0, 1.0], 0.2).tolist()   # 10 >= 4 / (0.2 * 2)
    [2, 0]
    """
    e = np.asarray(e, dtype=np.float64)
    p = e.size
    order = np.lexsort((np.arange(p), -e))
    k = np.arange(1, p + 1)
    ok = np.flatnonzero(e[order] >= p / (fdr * k))
    if ok.size == 0:
        return np.zeros(0, dtype=np.intp)
    return order[: ok[-1] + 1].astype(np.intp)
