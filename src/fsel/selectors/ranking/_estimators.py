"""The ranking-index estimator: :class:`fsel.selectors.ranking._fit.RankingIndex` with
scikit-learn's API in front (:mod:`fsel.selectors._core` says why), and its documentation."""

from __future__ import annotations

from fsel.selectors._base import BaseSelector
from fsel.selectors.ranking import _fit

__all__ = ["RankingIndex"]


class RankingIndex(BaseSelector, _fit.RankingIndex):
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
        None selects half of the features (rounded down, at least one); an int is a
        count, a float in (0, 1] a fraction. ``scores_`` ranks every feature.
    n_slices : int or "auto", default="auto"
        Slices of ``y`` for the K-S indices; ``"auto"`` is ``clip(n // 20, 2, 10)``.
    n_bins_x, n_bins_y : int or "auto", default="auto"
        ``S`` and ``T`` of the chi-square / MI table; ``"auto"`` is
        ``clip(floor(sqrt(n / 5)), 2, 10)``.
    missing : {"available", "error"}, default="available"
        Missing values in ``X`` (NaN, None, ``pd.NA``; docs/user_guide/missing_sparse.rst).
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
        The index of every feature oriented so that higher is better: the index itself
        for ``K1, K2, K3, chi2, mi``, its negation for ``In, In3, In5``.
    index_values_ : ndarray of shape (n_features,)
        The raw index of every feature (lower is better for ``In, In3, In5``).
    higher_is_better_ : bool
        Direction of ``index_values_``.
    selection_order_ : ndarray of int
        Selected features, best first (ties to the lower index).
    support_ : ndarray of bool
    ranking_ : ndarray of int
        1 for every selected feature; the others 2, 3, ... by decreasing ``scores_``
        (ties by column index, a NaN score last).
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
