"""Target checks: a target vector validated into class codes or float values.

:func:`check_target` refuses missing values (named by row), inf, a length that does not
match ``X``, a single class or a constant regression target;
:func:`is_continuous_target` tells a continuous target from class labels.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np

from fsel.utils.validation import _missing_mask

__all__ = ["check_target", "is_continuous_target"]


def check_target(
    y: Any,
    n_samples: int,
    *,
    kind: str = "classification",
    estimator_name: str = "estimator",
) -> tuple[np.ndarray, np.ndarray | None]:
    """Validate a target vector.

    Parameters
    ----------
    y : array-like or Series of shape (n_samples,)
    n_samples : int
        Number of rows of X; ``y`` must match it.
    kind : {"classification", "regression", "any", "numeric"}
        ``"classification"`` returns class codes 0..c-1 and the class labels, and
        requires at least two classes. ``"regression"`` returns float values and
        requires a non-constant target. ``"any"`` returns floats for float targets
        and codes otherwise. ``"numeric"`` keeps the values of every numeric target
        (float, integer or boolean dtype, or an object array holding only numbers) as
        floats, with ``classes`` None, and requires them not to be constant; any other
        labels (strings, ...) become class codes as with ``"classification"``.

    Returns
    -------
    y_out : ndarray of shape (n_samples,)
    classes : ndarray or None
    """
    if y is None:
        raise ValueError(f"{estimator_name} requires y to be passed, but the target y is None")
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{estimator_name}: y must be 1-D, got shape {arr.shape}")
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"{estimator_name}: X and y have inconsistent lengths: X has {n_samples} "
            f"samples, y has {arr.shape[0]}"
        )
    miss = _missing_mask(arr)
    if miss.any():
        rows = np.flatnonzero(miss)
        shown = ", ".join(str(int(r)) for r in rows[:5]) + (", ..." if rows.size > 5 else "")
        raise ValueError(
            f"{estimator_name}: y has {rows.size} missing value(s) (NaN/None) at row(s) "
            f"{shown}; drop those rows or fill the target first"
        )
    if arr.dtype.kind == "c":
        raise ValueError(f"{estimator_name}: y is complex; give class labels or real numbers")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{estimator_name}: y contains inf")
    if kind == "numeric" and _is_numeric_target(arr):
        out = arr.astype(np.float64)
        if not np.isfinite(out).all():
            raise ValueError(f"{estimator_name}: y contains NaN or inf")
        if np.ptp(out) == 0:
            what = "a single class, " if arr.dtype.kind in "biuO" else ""
            raise ValueError(
                f"{estimator_name}: y is constant ({what}{arr[:1].tolist()[0]!r}); nothing "
                "can be ranked against it"
            )
        return out, None
    if kind == "regression" or (kind == "any" and arr.dtype.kind == "f"):
        try:
            out = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{estimator_name}: y must be numeric for a regression target"
            ) from None
        if np.ptp(out) == 0:
            raise ValueError(f"{estimator_name}: y is constant; nothing can be ranked against it")
        return out, None
    small = _small_integer_codes(arr)
    if small is not None:
        classes, codes = small
    else:
        try:
            classes, codes = np.unique(arr, return_inverse=True)
        except TypeError:
            classes, codes = np.unique(arr.astype(str), return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"{estimator_name}: y has a single class, only one class ({_plain(classes[0])!r}); at "
            "least two classes are needed to select features"
        )
    if codes.dtype != np.intp:
        codes = codes.reshape(-1).astype(np.intp)
    return codes, classes


def _small_integer_codes(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``np.unique(arr, return_inverse=True)`` of integer labels spanning fewer than
    65,536 values, by counting instead of sorting and in blocks (no temporary of the
    target's length); ``arr`` itself when it already holds the codes ``0..c-1`` as
    ``intp`` (no fit writes into its target codes). None for other targets."""
    if arr.dtype.kind not in "iu" or arr.dtype == np.uint64 or arr.size == 0:
        return None
    lo, hi = int(arr.min()), int(arr.max())
    if hi - lo >= 1 << 16:
        return None
    block = 1 << 20
    as_is = lo == 0 and arr.dtype == np.intp  # bincount reads it without a copy
    if hi - lo <= 1:  # the smallest and the largest value are there: nothing to count
        present = np.ones(hi - lo + 1, dtype=bool)
    else:
        counts = np.zeros(hi - lo + 1, dtype=np.int64)
        for a in range(0, arr.size, block):
            part = arr[a : a + block] if as_is else arr[a : a + block].astype(np.int64) - lo
            counts += np.bincount(part, minlength=counts.size)
        present = counts > 0
    classes = (np.flatnonzero(present) + lo).astype(arr.dtype)
    if lo == 0 and present.all() and arr.dtype == np.intp:
        return classes, arr  # already the codes: no copy (the fit never writes into y)
    lut = np.cumsum(present) - 1
    codes = np.empty(arr.size, dtype=np.intp)
    for a in range(0, arr.size, block):
        codes[a : a + block] = lut[arr[a : a + block].astype(np.int64) - lo]
    return classes, codes


def _is_numeric_target(arr: np.ndarray) -> bool:
    """True for a float, integer or boolean target, or an object array of numbers only."""
    if arr.dtype.kind in "biuf":
        return True
    if arr.dtype.kind != "O":
        return False
    return all(isinstance(v, Real) for v in arr.tolist())


def is_continuous_target(y: Any) -> bool:
    """Whether ``y`` is a continuous target: float values that are not all whole numbers
    (scikit-learn's ``type_of_target(y) == "continuous"`` rule, without importing
    scikit-learn; missing values are not counted).

    Examples
    --------
    >>> is_continuous_target([0.0, 1.0, 1.0]), is_continuous_target([0.5, 1.0])
    (False, True)
    >>> is_continuous_target(["a", "b"])
    False
    """
    try:
        arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    except (TypeError, ValueError):
        return False
    if arr.dtype.kind != "f" or arr.size == 0:
        return False
    arr = arr.ravel()
    fin = arr[np.isfinite(arr)]
    return bool(fin.size) and not np.all(fin == np.round(fin))


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``1``, not ``np.int64(1)``), for
    messages."""
    return value.item() if hasattr(value, "item") and getattr(value, "ndim", 1) == 0 else value
