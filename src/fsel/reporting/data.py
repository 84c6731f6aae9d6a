"""The feature report's input: the table as numbers (missing values kept as NaN,
categorical columns as codes), the validated target, and what the table holds
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
        ``"numeric"``, ``"integer"``, ``"binary"`` or ``"categorical"`` per feature.
    missing : ndarray of int, shape (n_features,)
        Missing values (NaN or None) per feature.
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


def _column_arrays(X: Any) -> tuple[list[str] | None, list[np.ndarray]]:
    from fsel.utils.validation import is_dataframe

    if is_dataframe(X):
        return [str(c) for c in X.columns], [X[c].to_numpy() for c in X.columns]
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"fsel.report: X must be a 2-D table, got shape {arr.shape}")
    return None, [arr[:, j] for j in range(arr.shape[1])]


def _is_missing(col: np.ndarray) -> np.ndarray:
    if col.dtype.kind == "f":
        return np.isnan(col)
    if col.dtype.kind == "O":
        return np.array([v is None or (isinstance(v, float) and v != v) for v in col.tolist()])
    return np.zeros(col.shape[0], dtype=bool)


def _numeric_column(col: np.ndarray, categorical: bool) -> tuple[np.ndarray, str]:
    """Float values (NaN where missing; codes for categorical columns) and the type."""
    miss = _is_missing(col)
    if col.dtype.kind == "b":
        return col.astype(np.float64), "binary"
    kind = getattr(col.dtype, "kind", "O")
    if not categorical and kind in "iuf":
        vals = col.astype(np.float64)
        obs = vals[~miss]
        levels = np.unique(obs).size
        if kind in "iu" or (obs.size and np.all(obs == np.round(obs))):
            return vals, "binary" if levels <= 2 else "integer"
        return vals, "numeric"
    if not categorical:
        try:
            vals = np.array([np.nan if m else float(v) for v, m in zip(col, miss, strict=True)])
            return vals, "numeric"
        except (TypeError, ValueError):
            categorical = True
    out = np.full(col.shape[0], np.nan)
    if (~miss).any():
        _, codes = np.unique(col[~miss].astype(str), return_inverse=True)
        out[~miss] = codes.reshape(-1)
    return out, "categorical"


def prepare(
    X: Any, y: Any, feature_names: Any, categorical: Any, task: str
) -> tuple[np.ndarray, np.ndarray, DataSummary, list[int]]:
    """The numeric table (NaN kept), the validated target, the data summary and the
    categorical columns."""
    from fsel.utils.column_types import column_types
    from fsel.utils.targets import check_target
    from fsel.utils.validation import _missing_mask

    names, cols = _column_arrays(X)
    n_features = len(cols)
    n_samples = len(cols[0]) if cols else 0
    if n_samples == 0 or n_features == 0:
        raise ValueError(f"fsel.report: X is empty (shape ({n_samples}, {n_features}))")
    if feature_names is not None:
        names = [str(n) for n in feature_names]
        if len(names) != n_features:
            raise ValueError(f"fsel.report: {len(names)} feature names for {n_features} features")
    if names is None:
        names = [f"x{j}" for j in range(n_features)]
    cat: set[int] = set()
    for c in [] if categorical is None else list(categorical):
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            if not 0 <= int(c) < n_features:
                raise ValueError(f"fsel.report: categorical column {c} is out of range")
            cat.add(int(c))
        elif str(c) in names:
            cat.add(names.index(str(c)))
        else:
            raise ValueError(f"fsel.report: categorical column {c!r} is not a feature")
    listed = sorted(cat) if categorical is not None else "auto"
    if hasattr(X, "columns"):  # pandas category, polars Categorical/Enum columns
        for j, c in enumerate(X.columns):
            if str(X[c].dtype).startswith(("category", "Categorical", "Enum")):
                cat.add(j)
    # which columns are categorical: the library's one rule (text, category, boolean)
    arrays = [np.asarray(c) for c in cols]
    mask, _ = column_types(
        arrays,
        [_missing_mask(a) for a in arrays],
        listed,
        None,
        [j in cat for j in range(n_features)],
    )
    cat |= {int(j) for j in np.flatnonzero(mask)}
    values = np.empty((n_samples, n_features))
    types = []
    missing = np.zeros(n_features, dtype=np.int64)
    for j, col in enumerate(cols):
        values[:, j], t = _numeric_column(np.asarray(col), j in cat)
        if t == "categorical":
            cat.add(j)
        types.append(t)
        missing[j] = int(np.isnan(values[:, j]).sum())
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
    return values, y_arr, summary, sorted(cat)
