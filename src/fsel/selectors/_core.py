"""The fitting logic every fsel selector shares, without scikit-learn.

Each family writes its selectors once, as plain classes deriving from
:class:`SelectorCore`: parameters stored unchanged in ``__init__``, validation and the
computation in ``fit``, the fitted attributes (ending in ``_``) set on ``self``. The
public estimators (``fsel.JMI``, ``fsel.ReliefF``, ...) are those classes with
:class:`fsel.selectors._base.BaseSelector` (scikit-learn's ``BaseEstimator`` and
``SelectorMixin``) put in front::

    class JMI(InformationSelector, _fit.JMI):  # the estimator: docs + scikit-learn API
        __doc__ = ...

so ``fit`` runs the same code either way. A job that needs only the computation, such as
``fsel select`` on the command line, fits the plain class and never imports
scikit-learn (about a second of a small job's start-up); everything else uses the
estimators.

Fitted attributes set here
--------------------------
n_features_in_ : int
selection_order_ : ndarray of int, the selected feature indices in the order picked
support_ : ndarray of bool, the mask of selected features
ranking_ : ndarray of int, 1 for the first pick, 2 for the second, ...; every feature
    that was not selected shares rank ``n_selected + 1``
scores_ : ndarray of float, one score per feature (meaning documented per selector)

The estimators add ``feature_names_in_`` (when fitted on a DataFrame with string
columns) through scikit-learn's own check.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from fsel.utils.validation import Table, check_table, check_target

__all__ = ["SelectorCore"]


class SelectorCore:
    """Shared fitting logic of fsel selectors (not used directly).

    Subclasses set ``_target_kind`` to ``"classification"``, ``"regression"`` or
    ``"any"`` and implement ``__init__`` and ``fit``.

    Examples
    --------
    >>> from fsel.selectors.information._fit import JMI
    >>> JMI._param_names()[:3]
    ['categorical', 'discretize', 'estimator']
    """

    _target_kind = "classification"
    #: scikit-learn input tag ``sparse``: every family takes scipy.sparse input
    _accepts_sparse = True

    @classmethod
    def _param_names(cls) -> list[str]:
        """The constructor's parameter names, sorted (scikit-learn's rule: every
        parameter of ``__init__`` but ``self``; no ``*args``)."""
        init = cls.__init__
        if init is object.__init__:
            return []
        names = []
        for p in inspect.signature(init).parameters.values():
            if p.name == "self" or p.kind == p.VAR_KEYWORD:
                continue
            if p.kind == p.VAR_POSITIONAL:
                raise RuntimeError(f"{cls.__name__}: a selector takes no *args")
            names.append(p.name)
        return sorted(names)

    def _constructor_params(self) -> dict[str, Any]:
        """The constructor parameters and their values (``get_params(deep=False)``)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def _record_feature_names(self, X: Any) -> None:
        """Hook: the estimators record ``feature_names_in_`` here (scikit-learn's
        check); the plain classes leave names to their caller."""

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
        read_only: bool = False,
    ) -> tuple[Table, np.ndarray, np.ndarray | None]:
        """Validate ``X`` and ``y`` once and record ``n_features_in_``/names.

        ``keep_integer=True`` lets an integer ndarray through without a float copy
        (``Table.values`` then keeps its dtype); ``allow_missing=True`` keeps missing
        values as NaN (``Table.missing`` flags their columns) for the family's own rule;
        ``accept_sparse=True`` returns scipy.sparse input as a CSC matrix, never densified;
        ``read_only=True`` (the caller never writes ``Table.values``) passes a float64
        ndarray through without a copy."""
        name = type(self).__name__
        table = check_table(
            X,
            categorical=categorical,
            min_samples=min_samples,
            estimator_name=name,
            keep_integer=keep_integer,
            allow_missing=allow_missing,
            accept_sparse=accept_sparse,
            read_only=read_only,
        )
        self._record_feature_names(X)
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
