"""The information-theoretic criteria's fitting logic, without scikit-learn.

The estimators of :mod:`fsel.selectors.information._estimators` are these classes with
scikit-learn's API in front (:mod:`fsel.selectors._core` says why); their docstrings
document the parameters and attributes.

References
----------
G. Brown, A. Pocock, M.-J. Zhao and M. Lujan. Conditional likelihood maximisation: a
unifying framework for information theoretic feature selection. JMLR 13:27-66, 2012.
"""

from __future__ import annotations

import time
import warnings
from typing import Any, ClassVar

import numpy as np

from fsel.kernels._counting import PACK_MAX_LEVELS
from fsel.kernels.binning import check_n_bins, crowded_columns
from fsel.kernels.discretize import discretize as _discretize
from fsel.kernels.discretize_sparse import discretize_sparse
from fsel.kernels.information import InformationTable
from fsel.kernels.information_sparse import SparseInformationTable
from fsel.selectors._core import SelectorCore
from fsel.selectors.information import _knn
from fsel.selectors.information._engine import (
    DEFAULT_CMI_TOL,
    TIE_TOL,
    constant_features,
    greedy_select,
)
from fsel.utils.column_types import code_columns
from fsel.utils.dask_table import check_dask_table, is_dask
from fsel.utils.parallel import effective_n_jobs
from fsel.utils.progress import Progress
from fsel.utils.validation import check_n_features_to_select

#: the binning of float columns unless ``discretize=``/``n_bins=`` say otherwise: the
#: rule with the best recovery in ``fsel reproduce robust-defaults`` (issue 23); the
#: papers' rule is ``discretize="uniform", n_bins=5``
DEFAULT_DISCRETIZE = "quantile"
DEFAULT_N_BINS = "auto"


def _resolve_device(device: Any, name: str) -> str:
    """``"cpu"`` or ``"cuda"`` for the ``device`` parameter (the check lives with the
    GPU kernels, imported only when a GPU is asked for)."""
    if device == "cpu":
        return "cpu"
    from fsel.kernels.gpu._device import resolve_device

    return resolve_device(device, name)


def _check_device_value(device: Any, name: str) -> str:
    """The ``device`` parameter checked (one of ``"cpu"``, ``"cuda"``, ``"auto"``)
    but not resolved: Dask input resolves it on each worker."""
    from fsel.kernels.gpu._device import DEVICES

    if not isinstance(device, str) or device not in DEVICES:
        raise ValueError(f"{name}: device must be one of {DEVICES}, got {device!r}")
    return device


__all__ = [
    "CIFE",
    "CMI",
    "CMIM",
    "DISR",
    "ICAP",
    "JMI",
    "JMIM",
    "MIFS",
    "MIM",
    "MRMR",
    "BetaGamma",
    "CondRed",
    "InformationSelector",
]


class InformationSelector(SelectorCore):
    """Greedy forward selection with a conditional-likelihood criterion: the logic of
    :class:`fsel.selectors.information.InformationSelector` (documented there).

    Subclasses set ``_criterion``; see :mod:`fsel.selectors.information._criteria`.
    """

    _criterion = "mim"
    _tie_tol = TIE_TOL  # ranking_'s ties: the engine's (rounding noise of the scores)

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        discretize: str | None = DEFAULT_DISCRETIZE,
        n_bins: int | str = DEFAULT_N_BINS,
        categorical: Any = "auto",
        mi_estimator: str = "plugin",
        n_neighbors: int = 3,
        missing: str = "level",
        n_jobs: int | None = None,
        verbose: int = 0,
        device: str = "cpu",
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.discretize = discretize
        self.n_bins = n_bins
        self.categorical = categorical
        self.mi_estimator = mi_estimator
        self.n_neighbors = n_neighbors
        self.missing = missing
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.device = device

    def _criterion_params(self) -> dict[str, float]:
        return {}

    _param_kinds: ClassVar[dict[str, Any]] = {
        "n_features_to_select": "n_features_to_select",
        "discretize": ("uniform", "quantile", None),
        "categorical": "categorical",
        "mi_estimator": ("plugin", "miller_madow", "knn"),
        # checked whatever mi_estimator (only "knn" reads it): one rule for the value
        "n_neighbors": "positive_int",
        "missing": ("level", "available", "error"),
        "n_jobs": "n_jobs",
        "verbose": "verbose",
    }

    def _n_to_select(self, n_features: int) -> int:
        """The number of features to select among ``n_features`` (``"auto"``, which
        only CMI takes, is every feature: its stopping rule decides)."""
        k = self.n_features_to_select
        if isinstance(k, str) and k == "auto":
            return int(n_features)
        return check_n_features_to_select(k, n_features)

    def _n_threads(self) -> int:
        return effective_n_jobs(self.n_jobs)

    def fit(self, X: Any, y: Any) -> InformationSelector:
        """Select features of ``X`` for the class labels ``y``.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or Dask collection, shape (n_samples, n_features)
            Sparse input (CSR, CSC, COO) is never densified: an implicit zero is the
            value 0 and each step counts from the non-zeros (``O(nnz)``). A row-chunked
            ``dask.array.Array`` or a ``dask.dataframe.DataFrame`` is selected on the
            Dask workers (the active ``distributed.Client``, e.g. from
            :func:`fsel.meta.resampling.dask_backend`, or Dask's default scheduler): the
            codes stay there and each step gathers only count tables
            (:mod:`fsel.kernels.information_dask`); a missing value is one more level
            there too (``missing="level"``), ``missing="available"`` is refused.
        y : array-like of shape (n_samples,)
            Class labels (any dtype). A float target with non-integer values is
            continuous: it is binned like a float feature (``n_bins``, ``discretize``;
            edges in ``y_bin_edges_``) with a ``UserWarning``. Integer-valued floats
            (0.0/1.0) are class labels. With Dask ``X``: a dask array/series with the
            same row partitions, or an in-memory array.

        Returns
        -------
        self
        """
        if hasattr(X, "__cuda_array_interface__"):  # codes already on the GPU
            params = self._check_param_table()
            X, y = self._before_validation(X, y, params)
            made = self._fit_gpu_array(X, y)
            result = self._search(*made, params)
            del made
            return self._set_result(result)
        return super().fit(X, y)

    def _before_validation(self, X: Any, y: Any, params: dict[str, Any]) -> tuple[Any, Any]:
        knn = params["mi_estimator"] == "knn"
        if knn:  # the CPU only, dense in-memory input (check_knn_input says why)
            _knn.check_knn_input(self, X, y)
        if knn:
            self.device_ = "cpu"
        elif is_dask(X) and self.device != "cpu":  # each worker's GPU: resolved there
            self.device_ = _check_device_value(self.device, type(self).__name__)
        else:
            self.device_ = _resolve_device(self.device, type(self).__name__)
        params["_t_setup"] = time.perf_counter()
        return X, y

    def _table_options(self, params: dict[str, Any]) -> dict[str, Any]:
        knn = params["mi_estimator"] == "knn"  # no sparse input, floats scaled
        return {
            "categorical": params["categorical"],
            "keep_integer": not knn,
            "allow_missing": params["missing"] != "error",
            # binned and coded into new arrays, never written: no float copy of X
            "read_only": not knn,
            "any_float_layout": not knn,  # binned as float64 values: the same codes
            "n_jobs": effective_n_jobs(params["n_jobs"]),
            # read by discretize_sparse, never written
            "accept_sparse": False if knn else "no_copy",
        }

    def _fit(self, table: Any, y: Any, classes: Any, params: dict[str, Any]) -> Any:
        if params["mi_estimator"] == "knn":
            made = _knn.knn_information_table(self, table, y, classes, params["missing"])
        else:
            made = self._memory_information_table(table, y, classes, params["missing"])
        result = self._search(*made, params)
        del made  # the information table's codes, freed before the fitted arrays
        return self._set_result(result)

    def _fit_dask(self, X: Any, y: Any, params: dict[str, Any]) -> Any:
        info, k = self._fit_dask_table(X, y, params["missing"])
        self.device_ = info.device  # where the workers counted ("cuda+cpu": some GPUs)
        result = self._search(info, k, params)
        del info
        return self._set_result(result)

    def _search(self, info: Any, k: int, params: dict[str, Any]) -> Any:
        """The greedy selection over an information table (its result); sets
        ``relevance_`` and, off the CPU, ``timings_``. The caller drops ``info``
        before :meth:`_set_result` builds the fitted arrays (the codes are freed
        first: a fit's peak memory is its table's, not the table's plus them)."""
        t_setup = params.get("_t_setup", time.perf_counter())
        self.relevance_ = info.relevance
        self._warn_constant(np.flatnonzero(constant_features(info)).tolist())
        t_setup = time.perf_counter() - t_setup
        t_select = time.perf_counter()
        with Progress(k, type(self).__name__, enabled=None if self.verbose else False) as bar:
            result = greedy_select(
                info,
                self._criterion,
                k,
                params=self._criterion_params(),
                cmi_tol=getattr(self, "tol", DEFAULT_CMI_TOL),
                progress=bar.update,
            )
        if hasattr(self, "timings_"):
            del self.timings_
        t_select = time.perf_counter() - t_select
        if self.device_ != "cpu":
            self.timings_ = {
                "transfer_s": float(info.transfer_seconds),
                "count_s": float(info.count_seconds),
                "setup_s": float(t_setup),
                "select_s": float(t_select),
                **{key: float(v) for key, v in getattr(info, "setup_seconds", {}).items()},
                **{key: float(v) for key, v in getattr(info, "step_seconds", {}).items()},
            }
        return result

    def _set_result(self, result: Any) -> InformationSelector:
        """The fitted selection from :meth:`_search`'s result."""
        scores = np.array(result.last_scores, dtype=np.float64, copy=True)
        scores[result.order] = result.step_scores
        self.selection_scores_ = result.step_scores
        self._set_selection(result.order, scores)
        return self

    def _memory_information_table(
        self, table: Any, y_codes: Any, classes: Any, missing: str
    ) -> tuple[Any, int]:
        """The information table of a validated in-memory (dense or sparse) table and
        the number of features to select; sets the fitted input attributes."""
        k = self._n_to_select(table.values.shape[1])
        y_codes, classes, self.y_bin_edges_ = self._bin_continuous_target(y_codes, classes)
        if self.device_ == "cuda" and self._codes_as_given(table, classes):
            return self._host_codes_on_gpu(table.values, y_codes, classes), k
        is_sparse, missing_cols = table.is_sparse, table.missing
        if is_sparse:
            if missing == "available" and table.has_missing:
                raise ValueError(
                    f"{type(self).__name__}: missing='available' is not supported for sparse "
                    "input; use missing='level' (a stored NaN is one more level)"
                )
            # sparse codes and the O(nnz) table, same engine; a stored NaN is the last
            # level of its column, as missing="level" does densely
            codes, n_levels, edges = discretize_sparse(
                table.values,
                code_columns(table),
                self.n_bins,
                self.discretize,
                n_jobs=self._n_threads(),
            )
        else:
            fast = self._packed_codes(table)
            if fast is not None:  # integer codes straight to packed pairs
                (codes, n_levels), edges = fast, [None] * table.values.shape[1]
            else:
                codes, n_levels, edges = _discretize(
                    table.values,
                    code_columns(table),
                    self.n_bins,
                    self.discretize,
                    table.missing,
                    n_jobs=self._n_threads(),
                )
        # one warning for the columns whose bins hold nearly all rows in one bin
        crowded = crowded_columns(
            codes, n_levels, edges, table.values, missing_cols, self._n_threads()
        )
        self._warn_crowded(crowded)
        # the codes are this fit's own (no memory shared with the caller's data, which
        # a validated table shares only when it is the caller's array): the table may
        # pack feature pairs over them instead of into a second copy (not for CMIM,
        # whose lazy kernel reads the unpacked matrix)
        own = (
            not is_sparse
            and isinstance(codes, np.ndarray)
            and not np.may_share_memory(codes, table.values)
        )
        del table  # the codes are all the engine needs: free the validated copy
        self.bin_edges_ = edges
        self.n_levels_ = n_levels
        self.classes_ = classes
        missing_codes = None
        if missing == "available" and missing_cols is not None:
            missing_codes = np.where(missing_cols, n_levels - 1, -1)
        if self.device_ == "cuda":
            return self._cuda_table(codes, n_levels, y_codes, is_sparse, missing_codes), k
        table_cls = SparseInformationTable if is_sparse else InformationTable
        extra = {} if missing_codes is None else {"missing_codes": missing_codes}
        if own and self._criterion != "cmim":
            extra["pack_in_place"] = True
        info = table_cls(
            codes,
            n_levels,
            y_codes,
            estimator=self.mi_estimator,
            n_jobs=effective_n_jobs(self.n_jobs),
            **extra,
        )
        return info, k

    def _packed_codes(self, table: Any) -> Any:
        """:func:`fsel.kernels.packed_codes.packed_integer_codes` of a dense integer
        table whose columns are all codes, without holes, for a CPU table that counts
        packed pairs (not CMIM, whose lazy kernel reads the unpacked matrix); None
        elsewhere or where that path does not apply."""
        values = table.values
        if (
            not isinstance(values, np.ndarray)
            or values.dtype.kind not in "iub"
            or table.missing is not None
            or self._criterion == "cmim"
            or self.device_ != "cpu"
        ):
            return None
        if self.discretize is not None and not bool(np.all(code_columns(table))):
            # a binning rule keeps an integer column with no more distinct values than
            # bins as codes: every column this path takes (at most 16 values) is one
            # when there are at least 16 bins
            if check_n_bins(self.n_bins, values.shape[0]) < PACK_MAX_LEVELS:
                return None
        from fsel.kernels.packed_codes import packed_integer_codes

        return packed_integer_codes(values, self._n_threads())

    def _cuda_table(
        self, codes: Any, n_levels: Any, y_codes: Any, is_sparse: bool, missing_codes: Any
    ) -> Any:
        """The GPU's information table (:func:`fsel.kernels.gpu.tables.host_table`:
        the row table where the codes fit the GPU, else the streaming feature-major
        one); sparse codes and pairwise deletion have no GPU kernel and are refused."""
        name = type(self).__name__
        if is_sparse:
            raise ValueError(
                f"{name}: device='cuda' does not take sparse X yet; use device='cpu' (the "
                "O(nnz) sparse kernels) or densify X"
            )
        if missing_codes is not None:
            raise ValueError(
                f"{name}: device='cuda' does not support missing='available'; use "
                "missing='level' (a hole is one more level) or device='cpu'"
            )
        from fsel.kernels.gpu.tables import host_table

        info = host_table(codes, n_levels, y_codes, estimator=self.mi_estimator)
        info.n_jobs = self._n_threads()  # the host's sums of the GPU's counts
        return info

    def _codes_as_given(self, table: Any, classes: Any) -> bool:
        """Whether the GPU takes the caller's matrix as its codes: dense C-order
        ``uint8`` or boolean values, every column taken as codes (``discretize=None``),
        nothing missing, at most 256 classes. Such a matrix is uploaded as it is and
        counted in place (no coding pass on the host, no transposed copy)."""
        v = table.values
        return (
            self.discretize is None
            and isinstance(v, np.ndarray)
            and v.ndim == 2
            and v.dtype in (np.uint8, np.bool_)
            and v.flags.c_contiguous
            and table.missing is None
            and len(classes) <= 256
        )

    def _host_codes_on_gpu(self, values: np.ndarray, y_codes: Any, classes: Any) -> Any:
        """The GPU table of a host matrix of codes taken as given
        (:meth:`_codes_as_given`): uploaded, then read in place as codes already on the
        GPU are. The selection and scores are the host-coded table's (the counts of
        each feature's codes do not depend on how the codes are numbered); ``n_levels_``
        counts each feature's distinct codes, as the host's coding does."""
        from numba import cuda

        from fsel.kernels.gpu.tables import device_table

        t0 = time.perf_counter()
        dX = cuda.to_device(values.view(np.uint8))
        cuda.synchronize()
        upload = time.perf_counter() - t0
        y8 = np.asarray(y_codes).astype(np.uint8)  # class codes 0..m-1, m <= 256
        info, _ = device_table(dX, y8, estimator=self.mi_estimator, name=type(self).__name__)
        info.codes.transfer_s += upload
        info.n_jobs = self._n_threads()
        self.bin_edges_ = [None] * values.shape[1]
        self.n_levels_ = np.asarray(info.present_levels, dtype=np.int64)
        self.classes_ = classes
        return info

    def _fit_gpu_array(self, X: Any, y: Any) -> tuple[Any, int]:
        """The GPU table of integer codes already on the GPU (``__cuda_array_interface__``,
        shape ``(n_samples, n_features)``, values 0..255 taken as codes); ``y`` on the
        host or the GPU. Sets the fitted input attributes."""
        name = type(self).__name__
        if self.device_ != "cuda":
            raise ValueError(
                f"{name}: X is on the GPU (it has __cuda_array_interface__); use "
                "device='cuda', or copy X to the host for device='cpu'"
            )
        from fsel.kernels.gpu.tables import device_table

        info, classes = device_table(X, y, estimator=self.mi_estimator, name=name)
        info.n_jobs = self._n_threads()
        n_levels = info.n_levels
        k = self._n_to_select(int(n_levels.size))
        self.n_features_in_ = int(n_levels.size)
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.bin_edges_ = [None] * int(n_levels.size)
        self.n_levels_ = n_levels
        self.classes_ = classes
        self.y_bin_edges_ = None
        return info, k

    def _fit_dask_table(self, X: Any, y: Any, missing: str) -> tuple[Any, int]:
        """The information table of a Dask ``X`` (codes persisted on the workers) and the
        number of features to select; sets the fitted input attributes."""
        from fsel.kernels.information_dask import dask_information_table

        name = type(self).__name__
        data = check_dask_table(X, y, categorical=self.categorical, estimator_name=name)
        n_features = data.discrete.size
        k = self._n_to_select(n_features)
        self.n_features_in_ = n_features
        self.feature_types_ = [
            "categorical" if c else ("integer" if k else "numeric")
            for c, k in zip(data.categorical.tolist(), data.discrete.tolist(), strict=True)
        ]
        if data.feature_names is not None and all(isinstance(c, str) for c in data.feature_names):
            self.feature_names_in_ = data.feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        info, edges, classes = dask_information_table(
            data.blocks,
            data.y_blocks,
            data.discrete if self.discretize is None else code_columns(data),
            n_bins=self.n_bins,
            strategy=self.discretize,
            estimator=self.mi_estimator,
            estimator_name=name,
            missing=missing,
            device=self.device_,
        )
        self.bin_edges_ = edges
        self.n_levels_ = info.observed_levels
        self.classes_ = classes
        self.y_bin_edges_ = info.y_bin_edges
        if info.y_bin_edges is not None:
            self._warn_binned_target(classes.size)
        return info, k

    def _warn_crowded(self, cols: list[int]) -> None:
        """One warning naming the columns whose bins hold nearly all rows in one bin
        (:func:`fsel.kernels.binning.crowded_columns`) and the option that fixes it."""
        if not cols:
            return
        names = getattr(self, "feature_names_in_", None)
        shown = [str(names[j]) if names is not None else str(j) for j in cols[:10]]
        more = f" and {len(cols) - 10} more" if len(cols) > 10 else ""
        if self.discretize == "quantile":  # a tied value took most quantile edges
            why, fix = "a value shared by many rows took most edges", "a larger n_bins"
            fix += " (e.g. n_bins=10) separates the other values"
        else:
            why = "a heavy tail or an outlier set the bin edges"
            fix = "discretize='quantile' (equal-frequency bins) keeps it"
        warnings.warn(
            f"{type(self).__name__}: column(s) {', '.join(shown)}{more} put more than 95% "
            f"of their rows in one of their {self.discretize!r} bins although those rows "
            f"hold many distinct values ({why}): the information in them is mostly lost; "
            f"{fix}.",
            UserWarning,
            stacklevel=4,
        )

    def _warn_constant(self, cols: list[int]) -> None:
        """One warning naming the columns of zero entropy on the training rows, which
        the search takes after every other column (:mod:`._engine`)."""
        if not cols:
            return
        names = getattr(self, "feature_names_in_", None)
        shown = [str(names[j]) if names is not None else str(j) for j in cols[:10]]
        more = f" and {len(cols) - 10} more" if len(cols) > 10 else ""
        warnings.warn(
            f"{type(self).__name__}: column(s) {', '.join(shown)}{more} take a single value "
            "on the training rows (after binning, where binned): they carry no information "
            "and are selected only after every other column.",
            UserWarning,
            stacklevel=4,
        )

    def _bin_continuous_target(
        self, y_codes: np.ndarray, classes: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Bin a continuous target (float labels that are not all integers) like a
        float feature; class labels pass through. Returns codes, classes, edges."""
        if classes.dtype.kind != "f" or bool(np.all(classes == np.round(classes))):
            return y_codes, classes, None
        name = type(self).__name__
        if self.discretize is None:
            raise ValueError(
                f"{name}: y is continuous (non-integer float values) and discretize=None "
                "takes it as codes; bin it (discretize='uniform' or 'quantile') or pass "
                "class labels"
            )
        values = classes[y_codes].astype(np.float64)[:, None]
        codes, levels, edges = _discretize(values, np.zeros(1, bool), self.n_bins, self.discretize)
        if edges[0] is None:  # no more distinct values than n_bins: they are the classes
            return y_codes, classes, None
        self._warn_binned_target(int(levels[0]))
        return codes[0].astype(np.intp), np.arange(int(levels[0])), edges[0]

    def _warn_binned_target(self, n_levels: int) -> None:
        warnings.warn(
            f"{type(self).__name__}: y is continuous (non-integer float values); it is "
            f"binned like a float feature into {int(n_levels)} {self.discretize} bins "
            f"(n_bins={self.n_bins}), see y_bin_edges_; pass class labels to avoid this",
            UserWarning,
            stacklevel=4,
        )


class MIM(InformationSelector):
    """The logic of :class:`fsel.MIM` (documented there)."""

    _criterion = "mim"


class JMI(InformationSelector):
    """The logic of :class:`fsel.JMI` (documented there)."""

    _criterion = "jmi"


class MRMR(InformationSelector):
    """The logic of :class:`fsel.MRMR` (documented there)."""

    _criterion = "mrmr"


class CMIM(InformationSelector):
    """The logic of :class:`fsel.CMIM` (documented there)."""

    _criterion = "cmim"


class ICAP(InformationSelector):
    """The logic of :class:`fsel.ICAP` (documented there)."""

    _criterion = "icap"


class CIFE(InformationSelector):
    """The logic of :class:`fsel.CIFE` (documented there)."""

    _criterion = "cife"

    def _criterion_params(self) -> dict[str, float]:
        return {"beta": 1.0, "gamma": 1.0}


class DISR(InformationSelector):
    """The logic of :class:`fsel.DISR` (documented there)."""

    _criterion = "disr"


class CondRed(InformationSelector):
    """The logic of :class:`fsel.CondRed` (documented there)."""

    _criterion = "condred"

    def _criterion_params(self) -> dict[str, float]:
        return {"beta": 0.0, "gamma": 1.0}


class JMIM(InformationSelector):
    """The logic of :class:`fsel.JMIM` (documented there)."""

    _criterion = "jmim"


class MIFS(InformationSelector):
    """The logic of :class:`fsel.MIFS` (documented there)."""

    _criterion = "mifs"

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        beta: float = 1.0,
        discretize: str | None = DEFAULT_DISCRETIZE,
        n_bins: int | str = DEFAULT_N_BINS,
        categorical: Any = "auto",
        mi_estimator: str = "plugin",
        n_neighbors: int = 3,
        missing: str = "level",
        n_jobs: int | None = None,
        verbose: int = 0,
        device: str = "cpu",
    ) -> None:
        super().__init__(
            n_features_to_select,
            discretize=discretize,
            n_bins=n_bins,
            categorical=categorical,
            mi_estimator=mi_estimator,
            n_neighbors=n_neighbors,
            missing=missing,
            n_jobs=n_jobs,
            verbose=verbose,
            device=device,
        )
        self.beta = beta

    _param_kinds: ClassVar[dict[str, Any]] = {
        **InformationSelector._param_kinds,
        "beta": "finite_real",
    }

    def _criterion_params(self) -> dict[str, float]:
        return {"beta": float(self.beta), "gamma": 0.0}


class BetaGamma(InformationSelector):
    """The logic of :class:`fsel.BetaGamma` (documented there)."""

    _criterion = "betagamma"

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        beta: float = 1.0,
        gamma: float = 1.0,
        discretize: str | None = DEFAULT_DISCRETIZE,
        n_bins: int | str = DEFAULT_N_BINS,
        categorical: Any = "auto",
        mi_estimator: str = "plugin",
        n_neighbors: int = 3,
        missing: str = "level",
        n_jobs: int | None = None,
        verbose: int = 0,
        device: str = "cpu",
    ) -> None:
        super().__init__(
            n_features_to_select,
            discretize=discretize,
            n_bins=n_bins,
            categorical=categorical,
            mi_estimator=mi_estimator,
            n_neighbors=n_neighbors,
            missing=missing,
            n_jobs=n_jobs,
            verbose=verbose,
            device=device,
        )
        self.beta = beta
        self.gamma = gamma

    _param_kinds: ClassVar[dict[str, Any]] = {
        **InformationSelector._param_kinds,
        "beta": "finite_real",
        "gamma": "finite_real",
    }

    def _criterion_params(self) -> dict[str, float]:
        return {"beta": float(self.beta), "gamma": float(self.gamma)}


class CMI(InformationSelector):
    """The logic of :class:`fsel.CMI` (documented there)."""

    _criterion = "cmi"

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        tol: float = DEFAULT_CMI_TOL,
        discretize: str | None = DEFAULT_DISCRETIZE,
        n_bins: int | str = DEFAULT_N_BINS,
        categorical: Any = "auto",
        mi_estimator: str = "plugin",
        n_neighbors: int = 3,
        missing: str = "level",
        n_jobs: int | None = None,
        verbose: int = 0,
        device: str = "cpu",
    ) -> None:
        super().__init__(
            n_features_to_select,
            discretize=discretize,
            n_bins=n_bins,
            categorical=categorical,
            mi_estimator=mi_estimator,
            n_neighbors=n_neighbors,
            missing=missing,
            n_jobs=n_jobs,
            verbose=verbose,
            device=device,
        )
        self.tol = tol

    _param_kinds: ClassVar[dict[str, Any]] = {
        **InformationSelector._param_kinds,
        "n_features_to_select": "n_features_to_select_or_auto",
        "tol": "finite_real",
    }
