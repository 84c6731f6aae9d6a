r"""Stability selection around any selector (Meinshausen & Bühlmann 2010; Shah & Samworth 2013).

A selector is run on many half-samples of the rows; a feature is kept when it is
selected in at least a fraction :math:`\pi_{thr}` (``threshold``) of them. With
:math:`q` the average number of features selected per half-sample and ``p`` features,
the expected number of false selections obeys

.. math::

    E(V) \le \frac{q^2}{(2\pi_{thr} - 1)\,p}, \qquad \pi_{thr} > 1/2

(Meinshausen & Bühlmann 2010, Theorem 1, under their assumptions: the noise features'
selection is exchangeable and the selector is no worse than random guessing). Shah &
Samworth (2013, Theorem 1) show that the same bound holds for complementary pairs
(each resample split into two disjoint halves). Under their extra assumption that the
simultaneous selection proportions have a unimodal law, their tighter bound is

.. math::

    E(V) \le C(\pi_{thr}, B)\,\frac{q^2}{p}, \quad
    C = \begin{cases}
        \dfrac{1}{2(2\pi_{thr} - 1 - 1/(2B))} &
            \pi_{thr} \in (\min(\tfrac12 + \theta^2, \tfrac12 + \tfrac1{2B} + \tfrac34\theta^2),
            \tfrac34] \\[1ex]
        \dfrac{4(1 - \pi_{thr} + 1/(2B))}{1 + 1/B} & \pi_{thr} \in (\tfrac34, 1]
    \end{cases}

with :math:`\theta = q/p` and ``B`` pairs (:func:`unimodal_bound`; ``nan`` outside its
range). The lower end of the first range holds :math:`\theta^2`, the bound on the
chance that both halves of a pair select a given noise feature, as in the paper and
its authors' R code (``stabs``).

References
----------
Meinshausen, N. & Bühlmann, P. (2010). Stability selection. JRSS-B 72(4), 417-473.
Shah, R. D. & Samworth, R. J. (2013). Variable selection with error control: another
look at stability selection. JRSS-B 75(1), 55-80.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from fsel.meta.resampling import (
    bootstrap_indices,
    check_meta_input,
    fit_on_rows,
    replicate_seeds,
    rows_with_two_classes,
    run_replicates,
    sibling_seed,
    subsample_indices,
)
from fsel.selectors._base import BaseSelector
from fsel.selectors._core import rfe_ranking

__all__ = [
    "StabilitySelection",
    "complementary_pairs",
    "meinshausen_buhlmann_bound",
    "unimodal_bound",
]

_RESAMPLING = ("complementary_pairs", "subsample", "bootstrap")


def meinshausen_buhlmann_bound(q: float, p: int, threshold: float) -> float:
    r"""Meinshausen & Bühlmann's bound :math:`E(V) \le q^2 / ((2\pi_{thr} - 1) p)`;
    ``inf`` for :math:`\pi_{thr} \le 1/2`.

    Examples
    --------
    >>> round(meinshausen_buhlmann_bound(5, 100, 0.6), 6)    # 25 / (0.2 * 100)
    1.25
    >>> meinshausen_buhlmann_bound(5, 100, 0.5)
    inf
    """
    if threshold <= 0.5:
        return math.inf
    return float(q) ** 2 / ((2.0 * threshold - 1.0) * p)


def unimodal_bound(q: float, p: int, threshold: float, n_pairs: int) -> float:
    r"""Shah & Samworth's (2013) bound under unimodality, :math:`C(\pi_{thr}, B)\,q^2/p`
    (see the module docstring); ``nan`` where :math:`\pi_{thr}` is outside its range.

    Examples
    --------
    >>> round(unimodal_bound(5, 100, 0.6, 50), 4)   # 25/100 / (2 * (0.2 - 0.01))
    0.6579
    >>> round(unimodal_bound(5, 100, 0.9, 50), 4)   # 0.25 * 4 * 0.11 / 1.02
    0.1078
    >>> unimodal_bound(60, 100, 0.7, 50)  # theta^2 = 0.36: the range starts at 0.78
    nan
    """
    theta2 = (float(q) / p) ** 2
    B = float(n_pairs)
    lo = min(0.5 + theta2, 0.5 + 1.0 / (2.0 * B) + 0.75 * theta2)
    if lo < threshold <= 0.75:
        c = 1.0 / (2.0 * (2.0 * threshold - 1.0 - 1.0 / (2.0 * B)))
    elif 0.75 < threshold <= 1.0:
        c = 4.0 * (1.0 - threshold + 1.0 / (2.0 * B)) / (1.0 + 1.0 / B)
    else:
        return math.nan
    return c * float(q) ** 2 / p


def complementary_pairs(n_samples: int, n_pairs: int, random_state: Any = None) -> list[np.ndarray]:
    """Row indices of ``n_pairs`` complementary pairs: each pair splits a random
    permutation of the rows into two disjoint halves of ``n_samples // 2`` rows
    (sorted); the list holds the two halves of pair 1, then of pair 2, ...

    Examples
    --------
    >>> a, b = complementary_pairs(7, 1, random_state=0)
    >>> len(a), len(b), set(a.tolist()) & set(b.tolist())
    (3, 3, set())
    """
    out = []
    for seed in replicate_seeds(random_state, n_pairs):
        out += _halves(n_samples, seed)
    return out


def _halves(n_samples: int, seed: np.random.SeedSequence) -> list[np.ndarray]:
    """The two halves of one complementary pair drawn from ``seed``."""
    h = n_samples // 2
    perm = np.random.default_rng(seed).permutation(n_samples)
    return [np.sort(perm[:h]), np.sort(perm[h : 2 * h])]


def _select_job(
    X: Any, y: Any, job: tuple[np.ndarray, int, bool], *, selector: Any, n_features: int
) -> np.ndarray:
    """Fit ``selector`` on the rows of one resample (the first: its columns as given);
    the selected feature indices."""
    idx, seed, first = job
    return fit_on_rows(X, y, idx, selector, n_features, seed, first)


class StabilitySelection(BaseSelector):
    r"""Stability selection: keep the features a selector picks on most half-samples.

    ``selector`` runs on ``n_resamples`` complementary pairs of half-samples (``2 x
    n_resamples`` fits); a feature selected in at least a fraction ``threshold`` of
    them is kept, and the expected number of falsely kept features is bounded by
    :math:`q^2 / ((2\,\text{threshold} - 1)\,p)` (Meinshausen & Bühlmann 2010;
    valid for complementary pairs by Shah & Samworth 2013, Theorem 1), with ``q`` the
    average number of features the selector returned per half-sample. The bound
    controls the *number* of false selections, not their share; make ``q`` small (ask
    the selector for few features) to make it small.

    Parameters
    ----------
    selector : estimator or callable
        An fsel selector (e.g. ``fsel.JMI(5)``), a scikit-learn selector with
        ``get_support``, cloned for every half-sample (an unset ``random_state`` is
        fixed from the half-sample's seed), or a callable ``(X, y) -> indices or mask``.
    threshold : float, default=0.6
        The selection-frequency threshold :math:`\pi_{thr}`, in (0, 1]; the bound
        needs it above 1/2.
    n_resamples : int, default=50
        Number of resamples: complementary pairs (``B``; Shah & Samworth use 50) with
        ``resampling="complementary_pairs"``, else half-samples or bootstrap samples.
    resampling : {"complementary_pairs", "subsample", "bootstrap"}, default="complementary_pairs"
        How the rows are drawn. The bound is proved for half-samples (Meinshausen &
        Bühlmann) and complementary pairs (Shah & Samworth); with ``"bootstrap"``
        it is reported but has no proof behind it.
    random_state : None, int, SeedSequence or Generator, default=None
    n_jobs : int or None, default=None
        joblib workers over the fits; any joblib backend carries them, a Dask cluster
        included (:func:`fsel.meta.resampling.dask_backend`); results do not depend on it.

    Attributes
    ----------
    selection_matrix_ : ndarray of bool, shape (n_fits, n_features)
        One row per fitted half-sample (pairs' halves consecutive).
    selection_frequencies_ : ndarray of shape (n_features,)
        The share of fits that selected each feature.
    support_ : ndarray of bool
        ``selection_frequencies_ >= threshold``.
    relevant_features_ : ndarray of int
        Kept features by decreasing frequency, then index.
    selection_order_ : ndarray of int
        Same as ``relevant_features_``.
    scores_ : ndarray of float
        The selection frequencies.
    ranking_ : ndarray of int
        1 for the kept features, the others 2, 3, ... by decreasing frequency.
    average_selected_ : float
        ``q``, the mean number of features selected per fit.
    error_bound_ : float
        Meinshausen & Bühlmann's bound on the expected number of false selections
        (``inf`` for ``threshold <= 1/2``).
    unimodal_error_bound_ : float
        Shah & Samworth's tighter bound under unimodality (complementary pairs only;
        ``nan`` otherwise or outside its range of thresholds).
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    References
    ----------
    Meinshausen & Bühlmann (2010), JRSS-B 72(4); Shah & Samworth (2013), JRSS-B 75(1).

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import StabilitySelection, JMI
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 30))
    >>> y = (X[:, 0] + X[:, 1] + X[:, 2] + 0.5 * rng.normal(size=400) > 0).astype(int)
    >>> ss = StabilitySelection(JMI(3), threshold=0.6, n_resamples=20, random_state=0)
    >>> ss.fit(X, y).relevant_features_.tolist()
    [0, 1, 2]
    >>> round(ss.average_selected_, 1), round(ss.error_bound_, 2)   # 9 / (0.2 * 30)
    (3.0, 1.5)
    """

    _target_kind = "any"
    #: its own resampling or knockoffs follow the columns: shown as given
    _column_order_free = False

    def __init__(
        self,
        selector: Any,
        threshold: float = 0.6,
        n_resamples: int = 50,
        resampling: str = "complementary_pairs",
        random_state: Any = None,
        n_jobs: int | None = None,
    ) -> None:
        self.selector = selector
        self.threshold = threshold
        self.n_resamples = n_resamples
        self.resampling = resampling
        self.random_state = random_state
        self.n_jobs = n_jobs

    _param_kinds: ClassVar[dict[str, Any]] = {
        "threshold": "fraction",
        "n_resamples": "n_resamples",
        "resampling": _RESAMPLING,
        "n_jobs": "n_jobs",
        "random_state": "random_state",
    }

    def _check_params(self) -> None:
        from fsel.utils.params import validate_params

        sel = self.selector
        if sel is None or isinstance(sel, str) or not (hasattr(sel, "fit") or callable(sel)):
            raise TypeError(
                f"{type(self).__name__}: selector must be a feature selector with "
                "fit/get_support (an fsel selector, SelectKBest, RFE, ...) or a callable "
                f"(X, y) -> indices, got {sel!r}"
            )
        validate_params(self, self._param_kinds)

    def _plan(self, n_samples: int, y: Any) -> list[np.ndarray]:
        """The row sets of every fit: a pair (or resample) that leaves a single class
        of ``y`` in one of its row sets is drawn again from a sibling seed
        (:func:`~fsel.meta.resampling.rows_with_two_classes`)."""
        B = int(self.n_resamples)
        what = f"{type(self).__name__} (resampling={self.resampling!r})"
        out: list[np.ndarray] = []
        for s in replicate_seeds(self.random_state, B):

            def draw(a: int, s: np.random.SeedSequence = s) -> list[np.ndarray]:
                seed = sibling_seed(s, a) if a else s
                if self.resampling == "complementary_pairs":
                    return _halves(n_samples, seed)
                if self.resampling == "subsample":
                    return [subsample_indices(n_samples, seed, 0.5)]
                return [bootstrap_indices(n_samples, seed)]

            out += rows_with_two_classes(draw, y, what)
        return out

    def fit(self, X: Any, y: Any) -> StabilitySelection:
        """Run the selector on every half-sample and keep the stable features.

        Parameters
        ----------
        X : array-like, pandas or polars DataFrame of shape (n_samples, n_features)
            Passed to the selector row-subset, columns and dtypes kept.
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._check_params()
        Xw, yw, n_samples, p = check_meta_input(self, X, y, min_samples=4)
        plan = self._plan(n_samples, yw)
        # a randomised selector's seed: a sibling of each fit's seed (spawn key extended
        # by a fixed word), independent of the rows drawn
        est_seeds = [
            int(
                np.random.SeedSequence(s.entropy, spawn_key=(*s.spawn_key, 0x5EED)).generate_state(
                    1, dtype=np.uint32
                )[0]
                >> 1
            )
            for s in replicate_seeds(self.random_state, len(plan))
        ]
        chosen = run_replicates(
            _select_job,
            Xw,
            yw,
            [(rows, s, r == 0) for r, (rows, s) in enumerate(zip(plan, est_seeds, strict=True))],
            n_jobs=self.n_jobs,
            selector=self.selector,
            n_features=p,
        )
        M = np.zeros((len(plan), p), dtype=bool)
        for r, idx in enumerate(chosen):
            M[r, idx] = True
        freq = M.mean(axis=0)
        q = float(M.sum(axis=1).mean())
        support = freq >= self.threshold
        idx = np.flatnonzero(support)
        order = idx[np.lexsort((idx, -freq[idx]))].astype(np.intp)
        self.selection_matrix_ = M
        self.selection_frequencies_ = freq
        self.support_ = support
        self.relevant_features_ = order
        self.selection_order_ = order
        self.scores_ = freq.astype(np.float64)
        self.ranking_ = rfe_ranking(support, self.scores_)
        self.average_selected_ = q
        self.error_bound_ = meinshausen_buhlmann_bound(q, p, float(self.threshold))
        self.unimodal_error_bound_ = (
            unimodal_bound(q, p, float(self.threshold), int(self.n_resamples))
            if self.resampling == "complementary_pairs"
            else math.nan
        )
        return self

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        from sklearn.utils import get_tags

        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        try:
            sel_tags = get_tags(self.selector).input_tags
            tags.input_tags.allow_nan = bool(sel_tags.allow_nan)
        except (TypeError, AttributeError, ValueError):
            tags.input_tags.allow_nan = True
        tags.input_tags.sparse = False
        tags.non_deterministic = self.random_state is None
        return tags
