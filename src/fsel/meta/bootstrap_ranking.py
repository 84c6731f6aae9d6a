"""Bootstrapped nonparametric ranking indices (Yuan, Section III; docs/user_guide/ranking.rst).

A feature's score is the average of its ranking index over ``B`` bootstrap resamples
of the rows. The resamples come from the one resampling engine
(:func:`fsel.meta.resampling.resample_indices`, one child seed per replicate) and run
through :func:`fsel.meta.resampling.run_replicates`; several replicates are scored in
one vectorised kernel call (:func:`fsel.kernels.ranking_indices.ranking_scores_batch`),
in blocks whose size depends only on the data shape, so the scores are bit-identical
for every ``n_jobs`` and joblib backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from fsel.kernels.ranking_indices import (
    INDEX_NAMES,
    ranking_scores,
    ranking_scores_batch,
    refuse_sparse_missing,
)
from fsel.meta.resampling import resample_indices, run_replicates
from fsel.selectors._base import BaseSelector
from fsel.selectors.ranking._fit import (
    RANKING_PARAM_KINDS,
    _ranking_setup,
    _ranking_table_options,
    check_ranking_inputs,
    order_by_score,
    oriented_scores,
)
from fsel.utils.params import (
    check_n_jobs,
    check_n_resamples,
    check_option,
    check_random_state_param,
)
from fsel.utils.validation import is_sparse

__all__ = ["BootstrapRanking", "bootstrap_scores"]

# Resampled values scored per kernel call (n_samples * n_features * replicates).
_BATCH_ELEMENTS = 1 << 21
_MIN_TASKS = 8


def _score_replicates(
    X: np.ndarray,
    y: np.ndarray,
    idx: np.ndarray,
    *,
    names: tuple[str, ...],
    params: dict,
    missing: str = "error",
) -> dict[str, np.ndarray]:
    """Index scores of the resamples ``idx`` (shape ``(b, n)``): ``(b, d)`` per name."""
    if is_sparse(X):  # one resample at a time: rows of a CSR matrix, never densified
        out = {nm: np.zeros((idx.shape[0], X.shape[1])) for nm in names}
        for b, rows in enumerate(idx):
            yb = y[rows]
            if (yb == yb[0]).all():  # a constant resampled target scores 0, as batched
                continue
            scores = ranking_scores(X[rows], yb, names, missing=missing, **params)
            for nm in names:
                out[nm][b] = scores[nm]
        return out
    return ranking_scores_batch(
        X[idx], y[idx], names, constant_target="zero", missing=missing, **params
    )


def bootstrap_scores(
    X: np.ndarray,
    y: np.ndarray,
    indices: str | Sequence[str] = INDEX_NAMES,
    *,
    n_resamples: int = 100,
    random_state: Any = None,
    n_jobs: int | None = None,
    n_slices: int | str = "auto",
    n_bins_x: int | str = "auto",
    n_bins_y: int | str = "auto",
    batch_size: int | None = None,
    missing: str = "available",
) -> dict[str, np.ndarray]:
    """Ranking indices of every feature on ``n_resamples`` bootstrap resamples.

    Replicate ``b`` uses the rows
    ``resample_indices(n, n_resamples, random_state=random_state)[b]``, so a direct
    loop with the same seeds gives the same numbers. ``"auto"`` slice counts resolve
    with the number of rows (a bootstrap resample has as many rows as the data).

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features), float
        A sparse ``X`` is scored one resample at a time on rows of a CSR matrix, never
        densified; it must not store NaN (``ValueError``).
    y : ndarray of shape (n_samples,), numeric
        Must not be constant. A resample that happens to draw one target value only
        (likely for a rare class in a small sample) scores 0 for every feature: an
        equal score for all, which leaves the ranking by the mean unchanged.
    indices : str or sequence of str
        Index names (``In, In3, In5, K1, K2, K3, chi2, mi``); all are computed from the
        same resamples.
    n_resamples : int
    random_state : None, int, SeedSequence or Generator
    n_jobs : int or None
        Parallel workers (joblib); results do not depend on it.
    n_slices, n_bins_x, n_bins_y : int or "auto"
        See :func:`fsel.kernels.ranking_indices.ranking_scores`.
    batch_size : int or None
        Resamples scored per vectorised kernel call (one joblib task each); None picks
        it from the data shape (about 2M values a call, at least 8 tasks). Results do
        not depend on it.
    missing : {"available", "error"}, default="available"
        ``"available"``: NaN in ``X`` is a missing value and every feature of every
        resample is scored on the rows of that resample where it is observed (NaN when
        they are too few or hold one target value only); see
        :func:`fsel.kernels.ranking_indices.ranking_scores`. ``"error"`` refuses NaN.
        The default is :class:`BootstrapRanking`'s.

    Returns
    -------
    dict of name to ndarray of shape (n_resamples, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 3))
    >>> y = np.sin(2 * X[:, 2]) + 0.2 * rng.standard_normal(100)
    >>> s = bootstrap_scores(X, y, ["In", "K3"], n_resamples=20, random_state=0)
    >>> s["In"].shape, int(s["In"].mean(axis=0).argmin()), int(s["K3"].mean(axis=0).argmax())
    ((20, 3), 2, 2)
    """
    if is_sparse(X):
        X = X.tocsr()
        if missing == "available":  # refused up front, not in every replicate
            refuse_sparse_missing(X)
    else:
        X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    names = (indices,) if isinstance(indices, str) else tuple(indices)
    n_resamples = check_n_resamples(n_resamples)
    check_n_jobs(n_jobs)
    check_random_state_param(random_state)
    check_option(missing, ("available", "error"), "missing")
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(
            f"expected X of shape (n_samples, n_features) and y of shape (n_samples,); got "
            f"{X.shape} and {y.shape}"
        )
    if y.size and (y == y[0]).all():
        raise ValueError("y is constant: a ranking index needs a target that varies")
    n, d = X.shape
    rows = np.stack(resample_indices(n, int(n_resamples), random_state=random_state))
    # batch size depends on the data shape only (never on n_jobs): identical results
    if batch_size is None:
        per_batch = max(1, min(_BATCH_ELEMENTS // (n * d), -(-n_resamples // _MIN_TASKS)))
    elif isinstance(batch_size, (int, np.integer)) and batch_size >= 1:
        per_batch = int(batch_size)
    else:
        raise ValueError(f"batch_size must be None or an int >= 1, got {batch_size!r}")
    batches = [rows[i : i + per_batch] for i in range(0, n_resamples, per_batch)]
    params = {"n_slices": n_slices, "n_bins_x": n_bins_x, "n_bins_y": n_bins_y}
    parts = run_replicates(
        _score_replicates,
        X,
        y,
        batches,
        n_jobs=n_jobs,
        names=names,
        params=params,
        missing=missing,
    )
    return {nm: np.concatenate([p[nm] for p in parts], axis=0) for nm in names}


def _nan_mean_std(boot: np.ndarray, nan: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column mean and ``ddof=1`` deviation over the non-NaN entries of ``boot``.

    NaN where a column has no entry; a deviation of 0 where it has one."""
    count = (~nan).sum(axis=0)
    filled = np.where(nan, 0.0, boot)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=0) / count
        sq = np.where(nan, 0.0, (boot - mean) ** 2).sum(axis=0)
        std = np.where(count > 1, np.sqrt(sq / (count - 1)), 0.0)
    std[count == 0] = np.nan
    return mean, std


class BootstrapRanking(BaseSelector):
    """Rank features by a ranking index averaged over bootstrap resamples (Yuan).

    For every feature ``k``, ``s(k) = (1/B) sum_b S(X*_b(k), y*_b)``, where
    ``(X*_b, y*_b)`` is the ``b``-th bootstrap resample of the rows and ``S`` one of the
    indices of :class:`fsel.RankingIndex` (``In, In3, In5`` lower is better;
    ``K1, K2, K3, chi2, mi`` higher is better). Yuan reports that averaging over
    ``B = 100`` resamples raises the rate of detecting the genuine features of small
    data sets compared with the plain index at the same computation.

    Parameters
    ----------
    index : {"In", "In3", "In5", "K1", "K2", "K3", "chi2", "mi"}, default="K3"
    n_resamples : int, default=100
        ``B``, the number of resamples (Yuan: 50-200, 100 in his simulation).
    n_features_to_select : int, float or None, default=None
        None selects half of the features (rounded down, at least one); an int is a
        count, a float in (0, 1] a fraction.
    n_slices, n_bins_x, n_bins_y : int or "auto", default="auto"
        As in :class:`fsel.RankingIndex` (resolved with the number of rows).
    n_jobs : int or None, default=None
        joblib workers for the replicates; results do not depend on it.
    random_state : None, int, SeedSequence or Generator, default=None
        Seeds the resamples (one child seed per replicate).
    missing : {"available", "error"}, default="available"
        As in :class:`fsel.RankingIndex`, applied inside every resample: a feature is
        scored on the rows of the resample where it is observed. A resample where a
        feature scores NaN (too few observed rows, or one target value on them) is left
        out of that feature's mean and deviation; a feature with no scored resample
        gets NaN and is ranked last.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Bootstrap mean of the index, oriented so that higher is better (negated for
        ``In, In3, In5``).
    index_values_ : ndarray of shape (n_features,)
        Bootstrap mean of the raw index (lower is better for ``In, In3, In5``).
    score_std_ : ndarray of shape (n_features,)
        Bootstrap standard deviation of the index (``ddof=1``; 0 when ``B = 1``).
    resample_scores_ : ndarray of shape (n_resamples, n_features)
        The raw index on every resample (replicates x features).
    higher_is_better_ : bool
        Direction of ``index_values_`` and ``resample_scores_``.
    selection_order_, support_, ranking_, n_features_in_, feature_names_in_
        As in :class:`fsel.RankingIndex`.

    References
    ----------
    J.-L. Yuan, "Bootstrapping nonparametric feature selection algorithms for mining
    small data sets", Section III.

    P. Hall, J. W. Kay and D. M. Titterington, Biometrika 77(3):521-528, 1990 (the
    difference sequences of ``In3`` and ``In5``).

    Examples
    --------
    >>> from fsel import BootstrapRanking
    >>> from fsel.datasets import make_yuan_regression
    >>> X, y, genuine = make_yuan_regression(1, n_samples=200, random_state=0)
    >>> sel = BootstrapRanking(index="K3", n_resamples=30, n_features_to_select=4,
    ...                        random_state=0).fit(X, y)
    >>> sorted(sel.selection_order_.tolist()) == genuine.tolist()
    True
    >>> sel.resample_scores_.shape, sel.higher_is_better_
    ((30, 10), True)
    """

    _target_kind = "numeric"
    _param_kinds: ClassVar[dict[str, Any]] = {
        **RANKING_PARAM_KINDS,
        "n_resamples": "n_resamples",
        "n_jobs": "n_jobs",
        "random_state": "random_state",
    }

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        index: str = "K3",
        n_resamples: int = 100,
        n_slices: int | str = "auto",
        n_bins_x: int | str = "auto",
        n_bins_y: int | str = "auto",
        n_jobs: int | None = None,
        random_state: Any = None,
        missing: str = "available",
    ) -> None:
        self.index = index
        self.n_resamples = n_resamples
        self.n_features_to_select = n_features_to_select
        self.n_slices = n_slices
        self.n_bins_x = n_bins_x
        self.n_bins_y = n_bins_y
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.missing = missing

    def fit(self, X: Any, y: Any) -> BootstrapRanking:
        """Score every feature on the bootstrap resamples and select the best.

        Parameters
        ----------
        X : array-like, DataFrame or scipy.sparse matrix of shape (n_samples, n_features)
            A sparse matrix is never densified (each resample takes rows of a CSR
            matrix); a stored NaN is refused (``ValueError``): per-feature deletion
            (``missing="available"``) needs a dense ``X``.
        y : array-like of shape (n_samples,)
            Numeric (used by value; must not be constant) or class labels (at least
            two classes), as in :class:`fsel.RankingIndex`.

        Returns
        -------
        self
        """
        return super().fit(X, y)

    def _table_options(self, params: dict[str, Any]) -> dict[str, Any]:
        return _ranking_table_options(params)

    def _fit(self, table: Any, y: Any, classes: Any, params: dict[str, Any]) -> BootstrapRanking:
        values, spec, kw, k = _ranking_setup(self, table)
        target = np.asarray(y, dtype=np.float64)
        check_ranking_inputs(type(self).__name__, spec, table, target)
        boot = bootstrap_scores(
            values,
            target,
            spec.name,
            n_resamples=self.n_resamples,
            random_state=self._seed_sequence(),
            n_jobs=self.n_jobs,
            missing="available",
            **kw,
        )[spec.name]
        self.resample_scores_ = boot
        nan = np.isnan(boot)
        if nan.any():
            mean, self.score_std_ = _nan_mean_std(boot, nan)
        else:
            mean = boot.mean(axis=0)
            self.score_std_ = boot.std(axis=0, ddof=1) if boot.shape[0] > 1 else np.zeros_like(mean)
        self.higher_is_better_ = spec.higher_is_better
        self.index_values_ = mean
        self._set_selection(
            order_by_score(mean, spec.higher_is_better)[:k],
            oriented_scores(mean, spec.higher_is_better),
        )
        return self

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # resamples take rows of a CSR matrix
        tags.non_deterministic = self.random_state is None
        return tags
