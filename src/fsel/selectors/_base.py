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
from sklearn.utils._set_output import _get_output_config
from sklearn.utils.validation import _check_feature_names, _check_n_features, check_is_fitted

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
        allow_missing: bool = False,
        accept_sparse: bool | str = False,
    ) -> tuple[Table, np.ndarray, np.ndarray | None]:
        """Validate ``X`` and ``y`` once and record ``n_features_in_``/names.

        ``keep_integer=True`` lets an integer ndarray through without a float copy
        (``Table.values`` then keeps its dtype); ``allow_missing=True`` keeps missing
        values as NaN (``Table.missing`` flags their columns) for the family's own rule;
        ``accept_sparse=True`` returns scipy.sparse input as a CSC matrix, never densified."""
        name = type(self).__name__
        table = check_table(
            X,
            categorical=categorical,
            min_samples=min_samples,
            estimator_name=name,
            keep_integer=keep_integer,
            allow_missing=allow_missing,
            accept_sparse=accept_sparse,
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

    def transform(self, X: Any) -> Any:
        """Reduce ``X`` to the selected features.

        A pandas DataFrame is cut by column, whatever its dtypes (categorical, string,
        nullable columns with holes), and returned as a numpy array as scikit-learn's
        selectors do; other input goes through scikit-learn's ``SelectorMixin``.
        """
        if type(X).__module__.startswith("pandas") and hasattr(X, "iloc"):
            if _get_output_config("transform", estimator=self)["dense"] == "default":
                check_is_fitted(self, "support_")
                _check_feature_names(self, X, reset=False)
                _check_n_features(self, X, reset=False)
                return X.iloc[:, np.flatnonzero(self._get_support_mask())].to_numpy()
        return super().transform(X)

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        # a family that handles missing values has a ``missing`` parameter; "error"
        # refuses them (SPEC section 10)
        tags.input_tags.allow_nan = getattr(self, "missing", "error") != "error"
        return tags
