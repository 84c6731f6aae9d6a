"""The fitting logic every fsel selector shares, without scikit-learn.

Each family writes its selectors once, as plain classes deriving from
:class:`SelectorCore`: parameters stored unchanged in ``__init__``, validation and the
computation in ``fit``, the fitted attributes (ending in ``_``) set on ``self``. The
public estimators (``fsel.JMI``, ``fsel.ReliefF``, ...) are those classes with
:class:`fsel.selectors._base.BaseSelector` (scikit-learn's ``BaseEstimator`` and
``SelectorMixin``) put in front::

    class JMI(InformationSelector, _fit.JMI):  # the estimator: docs + scikit-learn API
        __doc__ = ...

so ``fit`` runs the same code either way.

The one fit template
--------------------
Every selector's ``fit`` is :meth:`SelectorCore.fit`, the same sequence everywhere:

1. validate the parameters from the family's declarative table ``_param_kinds``
   (:func:`fsel.utils.params.validate_params`: one validator per kind of parameter);
2. the family's hook ``_before_validation(X, y, params)`` (e.g. Relief's imputation);
3. Dask input goes to the family's ``_fit_dask`` (information criteria, ReliefF with
   ``sample_size``; the others refuse it with a clear error);
4. validate the input once into a :class:`~fsel.utils.validation.Table` (values, the
   ``missing`` and ``categorical`` masks, the feature names) and the target, with the
   options of ``_table_options(params)``;
5. the family's ``_fit(table, y, classes, params)``; seeds come from
   :meth:`SelectorCore._seed_sequence`, a copy of ``random_state``.

A job that needs only the computation, such as ``fsel select`` on the command line,
fits the plain class and never imports scikit-learn (about a second of a small job's
start-up); everything else uses the estimators.

Fitted attributes set here
--------------------------
n_features_in_ : int
selection_order_ : ndarray of int, the selected feature indices in the order picked
support_ : ndarray of bool, the mask of selected features
ranking_ : ndarray of int, scikit-learn's ``RFE`` rule (:func:`rfe_ranking`): 1 for every
    selected feature, the others ranked 2, 3, ... by decreasing ``scores_``
scores_ : ndarray of float, one score per feature, higher is better (meaning documented
    per selector)
feature_types_ : list of str, how each column was taken (``"numeric"``, ``"integer"``,
    ``"categorical"``, ``"datetime"``; :func:`fsel.utils.column_types.column_types`)

The estimators add ``feature_names_in_`` (when fitted on a DataFrame with string
columns) through scikit-learn's own check.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

import numpy as np

from fsel.utils.dask_table import is_dask
from fsel.utils.params import seed_sequence, validate_params
from fsel.utils.targets import check_target
from fsel.utils.validation import Table, check_table

__all__ = ["SelectorCore", "rfe_ranking"]


def rfe_ranking(support: Any, scores: Any, tie_tol: float = 0.0) -> np.ndarray:
    """Ranks in scikit-learn's ``RFE`` convention: 1 for every selected feature; the
    others 2, 3, ... by decreasing score, ties broken by column index, a feature whose
    score is NaN after every scored one. With ``tie_tol > 0`` the scores are first
    rounded to multiples of ``tie_tol`` (the greedy engine's rule for ties: scores
    that differ by rounding noise alone, such as 0.0 and -9e-16, rank by index).

    Examples
    --------
    >>> rfe_ranking([True, False, False, True, False], [0.9, 0.1, np.nan, 0.5, 0.3]).tolist()
    [1, 3, 4, 1, 2]
    >>> rfe_ranking([False, False, False], [-9e-16, 0.0, 0.2], tie_tol=1e-10).tolist()
    [3, 4, 2]
    """
    support = np.asarray(support, dtype=bool)
    scores = np.asarray(scores, dtype=np.float64)
    # the temporaries one at a time (a wide table's fit peaks here otherwise)
    rest = np.flatnonzero(~support)
    if support.size < 2**31:  # half the bytes for the indices carried along
        rest = rest.astype(np.int32)
    key = scores[rest]
    if tie_tol > 0:
        np.divide(key, tie_tol, out=key)
        np.round(key, out=key)
    np.negative(key, out=key)  # decreasing score; NaN stays NaN, which sorts last
    order = np.argsort(key, kind="stable")  # stable: ties keep the column order
    del key
    rest = rest[order]
    del order
    ranking = np.ones(support.size, dtype=np.intp)
    ranking[rest] = np.arange(2, rest.size + 2)
    return ranking


class SelectorCore:
    """Shared fitting logic of fsel selectors (not used directly).

    Subclasses set ``_target_kind`` to ``"classification"``, ``"regression"`` or
    ``"any"``, declare their parameters' kinds in ``_param_kinds`` and implement
    ``__init__``, ``_table_options`` and ``_fit`` (the module says how ``fit`` runs).

    Examples
    --------
    >>> from fsel.selectors.information._fit import JMI
    >>> JMI._param_names()[:3]
    ['categorical', 'device', 'discretize']
    """

    _target_kind = "classification"
    #: scikit-learn input tag ``sparse``: every family takes scipy.sparse input
    _accepts_sparse = True
    #: parameter name -> kind of :data:`fsel.utils.params.PARAMETER_KINDS`, or a tuple
    #: of the allowed values of an enum-like option
    _param_kinds: ClassVar[dict[str, Any]] = {}
    #: the picks do not depend on the columns' order but where scores tie (the lowest
    #: index wins): the resampling meta-methods show each replicate the columns in a
    #: random order (:func:`fsel.meta.column_order.column_order`)
    _column_order_free = True
    #: scores of unselected features closer than this rank as ties (by column index):
    #: :func:`rfe_ranking`'s ``tie_tol``
    _tie_tol = 0.0

    # ------------------------------------------------------------ the one template
    def fit(self, X: Any, y: Any) -> Any:
        """Fit the selector on ``X`` and ``y`` (the family's docstring says how).

        Returns
        -------
        self
        """
        params = self._check_param_table()
        X, y = self._before_validation(X, y, params)
        if is_dask(X):
            return self._fit_dask(X, y, params)
        if is_dask(y):  # X is in memory already: so may its labels be
            y = y.compute()
        table, y_out, classes = self._validate_fit_data(X, y, **self._table_options(params))
        return self._fit(table, y_out, classes, params)

    def _check_param_table(self) -> dict[str, Any]:
        """The checked values of the parameters of ``_param_kinds``."""
        return validate_params(self, self._param_kinds)

    def _before_validation(self, X: Any, y: Any, params: dict[str, Any]) -> tuple[Any, Any]:
        """Hook before the input is validated (default: nothing)."""
        return X, y

    def _table_options(self, params: dict[str, Any]) -> dict[str, Any]:
        """Keyword arguments of :meth:`_validate_fit_data` (default: dense or sparse,
        missing values unless ``missing="error"``, the ``categorical`` parameter)."""
        return {
            "categorical": params.get("categorical", getattr(self, "categorical", None)),
            "allow_missing": params.get("missing", "error") != "error",
            "accept_sparse": True,
        }

    def _fit_dask(self, X: Any, y: Any, params: dict[str, Any]) -> Any:
        """Dask input: refused unless the family runs on Dask (the usual message)."""
        check_table(X, estimator_name=type(self).__name__)  # raises the Dask TypeError
        raise AssertionError("unreachable")  # pragma: no cover

    def _fit(
        self, table: Table, y: np.ndarray, classes: np.ndarray | None, params: dict[str, Any]
    ) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _seed_sequence(self) -> np.random.SeedSequence:
        """The root seed of this fit: a copy of ``random_state`` (see
        :func:`fsel.utils.params.seed_sequence`)."""
        return seed_sequence(getattr(self, "random_state", None))

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
        any_float_layout: bool = False,
        values_checked: bool = False,
        n_jobs: int = 1,
    ) -> tuple[Table, np.ndarray, np.ndarray | None]:
        """Validate ``X`` and ``y`` once and record ``n_features_in_``/names.

        ``keep_integer=True`` lets an integer ndarray through without a float copy
        (``Table.values`` then keeps its dtype); ``allow_missing=True`` keeps missing
        values as NaN (``Table.missing`` flags their columns) for the family's own rule;
        ``accept_sparse=True`` returns scipy.sparse input as a CSC matrix, never densified;
        ``read_only=True`` (the caller never writes ``Table.values``) passes a float64
        ndarray through without a copy (``any_float_layout=True``: a float32 one or a
        DataFrame's column-major block too, read as float64); ``values_checked=True``
        skips the finiteness and range passes over a float ndarray the caller has
        checked elsewhere;
        ``n_jobs`` threads those passes."""
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
            any_float_layout=any_float_layout,
            values_checked=values_checked,
            n_jobs=n_jobs,
        )
        self._record_feature_names(X)
        self.n_features_in_ = table.values.shape[1]
        self.feature_types_ = table.feature_types  # (the table's own: made for this fit)
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
        self.scores_ = np.asarray(scores, dtype=np.float64)
        self.ranking_ = rfe_ranking(support, self.scores_, self._tie_tol)
