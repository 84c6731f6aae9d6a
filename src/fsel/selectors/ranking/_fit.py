"""Rank features by one nonparametric ranking index (Yuan; docs/user_guide/ranking.rst).

The indices themselves live in :mod:`fsel.kernels.ranking_indices`; this module turns
an index into a scikit-learn selector. The bootstrapped version is
:class:`fsel.meta.bootstrap_ranking.BootstrapRanking`.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from fsel.kernels.ranking_indices import MISSING_RULES, get_index, ranking_scores
from fsel.selectors._core import SelectorCore
from fsel.utils.validation import check_n_features_to_select

__all__ = ["RankingIndex", "check_ranking_inputs", "order_by_score", "oriented_scores"]


def oriented_scores(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Index values as scores where higher is better: the values of a higher-is-better
    index, the negated values of a lower-is-better one (``In``, ``In3``, ``In5``).

    Examples
    --------
    >>> import numpy as np
    >>> oriented_scores(np.array([0.2, 0.5]), higher_is_better=False).tolist()
    [-0.2, -0.5]
    """
    values = np.asarray(values, dtype=np.float64)
    return values.copy() if higher_is_better else -values


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


#: the parameters every ranking selector shares, by kind (fsel.utils.params)
RANKING_PARAM_KINDS: dict[str, Any] = {
    "n_features_to_select": "n_features_to_select",
    "missing": MISSING_RULES,
    "n_slices": "slice_count",
    "n_bins_x": "slice_count",
    "n_bins_y": "slice_count",
}


#: A numeric target whose values span more than this (or less, but not 0) would
#: overflow (underflow) float64 in the difference indices' sums of squared differences.
_DIFFERENCE_SPAN = (1e-150, 1e150)


def _n_codes(values: Any, j: int) -> int:
    """The number of codes of categorical column ``j`` (codes ``0..a-1``, NaN missing)."""
    col = values[:, [j]].toarray().ravel() if hasattr(values, "toarray") else values[:, j]
    col = col[~np.isnan(col)]
    return int(col.max()) + 1 if col.size else 0


def check_ranking_inputs(name: str, spec: Any, table: Any, y: np.ndarray) -> None:
    """Warn where an index orders the codes of categorical columns, refuse a numeric
    target whose squared differences leave float64's range."""
    mask = table.categorical
    cat = np.flatnonzero(mask) if mask is not None else np.zeros(0, dtype=int)
    # two levels have no order to get wrong: reversed, every index gives the same value
    cat = np.array([j for j in cat.tolist() if _n_codes(table.values, j) > 2], dtype=int)
    if spec.family != "table" and cat.size:
        names = table.feature_names
        shown = ", ".join(repr(str(names[j] if names is not None else j)) for j in cat[:3])
        warnings.warn(
            f"{name}: index {spec.name} orders each column's values, and categorical "
            f"column(s) {shown}{', ...' if cat.size > 3 else ''} have no order (their codes "
            "follow the sorted labels), so their scores depend on how the levels are "
            "named; index='chi2' or 'mi' does not order them",
            UserWarning,
            stacklevel=4,
        )
    if spec.family == "difference" and y.size:
        span = float(np.ptp(y))
        lo, hi = _DIFFERENCE_SPAN
        if span > hi or 0 < span < lo:
            raise ValueError(
                f"{name}: y's values span {span:.3g}; index {spec.name} sums squared "
                f"differences of y, which {'overflow' if span > hi else 'underflow'} "
                "float64: rescale y (e.g. y / y.std())"
            )


def _ranking_setup(est: Any, table: Any) -> tuple[Any, Any, dict[str, Any], int]:
    """Shared part of the ranking selectors' ``_fit``: the index spec, the slice counts
    (checked by the parameter table, ``RANKING_PARAM_KINDS``; ``"auto"`` kept, the
    kernels resolve it with the rows each column is scored on) and the number of
    features to select. The table holds NaN for a missing value unless
    ``missing="error"`` (a scipy.sparse CSC matrix for sparse input); the target was
    validated with ``check_target(kind="numeric")``: a numeric target keeps its values,
    which the difference indices need, other labels (strings, ...) became class codes
    ``0..c-1``."""
    spec = get_index(est.index)
    d = table.values.shape[1]
    k = check_n_features_to_select(est.n_features_to_select, d)
    params = {"n_slices": est.n_slices, "n_bins_x": est.n_bins_x, "n_bins_y": est.n_bins_y}
    return table.values, spec, params, k


def _ranking_table_options(params: dict[str, Any]) -> dict[str, Any]:
    return {
        "min_samples": 2,
        "allow_missing": params["missing"] != "error",
        "accept_sparse": True,
        "categorical": "auto",
    }


class RankingIndex(SelectorCore):
    """The logic of :class:`fsel.selectors.ranking.RankingIndex` (documented there)."""

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

    _param_kinds: ClassVar[dict[str, Any]] = RANKING_PARAM_KINDS

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
        return super().fit(X, y)

    def _table_options(self, params: dict[str, Any]) -> dict[str, Any]:
        return _ranking_table_options(params)

    def _fit(self, table: Any, y: Any, classes: Any, params: dict[str, Any]) -> RankingIndex:
        # sparse X: a CSC matrix; the kernel sorts only the stored values of each column
        # (a stored NaN is refused there: per-feature deletion needs dense columns)
        values, spec, kw, k = _ranking_setup(self, table)
        target = np.asarray(y, dtype=np.float64)
        check_ranking_inputs(type(self).__name__, spec, table, target)
        scores = ranking_scores(values, target, spec.name, missing="available", **kw)[spec.name]
        self.higher_is_better_ = spec.higher_is_better
        self.index_values_ = scores
        self._set_selection(
            order_by_score(scores, spec.higher_is_better)[:k],
            oriented_scores(scores, spec.higher_is_better),
        )
        return self
