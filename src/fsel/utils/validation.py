"""Input validation shared by every selector.

Every public estimator validates its input once, in ``fit``, through the helpers of
this module, so that bad input gets the same clear message everywhere:

* inf in ``X``; NaN in ``X`` unless the caller allows missing values
  (``allow_missing=True``: a missing value is kept as NaN in ``Table.values``, whatever
  the input held — ``NaN``, ``None``, ``pd.NA``, a polars null — and each family applies
  its own rule, docs/user_guide/missing_sparse.rst); NaN, ``None`` or ``pd.NA`` in ``y``, named by
  row;
* mismatched lengths, an empty table, a single class;
* ``n_features_to_select`` smaller than 1 or larger than the number of features;
* a column that is neither numeric, text, categorical, boolean nor a date.

Which columns are categorical is decided in one place, :func:`column_types`
(``categorical="auto"``: text, categorical and boolean dtypes are; datetime columns
become seconds since the epoch), and recorded on the ``Table``.

The caller's arrays are never modified: every function here returns new arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

__all__ = [
    "MISSING_ERROR",
    "Table",
    "check_missing_policy",
    "check_n_features_to_select",
    "check_random_state",
    "check_table",
    "check_target",
    "check_unique_names",
    "column_types",
    "is_continuous_target",
    "is_dataframe",
    "is_sparse",
]


@dataclass
class Table:
    """A validated feature table.

    Attributes
    ----------
    values : ndarray of shape (n_samples, n_features), float64
        Numeric values; categorical columns hold their integer codes.
    discrete : ndarray of shape (n_features,), bool
        True for columns that are codes (integer, boolean or categorical dtype, or
        declared categorical by the user) and must never be re-binned.
    feature_names : ndarray of str or None
        Column names when the input was a DataFrame.
    missing : ndarray of shape (n_features,), bool, or None
        True for the columns that hold at least one missing value (NaN in ``values``);
        None when no value is missing (always the case when missing values were not
        allowed).
    categorical : ndarray of shape (n_features,), bool
        True for the categorical columns (their values are level codes, compared for
        equality only), decided in one place from ``categorical=`` and the columns'
        dtypes by :func:`column_types`. Every family reads it here.
    feature_types : list of str
        How each column was taken: ``"categorical"``, ``"datetime"`` (seconds since
        the epoch), ``"integer"`` (codes) or ``"numeric"``.
    """

    values: np.ndarray
    discrete: np.ndarray
    feature_names: np.ndarray | None
    missing: np.ndarray | None = None
    categorical: np.ndarray | None = None
    feature_types: list[str] | None = None

    def __post_init__(self) -> None:
        d = self.values.shape[1]
        if self.categorical is None:
            self.categorical = np.zeros(d, dtype=bool)
        if self.feature_types is None:
            self.feature_types = [
                "categorical" if c else ("integer" if k else "numeric")
                for c, k in zip(self.categorical.tolist(), self.discrete.tolist(), strict=True)
            ]

    @property
    def is_sparse(self) -> bool:
        """Whether ``values`` is a scipy.sparse matrix: CSC, or a canonical CSR with
        ``accept_sparse="no_copy"``."""
        return is_sparse(self.values)

    @property
    def has_missing(self) -> bool:
        """Whether any value of the table is missing."""
        return self.missing is not None and bool(self.missing.any())


#: The ``missing=`` value every estimator accepts to refuse missing values.
MISSING_ERROR = "error"


def check_missing_policy(missing: Any, allowed: tuple[str, ...], estimator_name: str) -> str:
    """Check an estimator's ``missing=`` parameter against its family's rules.

    Examples
    --------
    >>> check_missing_policy("error", ("level", "available", "error"), "JMI")
    'error'
    >>> check_missing_policy("drop", ("level", "error"), "JMI")
    Traceback (most recent call last):
    ...
    ValueError: JMI: missing must be one of ('level', 'error'), got 'drop'
    """
    if not isinstance(missing, str) or missing not in allowed:
        raise ValueError(f"{estimator_name}: missing must be one of {allowed}, got {missing!r}")
    return missing


def _missing_mask(col: np.ndarray) -> np.ndarray:
    """Cells of a column that are missing: NaN, None, ``pd.NA`` or ``pd.NaT``."""
    if col.dtype.kind == "f":
        return np.isnan(col)
    if col.dtype.kind in "mM":
        return np.isnat(col)
    if col.dtype.kind != "O":
        return np.zeros(col.shape, dtype=bool)
    out = np.zeros(col.shape, dtype=bool)
    for i, v in enumerate(col.tolist()):
        if (
            v is None
            or (isinstance(v, float) and v != v)
            or type(v).__name__ in ("NAType", "NaTType")
        ):
            out[i] = True
    return out


def _missing_error(estimator_name: str, label: str) -> ValueError:
    return ValueError(
        f"{estimator_name}: X has missing values (NaN) in column {label!r} and "
        "missing='error'; use the estimator's default missing-value rule or impute them first"
    )


def is_sparse(X: Any) -> bool:
    """True for scipy.sparse matrices and arrays (checked without importing scipy.sparse)."""
    return type(X).__module__.startswith("scipy.sparse")


def _check_shape(n_samples: int, n_features: int, min_samples: int, estimator_name: str) -> None:
    """Refuse an empty table or one with fewer than ``min_samples`` rows."""
    if n_samples == 0 or n_features == 0:
        raise ValueError(
            f"{estimator_name}: X is empty: {n_features} feature(s) (shape=({n_samples}, "
            f"{n_features})) while a minimum of 1 is required (and at least 1 sample)."
        )
    if n_samples < min_samples:
        raise ValueError(
            f"{estimator_name}: X has {n_samples} sample(s), but a minimum of "
            f"{min_samples} is required"
        )


def _check_sparse(
    X: Any,
    categorical: Any,
    min_samples: int,
    estimator_name: str,
    allow_missing: bool,
    keep_integer: bool = False,
    no_copy: bool = False,
) -> Table:
    """A scipy.sparse input as a float64 CSC copy (sorted indices, no duplicates, no
    explicit zeros): never densified, the caller's matrix untouched. An implicit zero is
    the value 0 (docs/user_guide/missing_sparse.rst); a stored NaN is a missing value. ``no_copy``:
    a
    canonical CSR or CSC matrix whose dtype needs no conversion is returned as it is
    (to be read, never written), explicit zeros included."""
    if X.ndim != 2:
        raise ValueError(f"{estimator_name}: expected a 2-D sparse matrix, got {X.ndim}-D")
    n_samples, n_features = X.shape
    _check_shape(n_samples, n_features, min_samples, estimator_name)
    kind = X.dtype.kind
    if kind == "c":
        raise ValueError(f"{estimator_name}: Complex data not supported")
    if kind not in "biuf":
        raise TypeError(f"{estimator_name}: sparse X must be numeric, got dtype {X.dtype}")
    keep_dtype = keep_integer and kind in "iub"  # keep_integer: integer/bool data as is
    if (
        no_copy
        and X.format in ("csr", "csc")
        and (keep_dtype or X.dtype == np.float64)
        and X.has_canonical_format
    ):
        # as given, read-only: sorted indices, no duplicates; explicit zeros may remain
        M = X
    else:
        M = X.tocsc(copy=True)
        if not keep_dtype:
            M = M.astype(np.float64, copy=False)
        M.sum_duplicates()
        M.eliminate_zeros()
        M.sort_indices()
    data = M.data
    missing = None
    if kind == "f" and not np.isfinite(data).all():
        if M.format == "csr":  # (no_copy) each entry's column
            col_of = M.indices
        else:
            col_of = np.repeat(np.arange(n_features), np.diff(M.indptr))
        bad = ~np.isfinite(data)
        if np.isinf(data).any():
            j = int(col_of[np.isinf(data)][0])
            raise ValueError(
                f"{estimator_name}: X contains inf in column '{j}'; infinite values are not allowed"
            )
        missing = np.zeros(n_features, dtype=bool)
        missing[col_of[bad]] = True
        if not allow_missing:
            raise _missing_error(estimator_name, str(int(np.flatnonzero(missing)[0])))
    mask = _categorical_mask(categorical, n_features, None)
    auto = categorical is None or (isinstance(categorical, str) and categorical == "auto")
    if auto and kind == "b":
        mask[:] = True  # boolean columns are categorical by default
    discrete = mask | (kind in "biu")
    return Table(values=M, discrete=discrete, feature_names=None, missing=missing, categorical=mask)


def is_dataframe(X: Any) -> bool:
    """True for pandas and polars DataFrames (checked without importing either)."""
    mod = type(X).__module__
    return hasattr(X, "columns") and (mod.startswith("pandas") or mod.startswith("polars"))


def _column_kind(values: np.ndarray) -> str:
    kind = values.dtype.kind
    if kind == "b":
        return "bool"
    if kind in "iu":
        return "int"
    if kind == "f":
        return "float"
    return "other"


def _categorical_mask(categorical: Any, n_features: int, names: list[str] | None) -> np.ndarray:
    mask = np.zeros(n_features, dtype=bool)
    if categorical is None or (isinstance(categorical, str) and categorical == "auto"):
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
    try:
        _, inv = np.unique(vals, return_inverse=True)
    except TypeError:  # mixed types such as str and int
        _, inv = np.unique(vals.astype(str), return_inverse=True)
    out[keep] = inv.reshape(-1)
    return out


def _dataframe_columns(
    X: Any,
) -> tuple[list[str], list[np.ndarray], list[bool], list[bool], list[str]]:
    """Column names, column arrays, 'categorical by dtype' flags (pandas ``category``,
    polars ``Categorical``/``Enum``), 'integer or boolean dtype' flags (an integer column
    with missing values arrives as floats with NaN and must still be taken as codes) and
    each column's dtype family for :func:`column_types` (``"bool"``, ``"string"``,
    ``"datetime"`` or ``""``)."""
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
            cols.append(s.to_numpy())
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
                cols.append(s.to_numpy(dtype="datetime64[ns]"))
                integral.append(False)
            else:
                is_int = kind in "iub"
                if is_int and s.hasnans:  # nullable Int64/boolean holding pd.NA
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
    ``"datetime"``, ``"integer"`` (integer or boolean values taken as codes) or
    ``"numeric"``.

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
    auto = categorical is None or (isinstance(categorical, str) and categorical == "auto")
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
            "value in nearly every row, like an identifier; such a column looks "
            "informative on any target: drop it unless its values mean something",
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
    try:
        distinct = np.unique(obs).size
    except TypeError:
        distinct = np.unique(obs.astype(str)).size
    return distinct >= _ID_SHARE * n


_FLOAT_EXACT = 2**53  # integers beyond this magnitude are not all exact in float64


def check_unique_names(X: Any, estimator_name: str) -> None:
    """Refuse a DataFrame whose column names repeat (its columns could not be told apart).

    Examples
    --------
    >>> import pandas as pd
    >>> check_unique_names(pd.DataFrame([[1, 2, 3]], columns=["a", "b", "a"]), "MIM")
    Traceback (most recent call last):
    ...
    ValueError: MIM: X has duplicate column names ['a']; rename them
    """
    names = [str(c) for c in X.columns]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"{estimator_name}: X has duplicate column names {dup}; rename them")


def _integer_as_float(col: np.ndarray, label: str, estimator_name: str, codes: bool) -> np.ndarray:
    """An integer column as float64 without merging values beyond 2**53.

    Within +-2**53 the values are taken as they are. Beyond, a column whose range
    (max - min) still fits is shifted by its minimum in exact integer arithmetic
    (every selector uses ranges and differences only); ``codes=True`` (the column is
    category codes) maps it to ``0..a-1`` with ``np.unique`` on the integer array.
    Otherwise the column is refused: float64 cannot keep its values apart.
    """
    if col.size == 0 or col.dtype.kind == "b":
        return col.astype(np.float64)
    lo, hi = int(col.min()), int(col.max())
    if -_FLOAT_EXACT <= lo and hi <= _FLOAT_EXACT:
        return col.astype(np.float64)
    if codes:
        return _codes(col)
    if hi - lo <= _FLOAT_EXACT:
        # modular uint64 difference: exact, since 0 <= x - lo <= 2**53
        return (col.astype(np.uint64) - np.asarray(col.min()).astype(np.uint64)).astype(np.float64)
    raise ValueError(
        f"{estimator_name}: integer column {label!r} spans {lo} .. {hi}, wider than 2**53, "
        "so float64 cannot keep its values apart; declare it "
        f"categorical=[{label!r}] to use the values as category codes, or rescale it"
    )


def _check_float_range(values: np.ndarray, names: list[str] | None, estimator_name: str) -> None:
    """Refuse a float column whose range max - min overflows float64 (e.g. +-1e308).

    Range scaling, bin edges and distances all need ``max - min``; NaN is ignored.
    """
    if values.size == 0:
        return
    with np.errstate(over="ignore", invalid="ignore"):
        span = np.fmax.reduce(values, axis=0) - np.fmin.reduce(values, axis=0)
    bad = np.flatnonzero(np.isinf(span))
    if bad.size:
        j = int(bad[0])
        label = names[j] if names is not None else str(j)
        col = values[:, j]
        raise ValueError(
            f"{estimator_name}: column {label!r} spans {np.nanmin(col):g} .. "
            f"{np.nanmax(col):g}, a range (max - min) that overflows float64; rescale it "
            "(e.g. divide it by a power of ten)"
        )


def check_table(
    X: Any,
    *,
    categorical: Any = None,
    min_samples: int = 1,
    estimator_name: str = "estimator",
    keep_integer: bool = False,
    allow_missing: bool = False,
    accept_sparse: bool | str = False,
    read_only: bool = False,
) -> Table:
    """Validate a feature table and return it as numbers plus a 'discrete' mask.

    Parameters
    ----------
    X : array-like, pandas or polars DataFrame of shape (n_samples, n_features)
    categorical : None, "auto", bool mask, or list of column names/indices
        Columns to treat as categorical codes. Pandas ``category`` and polars
        ``Categorical``/``Enum`` columns are categorical without being listed.
    min_samples : int
        Fewest rows accepted.
    estimator_name : str
        Used in error messages.
    keep_integer : bool
        For a plain integer or boolean ndarray, return it as it is (no float copy) in
        ``Table.values``; every column is then discrete. The caller takes integer
        columns as codes: integers beyond 2**53 become exact codes ``0..a-1`` instead
        of being refused.
    allow_missing : bool
        Keep missing values (NaN, None, ``pd.NA``, polars nulls) as NaN in
        ``Table.values`` and flag their columns in ``Table.missing``, instead of raising.
        ``inf`` is always an error.
    accept_sparse : bool
        Return a scipy.sparse input (CSR, CSC, COO; matrix or array) as a float64 CSC
        copy in ``Table.values`` instead of refusing it; it is never densified. With
        ``keep_integer=True`` integer/bool sparse data keep their dtype (a smaller copy).
        ``"no_copy"``: as True, but a canonical CSR or CSC matrix (sorted indices, no
        duplicates) whose dtype is kept is returned as it is, not copied; the caller
        only reads it (explicit zeros may be stored).
    read_only : bool
        The caller only reads ``Table.values``: a plain ``float64`` ndarray without
        categorical columns is returned as it is (a read-only view), not copied.

    Returns
    -------
    Table
    """
    if X is None:
        raise ValueError(f"{estimator_name}: X is None; expected a 2-D table of features")
    if is_dask(X):
        raise TypeError(
            f"{estimator_name}: X is a Dask collection, and {estimator_name} runs in memory; "
            "call X.compute() first if it fits, or use an information criterion (JMI, "
            "mRMR, CMIM, ...), which runs on Dask"
        )
    if is_sparse(X):
        if not accept_sparse:
            raise TypeError(f"{estimator_name}: sparse input is not supported; pass a dense array")
        return _check_sparse(
            X,
            categorical,
            min_samples,
            estimator_name,
            allow_missing,
            keep_integer,
            no_copy=accept_sparse == "no_copy",
        )
    if hasattr(X, "toarray"):
        raise TypeError(f"{estimator_name}: sparse input is not supported; pass a dense array")
    names: list[str] | None
    if is_dataframe(X):
        check_unique_names(X, estimator_name)
        names, cols, declared, integral, family = _dataframe_columns(X)
        n_features = len(cols)
        n_samples = len(cols[0]) if cols else 0
    else:
        arr = np.asarray(X)
        if arr.dtype.kind == "c":
            raise ValueError(f"{estimator_name}: Complex data not supported")
        if arr.ndim == 1:
            raise ValueError(
                f"{estimator_name}: expected a 2-D array, got a 1-D array of shape "
                f"{arr.shape}; reshape with X.reshape(-1, 1) for a single feature"
            )
        if arr.ndim != 2:
            raise ValueError(f"{estimator_name}: expected a 2-D array, got {arr.ndim} dimensions")
        n_samples, n_features = arr.shape
        if arr.dtype.kind in "iubf" and n_samples and n_features and n_samples >= min_samples:
            # fast path for a plain numeric array: whole-array checks, one copy
            missing = None
            if arr.dtype.kind == "f" and not np.isfinite(arr).all():
                nan = np.isnan(arr)
                inf_cols = np.flatnonzero(np.isinf(arr).any(axis=0))
                if inf_cols.size:
                    raise ValueError(
                        f"{estimator_name}: X contains inf in column '{int(inf_cols[0])}'; "
                        "infinite values are not allowed"
                    )
                missing = nan.any(axis=0)
                if not allow_missing:
                    raise _missing_error(estimator_name, str(int(np.flatnonzero(missing)[0])))
            mask = _categorical_mask(categorical, n_features, None)
            auto = categorical is None or (isinstance(categorical, str) and categorical == "auto")
            if auto and arr.dtype.kind == "b":
                mask[:] = True  # boolean columns are categorical by default
            if keep_integer and arr.dtype.kind in "iub" and not mask.any():
                return Table(arr, np.ones(n_features, dtype=bool), None)
            discrete = mask | (arr.dtype.kind in "iub")
            wide = arr.dtype.kind in "iu" and arr.dtype.itemsize == 8  # 32-bit ints are exact
            if wide and (arr.min() < -_FLOAT_EXACT or arr.max() > _FLOAT_EXACT):
                values = np.empty(arr.shape, dtype=np.float64)
                for j in range(n_features):
                    values[:, j] = _integer_as_float(
                        arr[:, j], str(j), estimator_name, bool(mask[j]) or keep_integer
                    )
                return Table(values, discrete, None, categorical=mask)
            if read_only and arr.dtype == np.float64 and not mask.any():
                values = arr.view()  # the caller only reads it: no copy
                values.flags.writeable = False
            else:
                values = arr.astype(np.float64)  # a copy: never touch the caller's data
            if arr.dtype.kind == "f":
                _check_float_range(values, None, estimator_name)
            for j in np.flatnonzero(mask & (arr.dtype.kind == "f")):
                values[:, j] = _codes(values[:, j], np.isnan(values[:, j]))
            return Table(values, discrete, None, missing, categorical=mask)
        names = None
        cols = [arr[:, j] for j in range(n_features)]
        declared = [False] * n_features
        integral = [False] * n_features
        family = [""] * n_features
    _check_shape(n_samples, n_features, min_samples, estimator_name)
    cols = [np.asarray(c) for c in cols]
    misses = [_missing_mask(c) for c in cols]
    cat_mask, kinds = column_types(cols, misses, categorical, names, declared, family, integral)
    values = np.empty((n_samples, n_features), dtype=np.float64)
    discrete = np.zeros(n_features, dtype=bool)
    missing = np.zeros(n_features, dtype=bool)
    identifiers: list[str] = []
    for j, col in enumerate(cols):
        label = names[j] if names is not None else str(j)
        kind = _column_kind(col)
        miss = misses[j]
        if kinds[j] != "numeric" and kinds[j] != "datetime" and _looks_like_identifier(col, miss):
            identifiers.append(label)
        if miss.any():
            if not allow_missing:
                raise _missing_error(estimator_name, label)
            missing[j] = True
        if kind == "float" and np.isinf(col).any():
            raise ValueError(
                f"{estimator_name}: X contains inf in column {label!r}; infinite values "
                "are not allowed"
            )
        if cat_mask[j]:
            values[:, j] = _codes(col, miss if missing[j] else None)
            discrete[j] = True
        elif kind in ("int", "bool"):
            values[:, j] = _integer_as_float(col, label, estimator_name, keep_integer)
            discrete[j] = True
        elif col.dtype.kind == "M":
            values[:, j] = _seconds(col)  # seconds since the epoch; NaT is missing
        elif col.dtype.kind == "m":
            values[:, j] = col / np.timedelta64(1, "s")  # a duration in seconds
        elif kind == "float":
            values[:, j] = col
            discrete[j] = integral[j]
        else:
            # object columns that hold only numbers, booleans or missing values
            # (e.g. pandas nullable dtypes) are fine
            observed = col[~miss]
            try:
                num = observed.astype(np.float64)
            except (TypeError, ValueError):
                raise TypeError(
                    f"{estimator_name}: column {label!r} is not numeric (dtype {col.dtype}): "
                    "each argument must be a string or a number convertible to float; "
                    f"declare it with categorical=[{label!r}] or encode it"
                ) from None
            if np.isinf(num).any():
                raise ValueError(
                    f"{estimator_name}: X contains inf in column {label!r}; infinite values "
                    "are not allowed"
                )
            values[:, j] = np.nan
            values[~miss, j] = num
            discrete[j] = bool(observed.size) and all(
                isinstance(v, (bool, np.bool_, Integral)) for v in observed.tolist()
            )
    _check_float_range(values, names, estimator_name)
    _warn_identifiers(identifiers, estimator_name)
    fn = np.asarray(names, dtype=object) if names is not None else None
    return Table(
        values=values,
        discrete=discrete,
        feature_names=fn,
        missing=missing if missing.any() else None,
        categorical=cat_mask,
        feature_types=kinds,
    )


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
    if arr.dtype.kind in "fc" and not np.isfinite(arr).all():
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
            f"{estimator_name}: y has a single class, only one class ({classes[0]!r}); at "
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
    counts = np.zeros(hi - lo + 1, dtype=np.int64)
    as_is = lo == 0 and arr.dtype == np.intp  # bincount reads it without a copy
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


def check_n_features_to_select(k: Any, n_features: int, *, allow_none: bool = True) -> int:
    """Return the number of features to select, checking ``1 <= k <= n_features``.

    ``None`` means half of the features (rounded down, at least one:
    :func:`fsel.utils.params.default_n_features`); a float in (0, 1] is a fraction
    (rounded, at least one).

    Examples
    --------
    >>> check_n_features_to_select(None, 9), check_n_features_to_select(0.5, 9)
    (4, 4)
    """
    from fsel.utils.params import check_n_features_to_select_param, default_n_features

    if k is None:
        if allow_none:
            return default_n_features(n_features)
        raise ValueError("n_features_to_select must be given")
    k = check_n_features_to_select_param(k)
    if isinstance(k, float):
        return max(1, round(k * n_features))
    if k > n_features:
        raise ValueError(
            f"n_features_to_select={k} is larger than the number of features ({n_features})"
        )
    return k


# ----------------------------------------------------------------------------- Dask


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


def check_random_state(seed: Any) -> np.random.RandomState:
    """A ``numpy.random.RandomState`` from ``random_state`` (scikit-learn's rule, without
    importing scikit-learn): None gives numpy's global instance, an int a new one seeded
    with it, an instance itself. A ``SeedSequence`` gives a new instance on a copy of it
    (never mutated, so the same object gives the same draws); a ``Generator`` is consumed
    (a seed is drawn from it).

    Examples
    --------
    >>> check_random_state(0).randint(100) == np.random.RandomState(0).randint(100)
    True
    >>> check_random_state(None) is np.random.mtrand._rand
    True
    >>> s = np.random.SeedSequence(1)
    >>> check_random_state(s).randint(100) == check_random_state(s).randint(100)
    True
    """
    if seed is None or seed is np.random:
        return np.random.mtrand._rand
    if isinstance(seed, (Integral, np.integer)) and not isinstance(seed, bool):
        return np.random.RandomState(seed)
    if isinstance(seed, np.random.RandomState):
        return seed
    if isinstance(seed, (np.random.SeedSequence, np.random.Generator)):
        from fsel.utils.params import seed_sequence

        return np.random.RandomState(np.random.MT19937(seed_sequence(seed)))
    raise ValueError(f"{seed!r} cannot be used to seed a numpy.random.RandomState instance")


def is_dask(X: Any) -> bool:
    """True for Dask collections (``dask.array.Array``, ``dask.dataframe`` frames and
    series), checked without importing dask."""
    return type(X).__module__.startswith("dask") and hasattr(X, "__dask_graph__")


@dataclass
class DaskTable:
    """A Dask feature table as row blocks that stay lazy (on the workers).

    Attributes
    ----------
    blocks : list of dask.delayed.Delayed
        Row blocks, each a float64 (or integer) ndarray of shape (n_i, n_features);
        categorical columns already as codes (NaN for missing).
    y_blocks : list of dask.delayed.Delayed
        The target's matching row blocks (1-D ndarrays of labels).
    discrete : ndarray of bool
        Columns taken as codes (integer, boolean, categorical or declared).
    feature_names : ndarray of str or None
    categorical : ndarray of bool
        The categorical columns (pandas ``category`` or declared), as
        :attr:`Table.categorical`.
    """

    blocks: list[Any]
    y_blocks: list[Any]
    discrete: np.ndarray
    feature_names: np.ndarray | None
    categorical: np.ndarray | None = None


def _dask_last_column(part: Any) -> np.ndarray:
    return part.iloc[:, -1].to_numpy()


def _dask_frame_block(part: Any, cat_cols: list[int], drop_last: bool = False) -> np.ndarray:
    """One pandas partition as a float64 ndarray, categorical columns as their codes."""
    d = part.shape[1] - int(drop_last)
    out = np.empty((part.shape[0], d), dtype=np.float64)
    for j in range(d):
        col = part.iloc[:, j]
        if j in cat_cols:
            codes = np.asarray(col.cat.codes, dtype=np.float64)
            codes[codes < 0] = np.nan
            out[:, j] = codes
        else:
            out[:, j] = np.asarray(col.to_numpy(dtype=np.float64, na_value=np.nan))
    return out


def _dask_row_blocks(obj: Any, what: str, estimator_name: str) -> tuple[list[Any], tuple]:
    """Delayed row blocks of a dask array/series and its row chunk sizes (NaN: unknown)."""
    if hasattr(obj, "to_delayed") and hasattr(obj, "chunks"):  # dask.array
        return list(np.asarray(obj.to_delayed(), dtype=object).ravel()), obj.chunks[0]
    if hasattr(obj, "to_dask_array"):  # dask.dataframe Series
        return list(obj.to_delayed()), (np.nan,) * obj.npartitions
    raise TypeError(f"{estimator_name}: unsupported Dask collection for {what}: {type(obj)}")


def check_dask_table(
    X: Any,
    y: Any,
    *,
    categorical: Any = None,
    estimator_name: str = "estimator",
) -> DaskTable:
    """Validate a Dask feature table and its target without computing them.

    ``X`` is a row-chunked ``dask.array.Array`` (2-D; column chunks are merged) or a
    ``dask.dataframe.DataFrame``; ``y`` a dask array or series with the same row
    partitions, or an in-memory 1-D array (then split like ``X``'s rows, which needs
    known chunk sizes). Only metadata is read here; values are checked on the workers.
    """
    names: list[str] | None = None
    if hasattr(X, "columns") and hasattr(X, "npartitions"):  # dask DataFrame
        names = list(X.columns)
        cat_cols: list[int] = []
        declared = np.zeros(len(names), dtype=bool)
        category = np.zeros(len(names), dtype=bool)
        for j, dt in enumerate(X.dtypes):
            kind = getattr(dt, "kind", "O")
            if str(dt) == "category":
                cat_cols.append(j)
                declared[j] = True
                category[j] = True
            elif kind in "iub":
                declared[j] = True
            elif kind != "f":
                raise TypeError(
                    f"{estimator_name}: column {names[j]!r} is not numeric (dtype {dt}); "
                    "encode it or make it a pandas category"
                )
        import dask

        if is_dask(y) and hasattr(y, "to_frame") and getattr(y, "ndim", 0) == 1:
            # a dask Series: one frame, so X's and y's blocks are the same partitions
            # (Dask may partition two projections of one table differently)
            frame = X.assign(__fsel_target__=y)
            parts = frame.to_delayed()
            blocks = [dask.delayed(_dask_frame_block)(p, cat_cols, True) for p in parts]
            y_blocks = [dask.delayed(_dask_last_column)(p) for p in parts]
            n_features = len(names)
            cat = _categorical_mask(categorical, n_features, names) | category
            mask = cat | declared
            fn = np.asarray(names, dtype=object)
            return DaskTable(
                blocks=blocks, y_blocks=y_blocks, discrete=mask, feature_names=fn, categorical=cat
            )
        blocks = [dask.delayed(_dask_frame_block)(p, cat_cols) for p in X.to_delayed()]
        chunks: tuple = (np.nan,) * X.npartitions
        n_features = len(names)
        cat = _categorical_mask(categorical, n_features, names) | category
        mask = cat | declared
    elif hasattr(X, "chunks") and hasattr(X, "to_delayed"):
        if X.ndim != 2:
            raise ValueError(f"{estimator_name}: expected a 2-D dask array, got {X.ndim}-D")
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{estimator_name}: X must be numeric, got dtype {X.dtype}")
        if any(np.isnan(c) for c in X.chunks[1]):
            raise ValueError(f"{estimator_name}: X has unknown column chunk sizes")
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        n_features = X.shape[1]
        blocks, chunks = _dask_row_blocks(X, "X", estimator_name)
        cat = _categorical_mask(categorical, n_features, None)
        mask = cat | (X.dtype.kind in "biu")
    else:
        raise TypeError(f"{estimator_name}: unsupported Dask collection for X: {type(X)}")
    if n_features == 0:
        raise ValueError(f"{estimator_name}: X has no features")
    unknown = any(np.isnan(c) for c in chunks)
    if y is None:
        raise ValueError(f"{estimator_name} requires y to be passed, but the target y is None")
    if is_dask(y):
        y_blocks, y_chunks = _dask_row_blocks(y, "y", estimator_name)
        if getattr(y, "ndim", 1) != 1:
            raise ValueError(f"{estimator_name}: y must be 1-D, got {y.ndim}-D")
        if len(y_blocks) != len(blocks) or (
            not unknown and not any(np.isnan(c) for c in y_chunks) and y_chunks != chunks
        ):
            if unknown or any(np.isnan(c) for c in y_chunks) or not hasattr(y, "rechunk"):
                raise ValueError(
                    f"{estimator_name}: X and y are split into different row partitions "
                    f"({len(blocks)} and {len(y_blocks)}) with unknown sizes; give them the "
                    "same partitions (e.g. columns of one DataFrame) or call "
                    "compute_chunk_sizes() on both"
                )
            if sum(y_chunks) != sum(chunks):
                raise ValueError(
                    f"{estimator_name}: X and y have inconsistent lengths: X has "
                    f"{int(sum(chunks))} samples, y has {int(sum(y_chunks))}"
                )
            y_blocks, _ = _dask_row_blocks(y.rechunk((chunks,)), "y", estimator_name)
    else:
        if unknown:
            raise ValueError(
                f"{estimator_name}: X has unknown chunk sizes, so an in-memory y cannot be "
                "matched to its rows; call X.compute_chunk_sizes() (dask array), pass y as "
                "a column of the same Dask DataFrame, or give y as a dask collection"
            )
        arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
        if arr.ndim != 1:
            raise ValueError(f"{estimator_name}: y must be 1-D, got shape {arr.shape}")
        if arr.shape[0] != sum(chunks):
            raise ValueError(
                f"{estimator_name}: X and y have inconsistent lengths: X has "
                f"{int(sum(chunks))} samples, y has {arr.shape[0]}"
            )
        bounds = np.concatenate([[0], np.cumsum(chunks)]).astype(np.int64)
        y_blocks = [arr[bounds[i] : bounds[i + 1]] for i in range(len(chunks))]
    fn = np.asarray(names, dtype=object) if names is not None else None
    return DaskTable(
        blocks=blocks, y_blocks=y_blocks, discrete=mask, feature_names=fn, categorical=cat
    )
