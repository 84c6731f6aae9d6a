"""Rank features by one nonparametric ranking index (Yuan; SPEC section 5).

The indices themselves live in :mod:`fsel.kernels.ranking_indices`; this module turns
an index into a scikit-learn selector. The bootstrapped version is
:class:`fsel.meta.bootstrap_ranking.BootstrapRanking`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsel.kernels.ranking_indices import MISSING_RULES, get_index, ranking_scores, resolve_slices
from fsel.selectors._base import BaseSelector
from fsel.utils.validation import check_missing_policy, check_n_features_to_select

__all__ = ["RankingIndex", "order_by_score"]


def order_by_score(scores: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Feature indices from best to worst; equal scores keep the lower index first.

    Examples
    --------
    >>> import numpy as np
    >>> order_by_score(np.array([0.2, 0.5, 0.2]), higher_is_better=True).tolist()
    [1, 0, 2]
    >>> order_by_score(np.array([0.2, 0.5, 0.2]), higher_is_better=False).tolist()
    [0, 2, 1]
    """
    scores = np.asarray(scores, dtype=np.float64)
    return np.argsort(-scores if higher_is_better else scores, kind="stable")


def _fit_setup(
    est: Any, X: Any, y: Any, accept_sparse: bool = False
) -> tuple[Any, np.ndarray, Any, dict[str, Any], int]:
    """Shared ``fit`` preamble of the ranking selectors: validate data and parameters.

    Returns the feature matrix (NaN for a missing value unless ``missing="error"``; a
    scipy.sparse CSC matrix for sparse input when ``accept_sparse``),
    the numeric target, the index spec, the slice counts (checked; ``"auto"`` kept, the
    kernels resolve it with the rows each column is scored on) and the number of
    features to select. A numeric target (float, integer or boolean) keeps its values,
    which the difference indices need; other labels (strings, ...) become class codes
    ``0..c-1`` (``check_target(kind="numeric")``).
    """
    spec = get_index(est.index)
    missing = check_missing_policy(est.missing, MISSING_RULES, type(est).__name__)
    table, y_out, _ = est._validate_fit_data(
        X, y, min_samples=2, allow_missing=missing != "error", accept_sparse=accept_sparse
    )
    n, d = table.values.shape
    k = check_n_features_to_select(est.n_features_to_select, d)
    params = {"n_slices": est.n_slices, "n_bins_x": est.n_bins_x, "n_bins_y": est.n_bins_y}
    resolve_slices(est.n_slices, n, kind="ks")
    resolve_slices(est.n_bins_x, n, kind="table")
    resolve_slices(est.n_bins_y, n, kind="table")
    return table.values, np.asarray(y_out, dtype=np.float64), spec, params, k


class RankingIndex(BaseSelector):
    """Select the features with the best value of one nonparametric ranking index.

    Every feature ``x`` is scored against the target ``y`` by one of Yuan's indices
    (a numeric target by its values, or class labels coded ``0..c-1``):

    * ``"In"``, ``"In3"``, ``"In5"`` — difference-based estimates of the residual
      variance ``E[Var(y|x)]`` (lower is better)::

        In  = (1/(2n)) sum_i (y_(i+1) - y_(i))^2
        In3 = sum_i (.194 y_(i) + .281 y_(i+1) + .383 y_(i+2) - .858 y_(i+3))^2
        In5 = sum_i (.906 y_(i) - .26 y_(i+1) - .217 y_(i+2) - .177 y_(i+3)
                     - .142 y_(i+4) - .11 y_(i+5))^2

      with ``y_(i)`` the concomitants of ``y`` sorted by ``x`` and the optimal
      difference sequences of Hall, Kay & Titterington (1990);
    * ``"K1"``, ``"K2"``, ``"K3"`` — slice-based Kolmogorov-Smirnov deviations of
      the ranks of ``x`` inside ``n_slices`` equal-count slices of ``y`` from their
      global ranks (higher is better);
    * ``"chi2"``, ``"mi"`` — Pearson chi-square and mutual information (bits) of the
      ``n_bins_x x n_bins_y`` equal-count contingency table (higher is better).

    The tie rules and the ``"auto"`` slice counts are documented in
    :mod:`fsel.kernels.ranking_indices`. Categorical columns are scored through their
    integer codes (the K-S and table indices use only their ranks). A numeric target
    (float, integer or boolean dtype) is used by its values, so an integer-valued
    regression target gives the same scores as the same values stored as floats. A
    target of other labels (strings, ...) is coded ``0..c-1`` in the sorted order of
    its labels. The K-S and table indices depend on ``y`` only through its order and
    ties, so they give the same scores for numeric class labels and for their codes,
    with one slice per class when ``c`` is at most the slice count; the difference
    indices read the numbers themselves, which is meaningful for a numeric target, two
    classes or ordered classes only.

    Parameters
    ----------
    index : {"In", "In3", "In5", "K1", "K2", "K3", "chi2", "mi"}, default="K3"
    n_features_to_select : int, float or None, default=None
        None ranks all features (support is all features); an int is a count, a float
        in (0, 1] a fraction.
    n_slices : int or "auto", default="auto"
        Slices of ``y`` for the K-S indices; ``"auto"`` is ``clip(n // 20, 2, 10)``.
    n_bins_x, n_bins_y : int or "auto", default="auto"
        ``S`` and ``T`` of the chi-square / MI table; ``"auto"`` is
        ``clip(floor(sqrt(n / 5)), 2, 10)``.
    missing : {"available", "error"}, default="available"
        Missing values in ``X`` (NaN, None, ``pd.NA``; SPEC section 10).
        ``"available"``: every feature is scored on the rows where it is observed,
        exactly as the complete-data index scores that sub-table (``"auto"`` slice
        counts use its number of rows ``n_k``). It assumes the values are missing at
        random given nothing else (MCAR): a feature is compared with the others on
        different rows, and a feature observed on few rows gets a noisier score. A
        feature with too few observed rows for the index (fewer than 2; ``In3``/``In5``
        need 4/6), or whose observed rows hold one target value only, scores NaN and is
        ranked last. ``"error"`` refuses missing values. Without missing values both
        give the same result. A scipy.sparse ``X`` that stores NaN is not supported
        (``ValueError`` under either rule; pass ``X.toarray()`` for ``"available"``).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The index of every feature.
    higher_is_better_ : bool
        Direction of ``scores_``.
    selection_order_ : ndarray of int
        Selected features, best first (ties to the lower index).
    support_ : ndarray of bool
    ranking_ : ndarray of int
        1 for the best feature; unselected features share ``n_selected + 1``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame with string column names.

    See Also
    --------
    fsel.BootstrapRanking : the same index averaged over bootstrap resamples.

    References
    ----------
    J.-L. Yuan, "Bootstrapping nonparametric feature selection algorithms for mining
    small data sets".

    P. Hall, J. W. Kay and D. M. Titterington, "Asymptotically optimal difference-based
    estimation of variance in nonparametric regression", Biometrika 77(3):521-528, 1990.

    Examples
    --------
    >>> from fsel import RankingIndex
    >>> from fsel.datasets import make_yuan_regression
    >>> X, y, genuine = make_yuan_regression(5, n_samples=200, random_state=0)
    >>> sel = RankingIndex(index="chi2", n_features_to_select=2).fit(X, y)
    >>> sorted(sel.selection_order_.tolist()), genuine.tolist()
    ([0, 1], [0, 1])
    >>> sel.transform(X).shape
    (200, 2)
    """

    _target_kind = "numeric"

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        index: str = "K3",
        n_slices: int | str = "auto",
        n_bins_x: int | str = "auto",
        n_bins_y: int | str = "auto",
        missing: str = "available",
    ) -> None:
        self.index = index
        self.n_features_to_select = n_features_to_select
        self.n_slices = n_slices
        self.n_bins_x = n_bins_x
        self.n_bins_y = n_bins_y
        self.missing = missing

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse in, never densified whole
        return tags

    def fit(self, X: Any, y: Any) -> RankingIndex:
        """Score every feature and select the best ``n_features_to_select``.

        Parameters
        ----------
        X : array-like, DataFrame or scipy.sparse matrix of shape (n_samples, n_features)
            A sparse matrix is never densified whole: each column sorts its stored
            values only (its zeros are one tied block); the scores equal the dense ones.
        y : array-like of shape (n_samples,)
            Numeric (used by value; must not be constant) or class labels (at least
            two classes).

        Returns
        -------
        self
        """
        # sparse X: a CSC matrix; the kernel sorts only the stored values of each column
        # (a stored NaN is refused there: per-feature deletion needs dense columns)
        values, target, spec, params, k = _fit_setup(self, X, y, accept_sparse=True)
        scores = ranking_scores(values, target, spec.name, missing="available", **params)[spec.name]
        self.higher_is_better_ = spec.higher_is_better
        self._set_selection(order_by_score(scores, spec.higher_is_better)[:k], scores)
        return self
