"""Column typing: which columns of a feature table are categorical, and how each is taken.

The one rule is :func:`column_types` (``categorical="auto"``: text, categorical and
boolean dtypes are categorical; datetime columns become seconds since the epoch). The
helpers next to it read a DataFrame's columns, map labels to integer codes, turn dates
into seconds and flag identifier-like columns; :func:`fsel.utils.validation.check_table`
applies them.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np

__all__ = [
    "FLOAT_EXACT",
    "code_columns",
    "column_types",
    "float_frame_values",
    "is_auto",
    "is_wide",
    "wide_integer_error",
]


#: Integers beyond this magnitude are not all exact in float64.
FLOAT_EXACT = 2**53


def wide_integer_error(label: str, lo: int, hi: int, estimator_name: str, fix: str) -> ValueError:
    """The error for an integer column whose values float64 cannot keep apart."""
    return ValueError(
        f"{estimator_name}: integer column {label!r} spans {lo} .. {hi}, beyond 2**53, so "
        f"float64 cannot keep its values apart; {fix}"
    )


def is_wide(lo: int, hi: int) -> bool:
    """Whether integers spanning ``lo .. hi`` go beyond float64's exact ones."""
    return lo < -FLOAT_EXACT or hi > FLOAT_EXACT


def _column_kind(values: np.ndarray) -> str:
    kind = values.dtype.kind
    if kind == "b":
        return "bool"
    if kind in "iu":
        return "int"
    if kind == "f":
        return "float"
    return "other"


def is_auto(categorical: Any) -> bool:
    """Whether ``categorical`` leaves the choice to the column types (``"auto"`` or
    None): then text, categorical and boolean columns are categorical."""
    return categorical is None or (isinstance(categorical, str) and categorical == "auto")


def _categorical_mask(categorical: Any, n_features: int, names: list[str] | None) -> np.ndarray:
    mask = np.zeros(n_features, dtype=bool)
    if is_auto(categorical):
        return mask
    arr = np.asarray(categorical)
    if arr.dtype == bool:
        if arr.shape != (n_features,):
            raise ValueError(
                f"categorical mask has {arr.size} entries but X has {n_features} features"
            )
        return arr.copy()
    for c in np.atleast_1d(arr).tolist():
        if isinstance(c, str):
            if names is None or c not in names:
                raise ValueError(f"categorical column {c!r} is not a column of X")
            mask[names.index(c)] = True
        elif isinstance(c, Integral):
            if not -n_features <= c < n_features:
                raise ValueError(f"categorical index {c} is out of range for {n_features} features")
            mask[c] = True
        else:
            raise TypeError(f"categorical entries must be column names or indices, got {c!r}")
    return mask


def _codes(values: np.ndarray, missing: np.ndarray | None = None) -> np.ndarray:
    """Map arbitrary labels to integer codes 0..a-1 (sorted order of the labels).

    Cells flagged in ``missing`` become NaN and take no code."""
    out = np.full(values.shape[0], np.nan)
    keep = slice(None) if missing is None else ~missing
    vals = values[keep]
    inv = _object_codes(vals) if vals.dtype == object else None
    if inv is None:
        try:
            _, inv = np.unique(vals, return_inverse=True)
        except TypeError:  # mixed types such as str and int
            _, inv = np.unique(vals.astype(str), return_inverse=True)
    out[keep] = inv.reshape(-1)
    return out


def _object_codes(vals: np.ndarray) -> np.ndarray | None:
    """``np.unique(vals, return_inverse=True)[1]`` for an object column, by hashing:
    each cell's first-seen index in a dict, then the few distinct labels sorted and
    the indices mapped to their ranks (``np.unique`` sorts every cell with Python
    comparisons: several times slower on a long text column). None where the labels
    cannot be hashed or sorted together (mixed types): the caller's rule then.

    Examples
    --------
    >>> _object_codes(np.array(["b", "a", "b", "c"], dtype=object)).tolist()
    [1, 0, 1, 2]
    >>> _object_codes(np.array(["b", 1], dtype=object)) is None
    True
    """
    seen: dict[Any, int] = {}
    try:
        first = np.fromiter(
            (seen.setdefault(v, len(seen)) for v in vals.tolist()), dtype=np.int64, count=vals.size
        )
        labels = np.empty(len(seen), dtype=object)
        labels[:] = list(seen)
        order = np.argsort(labels, kind="stable")
    except TypeError:
        return None
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[first]


def float_frame_values(X: Any, categorical: Any) -> np.ndarray | None:
    """The matrix of a pandas or polars DataFrame whose columns all have one float
    dtype (float64 or float32; NaN or a polars null missing), when no column is named
    categorical (``categorical`` None or ``"auto"``, under which float columns are
    numeric): the frame's own block where it holds one (no copy), else one 2-D copy.
    None for any other frame, which is read column by column.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1.0, 2.5], "b": [np.nan, 4.0]})
    >>> float_frame_values(df, None).tolist()
    [[1.0, nan], [2.5, 4.0]]
    >>> float_frame_values(df.assign(c=[1, 2]), None) is None  # an integer column
    True
    """
    if not is_auto(categorical):
        return None
    if not X.shape[1]:
        return None
    if type(X).__module__.startswith("polars"):
        if {str(t) for t in X.dtypes} not in ({"Float64"}, {"Float32"}):
            return None
    else:
        dtypes = set(X.dtypes.tolist())
        if len(dtypes) != 1:
            return None
        dt = dtypes.pop()
        if not isinstance(dt, np.dtype) or dt not in (np.float32, np.float64):
            return None
    arr = np.asarray(X.to_numpy())
    return arr if arr.ndim == 2 and arr.dtype in (np.float32, np.float64) else None


def _polars_column(s: Any, name: Any, dtype: str, estimator_name: str) -> np.ndarray:
    """A polars column as a 1-D ndarray, or a one-line error naming it."""
    try:
        col = s.to_numpy()
    except Exception:  # polars raises its own errors for types numpy lacks
        col = None
    if col is None or col.ndim != 1:
        raise TypeError(
            f"{estimator_name}: column {str(name)!r} is not numeric (dtype {dtype}): give "
            "one number, string or boolean a row"
        )
    return col


def _dataframe_columns(
    X: Any, estimator_name: str = "estimator"
) -> tuple[list[str], list[np.ndarray], list[bool], list[bool], list[str]]:
    """Column names, column arrays, 'categorical by dtype' flags (pandas ``category``,
    polars ``Categorical``/``Enum``), 'integer or boolean dtype' flags (an integer column
    with missing values arrives as floats with NaN and must still be taken as codes) and
    each column's dtype family for :func:`column_types` (``"bool"``, ``"string"``,
    ``"datetime"`` or ``""``). A column that is not one value a row (a struct, a
    list) or that numpy cannot hold (a 128-bit integer) is an error that names it."""
    names = [str(c) for c in X.columns]
    cols: list[np.ndarray] = []
    declared: list[bool] = []
    integral: list[bool] = []
    family: list[str] = []
    if type(X).__module__.startswith("polars"):
        for c in X.columns:
            s = X[c]
            dt = str(s.dtype)
            is_cat = dt.startswith("Categorical") or dt.startswith("Enum")
            if is_cat:
                s = s.cast(str)
            wide = s.dtype.is_integer() and s.null_count() and is_wide(int(s.min()), int(s.max()))
            if wide:  # with nulls polars gives floats: Python ints instead (exact)
                cols.append(np.array(s.to_list(), dtype=object))
            else:
                cols.append(_polars_column(s, c, dt, estimator_name))
            declared.append(is_cat)
            integral.append(s.dtype.is_integer() or dt == "Boolean")
            if dt == "Boolean":
                family.append("bool")
            elif dt in ("Utf8", "String"):
                family.append("string")
            elif dt.startswith(("Datetime", "Date")):
                family.append("datetime")
            else:
                family.append("")
    else:
        for c in X.columns:
            s = X[c]
            dt = str(s.dtype)
            is_cat = dt == "category"
            kind = getattr(s.dtype, "kind", "O")
            if is_cat:
                codes = s.cat.codes.to_numpy().astype(np.float64)
                codes[codes < 0] = np.nan  # a missing category
                cols.append(codes)
                integral.append(False)
            elif kind == "M" or dt.startswith("datetime64"):
                if getattr(s.dt, "tz", None) is not None:
                    s = s.dt.tz_convert("UTC").dt.tz_localize(None)
                # the column's own unit: a cast to nanoseconds wraps dates outside
                # 1677-2262 around (a datetime64[s] or [us] column holds them)
                cols.append(s.to_numpy())
                integral.append(False)
            else:
                is_int = kind in "iub"
                if is_int and s.hasnans and kind != "b" and is_wide(int(s.min()), int(s.max())):
                    cols.append(s.to_numpy(dtype=object, na_value=None))  # exact ints
                elif is_int and s.hasnans:  # nullable Int64/boolean holding pd.NA
                    cols.append(s.to_numpy(dtype=np.float64, na_value=np.nan))
                else:
                    cols.append(s.to_numpy())
                integral.append(is_int)
            declared.append(is_cat)
            if dt in ("bool", "boolean"):
                family.append("bool")
            elif dt.startswith("string") or dt == "str":
                family.append("string")
            elif kind == "M" or dt.startswith("datetime64"):
                family.append("datetime")
            else:
                family.append("")
    return names, cols, declared, integral, family


#: A non-float column with at least this share of distinct values (over at least
#: ``_ID_MIN_ROWS`` observed rows) looks like an identifier: ``fit`` warns.
_ID_SHARE = 0.95
_ID_MIN_ROWS = 20


def _is_string_column(col: np.ndarray, miss: np.ndarray) -> bool:
    """A text column: a numpy string array, or an object column holding at least one
    string (the others may be numbers); objects of any other kind are not text."""
    if col.dtype.kind in "US":
        return True
    if col.dtype.kind != "O":
        return False
    values = col[~miss].tolist()
    if any(not isinstance(v, (str, bytes, Real, bool, np.bool_)) for v in values):
        return False  # e.g. a dict: refused as "not a string or a number"
    return any(isinstance(v, (str, bytes)) for v in values)


def column_types(
    cols: list[np.ndarray],
    missing: list[np.ndarray],
    categorical: Any,
    names: list[str] | None,
    declared: Any = None,
    family: list[str] | None = None,
    integral: Any = None,
) -> tuple[np.ndarray, list[str]]:
    """Which columns are categorical, and how each column is taken: the one rule.

    With ``categorical="auto"`` (or None) a column is categorical when its dtype is
    pandas ``category``/``string``, polars ``Categorical``/``Enum``/``Utf8``/``String``,
    boolean, or an object column holding text; numeric columns are not. A list of
    column names/indices or a boolean mask overrides the rule: the listed columns are
    categorical, and of the others only those that cannot be numbers (text, a
    categorical dtype) are. Datetime columns become seconds since the epoch and are
    never categorical unless listed.

    Returns the categorical mask and each column's type: ``"categorical"``,
    ``"datetime"``, ``"integer"`` (integer or boolean values: numbers, binned where a
    method bins and they have more values than bins) or ``"numeric"``.

    Examples
    --------
    >>> cols = [np.array(["a", "b"], dtype=object), np.array([1.5, 2.0]),
    ...         np.array([True, False]), np.array([1, 2])]
    >>> miss = [np.zeros(2, bool)] * 4
    >>> mask, kinds = column_types(cols, miss, "auto", None)
    >>> mask.tolist(), kinds
    ([True, False, True, False], ['categorical', 'numeric', 'categorical', 'integer'])
    """
    d = len(cols)
    family = family or [""] * d
    declared_mask = np.zeros(d, dtype=bool) if declared is None else np.asarray(declared, bool)
    auto = is_auto(categorical)
    listed = np.zeros(d, dtype=bool) if auto else _categorical_mask(categorical, d, names)
    mask = np.zeros(d, dtype=bool)
    kinds: list[str] = []
    for j, col in enumerate(cols):
        is_date = col.dtype.kind == "M" or family[j] == "datetime"
        textual = family[j] == "string" or _is_string_column(col, missing[j])
        boolean = (
            col.dtype.kind == "b" or family[j] == "bool" or _is_boolean_objects(col, missing[j])
        )
        must = bool(declared_mask[j]) or (textual and not is_date)
        if auto:
            mask[j] = must or (boolean and not is_date)
        else:
            mask[j] = bool(listed[j]) or must
        if mask[j]:
            kinds.append("categorical")
        elif is_date:
            kinds.append("datetime")
        elif col.dtype.kind in "biu" or boolean or (integral is not None and integral[j]):
            kinds.append("integer")
        else:
            kinds.append("numeric")
    return mask, kinds


def code_columns(table: Any) -> np.ndarray:
    """The columns that binning keeps as codes: the categorical ones.

    Integer columns are numbers. A binning rule cuts an integer column like a float
    column when it has more distinct values than bins (ages, zip codes, counts); one
    with no more distinct values than bins keeps each value as its own code, as a
    float column does. Declaring a column in ``categorical=`` keeps every value of it
    as its own code. (On high-cardinality integer columns taking each value as a code
    found a tenth of the relevant columns in ``fsel reproduce robust-defaults``, and
    binning them as numbers all of them.)

    Parameters
    ----------
    table : Table or DaskTable
        A validated table: its ``categorical`` mask (None: no column) is read.

    Returns
    -------
    ndarray of bool, shape (n_features,)

    Examples
    --------
    >>> from fsel.utils.validation import check_table
    >>> X = np.array([[1, 0.5, 0], [2, 1.5, 1], [3, 2.5, 1]])
    >>> code_columns(check_table(X, categorical=[2])).tolist()
    [False, False, True]
    """
    cat = getattr(table, "categorical", None)
    if cat is None:
        return np.zeros(np.asarray(table.discrete).size, dtype=bool)
    return np.asarray(cat, dtype=bool).copy()


def _is_boolean_objects(col: np.ndarray, miss: np.ndarray) -> bool:
    """An object column holding only booleans (and missing values), e.g. a CSV
    True/False column with empty cells."""
    if col.dtype.kind != "O":
        return False
    values = col[~miss].tolist()
    return bool(values) and all(isinstance(v, (bool, np.bool_)) for v in values)


def _seconds(col: np.ndarray) -> np.ndarray:
    """A datetime column as float seconds since 1970-01-01 (NaT -> NaN)."""
    out = (col - np.datetime64(0, "s")) / np.timedelta64(1, "s")
    return np.asarray(out, dtype=np.float64)


def _warn_identifiers(labels: list[str], estimator_name: str) -> None:
    if labels:
        import warnings

        warnings.warn(
            f"{estimator_name}: column(s) {', '.join(map(repr, labels))} hold a distinct "
            "value in nearly every row, like an identifier: drop it unless its values "
            "mean something (taken as codes, such a column looks informative on any target)",
            UserWarning,
            stacklevel=4,
        )


def _looks_like_identifier(col: np.ndarray, miss: np.ndarray) -> bool:
    """A non-float column with a distinct value in nearly every observed row."""
    obs = col[~miss] if miss.any() else col
    n = obs.shape[0]
    if n < _ID_MIN_ROWS or col.dtype.kind == "f":
        return False
    if obs.dtype.kind in "iu" and int(obs.max()) - int(obs.min()) + 1 < _ID_SHARE * n:
        return False  # too narrow a range for that many distinct values
    distinct = None
    if obs.dtype == object:  # a set hashes the cells: no sort of Python objects
        try:
            distinct = len(set(obs.tolist()))
        except TypeError:
            distinct = None
    if distinct is None:
        try:
            distinct = np.unique(obs).size
        except TypeError:
            distinct = np.unique(obs.astype(str)).size
    return distinct >= _ID_SHARE * n
