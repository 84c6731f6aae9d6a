"""Loader for the ``.npz`` data sets of ``../shared/datasets`` (see its MANIFEST.md).

The files are never copied into the project: :func:`load` reads them from a folder the
user gives, from ``$FSEL_DATA``, or from ``../shared/datasets`` relative to the current
directory or to this checkout.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Dataset", "DatasetNotFoundError", "data_dir", "list_datasets", "load"]


class DatasetNotFoundError(FileNotFoundError):
    """A data set or the data folder is not on this machine (nothing is broken).

    A subclass of ``FileNotFoundError``, so that callers (and tests) can tell missing
    data apart from any other missing file.
    """


@dataclass
class Dataset:
    """A loaded data set: ``X``, ``y``, optional names and the categorical mask."""

    name: str
    X: Any  # ndarray, or a scipy.sparse CSR matrix for a sparse data file
    y: np.ndarray
    feature_names: np.ndarray | None = None
    categorical: np.ndarray | None = None
    class_names: np.ndarray | None = None
    extra: dict = field(default_factory=dict)


def _candidates() -> list[Path]:
    here = Path(__file__).resolve()
    out = []
    if os.environ.get("FSEL_DATA"):
        out.append(Path(os.environ["FSEL_DATA"]))
    out.append(Path.cwd() / ".." / "shared" / "datasets")
    out.append(Path.cwd() / "shared" / "datasets")
    for parent in here.parents:
        out.append(parent / ".." / "shared" / "datasets")
    return out


def data_dir(path: str | os.PathLike | None = None) -> Path | None:
    """The folder holding the ``.npz`` files, or None when none is found."""
    if path is not None:
        p = Path(path)
        if not p.is_dir():
            raise DatasetNotFoundError(f"data folder {str(p)!r} does not exist")
        return p
    for p in _candidates():
        if p.is_dir() and any(p.glob("*.npz")):
            return p.resolve()
    return None


def list_datasets(path: str | os.PathLike | None = None) -> dict[str, tuple[int, int]]:
    """Names of the available data sets with their ``(n_samples, n_features)``."""
    d = data_dir(path)
    if d is None:
        return {}
    out = {}
    for f in sorted(d.glob("*.npz")):
        with np.load(f, allow_pickle=False) as z:
            if "X" in z.files:
                out[f.stem] = tuple(int(s) for s in z["X"].shape)
            elif "X_train" in z.files:
                out[f.stem] = tuple(int(s) for s in z["X_train"].shape)
            elif "X_shape" in z.files:
                out[f.stem] = tuple(int(s) for s in z["X_shape"])
    return out


def _features_and_target(arrays: dict) -> tuple:
    """Pop ``X`` and ``y`` from a data file's arrays. Three layouts: ``X``/``y``; a
    labelled training split ``X_train``/``y_train`` (e.g. DOROTHEA); a sparse CSR ``X``
    in parts ``X_data``, ``X_indices``, ``X_indptr``, ``X_shape`` with ``y`` (returned
    as a scipy.sparse CSR matrix, never densified)."""
    if "X" in arrays:
        return arrays.pop("X"), arrays.pop("y")
    if "X_train" in arrays:
        return arrays.pop("X_train"), arrays.pop("y_train")
    if "X_indptr" in arrays:
        import scipy.sparse as sp

        parts = [arrays.pop(k) for k in ("X_data", "X_indices", "X_indptr", "X_shape")]
        X = sp.csr_matrix(tuple(parts[:3]), shape=tuple(int(v) for v in parts[3]))
        return X, arrays.pop("y")
    raise ValueError("a data file needs arrays X and y (or X_train/y_train, or X_data/...)")


def load(name: str, path: str | os.PathLike | None = None) -> Dataset:
    """Load one data set by name (file stem), e.g. ``load("sonar")``.

    Raises
    ------
    DatasetNotFoundError
        (a ``FileNotFoundError``) When the data folder or the file is missing; the
        message lists what exists.
    """
    d = data_dir(path)
    if d is None:
        raise DatasetNotFoundError(
            "no data folder found: pass path=..., set FSEL_DATA, or run from a checkout "
            "with ../shared/datasets beside it"
        )
    f = d / f"{name}.npz"
    if not f.exists():
        avail = ", ".join(sorted(p.stem for p in d.glob("*.npz")))
        raise DatasetNotFoundError(f"no data set {name!r} in {d}; available: {avail}")
    with np.load(f, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    X, y = _features_and_target(arrays)
    return Dataset(
        name=name,
        X=X,
        y=y,
        feature_names=arrays.pop("feature_names", None),
        categorical=arrays.pop("categorical", None),
        class_names=arrays.pop("class_names", None),
        extra=arrays,
    )
