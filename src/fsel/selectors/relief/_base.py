"""Shared machinery of the Relief family (Yang & Hu 2012, docs/user_guide/relief.rst).

Every estimator of :mod:`fsel.selectors.relief` follows the same steps in ``fit``:

1. optional missing-value policy (``missing=``), then validation through
   :meth:`fsel.selectors._core.SelectorCore._validate_fit_data`; with the default
   ``missing="expected"`` the holes stay NaN and every estimator uses Kononenko's
   expected difference for them (:class:`fsel.kernels.relief_margins.ExpectedDiff`);
2. scaling of every feature to ``[0, 1]`` on a private copy, by the observed values
   (``scaling``: min-max, interquantile or rank, :mod:`fsel.kernels.scaling`;
   constant features become all-zero columns and get weight 0); nominal
   features (declared with
   ``categorical=`` or with a categorical dtype) are one-hot encoded with entries
   ``1/2`` (Manhattan) or ``1/sqrt(2)`` (Euclidean) so that two different levels are
   at distance 1, and their margin counts a difference of 1 (Weka's and skrebate's
   convention for nominal attributes);
3. the estimator's mean margin vector ``mbar`` (one entry per feature), computed by
   the kernels of :mod:`fsel.kernels.neighbors`;
4. the weight vector ``w = (mbar)+ / ||(mbar)+||_2`` (all zeros when no entry of
   ``mbar`` is positive), ranked in decreasing order, ties by the smaller index.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np

from fsel.kernels.distances import DEFAULT_MEMORY_BUDGET
from fsel.kernels.neighbors import knn_by_class
from fsel.kernels.relief_margins import ExpectedDiff
from fsel.kernels.scaling import check_scaling, scale_dense, scale_sparse
from fsel.selectors._core import SelectorCore
from fsel.utils.dask_table import is_dask
from fsel.utils.parallel import (
    any_nan,
    column_min_max,
    effective_n_jobs,
    n_threads_for,
    spans,
    thread_map,
)
from fsel.utils.targets import is_continuous_target
from fsel.utils.validation import (
    check_n_features_to_select,
    check_random_state,
    is_dataframe,
    is_sparse,
)

__all__ = ["MISSING_POLICIES", "BaseRelief", "positive_unit", "warn_zero_weight_picks"]

METRICS = ("manhattan", "euclidean")
#: how a numeric difference is scaled unless ``scaling=`` says otherwise
DEFAULT_SCALING = "robust"
MISSING_POLICIES = ("expected", "impute-mean", "impute-median", "error")

_PARAMS_DOC = """
    n_features_to_select : int, float or None, default=None
        How many features ``transform`` keeps: None keeps half of them (rounded down,
        at least one), an int is a count, a float in (0, 1] a fraction. The weights
        rank every feature.
    metric : {"manhattan", "euclidean"}, default="manhattan"
        Distance used to find neighbours, in the min-max scaled feature space.
        Euclidean distances use BLAS. Distances equal up to rounding are ties,
        won by the smaller sample index
        (:func:`fsel.kernels.neighbors.tie_tolerance`), so dense, sparse and
        column-permuted input and every ``memory_budget`` find the same neighbours.
    n_jobs : int or None, default=None
        Threads for the row blocks of the distance computation (joblib convention:
        -1 uses all cores). Results do not depend on it.
    memory_budget : int, default=268435456 (256 MiB)
        Bytes allowed for distance blocks in flight; no ``N x N`` matrix larger than
        this is ever built.
    missing : {"expected", "impute-mean", "impute-median", "error"}, default="expected"
        What to do with missing values (NaN, None, pd.NA, ...) in ``X``.
        ``"expected"`` (Kononenko 1994, docs/user_guide/missing_sparse.rst): a missing component
        contributes the *expected* difference, in the neighbour distances and in
        the margins alike. For a numeric (range-scaled) feature with one side missing
        it is ``E|X - v|`` with ``X`` drawn from the observed values of the feature in
        the class of the sample whose value is missing (the class-conditional empirical
        distribution, exact from sorted values and prefix sums); with both missing,
        ``E|X - X'|`` for independent draws from the two samples' classes. For a
        nominal feature this is ``1 - P(v | class)`` and
        ``1 - sum_v P(v|c_1) P(v|c_2)``. A class without an observed value of the
        feature uses the pooled observed values. The Euclidean metric uses the
        expected *squared* difference in its distance (``(v - mean)^2 + var``, and
        ``(mean_1 - mean_2)^2 + var_1 + var_2``); its margins still use the expected
        absolute difference. Data without holes give exactly the results of the
        other policies. ``"impute-mean"``/``"impute-median"`` replace each hole by the
        mean (median) of its column's observed values before scaling; ``"error"``
        raises a ValueError.
    categorical : "auto", bool mask or list of column names/indices, default="auto"
        Nominal features: their per-feature difference is 0 (same level) or 1
        (different levels) instead of the scaled absolute difference.
        ``"auto"``: the library's one rule
        (:func:`fsel.utils.column_types.column_types`): text, pandas
        ``category``/``string``, polars ``Categorical``/``Utf8`` and boolean columns
        are categorical, numeric ones (integers included) are not; a list or a mask
        overrides it. Datetime columns are taken as seconds since the epoch.
    scaling : {"range", "robust", "rank"}, default="robust"
        How a numeric feature's difference is scaled to ``[0, 1]``: ``"range"``
        divides by the column's range (the papers' rule; one extreme value squeezes
        every other difference), ``"robust"`` winsorises the column at its 5% and 95%
        quantiles and divides by that interquantile range (a column with more than 90%
        of its rows at one value falls back to the range), ``"rank"`` uses the share
        of rows between the two values (differences of average ranks over the
        smallest power of two ``>= n - 1``).
        Sparse input keeps its sparsity under every rule; on Dask, ``"range"`` and
        ``"robust"`` (exact quantiles) give the in-memory margins, ``"rank"`` is
        refused.
"""


MARGIN_TOL = 1e-12  # a mean margin this close to 0 is rounding noise, not evidence


def positive_unit(mbar: np.ndarray) -> np.ndarray:
    """``(mbar)+ / ||(mbar)+||_2``, or zeros when no entry is positive.

    A margin not above ``MARGIN_TOL`` counts as zero: margins are means of range-scaled
    differences in ``[-1, 1]``, and sums of the same terms taken in another order
    (dense vs sparse, another backend) leave ``+-1e-17`` where the exact value is 0 —
    normalising such noise would give a feature of no evidence the weight 1.

    Examples
    --------
    >>> positive_unit(np.array([3.0, -1.0, 4.0])).tolist()
    [0.6, 0.0, 0.8]
    >>> positive_unit(np.array([2e-17, -1e-17, 0.0])).tolist()
    [0.0, 0.0, 0.0]
    """
    m = np.asarray(mbar, dtype=np.float64)
    w = np.where(m > MARGIN_TOL, m, 0.0)
    norm = float(np.sqrt(np.sum(w * w)))
    return w / norm if norm > 0 else np.zeros_like(w)


def warn_zero_weight_picks(name: str, w: np.ndarray, k: int) -> None:
    """Warn when fewer than ``k`` weights are positive and ``k`` is below the number
    of features.

    The selection is then filled with some of the features of weight 0, which tie and
    are taken in column order: part of the selected set depends on the order of the
    columns, not on the data. (With ``k`` equal to the number of features every
    feature is selected whatever the order, and nothing is said.)

    Parameters
    ----------
    name : str
        The estimator's name, for the message.
    w : ndarray of shape (n_features,)
        The weights (``positive_unit`` of the mean margins).
    k : int
        The number of features to select.
    """
    n_positive = int(np.count_nonzero(w > 0))
    if n_positive < k < w.size:
        warnings.warn(
            f"{name}: only {n_positive} of {w.size} features have a positive weight, "
            f"fewer than the {k} to select; the other {k - n_positive} selected are ties "
            "at weight 0 taken in column order (select fewer features or use another "
            "method)",
            UserWarning,
            stacklevel=3,
        )


def _impute(X: Any, policy: str) -> Any:
    """Replace NaN by the column mean/median (a new object; ``X`` is untouched)."""
    if is_dataframe(X):
        if type(X).__module__.startswith("polars"):
            import polars as pl

            strat = "mean" if policy == "impute-mean" else "median"
            num = [c for c, t in zip(X.columns, X.dtypes, strict=True) if t.is_numeric()]
            out = X.with_columns([pl.col(c).fill_nan(None) for c in num if X[c].dtype.is_float()])
            return out.with_columns([pl.col(c).fill_null(getattr(pl.col(c), strat)()) for c in num])
        num = X.select_dtypes("number")
        fill = num.mean() if policy == "impute-mean" else num.median()
        return X.fillna(fill)
    arr = np.array(X, dtype=np.float64, copy=True)
    if arr.ndim != 2:
        return arr  # let validation produce the usual error
    nan = np.isnan(arr)
    if nan.any():
        with np.errstate(all="ignore"):
            cols = nan.any(axis=0)
            sub = arr[:, cols]
            sub_nan = np.isnan(sub)
            if policy == "impute-mean":
                fill = np.array(
                    [
                        np.mean(c[~m]) if (~m).any() else 0.0
                        for c, m in zip(sub.T, sub_nan.T, strict=True)
                    ]
                )
            else:
                fill = np.array(
                    [
                        np.median(c[~m]) if (~m).any() else 0.0
                        for c, m in zip(sub.T, sub_nan.T, strict=True)
                    ]
                )
            sub[sub_nan] = np.take(fill, np.nonzero(sub_nan)[1])
            arr[:, cols] = sub
    return arr


def scale_to_unit(values: np.ndarray, lo: np.ndarray, ptp: np.ndarray, n_jobs: int) -> np.ndarray:
    """``(values - lo) / ptp`` column by column (range scaling to ``[0, 1]``; NaN
    stays NaN), row blocks in ``n_jobs`` threads: numpy's ufuncs release the GIL and
    every element gets the same two operations as in the one-thread expression, so
    the result is the same bit for bit.

    Examples
    --------
    >>> v = np.array([[1.0, 4.0], [3.0, 2.0], [2.0, 3.0]])
    >>> scale_to_unit(v, v.min(axis=0), np.ptp(v, axis=0), 2).tolist()
    [[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]]
    """
    out = np.empty(values.shape, dtype=np.result_type(values, lo))

    def scale(a: int, b: int) -> None:
        np.subtract(values[a:b], lo, out=out[a:b])
        np.divide(out[a:b], ptp, out=out[a:b])

    threads = n_threads_for(out.nbytes, n_jobs)
    thread_map(scale, spans(values.shape[0], 4 * threads) or [(0, 0)], threads)
    return out


def _binary_columns(M: Any, nominal: np.ndarray) -> np.ndarray:
    """The nominal columns of a sparse CSC matrix whose stored values are all 1 (two
    levels, 0 and 1: a boolean column): their nominal difference, 0 or 1, is the
    numeric one of the values as they are, so sparse input takes them."""
    Mc = M.tocsc()
    owner = np.repeat(np.arange(Mc.shape[1]), np.diff(Mc.indptr))
    other = np.zeros(nominal.shape, dtype=bool)
    other[owner[Mc.data != 1]] = True  # a stored value other than 1
    return nominal & ~other


def _unscaled_columns(Z: Any, columns: np.ndarray) -> Any:
    """``Z`` (CSR) with the stored entries of the 0/1 ``columns`` set back to 1 (their
    value unscaled; a column's entries sit where its ones are)."""
    Zc = Z.tocsc()
    owner = np.repeat(np.arange(Zc.shape[1]), np.diff(Zc.indptr))
    Zc.data[columns[owner]] = 1.0
    return Zc.tocsr()


class BaseRelief(SelectorCore):
    """The logic of :class:`fsel.selectors.relief.BaseRelief` (documented there)."""

    _target_kind = "classification"
    #: Whether a continuous target is accepted (ReliefF: RReliefF).
    _supports_regression = False
    #: Whether one-hot expansion of nominal features is used (P-Relief works on codes).
    _expand_nominal = True

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        metric: str = "manhattan",
        n_jobs: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        missing: str = "expected",
        categorical: Any = "auto",
        scaling: str = DEFAULT_SCALING,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.metric = metric
        self.n_jobs = n_jobs
        self.memory_budget = memory_budget
        self.missing = missing
        self.categorical = categorical
        self.scaling = scaling

    _param_kinds: ClassVar[dict[str, Any]] = {
        "n_features_to_select": "n_features_to_select",
        "metric": METRICS,
        "n_jobs": "n_jobs",
        "memory_budget": "memory_budget",
        "missing": MISSING_POLICIES,
        "categorical": "categorical",
    }

    # ------------------------------------------------------------------------- fit
    def fit(self, X: Any, y: Any) -> BaseRelief:
        """Compute the feature weights from ``X`` and the class labels ``y``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            :class:`ReliefF` with ``sample_size`` also takes a row-chunked Dask
            array or DataFrame (see its docstring).
        y : array-like of shape (n_samples,)
            Class labels (at least two classes). A continuous target (floats that are
            not all integers) is a regression target: :class:`ReliefF` then computes
            RReliefF's weights; the other estimators refuse it with a ValueError.

        Returns
        -------
        self
        """
        return super().fit(X, y)

    def _before_validation(self, X: Any, y: Any, params: dict[str, Any]) -> tuple[Any, Any]:
        """The kind of target, and the imputation rules (before validation)."""
        check_scaling(self.scaling, type(self).__name__)
        self._resolve_device()
        if is_dask(X):
            if getattr(self, "device_", "cpu") == "cuda":
                raise ValueError(
                    f"{type(self).__name__}: device='cuda' does not run on Dask input yet; "
                    "use device='cpu'"
                )
            return X, y
        regression = is_continuous_target(y)
        if regression and not self._supports_regression:
            raise ValueError(
                f"{type(self).__name__}: y is continuous (a regression target); this "
                "estimator needs class labels. Use ReliefF, which computes RReliefF "
                "(Robnik-Sikonja & Kononenko 2003) for a continuous target, or "
                "discretise y"
            )
        self._target_kind = "regression" if regression else "classification"
        if params["missing"] in ("impute-mean", "impute-median") and not is_sparse(X):
            X = _impute(X, params["missing"])
        return X, y

    def _table_options(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "categorical": params["categorical"],
            "min_samples": 2,
            "allow_missing": params["missing"] == "expected",
            "accept_sparse": True,
            "read_only": True,  # values are only read (scaled into a new array)
            "n_jobs": effective_n_jobs(params["n_jobs"]),
        }

    def _fit(self, table: Any, y_codes: Any, classes: Any, params: dict[str, Any]) -> BaseRelief:
        self._y_target = None
        if self._target_kind == "regression":
            # RReliefF: one "class" for the neighbour search, the target kept aside
            self._y_target = np.asarray(y_codes, dtype=np.float64)
            y_codes = np.zeros(self._y_target.size, dtype=np.intp)
            classes = np.array([0])
            if hasattr(self, "classes_"):
                del self.classes_
        else:
            self.classes_ = classes
        n, d = table.values.shape
        k = check_n_features_to_select(self.n_features_to_select, d)
        nominal = table.categorical
        values = table.values
        if is_sparse(values):
            return self._fit_sparse(table, y_codes, classes, nominal, k)
        # X already on the GPU, checked there without NaN (_validate_fit_data): no pass
        on_gpu = "_gpu_raw" in self.__dict__
        holes = None
        if not on_gpu and self.missing == "expected":
            if any_nan(values, effective_n_jobs(self.n_jobs)):
                holes = np.isnan(values)
        drawn = "_ref_rows_drawn" in self.__dict__
        self._ref_rows = self.__dict__.pop("_ref_rows_drawn") if drawn else self._reference_rows(n)
        order = self.__dict__.pop("_gpu_order", None)  # drawn while X travelled
        if self._gpu_setup(holes, nominal):
            # scaled and sorted by class on the GPU (fsel.kernels.gpu.relief): the
            # same values, no scaled copy on the host
            from fsel.kernels.gpu.relief import GpuScaledSamples

            # the raw copy's only reference: freed on the GPU once scaled
            raw = self.__dict__.pop("_gpu_raw", None)
            scaled = GpuScaledSamples(
                values, y_codes, self.scaling, raw, sort=self._gpu_sort, order=order
            )
            del raw
            self._gpu_samples = scaled
            constant = scaled.constant
            ok = ~constant
        elif holes is None and self.scaling == "range":
            # the papers' range rule on complete data: threaded, without column gathers
            lo, hi = column_min_max(values, effective_n_jobs(self.n_jobs))
            ptp = hi - lo
            constant = ptp == 0
            ok = ~constant
            if ok.all():  # the same operations, without column gathers
                scaled = scale_to_unit(values, lo, ptp, effective_n_jobs(self.n_jobs))
            else:
                scaled = np.zeros_like(values)
                scaled[:, ok] = (values[:, ok] - lo[ok]) / ptp[ok]
        else:
            # each column mapped to [0, 1] by the scaling rule, on a private copy (the
            # holes stay NaN; fsel.kernels.scaling states the rules)
            scaled, constant = scale_dense(values, self.scaling, effective_n_jobs(self.n_jobs))
            ok = ~constant
        self.__dict__.pop("_gpu_raw", None)  # not used (scaled on the host)
        n_classes = classes.size
        priors = np.bincount(y_codes, minlength=n_classes) / n
        if self._expand_nominal and (nominal & ok).any():
            Z, group, factor = self._expand(values, scaled, nominal & ok)
            mcols = self._mean_margin(Z, y_codes, priors)
            mbar = np.bincount(group, weights=mcols * factor, minlength=d)
        else:
            mbar = self._mean_margin(scaled, y_codes, priors, nominal=nominal & ok)
        mbar = np.asarray(mbar, dtype=np.float64)
        mbar[constant] = 0.0
        del self._ref_rows
        gpu = self.__dict__.pop("_gpu_samples", None)
        if gpu is not None:
            self.timings_ = {"transfer_s": gpu.transfer_seconds, "search_s": gpu.search_seconds}
            for phase in ("check", "scale"):  # ReliefF's set-up on the GPU
                if hasattr(gpu, f"{phase}_seconds"):
                    self.timings_[f"{phase}_s"] = getattr(gpu, f"{phase}_seconds")
        self.margin_ = mbar
        w = positive_unit(mbar)
        self.feature_importances_ = w
        self._select_by_weight(w, k)
        return self

    def _fit_dask(self, X: Any, y: Any, params: dict[str, Any]) -> BaseRelief:
        """Dask input: only :class:`ReliefF` with ``sample_size`` runs there."""
        name = type(self).__name__
        raise TypeError(
            f"{name}: X is a Dask collection, and {name} runs in memory; call X.compute() "
            "first if it fits, or use ReliefF with sample_size or an information "
            "criterion (JMI, mRMR, CMIM, ...), which run on Dask"
        )

    def _fit_sparse(self, table, y_codes, classes, nominal, k):  # type: ignore[no-untyped-def]
        """Sparse ``X``: each scaling rule shifted so that 0 maps to 0 (the same
        differences), so the scaled matrix keeps its sparsity (``O(nnz)``)."""
        name = type(self).__name__
        if table.missing is not None and np.any(table.missing):
            raise ValueError(
                f"{name}: sparse X with missing values (stored NaN) is not supported; "
                "impute them first"
            )
        n = table.values.shape[0]
        binary = _binary_columns(table.values, nominal)
        if (nominal & ~binary).any():
            j = int(np.flatnonzero(nominal & ~binary)[0])
            raise ValueError(
                f"{name}: categorical column {j} has more than two levels, which sparse X "
                "does not support (two levels, 0 and 1, are taken as they are); pass "
                "X.toarray() if it fits"
            )
        Z, constant = scale_sparse(table.values, self.scaling)
        if binary.any():  # 0/1 unscaled: every change a difference of 1, as nominal
            Z = _unscaled_columns(Z, binary)
        self._ref_rows = self._reference_rows(n)
        priors = np.bincount(y_codes, minlength=classes.size) / n
        mbar = np.asarray(self._mean_margin(Z, y_codes, priors, nominal=None), dtype=np.float64)
        mbar[constant] = 0.0
        del self._ref_rows
        gpu = self.__dict__.pop("_gpu_samples", None)
        if gpu is not None:
            self.timings_ = {"transfer_s": gpu.transfer_seconds, "search_s": gpu.search_seconds}
        self.margin_ = mbar
        w = positive_unit(mbar)
        self.feature_importances_ = w
        self._select_by_weight(w, k)
        return self

    def _select_by_weight(self, w: np.ndarray, k: int) -> None:
        """Select the ``k`` largest weights (ties by column index), warning when fewer
        than ``k`` are positive (:func:`warn_zero_weight_picks`)."""
        warn_zero_weight_picks(type(self).__name__, w, k)
        self._set_selection(np.argsort(-w, kind="stable")[:k], w)

    def _expand(
        self, values: np.ndarray, scaled: np.ndarray, nominal: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One-hot encode nominal columns (entries ``s``), keep the others."""
        s = 0.5 if self.metric == "manhattan" else 1.0 / np.sqrt(2.0)
        cols, group, factor = [], [], []
        for j in range(values.shape[1]):
            if nominal[j]:
                obs = ~np.isnan(values[:, j])
                levels, inv = np.unique(values[obs, j], return_inverse=True)
                oh = np.zeros((values.shape[0], levels.size))
                oh[np.flatnonzero(obs), inv.reshape(-1)] = s
                oh[~obs] = np.nan  # a missing level: every indicator is missing
                cols.append(oh)
                group += [j] * levels.size
                factor += [1.0 / (2.0 * s)] * levels.size
            else:
                cols.append(scaled[:, j : j + 1])
                group.append(j)
                factor.append(1.0)
        return (
            np.ascontiguousarray(np.hstack(cols)),
            np.asarray(group, dtype=np.intp),
            np.asarray(factor),
        )

    def _mean_margin(
        self, Z: np.ndarray, y: np.ndarray, priors: np.ndarray, nominal: Any = None
    ) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # ----------------------------------------------------------------- helpers
    def _reference_rows(self, n: int) -> np.ndarray | None:
        """The reference samples (``sample_size``), sorted; None for all of them."""
        size = getattr(self, "sample_size", None)
        if size is None:
            return None
        name = type(self).__name__
        if isinstance(size, bool) or not isinstance(size, (Integral, Real)):
            raise ValueError(f"{name}: sample_size must be an int, a float or None, got {size!r}")
        if isinstance(size, Integral):
            if size < 1:
                raise ValueError(f"{name}: sample_size must be at least 1, got {size!r}")
            m = min(int(size), n)
        else:
            if not (0.0 < float(size) <= 1.0):
                raise ValueError(f"{name}: a float sample_size must be in (0, 1], got {size!r}")
            m = max(1, round(float(size) * n))
        if m >= n:
            return None
        rng = check_random_state(getattr(self, "random_state", None))
        return np.sort(rng.choice(n, size=m, replace=False))

    #: whether the neighbour search (:meth:`_knn`) is all the estimator needs a GPU for
    _gpu_knn = True
    #: whether the scaling (and the sort by class) can run on the GPU (ReliefF, SURF,
    #: MultiSURF): X's checks then run there too (:meth:`_validate_fit_data`)
    _gpu_scaling = False
    #: whether the GPU's scaled samples are sorted by class (ReliefF)
    _gpu_sort = True

    def _gpu_setup(self, holes: Any, nominal: np.ndarray) -> bool:
        """Whether this fit scales (and sorts) on the GPU: ``device_ == "cuda"``, an
        estimator that can, classes, no holes, no nominal column, range or robust
        scaling."""
        if not (self._gpu_scaling and getattr(self, "device_", "cpu") == "cuda"):
            return False
        from fsel.kernels.gpu import relief

        return (
            relief._SCALE_ON_GPU
            and self._target_kind == "classification"
            and holes is None
            and not nominal.any()
            and self.scaling in ("range", "robust")
        )

    def _validate_fit_data(self, X: Any, y: Any, **options: Any) -> Any:
        """The usual validation; for a fit that scales on the GPU (:meth:`_gpu_setup`)
        a plain float64 ndarray goes to the GPU first, in a thread, and its values are
        checked there (:class:`fsel.kernels.gpu.relief.GpuRawSamples`), while the host
        checks the rest (shapes, labels) and draws the references; the host's passes
        over the values are skipped when the GPU finds them clean. Otherwise (an
        infinite value, a NaN, a value near the float64 limit) the host checks as
        usual: the same errors, in the same order."""
        pending = self._gpu_upload(X, options)
        if pending is None:
            return super()._validate_fit_data(X, y, **options)
        from fsel.kernels.gpu import relief as relief_gpu

        try:
            out = super()._validate_fit_data(X, y, **{**options, "values_checked": True})
            self._draw_references_early(X.shape[0])
            if self._gpu_sort:  # ReliefF's class order, also while X travels
                self._gpu_order = relief_gpu.stable_class_order(out[1])
        except Exception:
            try:
                raw = pending.result()
            except Exception:  # the validation's error is the one to report
                raw = None
            if raw is not None and not raw.clean:
                super()._validate_fit_data(X, y, **options)  # X's own error comes first
            raise
        raw = pending.result()
        if not raw.clean:
            out = super()._validate_fit_data(X, y, **options)
        if not raw.has_nan:
            self._gpu_raw = raw  # read by _fit (which also knows X has no NaN)
        return out

    def _draw_references_early(self, n: int) -> None:
        """:meth:`_reference_rows` now (while the table travels to the GPU) when that
        has no side effect (no ``sample_size``, or an int ``random_state``: a fresh
        generator) and raises nothing; else :meth:`_fit` draws them as usual."""
        rs = getattr(self, "random_state", None)
        seeded = isinstance(rs, (Integral, np.integer)) and not isinstance(rs, bool)
        if getattr(self, "sample_size", None) is not None and not seeded:
            return
        try:
            self._ref_rows_drawn = self._reference_rows(n)
        except ValueError:  # raised by _fit, after its own checks
            pass

    def _gpu_upload(self, X: Any, options: dict[str, Any]) -> Any:
        """A future of :class:`fsel.kernels.gpu.relief.GpuRawSamples` of ``X`` (made in
        a thread: numba's CUDA calls release the GIL) when this fit will scale on the
        GPU (ReliefF, SURF or MultiSURF with ``device="cuda"``, classes, range or
        robust scaling) and ``X`` is a 2-D float64 ndarray without declared
        categorical columns; else None."""
        if not (self._gpu_scaling and getattr(self, "device_", "cpu") == "cuda"):
            return None
        from fsel.kernels.gpu import relief

        cat = options.get("categorical")
        if not (
            relief._SCALE_ON_GPU
            and self._target_kind == "classification"
            and self.scaling in ("range", "robust")
            and (cat is None or (isinstance(cat, str) and cat == "auto"))
            and type(X) is np.ndarray
            and X.dtype == np.float64
            and X.ndim == 2
            and X.shape[0] >= max(2, int(options.get("min_samples", 1)))
            and X.shape[1] > 0
        ):
            return None
        from concurrent.futures import Future, ThreadPoolExecutor

        if not relief._UPLOAD_IN_THREAD:
            done: Future = Future()
            done.set_result(relief.GpuRawSamples(X, effective_n_jobs(self.n_jobs)))
            return done
        pool = ThreadPoolExecutor(max_workers=1)
        try:
            return pool.submit(relief.GpuRawSamples, X, effective_n_jobs(self.n_jobs))
        finally:
            pool.shutdown(wait=False)

    def _resolve_device(self) -> None:
        """``device_`` from the ``device`` parameter (estimators that have one)."""
        leftovers = ("_gpu_samples", "_gpu_raw", "_ref_rows_drawn", "_gpu_order")
        for attr in ("device_", "timings_", *leftovers):
            self.__dict__.pop(attr, None)
        device = getattr(self, "device", None)
        if device is None:
            return
        name = type(self).__name__
        if device == "cpu":
            self.device_ = "cpu"
            return
        from fsel.kernels.gpu._device import resolve_device

        self.device_ = resolve_device(device, name)
        if self.device_ == "cuda" and not self._gpu_knn:
            raise ValueError(
                f"{name}: device='cuda' has no GPU kernel for {name} yet; use device='cpu'"
            )

    def _knn_gpu(self, Z, y, k, n_classes, rows, expected):  # type: ignore[no-untyped-def]
        """:meth:`_knn` on the GPU (:mod:`fsel.kernels.gpu.relief`); the scaled matrix
        goes to the GPU once per fit."""
        name = type(self).__name__
        if expected is not None or is_sparse(Z):
            raise ValueError(
                f"{name}: device='cuda' needs dense X without missing values; use "
                "device='cpu' (or impute: missing='impute-mean')"
            )
        from fsel.kernels.gpu.relief import GpuSamples, knn_by_class_gpu

        gpu = self.__dict__.get("_gpu_samples")
        if gpu is None or gpu.source is not Z:
            gpu = GpuSamples(Z)
            if "_gpu_samples" in self.__dict__:
                gpu.transfer_seconds += self._gpu_samples.transfer_seconds
                gpu.search_seconds += self._gpu_samples.search_seconds
            self._gpu_samples = gpu
        return knn_by_class_gpu(gpu, y, k, n_classes, metric=self.metric, rows=rows)

    def _knn(
        self,
        Z: np.ndarray,
        y: np.ndarray,
        k: int,
        n_classes: int,
        *,
        rows: np.ndarray | None = None,
        expected: ExpectedDiff | None = None,
        memory_budget: int | None = None,
    ):
        if getattr(self, "device_", "cpu") == "cuda":
            return self._knn_gpu(Z, y, k, n_classes, rows, expected)
        return knn_by_class(
            Z,
            y,
            k,
            n_classes=n_classes,
            metric=self.metric,
            memory_budget=int(self.memory_budget) if memory_budget is None else memory_budget,
            n_jobs=self.n_jobs,
            rows=rows,
            expected=expected,
        )

    def _expected_model(
        self, Z: np.ndarray, y: np.ndarray, n_classes: int, *, always: bool = False
    ) -> ExpectedDiff | None:
        """Kononenko's expected differences for the holes of ``Z`` (None without holes,
        unless ``always``)."""
        if is_sparse(Z):
            return None
        if not always and not any_nan(Z, effective_n_jobs(self.n_jobs)):
            return None
        return ExpectedDiff(Z, y, n_classes, memory_budget=int(self.memory_budget))
