"""scikit-learn estimators for the information-theoretic criteria.

References
----------
G. Brown, A. Pocock, M.-J. Zhao and M. Lujan. Conditional likelihood maximisation: a
unifying framework for information theoretic feature selection. JMLR 13:27-66, 2012.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from fsel.kernels.discretize import discretize as _discretize
from fsel.kernels.discretize import discretize_sparse
from fsel.kernels.information import InformationTable, SparseInformationTable
from fsel.selectors._base import BaseSelector
from fsel.selectors.information._engine import DEFAULT_CMI_TOL, greedy_select
from fsel.utils.progress import Progress
from fsel.utils.validation import (
    check_dask_table,
    check_missing_policy,
    check_n_features_to_select,
    is_dask,
)

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

_PARAMS_DOC = """
    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number of features to select; a float in (0, 1] is a fraction of the features;
        None ranks all features.
    discretize : {"uniform", "quantile"} or None, default="uniform"
        How float columns are binned: equal-width (the paper's UCI protocol),
        equal-frequency, or None to take every column as integer codes. Integer,
        boolean and categorical columns are always taken as codes, never re-binned.
    n_bins : int, default=5
        Bins per float column (a float column with no more distinct values is kept
        as codes). Bin edges are learned in ``fit`` (``bin_edges_``).
    categorical : list of column names/indices, bool mask or None, default=None
        Extra columns to treat as categorical codes (pandas ``category`` columns
        always are). Non-numeric columns must be declared here.
    estimator : {"plugin", "miller_madow"}, default="plugin"
        Entropy estimator (plug-in maximum likelihood, or with the Miller-Madow bias
        correction).
    missing : {"level", "available", "error"}, default="level"
        What a missing value (NaN, None, ``pd.NA``, a polars null) in ``X`` means
        (SPEC section 10):

        * ``"level"``: one more level of its column, "is missing", after binning the
          observed values (the bin edges are learned on them alone). Every term is
          counted on all rows from one joint distribution, so the usual identities
          (chain rule, ...) hold. It assumes missingness may be informative: when it
          is, ``I(Xk;Y)`` sees it; when values are missing completely at random it
          costs a little information, and a column with many holes can gain a small
          spurious relevance (more levels, more plug-in bias).
        * ``"available"``: pairwise deletion. Each term uses the rows where its own
          variables are observed, with its own sample size: ``I(Xk;Y)`` the rows
          where ``Xk`` is; ``I(Xk;Xj)``, ``I(Xk;Xj|Y)``, ``I(XkXj;Y)``,
          ``H(Xk,Xj,Y)`` and ``I(Xk;Y|Xj)`` the rows where ``Xk`` and ``Xj`` both
          are; CMI's ``I(Xk;Y|S)`` the rows where ``Xk`` and all of ``S`` are. It
          assumes values are missing at random and wastes no observed value, but the
          terms do not come from one joint distribution (scores need not satisfy the
          chain rule) and terms on few rows are noisy.
        * ``"error"``: refuse missing values with a ``ValueError``.

        Without missing values the three rules give identical results.
    n_jobs : int or None, default=None
        Threads for the counting pass (effective with the numba back-end).
    verbose : int, default=0
        Above 0, a progress bar on stderr (only when it is a terminal).
"""

_ATTRS_DOC = """
    Attributes
    ----------
    selection_order_ : ndarray of int
        Selected feature indices (0-based) in the order picked.
    selection_scores_ : ndarray of float
        The criterion value (bits) of each pick at its step.
    support_ : ndarray of bool
        Mask of the selected features.
    ranking_ : ndarray of int
        1 for the first pick, 2 for the second...; unselected features share
        ``n_selected + 1``.
    scores_ : ndarray of float
        Per feature: the criterion value at the step it was picked; for features
        left unselected, their score at the last step.
    relevance_ : ndarray of float
        ``I(Xk;Y)`` of every feature, in bits.
    n_levels_ : ndarray of int
        Number of distinct codes of every feature after discretisation; for a column
        with missing values this includes the missing level, which is its last code
        (``n_levels_ - 1``), under both ``"level"`` and ``"available"``.
    bin_edges_ : list
        Inner bin edges per column (None for columns taken as codes), learned on the
        observed values only; a missing value falls in no bin but in the missing level.
    y_bin_edges_ : ndarray or None
        Inner bin edges of a continuous target (float values that are not all
        integers), binned like a float feature with ``n_bins`` and ``discretize``
        (a ``UserWarning`` says so); None for class labels.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When fitted on a DataFrame with string column names.
"""


class InformationSelector(BaseSelector):
    """Greedy forward selection with a conditional-likelihood criterion (base class).

    Subclasses set ``_criterion``; see :mod:`fsel.selectors.information._criteria`.
    """

    _criterion = "mim"

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        discretize: str | None = "uniform",
        n_bins: int = 5,
        categorical: Any = None,
        estimator: str = "plugin",
        missing: str = "level",
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.discretize = discretize
        self.n_bins = n_bins
        self.categorical = categorical
        self.estimator = estimator
        self.missing = missing
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _criterion_params(self) -> dict[str, float]:
        return {}

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse in, never densified
        return tags

    def _n_threads(self) -> int:
        if self.n_jobs is None:
            return 1
        if self.n_jobs < 0:
            import os

            return max(1, (os.cpu_count() or 1) + 1 + self.n_jobs)
        return max(1, int(self.n_jobs))

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
        if self.estimator not in ("plugin", "miller_madow"):
            raise ValueError(
                f"estimator must be 'plugin' or 'miller_madow', got {self.estimator!r}"
            )
        if self.discretize not in ("uniform", "quantile", None):
            raise ValueError(
                f"discretize must be 'uniform', 'quantile' or None, got {self.discretize!r}"
            )
        missing = check_missing_policy(
            self.missing, ("level", "available", "error"), type(self).__name__
        )
        if is_dask(X):
            info, k = self._fit_dask_table(X, y, missing)
        else:
            if is_dask(y):  # X is in memory already: so may its labels be
                y = y.compute()
            info, k = self._fit_memory_table(X, y, missing)
        self.relevance_ = info.relevance
        with Progress(k, type(self).__name__, enabled=None if self.verbose else False) as bar:
            result = greedy_select(
                info,
                self._criterion,
                k,
                params=self._criterion_params(),
                cmi_tol=getattr(self, "tol", DEFAULT_CMI_TOL),
                progress=bar.update,
            )
        del info  # free the codes before the fitted arrays are built
        scores = np.array(result.last_scores, dtype=np.float64, copy=True)
        scores[result.order] = result.step_scores
        self.selection_scores_ = result.step_scores
        self._set_selection(result.order, scores)
        return self

    def _fit_memory_table(self, X: Any, y: Any, missing: str) -> tuple[Any, int]:
        """The information table of an in-memory (dense or sparse) ``X`` and the number
        of features to select; sets the fitted input attributes."""
        table, y_codes, classes = self._validate_fit_data(
            X,
            y,
            categorical=self.categorical,
            keep_integer=True,
            allow_missing=missing != "error",
            accept_sparse="no_copy",  # read by discretize_sparse, never written
        )
        k = check_n_features_to_select(self.n_features_to_select, table.values.shape[1])
        y_codes, classes, self.y_bin_edges_ = self._bin_continuous_target(y_codes, classes)
        is_sparse, missing_cols = table.is_sparse, table.missing
        if is_sparse:
            if missing == "available" and table.has_missing:
                raise ValueError(
                    f"{type(self).__name__}: missing='available' is not supported for sparse "
                    "input; use missing='level' (a stored NaN is one more level)"
                )
            # sparse codes and the O(nnz) table, same engine (SPEC section 11); a stored
            # NaN is the last level of its column, as missing="level" does densely
            codes, n_levels, edges = discretize_sparse(
                table.values, table.discrete, self.n_bins, self.discretize
            )
        else:
            codes, n_levels, edges = _discretize(
                table.values, table.discrete, self.n_bins, self.discretize, table.missing
            )
        del table  # the codes are all the engine needs: free the validated copy
        self.bin_edges_ = edges
        self.n_levels_ = n_levels
        self.classes_ = classes
        missing_codes = None
        if missing == "available" and missing_cols is not None:
            missing_codes = np.where(missing_cols, n_levels - 1, -1)
        table_cls = SparseInformationTable if is_sparse else InformationTable
        extra = {} if missing_codes is None else {"missing_codes": missing_codes}
        info = table_cls(
            codes,
            n_levels,
            y_codes,
            estimator=self.estimator,
            n_jobs=self._n_threads(),
            **extra,
        )
        return info, k

    def _fit_dask_table(self, X: Any, y: Any, missing: str) -> tuple[Any, int]:
        """The information table of a Dask ``X`` (codes persisted on the workers) and the
        number of features to select; sets the fitted input attributes."""
        from fsel.kernels.information_dask import dask_information_table

        name = type(self).__name__
        data = check_dask_table(X, y, categorical=self.categorical, estimator_name=name)
        n_features = data.discrete.size
        k = check_n_features_to_select(self.n_features_to_select, n_features)
        self.n_features_in_ = n_features
        if data.feature_names is not None and all(isinstance(c, str) for c in data.feature_names):
            self.feature_names_in_ = data.feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        info, edges, classes = dask_information_table(
            data.blocks,
            data.y_blocks,
            data.discrete,
            n_bins=self.n_bins,
            strategy=self.discretize,
            estimator=self.estimator,
            estimator_name=name,
            missing=missing,
        )
        self.bin_edges_ = edges
        self.n_levels_ = info.observed_levels
        self.classes_ = classes
        self.y_bin_edges_ = info.y_bin_edges
        if info.y_bin_edges is not None:
            self._warn_binned_target(classes.size)
        return info, k

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


def _doc(summary: str, formula: str, extra_params: str = "", example: str = "JMI") -> str:
    return f"""{summary}

    .. math::

        {formula}

    Greedy forward selection (SPEC section 2): the first pick maximises ``I(Xk;Y)``;
    ties go to the lowest index; a feature is never picked twice.
{_PARAMS_DOC}{extra_params}{_ATTRS_DOC}
    References
    ----------
    Brown, Pocock, Zhao & Lujan. Conditional likelihood maximisation: a unifying
    framework for information theoretic feature selection. JMLR 13, 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import {example}
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(200, 6))
    >>> y = (X[:, 2] + X[:, 4] > 2).astype(int)
    >>> sel = {example}(n_features_to_select=2).fit(X, y)
    >>> sorted(sel.selection_order_.tolist())
    [2, 4]
    >>> sel.transform(X).shape
    (200, 2)
    """


class MIM(InformationSelector):
    _criterion = "mim"
    __doc__ = _doc(
        "Mutual information maximisation (univariate ranking by relevance).",
        r"J(X_k) = I(X_k;Y)",
        example="MIM",
    )


class JMI(InformationSelector):
    _criterion = "jmi"
    __doc__ = _doc(
        "Joint mutual information (Yang & Moody 1999).",
        r"J(X_k) = \sum_{j \in S} I(X_k X_j; Y)",
        example="JMI",
    )


class MRMR(InformationSelector):
    _criterion = "mrmr"
    __doc__ = _doc(
        "Minimum redundancy maximum relevance (Peng, Long & Ding 2005).",
        r"J(X_k) = I(X_k;Y) - \frac{1}{|S|}\sum_{j \in S} I(X_k;X_j)",
        example="MRMR",
    )


class CMIM(InformationSelector):
    _criterion = "cmim"
    __doc__ = _doc(
        "Conditional mutual information maximisation (Fleuret 2004), with the "
        "relevance term as in FEAST.",
        r"J(X_k) = \min\left(I(X_k;Y), \min_{j \in S} I(X_k;Y|X_j)\right)",
        example="CMIM",
    )


class ICAP(InformationSelector):
    _criterion = "icap"
    __doc__ = _doc(
        "Interaction capping (Jakulin 2005).",
        r"J(X_k) = I(X_k;Y) - \sum_{j \in S} \max(0, I(X_k;X_j) - I(X_k;X_j|Y))",
        example="ICAP",
    )


class CIFE(InformationSelector):
    _criterion = "cife"
    __doc__ = _doc(
        "Conditional infomax feature extraction (Lin & Tang 2006).",
        r"J(X_k) = I(X_k;Y) - \sum_{j} I(X_k;X_j) + \sum_{j} I(X_k;X_j|Y)",
        example="CIFE",
    )

    def _criterion_params(self) -> dict[str, float]:
        return {"beta": 1.0, "gamma": 1.0}


class DISR(InformationSelector):
    _criterion = "disr"
    __doc__ = _doc(
        "Double input symmetrical relevance (Meyer & Bontempi 2006).",
        r"J(X_k) = \sum_{j \in S} \frac{I(X_k X_j;Y)}{H(X_k,X_j,Y)}",
        example="DISR",
    )


class CondRed(InformationSelector):
    _criterion = "condred"
    __doc__ = _doc(
        "Conditional redundancy (Brown et al. 2012, beta=0, gamma=1).",
        r"J(X_k) = I(X_k;Y) + \sum_{j \in S} I(X_k;X_j|Y)",
        example="CondRed",
    )

    def _criterion_params(self) -> dict[str, float]:
        return {"beta": 0.0, "gamma": 1.0}


class JMIM(InformationSelector):
    _criterion = "jmim"
    __doc__ = _doc(
        "Joint mutual information maximisation (Bennasar, Hicks & Setchi 2015).",
        r"J(X_k) = \min_{j \in S} I(X_k X_j; Y)",
        example="JMIM",
    )


_BETA_DOC = """
    beta : float, default=1.0
        Weight of the redundancy term ``sum_j I(Xk;Xj)``.
"""
_GAMMA_DOC = """
    gamma : float, default=1.0
        Weight of the conditional redundancy term ``sum_j I(Xk;Xj|Y)``.
"""


class MIFS(InformationSelector):
    _criterion = "mifs"
    __doc__ = _doc(
        "Mutual information feature selection (Battiti 1994).",
        r"J(X_k) = I(X_k;Y) - \beta \sum_{j \in S} I(X_k;X_j)",
        _BETA_DOC,
        example="MIFS",
    )

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        beta: float = 1.0,
        discretize: str | None = "uniform",
        n_bins: int = 5,
        categorical: Any = None,
        estimator: str = "plugin",
        missing: str = "level",
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        super().__init__(
            n_features_to_select,
            discretize=discretize,
            n_bins=n_bins,
            categorical=categorical,
            estimator=estimator,
            missing=missing,
            n_jobs=n_jobs,
            verbose=verbose,
        )
        self.beta = beta

    def _criterion_params(self) -> dict[str, float]:
        return {"beta": float(self.beta), "gamma": 0.0}


class BetaGamma(InformationSelector):
    _criterion = "betagamma"
    __doc__ = _doc(
        "Brown et al.'s beta/gamma family: MIFS (gamma=0), CIFE (beta=gamma=1), "
        "CondRed (beta=0, gamma=1) are settings of it.",
        r"J(X_k) = I(X_k;Y) - \beta \sum_j I(X_k;X_j) + \gamma \sum_j I(X_k;X_j|Y)",
        _BETA_DOC + _GAMMA_DOC,
        example="BetaGamma",
    )

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        beta: float = 1.0,
        gamma: float = 1.0,
        discretize: str | None = "uniform",
        n_bins: int = 5,
        categorical: Any = None,
        estimator: str = "plugin",
        missing: str = "level",
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        super().__init__(
            n_features_to_select,
            discretize=discretize,
            n_bins=n_bins,
            categorical=categorical,
            estimator=estimator,
            missing=missing,
            n_jobs=n_jobs,
            verbose=verbose,
        )
        self.beta = beta
        self.gamma = gamma

    def _criterion_params(self) -> dict[str, float]:
        return {"beta": float(self.beta), "gamma": float(self.gamma)}


class CMI(InformationSelector):
    _criterion = "cmi"
    __doc__ = _doc(
        "Conditional mutual information with the joint of all selected features; stops "
        "early when no candidate adds information (best score not above ``tol``), so it "
        "may select fewer than ``n_features_to_select``.",
        r"J(X_k) = I(X_k;Y|X_S)",
        """
    tol : float, default=1e-10
        Stop when the best ``I(Xk;Y|S)`` is not above this many bits.
""",
        example="CMI",
    )

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        tol: float = DEFAULT_CMI_TOL,
        discretize: str | None = "uniform",
        n_bins: int = 5,
        categorical: Any = None,
        estimator: str = "plugin",
        missing: str = "level",
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        super().__init__(
            n_features_to_select,
            discretize=discretize,
            n_bins=n_bins,
            categorical=categorical,
            estimator=estimator,
            missing=missing,
            n_jobs=n_jobs,
            verbose=verbose,
        )
        self.tol = tol
