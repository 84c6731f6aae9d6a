"""The feature report's input: the table as the methods get it and as numbers
(missing values kept as NaN, categorical columns as codes, dates as seconds), typed by
the library's one column rule, the validated target, and what the table holds
(:class:`DataSummary`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["DataSummary", "prepare"]


@dataclass
class DataSummary:
    """What the table holds.

    Attributes
    ----------
    n_samples, n_features : int
    task : {"classification", "regression"}
    feature_names : list of str
    feature_types : list of str
        How each feature is taken, as by every estimator
        (:func:`fsel.utils.column_types.column_types`): ``"categorical"``,
        ``"datetime"`` (seconds since the epoch), ``"integer"`` or ``"numeric"``.
    missing : ndarray of int, shape (n_features,)
        Missing values (NaN, None, ``pd.NA``, ``NaT``, a polars null) per feature.
    classes : list of (label, count)
        Class labels and their counts (empty for a regression target).
    target_range : tuple of float or None
        ``(min, median, max)`` of a regression target.
    """

    n_samples: int
    n_features: int
    task: str
    feature_names: list[str]
    feature_types: list[str]
    missing: np.ndarray
    classes: list[tuple[str, int]] = field(default_factory=list)
    target_range: tuple[float, float, float] | None = None

    @property
    def n_missing(self) -> int:
        return int(self.missing.sum())


# --------------------------------------------------------------------------- input
def _infer_task(y: np.ndarray) -> str:
    """Regression for a float target with fractional values or more than 20 levels."""
    if y.dtype.kind == "f":
        finite = y[np.isfinite(y)]
        if finite.size and (np.any(finite != np.round(finite)) or np.unique(finite).size > 20):
            return "regression"
    return "classification"


def _categorical_mask(categorical: Any, names: list[str]) -> np.ndarray:
    """The columns named in ``categorical`` (indices, or names of ``names``) as a mask."""
    n_features = len(names)
    mask = np.zeros(n_features, dtype=bool)
    for c in list(categorical):
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            if not 0 <= int(c) < n_features:
                raise ValueError(f"fsel.report: categorical column {c} is out of range")
            mask[int(c)] = True
        elif str(c) in names:
            mask[names.index(str(c))] = True
        else:
            raise ValueError(f"fsel.report: categorical column {c!r} is not a feature")
    return mask


def prepare(
    X: Any, y: Any, feature_names: Any, categorical: Any, task: str
) -> tuple[Any, np.ndarray, np.ndarray, DataSummary, list[int]]:
    """The table as the methods get it, the numeric table (dense, NaN kept), the
    validated target, the data summary and the categorical columns.

    The columns are typed by the library's one rule
    (:func:`fsel.utils.validation.check_table`), as every estimator types them: text,
    categorical and boolean columns are categorical (codes), dates are seconds since
    the epoch, and a missing value (NaN, None, ``pd.NA``, ``NaT``, a polars null) is
    NaN. A scipy.sparse ``X`` goes to the methods as a sparse matrix; the report's own
    numbers (missing counts, the nearest-neighbour curves) read a dense copy.
    """
    from fsel.utils.targets import check_target
    from fsel.utils.validation import check_table, is_dataframe, table_array

    if not hasattr(X, "shape"):  # a list of rows: read once, here (numbers stay numbers)
        X = table_array(X, "fsel.report")
    names: list[str] | None = None
    if is_dataframe(X):
        names = [str(c) for c in X.columns]
    elif len(X.shape) == 2:
        names = [f"x{j}" for j in range(X.shape[1])]
    if feature_names is not None and names is not None:
        given = [str(n) for n in feature_names]
        if len(given) != len(names):
            raise ValueError(f"fsel.report: {len(given)} feature names for {len(names)} features")
        names = given
    listed: Any = "auto"
    if categorical is not None and names is not None:
        listed = _categorical_mask(categorical, names)
    table = check_table(
        X,
        categorical=listed,
        estimator_name="fsel.report",
        allow_missing=True,
        accept_sparse=True,
    )
    values = table.values.toarray() if table.is_sparse else np.asarray(table.values)
    n_samples, n_features = values.shape
    if names is None:
        names = [f"x{j}" for j in range(n_features)]
    cat = [int(j) for j in np.flatnonzero(table.categorical)]
    if table.is_sparse:
        X_sel = X.tocsc()  # sparse as given (dtype kept), its rows indexable
    elif is_dataframe(X) or (isinstance(X, np.ndarray) and X.dtype.kind in "biuf"):
        X_sel = X  # as the caller gave it: dtypes, names (integer columns are numbers)
    else:
        X_sel = values  # text, dates, objects: the typed numbers (categorical codes)
    types = list(table.feature_types or [])
    missing = np.isnan(values).sum(axis=0).astype(np.int64)
    y_arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if task == "auto":
        task = _infer_task(y_arr.ravel() if y_arr.ndim == 2 else y_arr)
    if task not in ("classification", "regression"):
        raise ValueError(f"task must be 'auto', 'classification' or 'regression', got {task!r}")
    y_out, classes = check_target(y_arr, n_samples, kind=task, estimator_name="fsel.report")
    summary = DataSummary(n_samples, n_features, task, names, types, missing)
    if task == "classification":
        assert classes is not None
        counts = np.bincount(y_out, minlength=classes.size)
        summary.classes = [(str(c), int(n)) for c, n in zip(classes, counts, strict=True)]
        y_arr = y_arr.ravel()
    else:
        summary.target_range = (
            float(np.min(y_out)),
            float(np.median(y_out)),
            float(np.max(y_out)),
        )
        y_arr = y_out
    return X_sel, values, y_arr, summary, cat
