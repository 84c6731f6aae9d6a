"""The base class of every fsel estimator: scikit-learn's API on top of the fitting logic.

A selector's logic (``__init__``, ``fit``) lives in a plain class deriving from
:class:`fsel.selectors._core.SelectorCore`, which imports no scikit-learn; the public
estimator puts :class:`BaseSelector` in front of it. ``BaseSelector`` adds
scikit-learn's ``BaseEstimator`` (``get_params``/``set_params``, cloning, the repr) and
``SelectorMixin`` (``transform``, ``get_support``, ``inverse_transform``,
``get_feature_names_out`` through ``_get_support_mask``), records
``feature_names_in_`` (only when fitted on a DataFrame with string columns) with
scikit-learn's own check, and sets the estimator tags. The other fitted attributes are
documented in :mod:`fsel.selectors._core`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from fsel.selectors._core import SelectorCore
from fsel.utils.compat import check_feature_names as _check_feature_names
from fsel.utils.compat import check_n_features as _check_n_features
from fsel.utils.compat import get_output_config as _get_output_config

__all__ = ["BaseSelector"]


class BaseSelector(SelectorMixin, BaseEstimator, SelectorCore):
    """Shared machinery of fsel estimators (not used directly).

    An estimator is ``class Name(BaseSelector, logic.Name)`` (or a subclass of a
    family's ``BaseSelector`` subclass), with ``logic.Name`` a
    :class:`~fsel.selectors._core.SelectorCore` holding ``__init__`` and ``fit``.
    """

    def _record_feature_names(self, X: Any) -> None:
        _check_feature_names(self, X, reset=True)

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
        # the nearest-neighbour information estimator needs dense rows
        mi = getattr(self, "mi_estimator", None)
        tags.input_tags.sparse = self._accepts_sparse and not (isinstance(mi, str) and mi == "knn")
        # a family that handles missing values has a ``missing`` parameter; "error"
        # refuses them (docs/user_guide/missing_sparse.rst)
        tags.input_tags.allow_nan = getattr(self, "missing", "error") != "error"
        return tags
