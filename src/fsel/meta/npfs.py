r"""NPFS: the Neyman-Pearson test on bootstrap selections (Ditzler, Polikar & Rosen 2015).

A base selector that returns ``k`` of ``K`` features is run on ``n`` bootstrap samples
of the rows. Under the null hypothesis that a feature is picked at random, its number
of selections :math:`z_i` is binomial :math:`B(n, p_0)` with :math:`p_0 = k/K`. The
Neyman-Pearson test of size :math:`\alpha` declares feature ``i`` relevant iff

.. math::

    z_i > \zeta, \qquad
    \zeta = \min\{t \in \mathbb{Z} : F_{B(n, p_0)}(t) \ge 1 - \alpha\}

(docs/user_guide/npfs_stability.rst). The number of relevant features need not be ``k``: the test
trims a
``k`` chosen too large and, given enough bootstraps, grows one chosen too small.

Beyond the paper: one-sided p-values :math:`P(Z \ge z_i \mid H_0)`, optional
Bonferroni / Benjamini-Hochberg control over the ``K`` tests, any resampling scheme of
:mod:`fsel.meta.resampling`, a stability report of the bootstrap selections, and an
exact rule when the base selector's ``k`` varies between replicates: :math:`Z_i` is
then a sum of independent Bernoulli(:math:`k_l/K`) variables (Poisson-binomial) and
the same quantile rule is applied to that distribution (it is the binomial when all
:math:`k_l` are equal).

Reference
---------
Ditzler, G., Polikar, R. & Rosen, G. (2015). A bootstrap based Neyman-Pearson test
for identifying variable importance. IEEE Trans. Neural Netw. Learn. Syst. 26(4),
880-886.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy.stats import binom
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from fsel.meta.resampling import RESAMPLING, check_meta_input, selection_matrix
from fsel.meta.stability import StabilityReport, stability_report
from fsel.selectors._base import BaseSelector
from fsel.utils.params import check_fraction, validate_params

__all__ = [
    "NPFS",
    "NPFSPowerWarning",
    "NPFSResult",
    "min_bootstraps",
    "npfs_curve",
    "npfs_permutation_test",
    "npfs_pvalues",
    "npfs_test",
    "npfs_threshold",
]

_CORRECTIONS = (None, "bonferroni", "bh")


class NPFSPowerWarning(UserWarning):
    """Too few bootstraps: no feature can pass the test at this ``alpha``."""


# --------------------------------------------------------------------------- null law
def _null_pmf(n: int, p: np.ndarray) -> np.ndarray:
    """pmf of a sum of independent Bernoulli(p_l), l = 1..n (Poisson-binomial)."""
    pmf = np.zeros(n + 1)
    pmf[0] = 1.0
    for i, pl in enumerate(p.tolist()):
        pmf[1 : i + 2] = pmf[1 : i + 2] * (1.0 - pl) + pmf[: i + 1] * pl
        pmf[0] *= 1.0 - pl
    return pmf


def _null_cdf_sf(n: int, p0: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``cdf[t] = P(Z <= t)`` and ``tail[t] = P(Z >= t)`` for ``t = 0..n``."""
    t = np.arange(n + 1)
    p = np.asarray(p0, dtype=np.float64)
    if p.ndim == 0 or np.all(p == p.flat[0]):
        q = float(p.flat[0])
        return binom.cdf(t, n, q), binom.sf(t - 1, n, q)
    pmf = _null_pmf(n, p)
    cdf = np.minimum(np.cumsum(pmf), 1.0)
    cdf[-1] = 1.0
    tail = np.minimum(np.cumsum(pmf[::-1])[::-1], 1.0)
    tail[0] = 1.0
    return cdf, tail


def _zeta(cdf: np.ndarray, alpha: float) -> int:
    ok = np.flatnonzero(cdf >= 1.0 - alpha)
    return int(ok[0]) if ok.size else cdf.size - 1


def _check_alpha(alpha: Any, owner: str = "") -> float:
    """``alpha``: the shared rule of a level in (0, 1)
    (:func:`fsel.utils.params.check_fraction`)."""
    return check_fraction(alpha, "alpha", owner)


def _check_nkK(n: Any, k: Any, K: Any) -> tuple[int, int, int]:
    for name, v in (("n", n), ("k", k), ("K", K)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{name} must be an int, got {v!r}")
    if n < 1:
        raise ValueError(f"the number of bootstraps n must be at least 1, got {n}")
    if K < 1 or not 0 <= k <= K:
        raise ValueError(f"need 0 <= k <= K and K >= 1, got k={k}, K={K}")
    return int(n), int(k), int(K)


def npfs_threshold(n: int, k: int, K: int, alpha: float = 0.01) -> int:
    r"""The NPFS critical count :math:`\zeta` (Ditzler et al. 2015, eq. 3;
    docs/user_guide/npfs_stability.rst).

    :math:`\zeta` is the smallest integer with
    :math:`F_{B(n, k/K)}(\zeta) \ge 1 - \alpha`; a feature selected in more than
    :math:`\zeta` of the ``n`` bootstraps is relevant.

    Parameters
    ----------
    n : int
        Number of bootstraps.
    k : int
        Number of features the base selector returns.
    K : int
        Number of candidate features.
    alpha : float
        Size of the test.

    Examples
    --------
    >>> npfs_threshold(100, 5, 25, 0.01)   # B(100, 0.2): P(Z <= 30) >= 0.99
    30
    >>> npfs_threshold(10, 1, 2, 0.05)
    8
    """
    n, k, K = _check_nkK(n, k, K)
    cdf, _ = _null_cdf_sf(n, k / K)
    return _zeta(cdf, _check_alpha(alpha))


def npfs_pvalues(counts: Any, n: int, k: int, K: int) -> np.ndarray:
    r"""One-sided p-values :math:`P(Z \ge z_i \mid H_0)`, :math:`Z \sim B(n, k/K)`.

    Examples
    --------
    >>> npfs_pvalues([0, 10], 10, 1, 2).round(6).tolist()   # 1 and 0.5**10
    [1.0, 0.000977]
    """
    n, k, K = _check_nkK(n, k, K)
    z = np.asarray(counts)
    if z.size and (z.min() < 0 or z.max() > n):
        raise ValueError(f"counts must lie in [0, n={n}]")
    _, tail = _null_cdf_sf(n, k / K)
    return tail[z.astype(np.intp)]


def min_bootstraps(k: float, K: int, alpha: float = 0.01) -> int | None:
    r"""Smallest ``n`` at which a feature selected in every bootstrap is relevant.

    It is the smallest ``n`` with :math:`(k/K)^n \le \alpha`; None when ``k = K``
    (every feature is always selected, so none can ever stand out).

    Examples
    --------
    >>> min_bootstraps(5, 25, 0.01)   # 0.2**3 = 0.008 <= 0.01
    3
    >>> min_bootstraps(24, 25, 0.01)
    113
    """
    alpha = _check_alpha(alpha)
    p0 = float(k) / float(K)
    if p0 >= 1.0:
        return None
    if p0 <= 0.0:
        return 1
    n = max(1, math.ceil(math.log(alpha) / math.log(p0)) - 1)
    while True:  # settle float rounding with the exact rule zeta(n) < n
        cdf, _ = _null_cdf_sf(n, p0)
        if _zeta(cdf, alpha) < n:
            return n
        n += 1


# --------------------------------------------------------------------------- the test
@dataclass(frozen=True)
class NPFSResult:
    """Outcome of :func:`npfs_test` on an ``n x K`` (replicates x features) selection
    matrix.

    Attributes
    ----------
    counts : ndarray of int, shape (K,)
        :math:`z_i`, the number of bootstraps that selected feature ``i``.
    threshold : int
        The critical count; ``support == counts > threshold``.
    pvalues : ndarray of float, shape (K,)
        :math:`P(Z \\ge z_i \\mid H_0)`.
    support : ndarray of bool, shape (K,)
    relevant : ndarray of int
        Relevant features by count (descending), then index.
    p0 : float
        Mean null selection probability :math:`\\bar k / K`.
    n_selected : ndarray of int, shape (n,)
        Features the base selector returned on each bootstrap.
    alpha_effective : float
        The level the threshold was computed at (``alpha``, ``alpha / K`` for
        Bonferroni, the Benjamini-Hochberg step level for "bh").
    """

    counts: np.ndarray
    threshold: int
    pvalues: np.ndarray
    support: np.ndarray
    relevant: np.ndarray
    p0: float
    n_selected: np.ndarray
    alpha_effective: float

    @property
    def n_relevant(self) -> int:
        return int(self.support.sum())


def npfs_test(matrix: Any, alpha: float = 0.01, correction: str | None = None) -> NPFSResult:
    r"""Apply the NPFS test to an ``n x K`` 0/1 matrix of bootstrap selections (one row
    per replicate, one column per feature).

    The null law of each count is :math:`B(n, k/K)` when every column selects ``k``
    features, else the Poisson-binomial law of a sum of Bernoulli(:math:`k_l/K`)
    (see the module docstring). ``correction`` is None (the paper's per-feature rule),
    ``"bonferroni"`` (level ``alpha / K``) or ``"bh"`` (Benjamini-Hochberg at false
    discovery rate ``alpha`` over the ``K`` p-values).

    Examples
    --------
    >>> import numpy as np
    >>> M = np.zeros((10, 4), dtype=bool)
    >>> M[:, 0] = True                  # feature 0 picked every time (k = 1, K = 4)
    >>> r = npfs_test(M, alpha=0.01)
    >>> r.threshold, r.relevant.tolist()   # B(10, 1/4): P(Z <= 6) >= 0.99
    (6, [0])
    """
    X = np.asarray(matrix)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(
            f"the selection matrix must be 2-D (replicates x features) and non-empty, got {X.shape}"
        )
    if X.dtype != bool:
        if not np.isin(X, (0, 1)).all():
            raise ValueError("the selection matrix must hold only 0/1 or booleans")
        X = X.astype(bool)
    alpha = _check_alpha(alpha)
    if correction not in _CORRECTIONS:
        raise ValueError(f"correction must be None, 'bonferroni' or 'bh', got {correction!r}")
    n, K = X.shape
    counts = X.sum(axis=0).astype(np.intp)
    n_sel = X.sum(axis=1).astype(np.intp)
    p = n_sel / K
    cdf, tail = _null_cdf_sf(n, p)
    pvalues = tail[counts]
    if correction is None:
        a_eff = alpha
        threshold = _zeta(cdf, a_eff)
        support = counts > threshold
    elif correction == "bonferroni":
        a_eff = alpha / K
        threshold = _zeta(cdf, a_eff)
        support = counts > threshold
    else:  # Benjamini-Hochberg step-up
        order = np.argsort(pvalues, kind="stable")
        ok = np.flatnonzero(pvalues[order] <= alpha * np.arange(1, K + 1) / K)
        if ok.size:
            m = int(ok[-1]) + 1
            a_eff = alpha * m / K
            support = pvalues <= pvalues[order[m - 1]]
            threshold = int(counts[support].min()) - 1
        else:
            a_eff = alpha / K
            threshold = _zeta(cdf, a_eff)
            support = counts > threshold
    idx = np.arange(K)
    rank = np.lexsort((idx, -counts))
    relevant = rank[support[rank]].astype(np.intp)
    return NPFSResult(
        counts=counts,
        threshold=int(threshold),
        pvalues=pvalues,
        support=support,
        relevant=relevant,
        p0=float(p.mean()),
        n_selected=n_sel,
        alpha_effective=float(a_eff),
    )


def npfs_permutation_test(
    matrix: Any, null_counts: Any, alpha: float = 0.01, correction: str | None = None
) -> NPFSResult:
    r"""The NPFS test with its null law estimated from permuted targets.

    ``null_counts`` (``M x K``) holds the selection counts of the same procedure run
    with ``y`` permuted ``M`` times. They are pooled into one empirical null law
    :math:`\hat F` of a count, and feature ``i`` is relevant iff
    :math:`z_i > \zeta = \min\{t : \hat F(t) \ge 1 - \alpha\}`; its p-value is
    :math:`(1 + \#\{\text{null counts} \ge z_i\}) / (1 + MK)`. ``correction`` works
    as in :func:`npfs_test` on these p-values (Bonferroni: :math:`p_i \le \alpha/K`,
    which needs :math:`1/(1 + MK) \le \alpha/K`, i.e. enough permutations), and
    ``threshold`` is then the largest count that does not pass (``n`` when none
    does). When ``y`` is unrelated to ``X`` the
    share of features found relevant is about ``alpha`` (averaged over the features:
    one the selector favours under the null, e.g. with more distinct values, can be
    found relevant more often).

    Examples
    --------
    >>> import numpy as np
    >>> M = np.zeros((10, 4), dtype=bool); M[:, 0] = True
    >>> null = np.array([[3, 2, 3, 2], [2, 3, 2, 3]])   # permuted y: no favourite
    >>> r = npfs_permutation_test(M, null, alpha=0.05)
    >>> r.threshold, r.relevant.tolist(), round(float(r.pvalues[0]), 3)   # 1 / 9
    (3, [0], 0.111)
    """
    X = np.asarray(matrix).astype(bool)
    null = np.asarray(null_counts, dtype=np.intp)
    alpha = _check_alpha(alpha)
    if correction not in _CORRECTIONS:
        raise ValueError(f"correction must be None, 'bonferroni' or 'bh', got {correction!r}")
    n, K = X.shape
    counts = X.sum(axis=0).astype(np.intp)
    pooled = np.sort(null.reshape(-1))
    m = pooled.size
    n_ge = m - np.searchsorted(pooled, counts, side="left")
    pvalues = (1.0 + n_ge) / (1.0 + m)
    cdf = np.searchsorted(pooled, np.arange(n + 1), side="right") / m
    a_eff = alpha
    threshold = _zeta(cdf, a_eff)
    support = counts > threshold
    if correction == "bonferroni":  # on the p-values: the null's quantile at alpha / K
        a_eff = alpha / K  # is below its resolution 1 / (1 + MK) unless M is large
        support = pvalues <= a_eff
    elif correction == "bh":
        order = np.argsort(pvalues, kind="stable")
        ok = np.flatnonzero(pvalues[order] <= alpha * np.arange(1, K + 1) / K)
        a_eff = alpha / K  # no rejection: as npfs_test
        support = np.zeros(K, dtype=bool)
        if ok.size:
            a_eff = alpha * (int(ok[-1]) + 1) / K
            support = pvalues <= pvalues[order[int(ok[-1])]]
    if correction is not None:  # support_ == counts_ > threshold_ (p falls with z)
        threshold = int(counts[support].min()) - 1 if support.any() else n
    n_sel = X.sum(axis=1).astype(np.intp)
    rank = np.lexsort((np.arange(K), -counts))
    return NPFSResult(
        counts=counts,
        threshold=int(threshold),
        pvalues=pvalues,
        support=support,
        relevant=rank[support[rank]].astype(np.intp),
        p0=float(n_sel.mean() / K),
        n_selected=n_sel,
        alpha_effective=float(a_eff),
    )


def npfs_curve(
    matrix: Any,
    n_resamples: Sequence[int] | None = None,
    *,
    alpha: float = 0.01,
    correction: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Number of relevant features found with the first ``n`` bootstraps, for each ``n``.

    The curve of Ditzler et al.'s Fig. 2, computed from one ``K x N`` matrix by
    testing its first ``n`` rows (so the curves for all ``n`` share their draws).

    Returns
    -------
    ns : ndarray of int
    n_relevant : ndarray of int

    Examples
    --------
    >>> import numpy as np
    >>> M = np.zeros((10, 4), dtype=bool); M[:, 0] = True
    >>> npfs_curve(M, [1, 3, 10])[1].tolist()
    [0, 0, 1]
    """
    X = np.asarray(matrix)
    if X.ndim != 2:
        raise ValueError(
            f"the selection matrix must be 2-D (replicates x features), got shape {X.shape}"
        )
    total = X.shape[0]
    ns = np.arange(1, total + 1) if n_resamples is None else np.asarray(n_resamples, np.intp)
    if ns.size and (ns.min() < 1 or ns.max() > total):
        raise ValueError(f"every n must lie in [1, {total}]")
    out = np.array(
        [npfs_test(X[:m], alpha=alpha, correction=correction).n_relevant for m in ns.tolist()],
        dtype=np.intp,
    )
    return ns, out


# --------------------------------------------------------------------------- estimator
class NPFS(BaseSelector):
    r"""Neyman-Pearson feature selection around any base selector.

    Runs ``selector`` on ``n_resamples`` resamples of the rows, counts how often
    each feature is picked (:math:`z_i`) and keeps the features picked significantly
    more often than chance:

    .. math::

        z_i > \zeta, \qquad \zeta = \min\{t : F_{B(n, p_0)}(t) \ge 1 - \alpha\},
        \qquad p_0 = k / K,

    where ``k`` is the number of features the base selector returns (Ditzler, Polikar
    & Rosen 2015; docs/user_guide/npfs_stability.rst). The number of relevant features is an
    output, not
    an input: it can be smaller or larger than ``k``.

    Parameters
    ----------
    selector : estimator or callable
        An fsel selector (e.g. ``fsel.JMI(10)``), any scikit-learn selector exposing
        ``get_support`` (``SelectKBest``, ``RFE``, ...), cloned for every replicate,
        or a callable ``(X, y) -> indices or boolean mask``. An unset
        ``random_state`` of the base estimator is fixed per replicate from the child
        seed, so a randomised base selector is reproducible too. If ``k`` varies
        between replicates, the null law is the exact Poisson-binomial law of the
        per-replicate rates ``k_l / K`` (the binomial when ``k`` is constant).
    n_resamples : int, default=100
        Number of replicates ``n``.
    alpha : float, default=0.01
        Size of the test (per feature; or the family-wise / false-discovery level
        with a ``correction``).
    correction : {None, "bonferroni", "bh"}, default=None
        None is the paper's per-feature rule; "bonferroni" tests each feature at
        ``alpha / K``; "bh" controls the false discovery rate at ``alpha``
        (Benjamini-Hochberg on the one-sided p-values).
    n_jobs : int or None, default=None
        joblib workers for the replicates. Any joblib backend carries them
        (threads, processes, a Dask cluster via
        :func:`fsel.meta.resampling.dask_backend`); results do not depend on it.
        The data goes to the workers once: worker processes memory-map one copy of
        it, a Dask cluster receives it scattered once
        (:func:`fsel.meta.resampling.run_replicates`).
    random_state : None, int, SeedSequence or Generator, default=None
        Seeds the replicates (one child seed each).
    verbose : int, default=0
        Above 0, a progress bar over the replicates on stderr (only when it is a
        terminal); above 1, joblib's own messages too.
    resampling : {"bootstrap", "subsample", "kfold"}, default="bootstrap"
        How the rows are resampled: bootstrap (the paper), half subsamples without
        replacement, or the ``n_resamples`` training sets of a shuffled k-fold split.
    null : {"binomial", "permutation"}, default="binomial"
        The null law of the counts. ``"binomial"`` is the paper's: a feature picked at
        random, :math:`B(n, k/K)`; it ignores that the resamples share one data set,
        so with a target unrelated to ``X`` a selector that favours some features
        (JMI, ReliefF) lets many more than ``alpha`` of them through.
        ``"permutation"`` (calibrated NPFS) estimates the null law by running the whole
        procedure on ``n_permutations`` copies of the data with ``y`` permuted
        (:func:`npfs_permutation_test`); ``alpha`` then holds when ``y`` is unrelated to
        ``X`` (on average over the features). Cost: ``1 + n_permutations`` times the
        binomial version's fits.
    n_permutations : int, default=20
        Permuted targets for ``null="permutation"``; their ``n_permutations x K``
        counts are pooled, so ``n_permutations * K`` should exceed ``1 / alpha``.

    Attributes
    ----------
    selection_matrix_ : ndarray of bool, shape (n_resamples, n_features)
        Entry ``[l, i]`` is True when replicate ``l`` selected feature ``i`` (one row
        per replicate).
    counts_ : ndarray of int, shape (n_features,)
        :math:`z_i`, the column sums of ``selection_matrix_``.
    threshold_ : int
        The critical count :math:`\zeta`; ``support_ == counts_ > threshold_``.
    pvalues_ : ndarray of float, shape (n_features,)
        One-sided p-values :math:`P(Z \ge z_i \mid H_0)`.
    support_ : ndarray of bool, shape (n_features,)
    n_relevant_ : int
    relevant_features_ : ndarray of int
        Relevant features sorted by count (descending), then by index.
    selection_order_ : ndarray of int
        Same as ``relevant_features_``.
    ranking_ : ndarray of int
        scikit-learn's ``RFE`` rule: 1 for every relevant feature, the others 2, 3,
        ... by decreasing count (ties by column index). When no feature is relevant,
        ``support_`` is all False and every feature is ranked 2, 3, ... by its count.
    scores_ : ndarray of float
        The counts, as floats (higher is better).
    p0_ : float
        Mean null selection probability ``k / K``.
    n_selected_per_replicate_ : ndarray of int, shape (n_resamples,)
        ``k_l``, what the base selector returned on each replicate.
    alpha_effective_ : float
        Level the threshold was computed at.
    null_counts_ : ndarray of int, shape (n_permutations, n_features)
        The counts with ``y`` permuted (``null="permutation"`` only).
    stability_ : StabilityReport
        Kuncheva and Nogueira stability of the replicate selections.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame with string column names.

    Warns
    -----
    NPFSPowerWarning
        When ``n_resamples`` is too small for any feature to pass; the message gives
        the smallest number that could.

    References
    ----------
    Ditzler, G., Polikar, R. & Rosen, G. (2015). A bootstrap based Neyman-Pearson test
    for identifying variable importance. IEEE TNNLS 26(4), 880-886.

    Examples
    --------
    >>> from sklearn.feature_selection import SelectKBest, f_classif
    >>> from fsel.datasets import make_npfs_uniform
    >>> X, y, relevant = make_npfs_uniform(400, 20, 3, random_state=0)
    >>> npfs = NPFS(SelectKBest(f_classif, k=2), n_resamples=50, random_state=0)
    >>> npfs.fit(X, y).relevant_features_.tolist()   # k=2 was too small: 3 found
    [2, 0, 1]
    >>> npfs.threshold_, npfs.counts_[:4].tolist()   # B(50, 2/20): P(Z <= 10) >= 0.99
    (10, [32, 27, 41, 0])
    """

    _target_kind = "any"
    #: its own resampling or knockoffs follow the columns: shown as given
    _column_order_free = False
    _param_kinds: ClassVar[dict[str, Any]] = {
        "n_resamples": "n_resamples",
        "correction": _CORRECTIONS,
        "n_jobs": "n_jobs",
        "random_state": "random_state",
        "resampling": RESAMPLING,
        "alpha": "fraction_open",
        "null": ("binomial", "permutation"),
        "n_permutations": "positive_int",
        "verbose": "verbose",
    }

    def __init__(
        self,
        selector: Any,
        n_resamples: int = 100,
        alpha: float = 0.01,
        correction: str | None = None,
        n_jobs: int | None = None,
        random_state: Any = None,
        verbose: int = 0,
        resampling: str = "bootstrap",
        null: str = "binomial",
        n_permutations: int = 20,
    ) -> None:
        self.selector = selector
        self.n_resamples = n_resamples
        self.alpha = alpha
        self.correction = correction
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.resampling = resampling
        self.null = null
        self.n_permutations = n_permutations

    def _check_params(self) -> dict[str, Any]:
        sel = self.selector
        if sel is None or isinstance(sel, str) or not (hasattr(sel, "fit") or callable(sel)):
            raise TypeError(
                f"{type(self).__name__}: selector must be a feature selector with "
                "fit/get_support (an fsel selector, SelectKBest, RFE, ...) or a callable "
                f"(X, y) -> indices, got {sel!r}"
            )
        if hasattr(sel, "fit") and not hasattr(sel, "get_support"):
            raise TypeError(
                f"{type(self).__name__}: selector {type(sel).__name__} has no get_support(); "
                "it must be a feature selector"
            )
        return validate_params(self, self._param_kinds)

    def fit(self, X: Any, y: Any) -> NPFS:
        """Run the base selector on the resamples and test every feature.

        Parameters
        ----------
        X : array-like, DataFrame or scipy.sparse matrix of shape (n_samples, n_features)
            Passed to the base selector row by row subset, columns and dtypes kept (a
            sparse matrix as CSR rows, never densified).
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        verbose = self._check_params()["verbose"]
        name = type(self).__name__
        Xw, yw, n_samples, _ = check_meta_input(self, X, y, min_samples=2, accept_sparse=True)
        if self.resampling == "kfold" and not 2 <= self.n_resamples <= n_samples:
            raise ValueError(
                f"{name}: with resampling='kfold', n_resamples is the number of folds and "
                f"must be in [2, n_samples={n_samples}], got {self.n_resamples}"
            )

        sel_mi = getattr(self.selector, "mi_estimator", None)
        if self.resampling == "bootstrap" and isinstance(sel_mi, str) and sel_mi == "knn":
            warnings.warn(
                f"{name}: a bootstrap sample repeats rows, which the nearest-neighbour "
                "information estimator reads as exact ties (independent columns then look "
                "dependent); resampling='subsample' avoids this",
                UserWarning,
                stacklevel=2,
            )
        run = dict(
            n_resamples=int(self.n_resamples),
            resampling=self.resampling,
            n_jobs=self.n_jobs,
            random_state=self.random_state,
            verbose=max(0, verbose - 1),
        )
        if verbose > 0:
            from fsel.utils.progress import Progress

            with Progress(int(self.n_resamples), desc="NPFS resamples") as bar:
                M = selection_matrix(self.selector, Xw, yw, progress=bar.update, **run)
        else:
            M = selection_matrix(self.selector, Xw, yw, **run)
        if self.null == "permutation":
            self._apply_test(M, self._null_counts(Xw, yw, n_samples, run))
        else:
            self._apply_test(M)
        return self

    def _null_counts(self, X: Any, y: Any, n_samples: int, run: dict[str, Any]) -> np.ndarray:
        """Selection counts with ``y`` permuted, one row per permutation."""
        from fsel.meta.resampling import replicate_seeds

        root = replicate_seeds(self.random_state, 1)[0]
        rows = []
        for seed in root.spawn(int(self.n_permutations)):
            perm_seed, resample_seed = seed.spawn(2)
            perm = np.random.default_rng(perm_seed).permutation(n_samples)
            yp = y.iloc[perm] if hasattr(y, "iloc") else y[perm]
            Mp = selection_matrix(self.selector, X, yp, **{**run, "random_state": resample_seed})
            rows.append(Mp.sum(axis=0))
        return np.vstack(rows)

    def _apply_test(self, M: np.ndarray, null_counts: np.ndarray | None = None) -> None:
        if null_counts is None:
            res = npfs_test(M, alpha=self.alpha, correction=self.correction)
        else:
            res = npfs_permutation_test(M, null_counts, self.alpha, self.correction)
            self.null_counts_ = null_counts
        self.selection_matrix_ = M
        self.counts_ = res.counts
        self.threshold_ = res.threshold
        self.pvalues_ = res.pvalues
        self.p0_ = res.p0
        self.n_selected_per_replicate_ = res.n_selected
        self.alpha_effective_ = res.alpha_effective
        self.n_relevant_ = res.n_relevant
        self.relevant_features_ = res.relevant
        self._set_selection(res.relevant, res.counts)
        n, K = M.shape
        kbar = float(res.n_selected.mean())
        if self.correction == "bonferroni":
            level = self.alpha / K
        elif self.correction == "bh":  # at best BH rejects the k picked every time
            level = self.alpha * max(1.0, math.floor(kbar)) / K
        else:
            level = self.alpha
        need = min_bootstraps(kbar, K, min(level, 1 - 1e-12))
        hopeless = res.threshold >= n if self.correction != "bh" else need is None or need > n
        if null_counts is not None and (1.0 + null_counts.size) * level < 1.0:
            perms = math.ceil((1.0 / level - 1.0) / K)  # 1 / (1 + M K) <= level
            warnings.warn(
                f"with {null_counts.shape[0]} permutations the smallest p-value is "
                f"1/(1 + {null_counts.size}), above the level {level:.3g}: no feature can "
                f"pass the test; use n_permutations >= {perms}",
                NPFSPowerWarning,
                stacklevel=3,
            )
        if hopeless and null_counts is None:
            if need is None:
                msg = (
                    f"the base selector returned all {K} features on every replicate, so "
                    "no feature can be found relevant; ask it for fewer features"
                )
            else:
                msg = (
                    f"with n_resamples={n} no feature can pass the test at "
                    f"alpha={self.alpha} (k={kbar:g} of K={K}, threshold {res.threshold}); "
                    f"use n_resamples >= {need}"
                )
            warnings.warn(msg, NPFSPowerWarning, stacklevel=3)

    @property
    def stability_(self) -> StabilityReport:
        """Kuncheva and Nogueira stability of the replicate selections."""
        check_is_fitted(self, "selection_matrix_")
        return stability_report(self.selection_matrix_)

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        # missing values are the wrapped selector's business (docs/user_guide/missing_sparse.rst);
        # sparse X
        # goes to it row-subset: as sparse as it accepts
        sel = getattr(self, "selector", None)
        try:
            sel_tags = get_tags(sel).input_tags
            tags.input_tags.allow_nan = bool(sel_tags.allow_nan)
            tags.input_tags.sparse = bool(sel_tags.sparse)
        except (TypeError, AttributeError, ValueError):  # a callable or a non-estimator
            tags.input_tags.allow_nan = True
            tags.input_tags.sparse = True
        tags.non_deterministic = self.random_state is None
        return tags
