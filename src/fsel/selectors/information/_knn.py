"""``mi_estimator="knn"``: the information criteria's table from the nearest-neighbour
estimator (:mod:`fsel.kernels.knn_mi`), its input rules and fitted attributes.

Rules, stated once:

* nothing is binned: float columns are scaled to unit standard deviation; integer,
  boolean and categorical columns enter as their codes, unscaled (a difference of one
  code is far beyond the neighbour distances of scaled columns, so equal codes are
  searched first and ties are counted by Gao et al.'s rule);
* the target: class labels (any dtype, integer-valued floats included) are searched
  within class (Ross's estimator); a float target with non-integer values is
  continuous (regression) and enters as one more scaled column, never binned;
* missing values: ``missing="available"`` estimates each term on the rows where all
  its columns are observed; ``"level"`` has no meaning without bins and is refused
  when a value is missing, as is ``"error"``; inf is an error as everywhere;
* DISR (its normaliser ``H(Xk,Xj,Y)`` has no sound differential analogue), sparse and
  Dask input, and ``device="cuda"`` are refused with a clear error (``"auto"`` runs on
  the CPU: ``device_`` is ``"cpu"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsel.utils.dask_table import is_dask

__all__ = ["check_knn_input", "check_n_neighbors", "knn_information_table", "knn_table"]


def check_n_neighbors(n_neighbors: Any, name: str) -> int:
    """``n_neighbors`` as an int >= 1 (``TypeError``/``ValueError`` otherwise): the
    shared rule, :func:`fsel.utils.params.check_positive_int`."""
    from fsel.utils.params import check_positive_int

    return check_positive_int(n_neighbors, "n_neighbors", name)


def knn_table(selector: Any, X: Any, y: Any, missing: str) -> tuple[Any, int]:
    """The :class:`fsel.kernels.knn_mi.KNNInformationTable` of ``X``/``y`` and the
    number of features to select; sets the fitted input attributes of ``selector``:
    :func:`check_knn_input`, the validated table, :func:`knn_information_table`."""
    check_knn_input(selector, X, y)
    table, y_codes, classes = selector._validate_fit_data(
        X, y, categorical=selector.categorical, allow_missing=missing != "error"
    )
    return knn_information_table(selector, table, y_codes, classes, missing)


def check_knn_input(selector: Any, X: Any, y: Any) -> None:
    """The refusals that come before the input is validated: ``n_neighbors``, DISR,
    ``device="cuda"`` or a GPU array, Dask and sparse input."""
    import scipy.sparse as sp

    name = type(selector).__name__
    check_n_neighbors(selector.n_neighbors, name)
    if selector._criterion == "disr":
        raise ValueError(
            f"{name}: mi_estimator='knn' cannot estimate DISR's normaliser H(Xk,Xj,Y) (a "
            "joint entropy has no sound nearest-neighbour analogue here); use JMI, or "
            "DISR with a binned estimator"
        )
    device = getattr(selector, "device", "cpu")
    if device == "cuda" or hasattr(X, "__cuda_array_interface__"):
        raise ValueError(
            f"{name}: mi_estimator='knn' runs on the CPU only (its k-d tree searches have "
            "no GPU kernel); use device='cpu' (or 'auto') with X in host memory"
        )
    if device not in ("cpu", "auto"):
        raise ValueError(f"{name}: device must be 'cpu', 'cuda' or 'auto', got {device!r}")
    if is_dask(X) or is_dask(y):
        raise ValueError(
            f"{name}: mi_estimator='knn' does not support Dask input; compute it in memory "
            "(X.compute()) or use a binned estimator"
        )
    if sp.issparse(X):
        raise ValueError(
            f"{name}: mi_estimator='knn' does not support sparse input (its neighbour "
            "searches need dense rows); pass X.toarray() or use a binned estimator"
        )


def knn_information_table(
    selector: Any, table: Any, y_codes: np.ndarray, classes: np.ndarray, missing: str
) -> tuple[Any, int]:
    """The table and the number of features to select from the validated input (a
    ``Table``, the target's codes and classes); sets ``classes_`` (class labels only),
    ``y_bin_edges_`` (None), ``bin_edges_`` (all None) and removes ``n_levels_``."""
    from fsel.kernels.knn_mi import KNNInformationTable

    name = type(selector).__name__
    k_nn = check_n_neighbors(selector.n_neighbors, name)
    if missing == "level" and table.has_missing:
        raise ValueError(
            f"{name}: missing='level' has no meaning with mi_estimator='knn' (there is no "
            "distance to a missing value); use missing='available' (each term on the rows "
            "where its columns are observed) or fill the missing values"
        )
    n_samples, n_features = table.values.shape
    k = selector._n_to_select(n_features)
    if n_samples <= k_nn:
        raise ValueError(
            f"{name}: mi_estimator='knn' needs more than n_neighbors={k_nn} samples, got "
            f"{n_samples}"
        )
    continuous = classes.dtype.kind == "f" and not bool(np.all(classes == np.round(classes)))
    if continuous:
        y_values = classes[y_codes].astype(np.float64)
        if hasattr(selector, "classes_"):
            del selector.classes_
    else:
        y_values = y_codes
        selector.classes_ = classes
    selector.y_bin_edges_ = None
    selector.bin_edges_ = [None] * n_features
    if hasattr(selector, "n_levels_"):
        del selector.n_levels_
    info = KNNInformationTable(
        table.values,
        y_values,
        y_discrete=not continuous,
        n_neighbors=k_nn,
        scale=~np.asarray(table.discrete, dtype=bool),
        n_jobs=selector._n_threads(),
    )
    return info, k
