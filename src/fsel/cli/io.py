"""Reading tables for the CLI: CSV, Parquet, the ``.npz`` files of shared/datasets and
sparse matrices saved by ``scipy.sparse.save_npz``; and the values of options shared by
the subcommands (:func:`literal`, :func:`n_features`)."""

from __future__ import annotations

import argparse
import ast
import csv
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fsel.utils.column_types import _seconds

__all__ = [
    "CliError",
    "LoadedData",
    "bins",
    "dask_context",
    "literal",
    "n_features",
    "name_columns",
    "named_columns",
    "read_data",
    "read_data_dask",
    "resolve_data",
]


class CliError(Exception):
    """An error the CLI reports as one line on stderr (exit status 2)."""


@dataclass
class LoadedData:
    X: Any  # ndarray, pandas DataFrame or scipy.sparse CSR matrix
    y: np.ndarray
    feature_names: list[str]
    categorical: list[int]
    target: str


#: the cells of a CSV file read as missing values (pandas' default markers, and "?",
#: the marker of many UCI data sets), by the pandas and the plain reader alike
MISSING_TOKENS = (
    "", "?", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)  # fmt: skip


def _check_unique_names(path: Path | str, header: list[str], what: str = "the header") -> None:
    """A header that names a column twice is an error (pandas would rename the second
    ``name.1`` and ``--target name`` would silently take the first); so are feature
    names given twice (``what`` says where they come from)."""
    seen: set[str] = set()
    twice = sorted({h for h in header if h in seen or seen.add(h)})
    if twice:
        raise CliError(
            f"{path}: {what} names these columns more than once: {', '.join(map(repr, twice))} "
            "(rename them so that every column name is unique)"
        )


def _csv_rows(path: Path, sep: str = ",") -> Iterator[tuple[int, list[str]]]:
    """The rows of a CSV file as ``(line number, fields)``, the header first: a UTF-8
    byte-order mark is dropped and blank lines are skipped (as pandas does). A row
    with more fields than the header is an error naming its line -- an unquoted
    separator in a cell would shift the columns after it -- except for one trailing
    empty field on every row when the first data row has one (some exporters end each
    row with the separator), which is dropped. The one rule of both CSV readers."""
    with path.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh, delimiter=sep)
        width = trailing = None
        for row in reader:
            if not row:
                continue
            if width is None:
                width = len(row)
            elif trailing is None:
                trailing = len(row) == width + 1 and row[-1] == ""
            if trailing and len(row) == width + 1 and row[-1] == "":
                row = row[:-1]
            if len(row) > width:
                raise CliError(
                    f"{path}: line {reader.line_num} has {len(row)} fields but the header "
                    f"names {width} columns (a separator inside a cell? quote the cell)"
                )
            yield reader.line_num, row


def _read_csv_plain(path: Path) -> tuple[list[str], dict[str, np.ndarray]]:
    rows = [row for _, row in _csv_rows(path)]
    if not rows:
        raise CliError(f"{path}: the file is empty")
    header, body = rows[0], rows[1:]
    _check_unique_names(path, header)
    if not body:
        raise CliError(f"{path}: the file has a header but no rows")
    missing = set(MISSING_TOKENS)
    cols: dict[str, np.ndarray] = {}
    for j, name in enumerate(header):
        raw = [r[j] if j < len(r) else "" for r in body]
        try:
            cols[name] = np.array([np.nan if v.strip() in missing else float(v) for v in raw])
        except ValueError:
            cells = [None if v.strip() in missing else v for v in raw]
            cols[name] = np.array(cells, dtype=object)
    return header, cols


def _frame_to_columns(df: Any) -> tuple[list[str], dict[str, np.ndarray]]:
    names = [str(c) for c in df.columns]
    return names, {str(c): df[c].to_numpy() for c in df.columns}


@contextmanager
def dask_context(scheduler: str) -> Iterator[Any]:
    """``dask_backend`` on a scheduler address, or on a local cluster of N worker
    processes for ``local:N``."""
    from fsel.meta.resampling import dask_backend

    if not scheduler.startswith("local"):
        with dask_backend(scheduler) as client:
            yield client
        return
    spec = scheduler.partition(":")[2] or "2"
    if not spec.isdigit() or int(spec) < 1:
        raise CliError(f"--scheduler local:N needs a worker count N >= 1, got {scheduler!r}")
    try:
        from distributed import LocalCluster
    except ImportError:
        raise CliError("--scheduler needs Dask: pip install 'fsel[dask]'") from None
    with (
        LocalCluster(n_workers=int(spec), threads_per_worker=1, dashboard_address=":0") as cl,
        dask_backend(cl) as client,
    ):
        yield client


def resolve_data(path: str) -> str:
    """``path`` itself when it names a file (or has a suffix), else the shared data set
    of that name (``NAME.npz`` in :func:`fsel.datasets.data_dir`) when there is one."""
    if Path(path).exists() or Path(path).suffix:
        return path
    from fsel.datasets import data_dir

    d = data_dir()
    if d is not None and (d / f"{path}.npz").exists():
        return str(d / f"{path}.npz")
    return path


def read_data(
    path: str,
    target: str | None,
    categorical: list[str] | None = None,
    target_file: str | None = None,
    names_file: str | None = None,
    numeric: list[str] | None = None,
) -> LoadedData:
    """Read a data file and split it into features and target.

    CSV is read with pandas when installed (else with the csv module), Parquet with
    pandas/pyarrow or polars, ``.npz`` with numpy (arrays ``X``, ``y`` and optional
    ``feature_names``/``categorical``; ``--target`` is not needed there; a data set's
    ``X_train``/``y_train`` are read too). A sparse ``.npz`` -- one written by
    ``scipy.sparse.save_npz`` (X only: the labels come from ``target_file``), or a
    data file with ``X_data``, ``X_indices``, ``X_indptr``, ``X_shape`` (CSR) and ``y``
    -- gives a scipy.sparse CSR matrix, never densified. ``target_file``: labels, one
    per row (``.npy``, or text/CSV with one label a line); ``names_file``: feature
    names, one a line (e.g. a vocabulary).

    CSV and Parquet columns need no declaration: text columns are categorical, text
    columns whose every cell parses as a date become dates (taken as seconds since the
    epoch), the selectors decide the rest (``categorical="auto"``). ``categorical``
    lists columns to take as categorical as well, ``numeric`` columns to take as
    numbers (booleans as 0/1, text that parses as numbers).
    """
    loaded = _read_data(path, target, categorical, target_file, numeric)
    if target_file is not None and not (path.endswith(".npz") and _is_sparse_npz(Path(path))):
        loaded.y = _read_labels(target_file, loaded.X.shape[0])
    if names_file is not None:
        names = _read_lines(names_file)
        if len(names) != loaded.X.shape[1]:
            raise CliError(
                f"{names_file}: {len(names)} names for {loaded.X.shape[1]} feature columns"
            )
        _check_unique_names(names_file, names, "the file")
        loaded.feature_names = names
    return loaded


def _read_lines(path: str) -> list[str]:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise CliError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return [line.rstrip("\r") for line in text.split("\n") if line.strip() != ""]


def _read_labels(path: str, n_rows: int) -> np.ndarray:
    """Labels from ``.npy`` or a text file with one label a line (numbers if they all
    parse)."""
    if path.lower().endswith(".npy"):
        try:
            y = np.load(path, allow_pickle=False)
        except Exception as exc:
            raise CliError(f"{path}: cannot read as .npy ({exc})") from None
    else:
        raw = _read_lines(path)
        try:
            y = np.array([float(v) for v in raw])
            if np.all(y == np.round(y)):
                y = y.astype(np.int64)
        except ValueError:
            y = np.array(raw)
    y = np.ravel(y)
    if y.size != n_rows:
        raise CliError(f"{path}: {y.size} labels for {n_rows} rows of X")
    return y


def _is_sparse_npz(p: Path) -> bool:
    try:
        with np.load(p, allow_pickle=False) as z:
            return "format" in z.files and "shape" in z.files
    except Exception:
        return False


def _read_data(
    path: str,
    target: str | None,
    categorical: list[str] | None,
    target_file: str | None,
    numeric: list[str] | None = None,
) -> LoadedData:
    if path.startswith("generated:"):
        return _generated(path.partition(":")[2])
    p = Path(path)
    if not p.exists():
        raise CliError(f"{path}: no such file")
    if p.is_dir():
        raise CliError(f"{path}: is a folder, not a data file")
    suffix = p.suffix.lower()
    categorical = list(categorical or [])
    if suffix == ".npz":
        with p.open("rb") as fh:
            if fh.read(2) != b"PK":  # numpy would try a .npy, then a pickle
                raise CliError(f"{path}: not a .npz file (a zip of arrays, as numpy.savez writes)")
        try:
            with np.load(p, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except Exception as exc:
            raise CliError(f"{path}: cannot read as .npz ({exc})") from None
        if "format" in arrays and "shape" in arrays:  # scipy.sparse.save_npz
            import scipy.sparse as sp

            if target_file is None:
                raise CliError(
                    f"{path} is a sparse matrix from scipy.sparse.save_npz and holds X only; "
                    "pass the labels with --target-file y.npy (or a text file, one label a line)"
                )
            try:
                X = sp.csr_matrix(sp.load_npz(p))
            except Exception as exc:
                raise CliError(f"{path}: cannot read the sparse matrix ({exc})") from None
            y = _read_labels(target_file, X.shape[0])
            return LoadedData(X, y, [f"x{i}" for i in range(X.shape[1])], [], "y")
        if "X_indptr" in arrays and "y" in arrays:  # sparse data-set layout (CSR parts)
            import scipy.sparse as sp

            try:
                arrays["X"] = sp.csr_matrix(
                    (arrays["X_data"], arrays["X_indices"], arrays["X_indptr"]),
                    shape=tuple(int(v) for v in arrays["X_shape"]),
                )
            except Exception as exc:
                raise CliError(f"{path}: bad sparse X_* arrays ({exc})") from None
        if "X" not in arrays and "X_train" in arrays and "y_train" in arrays:
            arrays["X"], arrays["y"] = arrays["X_train"], arrays["y_train"]
        if "X" not in arrays or ("y" not in arrays and target_file is None):
            raise CliError(
                f"{path}: a .npz data file needs arrays 'X' and 'y' (or a sparse matrix "
                "from scipy.sparse.save_npz with --target-file)"
            )
        X = arrays["X"]
        if X.ndim != 2:
            raise CliError(
                f"{path}: array 'X' must be 2-D (samples x features), got shape {X.shape}"
            )
        if "y" in arrays and (arrays["y"].ndim != 1 or arrays["y"].shape[0] != X.shape[0]):
            raise CliError(
                f"{path}: array 'y' must be 1-D with one label per row of X "
                f"({X.shape[0]}), got shape {arrays['y'].shape}"
            )
        names = (
            [str(n) for n in np.ravel(arrays["feature_names"])]
            if "feature_names" in arrays
            else [f"x{i}" for i in range(X.shape[1])]
        )
        if len(names) != X.shape[1]:
            raise CliError(
                f"{path}: 'feature_names' has {len(names)} entries but X has {X.shape[1]} columns"
            )
        _check_unique_names(path, names, "'feature_names'")
        if "categorical" in arrays and np.ravel(arrays["categorical"]).size != X.shape[1]:
            raise CliError(
                f"{path}: 'categorical' has {np.ravel(arrays['categorical']).size} entries "
                f"but X has {X.shape[1]} columns"
            )
        cat = []
        if "categorical" in arrays:
            # the file says which columns are categorical: the others are numeric
            # measurements (even when stored as integers) and get binned like floats
            cat = [int(i) for i in np.flatnonzero(np.ravel(arrays["categorical"]))]
            if not hasattr(X, "tocsr") and X.dtype.kind in "iub" and len(cat) < X.shape[1]:
                X = X.astype(np.float64)
        for c in categorical:
            if c not in names:
                raise CliError(f"--categorical: no column {c!r} in {path}")
            cat.append(names.index(c))
        if target not in (None, "y"):
            raise CliError(
                f"--target {target}: a .npz file holds its target in the array 'y' (no "
                "columns to choose from); drop --target, or give labels with --target-file"
            )
        y = arrays["y"] if "y" in arrays else np.zeros(X.shape[0])  # --target-file follows
        return LoadedData(X, y, names, sorted(set(cat)), target or "y")
    try:
        if suffix in (".parquet", ".pq"):
            names, cols = _read_parquet(p)
        elif suffix in (".csv", ".txt", ".tsv"):
            names, cols = _read_csv(p, "\t" if suffix == ".tsv" else ",")
        else:
            raise CliError(f"{path}: unknown file type {suffix!r}; use .csv, .parquet or .npz")
    except CliError:
        raise
    except Exception as exc:
        raise CliError(f"{path}: cannot read the file ({type(exc).__name__}: {exc})") from None
    feat = _feature_columns(path, target, names)
    for c in categorical:
        if c not in feat:
            raise CliError(f"--categorical: no feature column {c!r} in {path}")
    numeric = list(numeric or [])
    for c in numeric:
        if c not in feat:
            raise CliError(f"--numeric: no feature column {c!r} in {path}")
        if c in categorical:
            raise CliError(f"column {c!r} is given both to --categorical and --numeric")
        cols[c] = _as_numbers(cols[c], c)
    cat_idx = [feat.index(c) for c in categorical]
    for n in feat:
        if cols[n].dtype.kind == "O" and n not in categorical:
            cols[n] = _parse_dates(cols[n])
    try:
        import pandas as pd
    except ImportError:  # X is one ndarray: dates as the seconds the selectors take
        pd = None
        for n in feat:
            if cols[n].dtype.kind == "M":
                cols[n] = _seconds(cols[n])
    if all(cols[n].dtype.kind in "biuf" for n in feat):
        return LoadedData(
            np.column_stack([cols[n] for n in feat]), cols[target], feat, cat_idx, target
        )
    # a mixed table: the selectors decide what each column is (categorical="auto")
    if pd is not None:
        X: Any = pd.DataFrame({n: cols[n] for n in feat}, columns=feat)
    else:
        X = np.empty((len(cols[target]), len(feat)), dtype=object)
        for i, n in enumerate(feat):
            X[:, i] = cols[n]
    return LoadedData(X, cols[target], feat, cat_idx, target)


def _feature_columns(path: str, target: str | None, names: list[str]) -> list[str]:
    """The feature columns of a CSV or Parquet table: all but ``--target``, which must
    name one of them (the names quoted in the error: a space in a name shows)."""
    if target is None:
        raise CliError("--target COLUMN is required for CSV and Parquet files")
    if target not in names:
        raise CliError(
            f"label column {target!r} is not in {path}; columns are: {', '.join(map(repr, names))}"
        )
    feat = [n for n in names if n != target]
    if not feat:
        raise CliError(f"{path}: no feature columns besides the target {target!r}")
    return feat


def _as_numbers(col: np.ndarray, name: str) -> np.ndarray:
    """``--numeric``: a column as float64 (booleans 0/1, text that parses as numbers;
    an empty cell is missing)."""
    if col.dtype.kind in "biuf":
        return col.astype(np.float64)
    out = np.empty(col.shape[0], dtype=np.float64)
    for i, v in enumerate(col.tolist()):
        if v is None or (isinstance(v, float) and v != v) or type(v).__name__ == "NAType":
            out[i] = np.nan
            continue
        text = str(v).strip()
        if text.lower() in ("true", "false"):
            out[i] = float(text.lower() == "true")
            continue
        try:
            out[i] = float(text) if text else np.nan
        except ValueError:
            raise CliError(f"--numeric: column {name!r} holds {text!r}, not a number") from None
    return out


def _parse_dates(col: np.ndarray) -> np.ndarray:
    """A text column whose every non-empty cell parses as a date or a date and time,
    as ``datetime64`` (empty cells NaT; times with a UTC offset converted to UTC, so
    that a column whose offset changes, e.g. at a daylight-saving change, is still a
    date); any other column unchanged. The unit is pandas' own (pandas 3: microseconds,
    years 1 to 9999), never a cast to nanoseconds, which wraps dates outside 1677-2262
    around."""
    values = col.tolist()
    cells = [v for v in values if isinstance(v, str) and v.strip() != ""]
    if not cells or not all(map(_date_like, cells[:64])):  # most text columns stop here
        return col
    if any(not isinstance(v, str) for v in values if not _is_hole(v)):
        return col
    if not all(map(_date_like, cells)):
        return col
    import warnings

    try:
        import pandas as pd
    except ImportError:
        return _parse_iso_dates(col)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = pd.to_datetime(
                pd.Series(col, dtype=object), errors="raise", format="mixed", utc=True
            )
    except pd.errors.OutOfBoundsDatetime:  # pandas 2 parses to nanoseconds only
        return _parse_iso_dates(col)
    except (ValueError, TypeError, OverflowError):
        return col
    return parsed.dt.tz_localize(None).to_numpy()


def _date_like(v: str) -> bool:
    """Whether a cell could be a date: a separator (``-``, ``/`` or ``:``) and a digit."""
    return any(ch in v for ch in "-/:") and any(ch.isdigit() for ch in v)


def _parse_iso_dates(col: np.ndarray) -> np.ndarray:
    """:func:`_parse_dates` without pandas: ISO 8601 dates and times (numpy's parser;
    an offset is converted to UTC), in seconds; any other column unchanged."""
    import warnings

    cells = [v.strip() if isinstance(v, str) and v.strip() else "NaT" for v in col.tolist()]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's deprecation of UTC offsets
            return np.array(cells, dtype="datetime64[s]")
    except (ValueError, TypeError, OverflowError):
        return col


def _is_hole(v: Any) -> bool:
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ == "NAType"


def _has_holes(col: np.ndarray) -> bool:
    """True when an object column has empty cells (None, NaN or pandas' NA)."""
    for v in col.tolist():
        if v is None or (isinstance(v, float) and v != v) or type(v).__name__ == "NAType":
            return True
    return False


def _read_csv(p: Path, sep: str) -> tuple[list[str], dict[str, np.ndarray]]:
    try:
        import pandas as pd
    except ImportError:
        if sep != ",":
            raise CliError("reading .tsv needs pandas (pip install 'fsel[pandas]')") from None
        return _read_csv_plain(p)
    header = _csv_header(p, sep)
    if header is None:
        raise CliError(f"{p}: the file is empty")
    _check_unique_names(p, header)
    import warnings

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pd.errors.ParserWarning)
            df = pd.read_csv(p, sep=sep, **_PANDAS_CSV)
    except pd.errors.EmptyDataError:
        raise CliError(f"{p}: the file is empty") from None
    except pd.errors.ParserError:
        _check_widths(p, sep)  # names the row with too many fields
        raise
    if any(issubclass(w.category, pd.errors.ParserWarning) for w in caught):
        _check_widths(p, sep)  # pandas dropped fields beyond the header's
        raise CliError(f"{p}: rows have more fields than the header names columns")
    if len(df) == 0:
        raise CliError(f"{p}: the file has a header but no rows")
    return _frame_to_columns(df)


#: how pandas (and Dask) read a CSV file: the missing-value markers of the plain reader,
#: and never the first column as the index (pandas takes it when the rows have one
#: field more than the header, e.g. a separator at the end of every row)
_PANDAS_CSV: dict[str, Any] = {
    "keep_default_na": False,
    "na_values": list(MISSING_TOKENS),
    "index_col": False,
}


def _csv_header(p: Path, sep: str) -> list[str] | None:
    """The header of a CSV file (None when it has no line)."""
    for _, row in _csv_rows(p, sep):
        return row
    return None


def _check_widths(p: Path, sep: str, n_rows: int | None = None) -> None:
    """Raise the error of :func:`_csv_rows` for the first row with too many fields
    (among the first ``n_rows`` rows)."""
    for i, _ in enumerate(_csv_rows(p, sep)):
        if n_rows is not None and i >= n_rows:
            return


def _read_parquet(p: Path) -> tuple[list[str], dict[str, np.ndarray]]:
    try:
        import pandas as pd

        return _frame_to_columns(pd.read_parquet(p))
    except ImportError:
        pass
    try:
        import polars as pl
    except ImportError:
        raise CliError(
            "reading Parquet needs pandas with pyarrow, or polars: pip install 'fsel[parquet]'"
        ) from None
    df = pl.read_parquet(p)
    return [str(c) for c in df.columns], {str(c): df[c].to_numpy() for c in df.columns}


def _generated(name: str) -> LoadedData:
    """Synthetic data by name: ``generated:npfs`` (Ditzler et al.'s uniform data,
    1000 x 25, the first 5 features relevant), ``generated:monk1``, ``generated:yuan1``."""
    from fsel.datasets import make_monk, make_npfs_uniform, make_yuan_regression

    if name == "npfs":
        X, y, _ = make_npfs_uniform(1000, 25, 5, random_state=0)
    elif name.startswith("monk") and name[4:] in ("1", "2", "3"):
        X, y, _ = make_monk(int(name[4:]))
    elif name.startswith("yuan") and name[4:] in "123456" and name[4:]:
        X, y, _ = make_yuan_regression(int(name[4:]), random_state=0)
    else:
        raise CliError(f"unknown generated data {name!r}; use npfs, monk1..3 or yuan1..6")
    names = [f"x{i}" for i in range(X.shape[1])]
    return LoadedData(X, y, names, [], "y")


def read_data_dask(
    path: str, target: str | None, categorical: list[str] | None = None
) -> LoadedData:
    """Open CSV or Parquet files lazily as a Dask DataFrame (nothing is read here but
    the schema): ``path`` may be a glob such as ``'data/*.parquet'``. ``X`` is the lazy
    frame of the feature columns, ``y`` the lazy target column; declared categorical
    string columns become Dask categoricals (their categories are gathered in one pass).
    """
    import glob

    try:
        import dask.dataframe as dd
    except ImportError:
        raise CliError("--scheduler needs Dask: pip install 'fsel[dask]'") from None
    files = sorted(glob.glob(path)) if any(ch in path for ch in "*?[") else [path]
    if not files or not all(Path(f).is_file() for f in files):
        raise CliError(f"{path}: no such file")
    suffixes = {Path(f).suffix.lower() for f in files}
    if target is None:
        raise CliError("--target COLUMN is required for CSV and Parquet files")
    try:
        if suffixes <= {".parquet", ".pq"}:
            df = dd.read_parquet(files)
        elif suffixes <= {".csv", ".txt"} or suffixes == {".tsv"}:
            sep = "\t" if suffixes == {".tsv"} else ","
            for f in files:  # the in-memory reader's rules, on each file's first rows
                header = _csv_header(Path(f), sep)
                if header is None:
                    raise CliError(f"{f}: the file is empty")
                _check_unique_names(f, header)
                _check_widths(Path(f), sep, n_rows=2)
            df = dd.read_csv(files, sep=sep, **_PANDAS_CSV)
        else:
            raise CliError(
                f"{path}: with --scheduler, use .csv or .parquet files (got {sorted(suffixes)})"
            )
    except CliError:
        raise
    except Exception as exc:
        raise CliError(f"{path}: cannot read the file ({type(exc).__name__}: {exc})") from None
    names = [str(c) for c in df.columns]
    feat = _feature_columns(path, target, names)
    categorical = list(categorical or [])
    for c in categorical:
        if c not in feat:
            raise CliError(f"--categorical: no feature column {c!r} in {path}")
    non_numeric = [
        n
        for n in feat
        if getattr(df.dtypes[n], "kind", "O") not in "biuf"
        and str(df.dtypes[n]) != "category"
        and n not in categorical
    ]
    if non_numeric:
        raise CliError(
            f"non-numeric column(s) {', '.join(map(repr, non_numeric))} not declared "
            f"categorical; pass --categorical {','.join(non_numeric)} or drop them"
        )
    X = df[feat]
    if categorical:
        X = X.astype({c: "category" for c in categorical}).categorize(columns=categorical)
    return LoadedData(X, df[target], feat, [feat.index(c) for c in categorical], target)


class named_columns:
    """Re-raise a ValueError/TypeError whose message names columns by position
    (``column '3'``, ``column 3``) with the header names instead. A DataFrame ``X``
    (a mixed table, Dask) reaches the library with its names, which its messages
    already use: a number there that is a column's name is kept."""

    def __init__(self, names: list[str], X: Any = None) -> None:
        self.names = list(names)
        self.by_name = hasattr(X, "columns")

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        if exc is None or not isinstance(exc, (ValueError, TypeError)):
            return False
        raise CliError(name_columns(str(exc), self.names, self.by_name)) from exc


def name_columns(message: str, names: list[str], by_name: bool = False) -> str:
    """Replace column positions in an error message by the column's header name
    (``by_name``: the message came from a table with these names, so a number that is
    one of them is a name, not a position).

    Examples
    --------
    >>> name_columns("MIM: X contains inf in column '1'; remove it", ["age", "income"])
    "MIM: X contains inf in column 'income'; remove it"
    >>> name_columns("column 0 has non-integer values", ["age", "income"])
    "column 'age' has non-integer values"
    >>> name_columns("inf in column '0'", ["1", "0"], by_name=True)
    "inf in column '0'"
    """

    def sub(m: re.Match) -> str:
        j = int(m.group(2))
        if by_name and m.group(2) in names:
            return m.group(0)
        if 0 <= j < len(names):
            return f"{m.group(1)}{names[j]!r}"
        return m.group(0)

    return re.sub(r"(\bcolumn )'?(\d+)'?(?![\d.])", sub, message)


def literal(text: str) -> Any:
    """An option's value as a Python literal (``"3"`` -> 3, ``"0.5"`` -> 0.5), else the
    text itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def n_features(text: str) -> Any:
    """``-k``'s value (``fsel select``, ``fsel report``): an int, a fraction in (0, 1]
    or ``auto``."""
    if text == "auto":
        return text
    value = literal(text)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise argparse.ArgumentTypeError(f"expected an int, a fraction or 'auto', got {text!r}")
    return value


def bins(text: str) -> Any:
    """``--bins``'s value: an int or ``auto``."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an int or 'auto', got {text!r}") from None
