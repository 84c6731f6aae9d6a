"""Dask table validation: a Dask feature table and its target as matching lazy row blocks.

:func:`check_dask_table` reads only metadata (dtypes, chunk sizes); values are checked
on the workers. :func:`is_dask` recognises a Dask collection without importing dask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fsel.utils.column_types import _categorical_mask, is_auto, is_wide, wide_integer_error

__all__ = ["DaskTable", "check_dask_table", "is_dask"]


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
        :attr:`fsel.utils.validation.Table.categorical`.
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
            if col.dtype.kind in "iu" and col.size:  # a shift would differ by block: refuse
                lo, hi = int(col.min()), int(col.max())
                if is_wide(lo, hi):
                    raise wide_integer_error(
                        str(part.columns[j]), lo, hi, "fsel", "rescale it, or pass it in memory"
                    )
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
        category = np.zeros(len(names), dtype=bool)  # categorical by their dtype
        for j, dt in enumerate(X.dtypes):
            kind = getattr(dt, "kind", "O")
            if str(dt) == "category":
                cat_cols.append(j)
                declared[j] = True
                category[j] = True
            elif kind in "iub":
                declared[j] = True
                # boolean columns are categorical by default, as in memory
                category[j] = kind == "b" and is_auto(categorical)
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
        if X.dtype.kind == "b" and is_auto(categorical):
            cat[:] = True  # boolean columns are categorical by default, as in memory
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
