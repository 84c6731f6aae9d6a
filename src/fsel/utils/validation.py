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

Which columns are categorical is decided in one place,
:func:`fsel.utils.column_types.column_types` (``categorical="auto"``: text, categorical
and boolean dtypes are; datetime columns become seconds since the epoch), and recorded
on the ``Table``. The target is checked by :mod:`fsel.utils.targets`, a Dask table by
:mod:`fsel.utils.dask_table`.

The caller's arrays are never modified: every function here returns new arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

from fsel.utils.column_types import (
    FLOAT_EXACT,
    _categorical_mask,
    _codes,
    _column_kind,
    _dataframe_columns,
    _looks_like_identifier,
    _seconds,
    _warn_identifiers,
    column_types,
    float_frame_values,
    is_auto,
    is_wide,
    wide_integer_error,
)
from fsel.utils.dask_table import is_dask
from fsel.utils.parallel import finite_extremes

__all__ = [
    "MISSING_ERROR",
    "Table",
    "check_missing_policy",
    "check_n_features_to_select",
    "check_random_state",
    "check_table",
    "check_unique_names",
    "is_dataframe",
    "is_sparse",
    "table_array",
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
        dtypes by :func:`~fsel.utils.column_types.column_types`. Every family reads it here.
    feature_types : list of str
        How each column was taken: ``"categorical"``, ``"datetime"`` (seconds since
        the epoch), ``"integer"`` (integer values) or ``"numeric"``.
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
    if kind in "iu" and X.dtype.itemsize == 8 and X.nnz:
        lo, hi = int(X.data.min()), int(X.data.max())
        if is_wide(lo, hi):  # an implicit 0 forbids a shift
            coo = X.tocoo()
            j = int(coo.col[np.argmax((coo.data < -FLOAT_EXACT) | (coo.data > FLOAT_EXACT))])
            col = coo.data[coo.col == j]
            fix = "pass the column dense (shifted there), or rescale it"
            raise wide_integer_error(str(j), int(col.min()), int(col.max()), estimator_name, fix)
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
    auto = is_auto(categorical)
    if auto and kind == "b":
        mask[:] = True  # boolean columns are categorical by default
    discrete = mask | (kind in "biu")
    return Table(values=M, discrete=discrete, feature_names=None, missing=missing, categorical=mask)


def is_dataframe(X: Any) -> bool:
    """True for pandas and polars DataFrames (checked without importing either)."""
    mod = type(X).__module__
    return hasattr(X, "columns") and (mod.startswith("pandas") or mod.startswith("polars"))


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
    Otherwise the column is refused: float64 cannot keep its values apart. An object
    column of Python integers (a nullable column's observed values) is taken as int64.
    """
    if col.size == 0 or col.dtype.kind == "b":
        return col.astype(np.float64)
    lo, hi = int(col.min()), int(col.max())
    if not is_wide(lo, hi):
        return col.astype(np.float64)
    if codes:
        return _codes(col)
    if col.dtype.kind == "O":
        if lo < np.iinfo(np.int64).min or hi > np.iinfo(np.int64).max:
            raise wide_integer_error(label, lo, hi, estimator_name, "rescale it")
        col = col.astype(np.int64)
    if hi - lo <= FLOAT_EXACT:
        # modular uint64 difference: exact, since 0 <= x - lo <= 2**53
        return (col.astype(np.uint64) - np.asarray(col.min()).astype(np.uint64)).astype(np.float64)
    raise wide_integer_error(
        label,
        lo,
        hi,
        estimator_name,
        f"declare it categorical=[{label!r}] to use the values as category codes, or rescale it",
    )


def _label(names: list[str] | None, j: int) -> str:
    """Column ``j``'s name in messages: its DataFrame name, else its index."""
    return names[j] if names is not None else str(j)


def _check_float_range(
    values: np.ndarray,
    names: list[str] | None,
    estimator_name: str,
    extremes: tuple[np.ndarray, np.ndarray] | None = None,
) -> None:
    """Refuse a float column whose range max - min overflows float64 (e.g. +-1e308).

    Range scaling, bin edges and distances all need ``max - min``; NaN is ignored.
    ``extremes``: each column's ``fmin`` and ``fmax``, when already known.
    """
    if values.size == 0:
        return
    lo, hi = extremes if extremes is not None else (None, None)
    with np.errstate(over="ignore", invalid="ignore"):
        if lo is None:
            lo, hi = np.fmin.reduce(values, axis=0), np.fmax.reduce(values, axis=0)
        # in float64 (extremes of a float32 input would overflow where float64 does not)
        span = np.asarray(hi, dtype=np.float64) - np.asarray(lo, dtype=np.float64)
    bad = np.flatnonzero(np.isinf(span))
    if bad.size:
        j = int(bad[0])
        label = _label(names, j)
        col = values[:, j]
        raise ValueError(
            f"{estimator_name}: column {label!r} spans {np.nanmin(col):g} .. "
            f"{np.nanmax(col):g}, a range (max - min) that overflows float64; rescale it "
            "(e.g. divide it by a power of ten)"
        )


def table_array(X: Any, estimator_name: str) -> np.ndarray:
    """``X`` (an array or a sequence of rows) as an ndarray. Rows that mix numbers and
    text stay objects, each value as given (numpy would turn every value, the numbers
    too, into text); rows of different lengths are an error."""
    try:
        arr = np.asarray(X)
    except ValueError:
        raise ValueError(
            f"{estimator_name}: X is not a table: its rows have different lengths"
        ) from None
    if arr.dtype.kind in "US" and not isinstance(X, np.ndarray) and arr.ndim == 2:
        arr = np.empty(arr.shape, dtype=object)
        for i, row in enumerate(X):
            arr[i, :] = list(row)
    if arr.dtype.kind == "O" and arr.ndim != 2 and not isinstance(X, np.ndarray):
        raise ValueError(f"{estimator_name}: X is not a table: its rows have different lengths")
    return arr


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
    any_float_layout: bool = False,
    values_checked: bool = False,
    n_jobs: int = 1,
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
    any_float_layout : bool
        The caller reads ``Table.values`` as float64 numbers whatever their storage.
        With ``read_only``, a plain float32 ndarray and the column-major block of a
        float DataFrame are passed through as they are (read-only views; a float32
        value is read as its exact float64 equivalent, so nothing computed changes);
        a table assembled column by column (a DataFrame of mixed types) is made
        column-major, so that each column is written in one contiguous pass.
    values_checked : bool
        The caller has checked a plain float ndarray's values elsewhere (on a GPU):
        every value finite and every column's range ``max - min`` finite. The
        passes over the values that check this are then skipped (the structure is
        still checked); without it they run as usual.
    n_jobs : int
        Threads of the finiteness and range pass over a plain float ndarray (row
        blocks; the same checks).

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
    names: list[str] | None = None
    frame = None
    if type(X).__name__ == "LazyFrame":
        raise TypeError(
            f"{estimator_name}: X is a polars LazyFrame, a query not yet run; call "
            "X.collect() first"
        )
    if is_dataframe(X):
        check_unique_names(X, estimator_name)
        frame = float_frame_values(X, categorical)  # one float dtype: its matrix
        if frame is None:
            names, cols, declared, integral, family = _dataframe_columns(X, estimator_name)
            n_features = len(cols)
            n_samples = len(cols[0]) if cols else 0
        else:
            names = [str(c) for c in X.columns]
    if frame is not None or not is_dataframe(X):
        arr = table_array(X, estimator_name) if frame is None else frame
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
            checked = values_checked and arr.dtype.kind == "f"
            extremes = None
            if arr.dtype.kind == "f" and not checked:  # one threaded pass: finite? ranges
                finite, lo, hi = finite_extremes(arr, n_jobs)
                extremes = (lo, hi)
            if arr.dtype.kind == "f" and not checked and not finite:
                nan = np.isnan(arr)
                inf_cols = np.flatnonzero(np.isinf(arr).any(axis=0))
                if inf_cols.size:
                    raise ValueError(
                        f"{estimator_name}: X contains inf in column "
                        f"{_label(names, int(inf_cols[0]))!r}; infinite values are not allowed"
                    )
                missing = nan.any(axis=0)
                if not allow_missing:
                    raise _missing_error(
                        estimator_name, _label(names, int(np.flatnonzero(missing)[0]))
                    )
            mask = _categorical_mask(categorical, n_features, None)
            auto = is_auto(categorical)
            if auto and arr.dtype.kind == "b":
                mask[:] = True  # boolean columns are categorical by default
            wide = arr.dtype.kind in "iu" and arr.dtype.itemsize == 8  # 32-bit ints are exact
            # values beyond +-2**53 (ids, hashes): float64 cannot hold them apart
            wide = wide and is_wide(int(arr.min()), int(arr.max()))
            fn = np.asarray(names, dtype=object) if names is not None else None
            if keep_integer and arr.dtype.kind in "iub" and not mask.any() and not wide:
                return Table(arr, np.ones(n_features, dtype=bool), fn)
            discrete = mask | (arr.dtype.kind in "iub")
            if wide:  # exact: shifted by the minimum, or order codes (keep_integer)
                values = np.empty(arr.shape, dtype=np.float64)
                for j in range(n_features):
                    values[:, j] = _integer_as_float(
                        arr[:, j], str(j), estimator_name, bool(mask[j]) or keep_integer
                    )
                return Table(values, discrete, fn, categorical=mask)
            kept = (np.float64, np.float32) if any_float_layout else (np.float64,)
            # a frame's block (column-major) is read in place only by the callers that
            # take any layout (the binned estimators); others get a row-major copy
            if (
                read_only
                and arr.dtype in kept
                and not mask.any()
                and (frame is None or any_float_layout)
            ):
                values = arr.view()  # the caller only reads it: no copy
                values.flags.writeable = False
            else:  # a copy: never touch the caller's data
                values = arr.astype(np.float64, order="K" if frame is None else "C")
            if arr.dtype.kind == "f" and not checked:
                _check_float_range(values, names, estimator_name, extremes)
            for j in np.flatnonzero(mask & (arr.dtype.kind == "f")):
                values[:, j] = _codes(values[:, j], np.isnan(values[:, j]))
            return Table(values, discrete, fn, missing, categorical=mask)
        cols = [arr[:, j] for j in range(n_features)]
        declared = [False] * n_features
        integral = [False] * n_features
        family = [""] * n_features
    _check_shape(n_samples, n_features, min_samples, estimator_name)
    cols = [np.asarray(c) for c in cols]
    misses = [_missing_mask(c) for c in cols]
    cat_mask, kinds = column_types(cols, misses, categorical, names, declared, family, integral)
    # column by column: column-major where the caller takes any layout (each column
    # one contiguous write), else row-major
    if any_float_layout:
        values = np.empty((n_features, n_samples), dtype=np.float64).T
    else:
        values = np.empty((n_samples, n_features), dtype=np.float64)
    discrete = np.zeros(n_features, dtype=bool)
    missing = np.zeros(n_features, dtype=bool)
    identifiers: list[str] = []
    for j, col in enumerate(cols):
        label = names[j] if names is not None else str(j)
        kind = _column_kind(col)
        miss = misses[j]
        if col.dtype.kind == "c":  # (complex objects: not convertible, "not numeric")
            raise ValueError(f"{estimator_name}: Complex data not supported (column {label!r})")
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
                wide = bool(num.size) and float(np.abs(num).max()) > FLOAT_EXACT
            except OverflowError:  # a Python int beyond float64's range
                num, wide = None, True
            except (TypeError, ValueError):
                num, wide = None, False
            # integers beyond 2**53 (ids): float64 merged them; taken exactly instead
            if wide and all(
                isinstance(v, (Integral, np.integer)) and not isinstance(v, (bool, np.bool_))
                for v in observed.tolist()
            ):
                num = _integer_as_float(observed, label, estimator_name, bool(keep_integer))
            if num is None:
                raise TypeError(
                    f"{estimator_name}: column {label!r} is not numeric (dtype {col.dtype}): "
                    "each argument must be a string or a number convertible to float; "
                    f"declare it with categorical=[{label!r}] or encode it"
                )
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


def check_n_features_to_select(
    k: Any, n_features: int, *, allow_none: bool = True, owner: str = ""
) -> int:
    """Return the number of features to select, checking ``1 <= k <= n_features``.

    ``None`` means half of the features (rounded down, at least one:
    :func:`fsel.utils.params.default_n_features`); a float in (0, 1] is a fraction
    (rounded, at least one). ``owner`` opens the error messages (e.g. ``"fsel.report"``).

    Examples
    --------
    >>> check_n_features_to_select(None, 9), check_n_features_to_select(0.5, 9)
    (4, 4)
    """
    from fsel.utils.params import _who, check_n_features_to_select_param, default_n_features

    if k is None:
        if allow_none:
            return default_n_features(n_features)
        raise ValueError(f"{_who(owner)}n_features_to_select must be given")
    k = check_n_features_to_select_param(k, owner=owner)
    if isinstance(k, float):
        return max(1, round(k * n_features))
    if k > n_features:
        raise ValueError(
            f"{_who(owner)}n_features_to_select={k} is larger than the number of features "
            f"({n_features})"
        )
    return k


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
