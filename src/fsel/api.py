"""The functional form: ``fsel.select(X, y, method="jmi", n_features_to_select=10, **params)``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fsel._registry import get_method
from fsel.utils.params import check_n_features_to_select_param

__all__ = ["SelectionResult", "select"]


@dataclass
class SelectionResult:
    """What :func:`select` returns.

    Attributes
    ----------
    method : str
        The method's short name.
    features : ndarray of int
        Selected feature indices (0-based) in selection/rank order.
    names : list of str
        Their names (column names of a DataFrame, else ``"x<i>"``).
    scores : ndarray of float
        The score of each selected feature (per-step criterion value for greedy
        methods, weight for Relief, the raw index value, ``index_values_``, for the
        ranking indices).
    estimator : object
        The fitted estimator, for everything else it exposes.
    """

    method: str
    features: np.ndarray
    names: list[str]
    scores: np.ndarray
    estimator: Any

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return {
            "method": self.method,
            "features": [
                {"rank": r + 1, "index": int(i), "name": n, "score": float(s)}
                for r, (i, n, s) in enumerate(
                    zip(self.features, self.names, self.scores, strict=True)
                )
            ],
        }


def result_from_estimator(method: str, est: Any, feature_names: Any = None) -> SelectionResult:
    """Build a :class:`SelectionResult` from any fitted fsel selector."""
    order = np.asarray(est.selection_order_, dtype=np.intp)
    if hasattr(est, "selection_scores_"):
        scores = np.asarray(est.selection_scores_, dtype=float)
    elif hasattr(est, "index_values_"):  # a ranking index: its own values, as published
        scores = np.asarray(est.index_values_, dtype=float)[order]
    else:
        scores = np.asarray(est.scores_, dtype=float)[order]
    if feature_names is None:
        feature_names = getattr(est, "feature_names_in_", None)
    if feature_names is None:
        names = [f"x{i}" for i in order]
    else:
        names = [str(feature_names[i]) for i in order]
    return SelectionResult(method, order, names, scores, est)


def select(
    X: Any,
    y: Any,
    method: str = "jmi",
    n_features_to_select: int | float | str | None = None,
    *,
    missing: str | None = None,
    **params: Any,
) -> SelectionResult:
    """Select ``n_features_to_select`` features of ``X`` for ``y`` with a named method.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    method : str
        A short name from ``fsel methods`` (e.g. ``"jmi"``, ``"mrmr"``, ``"relieff"``).
    n_features_to_select : int, float, "auto" or None, default=None
        Number of features (a float in (0, 1]: that fraction); None keeps the method's
        default: half of the features, or ``"auto"`` for a method that decides the
        count itself (classifiability).
    missing : str or None
        The method's missing-value rule (docs/user_guide/missing_sparse.rst), passed as its
        ``missing``
        parameter: None keeps the method's default (its own rule for NaN, None,
        ``pd.NA`` in ``X``: ``"level"`` for the information criteria, ``"expected"``
        for the Relief family, ``"partial"`` for classifiability, ``"available"`` for
        the ranking indices); ``"error"`` refuses missing values.
    **params
        Passed to the estimator's constructor.

    Examples
    --------
    >>> import numpy as np
    >>> import fsel
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 4, size=(300, 8))
    >>> y = (X[:, 1] > 1).astype(int) ^ (X[:, 6] > 2).astype(int)
    >>> res = fsel.select(X, y, method="jmi", n_features_to_select=2)
    >>> sorted(res.features.tolist())
    [1, 6]
    >>> res.names[0] in ("x1", "x6")
    True

    Missing values are handled by the method's own rule:

    >>> Xm = X.astype(float)
    >>> Xm[::7, 1] = np.nan
    >>> fsel.select(Xm, y, method="chi2", n_features_to_select=1).features.tolist()
    [1]
    """
    m = get_method(method)
    check_n_features_to_select_param(n_features_to_select, allow_auto=True)
    if missing is not None:
        accepted = m.make().get_params(deep=False)
        if "missing" not in accepted:
            raise ValueError(f"method {m.name!r} has no missing-value rule ('missing')")
        params["missing"] = missing
    if n_features_to_select is not None:
        params["n_features_to_select"] = n_features_to_select
    est = m.make(**params)
    est.fit(X, y)
    # a frame's labels that scikit-learn keeps no names for (not all strings): as text
    labels = (
        getattr(X, "columns", None) if getattr(est, "feature_names_in_", None) is None else None
    )
    names = None if labels is None else [str(c) for c in labels]
    return result_from_estimator(m.name, est, names)
