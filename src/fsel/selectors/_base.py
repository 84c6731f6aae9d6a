"""The base class every fsel selector shares.

A selector validates its input once in ``fit`` (through :mod:`fsel.utils.validation`),
computes a selection order and per-feature scores with the numeric kernels, and hands
them to :meth:`BaseSelector._set_selection`, which derives the common fitted
attributes. ``transform``, ``get_support``, ``inverse_transform`` and
``get_feature_names_out`` come from scikit-learn's ``SelectorMixin`` through
``_get_support_mask``.

Fitted attributes set here
--------------------------
n_features_in_ : int
feature_names_in_ : ndarray of str (only when fitted on a DataFrame with string columns)
selection_order_ : ndarray of int, the selected feature indices in the order picked
support_ : ndarray of bool, the mask of selected features
ranking_ : ndarray of int, 1 for the first pick, 2 for the second, ...; every feature
    that was not selected shares rank ``n_selected + 1``
scores_ : ndarray of float, one score per feature (meaning documented per selector)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import _check_feature_names, check_is_fitted

from fsel.utils.validation import Table, check_table, check_target

__all__ = ["BaseSelector"]


class BaseSelector(SelectorMixin, BaseEstimator):
    """Shared machinery of fsel selectors (not used directly).

    Subclasses set ``_target_kind`` to ``"classification"``, ``"regression"`` or
    ``"any"`` and implement ``fit``.
    """

    _target_kind = "classification"

    def _validate_fit_data(
        self,
        X: Any,
        y: Any,
        *,
        categorical: Any = None,
        min_samples: int = 1,
        keep_integer: bool = False,
    ) -> tuple[Table, np.ndarray, np.ndarray | None]:
        """Validate ``X`` and ``y`` once and record ``n_features_in_``/names.

        ``keep_integer=True`` lets an integer ndarray through without a float copy
        (``Table.values`` then keeps its dtype)."""
        name = type(self).__name__
        table = check_table(
            X,
            categorical=categorical,
            min_samples=min_samples,
            estimator_name=name,
            keep_integer=keep_integer,
        )
        _check_feature_names(self, X, reset=True)
        self.n_features_in_ = table.values.shape[1]
        y_out, classes = check_target(
            y, table.values.shape[0], kind=self._target_kind, estimator_name=name
        )
        return table, y_out, classes

    def _set_selection(self, order: Any, scores: Any) -> None:
        """Set ``selection_order_``, ``support_``, ``ranking_`` and ``scores_``."""
        d = self.n_features_in_
        order = np.asarray(order, dtype=np.intp)
        if np.unique(order).size != order.size:  # pragma: no cover - engine invariant
            raise RuntimeError("internal error: a feature was selected twice")
        self.selection_order_ = order
        support = np.zeros(d, dtype=bool)
        support[order] = True
        self.support_ = support
        ranking = np.full(d, order.size + 1, dtype=np.intp)
        ranking[order] = np.arange(1, order.size + 1)
        self.ranking_ = ranking
        self.scores_ = np.asarray(scores, dtype=np.float64)

    @property
    def n_features_selected_(self) -> int:
        """Number of selected features."""
        check_is_fitted(self, "support_")
        return int(self.support_.sum())

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_

    def transform(self, X: Any) -> Any:
        """Reduce ``X`` to the selected features.

        A pandas DataFrame with a non-numeric column (categorical, string or datetime,
        accepted by ``fit`` as categorical codes) is sliced by position, since
        scikit-learn's conversion of the whole frame to one array fails on such mixes
        (dates with numbers, categories with booleans); every other input goes through
        scikit-learn's ``SelectorMixin.transform``.
        """
        if _has_non_numeric_column(X) and not _pandas_output(self):
            check_is_fitted(self, "support_")
            _check_feature_names(self, X, reset=False)
            if X.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{self.n_features_in_} features as input."
                )
            return X.iloc[:, np.flatnonzero(self.support_)].to_numpy()
        return super().transform(X)

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = False
        return tags


def _has_non_numeric_column(X: Any) -> bool:
    """True for a pandas DataFrame with a column that is not bool, int or float."""
    if not type(X).__module__.startswith("pandas") or not hasattr(X, "dtypes"):
        return False
    return any(getattr(dt, "kind", "O") not in "biuf" for dt in X.dtypes)


def _pandas_output(est: Any) -> bool:
    """True when ``set_output(transform="pandas")`` is in effect (scikit-learn then
    keeps the frame as it is and selects its columns itself)."""
    from sklearn.utils._set_output import _get_output_config

    return _get_output_config("transform", est)["dense"] == "pandas"
