"""The feature report: which features of a table matter, how sure, how stable, and whether
keeping them pays off, on one page (``fsel report DATA --target y`` / :func:`report`).

For a table ``X`` and a target ``y`` the report runs several selection methods (by
default information criteria, the Relief family and a ranking index) and collects:

* the **data summary** (rows, features, classes or target range, missing values, types);
* each method's **selection** on the whole table (features in order, with scores and
  the run time);
* their **agreement**: a features x methods matrix of ranks, and methods x methods
  Kuncheva and Jaccard indices of the selected sets;
* their **stability** under ``n_resamples`` bootstrap samples (one resampling engine,
  :func:`fsel.meta.resampling.selection_matrix`): Nogueira et al.'s estimate with its
  confidence interval and the per-feature selection frequencies;
* **how sure**: the NPFS test (Ditzler et al. 2015, :func:`fsel.meta.npfs.npfs_test`)
  on the bootstrap selections of the first method: p-values, the threshold, the
  relevant set;
* **is it worth it**: the cross-validated accuracy and balanced error rate (R^2 for a
  regression target) of a 5-nearest-neighbour model against the number of features
  kept, the selection repeated inside every training fold (no selection bias), with the
  all-features baseline.

Every unit of work (one method on the table, one method's bootstraps, one method on
one fold) goes through :class:`fsel.experiments.cache.ResultCache`, so an interrupted
report resumes; a progress bar is drawn on stderr (:mod:`fsel.utils.progress`). The
page is drawn by :mod:`fsel.reporting.page` with the shared toolkit of
:mod:`fsel.utils.html` (figures embedded, no network); figures need matplotlib (``pip
install 'fsel[plot]'``). This module computes; the page module draws and never imports
this one (the report object is passed to it).
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fsel._version import __version__
from fsel.reporting.data import DataSummary, prepare

__all__ = [
    "DEFAULT_METHODS",
    "CurveResult",
    "DataSummary",
    "FeatureReport",
    "MethodSelection",
    "report",
]

#: Methods run when none are named: information criteria, the Relief family and a
#: ranking index for class labels; ranking indices for a numeric (regression) target.
DEFAULT_METHODS: dict[str, tuple[str, ...]] = {
    "classification": ("jmi", "mrmr", "cmim", "relieff", "multisurf", "k3"),
    "regression": ("k3", "in", "chi2", "mi-index"),
}
_N_NEIGHBORS = 5


# --------------------------------------------------------------------------- results
@dataclass
class MethodSelection:
    """One method's selection on the whole table.

    Attributes
    ----------
    method : str
    features : ndarray of int
        Selected features in selection (rank) order.
    scores : ndarray of float
        The score of each selected feature (per-step criterion value for greedy
        methods, weight or index value for rankers).
    seconds : dict of str to float
        Compute seconds of the fit on the whole table, the bootstraps and the
        cross-validation.
    """

    method: str
    features: np.ndarray
    scores: np.ndarray
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass
class CurveResult:
    """Cross-validated score against the number of features kept.

    ``n_kept[j]`` features give per-fold scores ``scores[:, j]`` (accuracy, or R^2 for a
    regression target) and balanced error rates ``ber[:, j]`` (NaN for regression).
    """

    n_kept: np.ndarray
    scores: np.ndarray
    ber: np.ndarray

    @property
    def mean(self) -> np.ndarray:
        return self.scores.mean(axis=0)

    @property
    def std(self) -> np.ndarray:
        return self.scores.std(axis=0)

    @property
    def ber_mean(self) -> np.ndarray:
        return self.ber.mean(axis=0)

    @property
    def ber_std(self) -> np.ndarray:
        return self.ber.std(axis=0)


# --------------------------------------------------------------------------- units
def _make_selector(method: str, k: int, categorical: list[int], seed: int) -> Any:
    from fsel._registry import get_method

    est = get_method(method).make(n_features_to_select=k)
    params = est.get_params(deep=False)
    extra: dict[str, Any] = {}
    if categorical and "categorical" in params:
        extra["categorical"] = list(categorical)
    if "random_state" in params:
        extra["random_state"] = seed
    return est.set_params(**extra) if extra else est


def _fit_unit(selector: Any, X: Any, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.base import clone

    from fsel.api import result_from_estimator

    res = result_from_estimator("", clone(selector).fit(X, y))
    return np.asarray(res.features, dtype=np.intp), np.asarray(res.scores, dtype=float)


def _model(task: str) -> Any:
    from sklearn.impute import SimpleImputer
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    est = (
        KNeighborsClassifier(_N_NEIGHBORS)
        if task == "classification"
        else KNeighborsRegressor(_N_NEIGHBORS)
    )
    return make_pipeline(
        SimpleImputer(strategy="median", keep_empty_features=True), StandardScaler(), est
    )


def _score_features(
    values: np.ndarray,
    y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    features: np.ndarray,
    task: str,
) -> tuple[float, float]:
    """(accuracy or R^2, balanced error rate or NaN) of the model on ``features``."""
    from sklearn.base import clone
    from sklearn.metrics import r2_score

    from fsel.experiments.protocols import balanced_error_rate

    cols = np.asarray(features, dtype=np.intp)
    model = clone(_model(task)).fit(values[np.ix_(train, cols)], y[train])
    pred = model.predict(values[np.ix_(test, cols)])
    if task == "classification":
        return float(np.mean(pred == y[test])), balanced_error_rate(y[test], pred)
    return float(r2_score(y[test], pred)), float("nan")


def _cv_unit(
    selector: Any | None,
    X: Any,
    values: np.ndarray,
    y: np.ndarray,
    train: np.ndarray,
    k: int,
    task: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Select on the training rows (``selector`` None: all features), then score the
    model on the held-out rows with the first 1..k selected features."""
    from fsel.meta.resampling import _rows

    test = np.setdiff1d(np.arange(values.shape[0]), train)
    if selector is None:
        acc, ber = _score_features(values, y, train, test, np.arange(values.shape[1]), task)
        return np.array([acc]), np.array([ber])
    order, _ = _fit_unit(selector, _rows(X, train), y[train])
    accs, bers = np.full(k, np.nan), np.full(k, np.nan)
    for m in range(1, min(k, order.size) + 1):
        accs[m - 1], bers[m - 1] = _score_features(values, y, train, test, order[:m], task)
    return accs, bers


# --------------------------------------------------------------------------- report
@dataclass
class FeatureReport:
    """The outcome of :func:`report`; ``.save(DIR)`` writes the page,
    ``_repr_html_`` shows it inline in Jupyter.

    Attributes
    ----------
    summary : DataSummary
    methods : list of str
        The methods that ran, in the order given (the first one is tested by NPFS).
    k : int
        Features each method selects.
    selections : dict of str to MethodSelection
    errors : dict of str to str
        Methods that failed on this table, with their one-line error.
    bootstrap_matrices : dict of str to ndarray of bool, shape (n_resamples, n_features)
    frequencies : dict of str to ndarray, shape (n_features,)
        Fraction of the bootstraps that selected each feature.
    stability : dict of str to NogueiraStability or None
        Nogueira et al.'s estimate with its 95% confidence interval.
    kuncheva, jaccard : ndarray of shape (n_methods, n_methods)
        Agreement of the methods' selections on the whole table (Kuncheva is NaN where
        the subset sizes differ or ``k`` equals the number of features).
    npfs : NPFSResult or None
        The NPFS test on the first method's bootstrap selections (None when ``k``
        equals the number of features).
    curves : dict of str to CurveResult
    baseline : CurveResult
        The model on all features (``n_kept`` is ``[n_features]``).
    params : dict
        Every setting of the run (methods, k, bootstraps, alpha, folds, seed).
    command : str
        How to make this report again.
    version : str
        The fsel version that made it.
    seconds : float
        Wall time of the run.
    guarantees : dict or None
        The knockoff selection at ``fdr`` and stability selection (with its bound) of
        the first method (:func:`fsel.experiments.report_guarantees.guarantees`); None
        when ``fdr=None``.
    """

    summary: DataSummary
    methods: list[str]
    k: int
    selections: dict[str, MethodSelection]
    errors: dict[str, str]
    bootstrap_matrices: dict[str, np.ndarray]
    frequencies: dict[str, np.ndarray]
    stability: dict[str, Any]
    kuncheva: np.ndarray
    jaccard: np.ndarray
    npfs: Any
    curves: dict[str, CurveResult]
    baseline: CurveResult
    params: dict[str, Any]
    command: str
    version: str = __version__
    seconds: float = 0.0
    guarantees: dict[str, Any] | None = None

    # ------------------------------------------------------------------ derived
    @property
    def ok_methods(self) -> list[str]:
        """The methods that ran without error."""
        return [m for m in self.methods if m in self.selections]

    def name(self, j: int) -> str:
        return self.summary.feature_names[int(j)]

    @property
    def consensus(self) -> np.ndarray:
        """Features every method selected on the whole table (in the first method's
        order)."""
        ok = self.ok_methods
        if not ok:
            return np.array([], dtype=np.intp)
        common = set(self.selections[ok[0]].features.tolist())
        for m in ok[1:]:
            common &= set(self.selections[m].features.tolist())
        return np.array([f for f in self.selections[ok[0]].features if f in common], np.intp)

    def rank_matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """``(features, ranks)``: the features any method selected, and their rank
        (1 = first) in each method's selection (NaN: not selected), rows sorted by the
        number of methods that selected them, then by mean rank."""
        ok = self.ok_methods
        feats = sorted({int(f) for m in ok for f in self.selections[m].features})
        R = np.full((len(feats), len(ok)), np.nan)
        pos = {f: i for i, f in enumerate(feats)}
        for j, m in enumerate(ok):
            for r, f in enumerate(self.selections[m].features):
                R[pos[int(f)], j] = r + 1
        if not feats:
            return np.array([], dtype=np.intp), R
        n_sel = np.sum(~np.isnan(R), axis=1)
        mean_rank = np.nanmean(np.where(np.isnan(R), self.k + 1, R), axis=1)
        order = np.lexsort((np.asarray(feats), mean_rank, -n_sel))
        return np.asarray(feats, dtype=np.intp)[order], R[order]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of every number on the page."""
        s = self.summary
        ok = self.ok_methods

        def fl(a: Any) -> Any:
            # six significant digits: a p-value of 5.8e-11 is not 0
            return [None if not np.isfinite(v) else float(f"{v:.6g}") for v in np.ravel(a)]

        out: dict[str, Any] = {
            "fsel_version": self.version,
            "command": self.command,
            "params": self.params,
            "seconds": round(self.seconds, 2),
            "data": {
                "n_samples": s.n_samples,
                "n_features": s.n_features,
                "task": s.task,
                "classes": dict(s.classes),
                "target_range": s.target_range,
                "missing": int(s.n_missing),
                "features": [
                    {"name": n, "type": t, "missing": int(mv)}
                    for n, t, mv in zip(s.feature_names, s.feature_types, s.missing, strict=True)
                ],
            },
            "errors": self.errors,
            "methods": {},
            "agreement": {
                "methods": ok,
                "kuncheva": [fl(r) for r in self.kuncheva],
                "jaccard": [fl(r) for r in self.jaccard],
            },
            "consensus": [self.name(f) for f in self.consensus],
            "baseline": {
                "n_features": s.n_features,
                "score": fl(self.baseline.mean)[0],
                "score_std": fl(self.baseline.std)[0],
                "ber": fl(self.baseline.ber_mean)[0],
            },
        }
        for m in ok:
            sel = self.selections[m]
            st = self.stability.get(m)
            cur = self.curves.get(m)
            out["methods"][m] = {
                "features": [
                    {"rank": r + 1, "index": int(f), "name": self.name(f), "score": float(v)}
                    for r, (f, v) in enumerate(zip(sel.features, sel.scores, strict=True))
                ],
                "seconds": {key: round(v, 3) for key, v in sel.seconds.items()},
                "stability": None
                if st is None
                else {"nogueira": st.stability, "lower": st.lower, "upper": st.upper},
                "frequencies": fl(self.frequencies[m]) if m in self.frequencies else None,
                "curve": None
                if cur is None
                else {
                    "n_kept": cur.n_kept.tolist(),
                    "score": fl(cur.mean),
                    "score_std": fl(cur.std),
                    "ber": fl(cur.ber_mean),
                    "ber_std": fl(cur.ber_std),
                },
            }
        if self.npfs is not None:
            out["npfs"] = {
                "method": ok[0],
                "alpha": self.params["alpha"],
                "threshold": int(self.npfs.threshold),
                "relevant": [self.name(f) for f in self.npfs.relevant],
                "pvalues": fl(self.npfs.pvalues),
                "counts": [int(c) for c in self.npfs.counts],
            }
        if self.guarantees:
            out.update(self.guarantees)  # "knockoffs", "stability_selection"
        return out

    # ------------------------------------------------------------------ page
    def summary_text(self) -> str:
        """The plain-language summary at the top of the page."""
        from fsel.reporting.page import summary_sentences

        return " ".join(summary_sentences(self))

    def html(self, *, standalone: bool = True) -> str:
        """The page (``standalone=False``: the body only, for Jupyter)."""
        from fsel.reporting.page import render

        return render(self, standalone=standalone)

    def _repr_html_(self) -> str:
        return self.html(standalone=False)

    def save(self, directory: str | Path) -> Path:
        """Write ``report.html`` (self-contained), its figures as PNG, ``report.json``
        and ``selections.csv`` into ``directory``; return the page's path."""
        from fsel.reporting.page import write

        return write(self, Path(directory))


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"fsel.report: {name} must be an int >= {low}, got {value!r}")
    return int(value)


def _smallest_training_fold(n: int, folds: int) -> int:
    """Rows of the smallest training fold of :func:`fsel.meta.resampling.kfold_indices`
    (its first held-out folds have ``ceil(n / folds)`` rows)."""
    return n - -(-n // folds)


def _check_rows(n: int, folds: int) -> None:
    """Refuse a table whose training folds are too small for the curves' model."""
    if _smallest_training_fold(n, folds) >= _N_NEIGHBORS:
        return
    need = n
    while _smallest_training_fold(need, folds) < _N_NEIGHBORS:
        need += 1
    raise ValueError(
        f"fsel.report: X has {n} rows, but the report needs at least {need} with "
        f"n_folds={folds} (its {_N_NEIGHBORS}-nearest-neighbour model needs "
        f"{_N_NEIGHBORS} rows in every training fold)"
    )


def report(
    X: Any,
    y: Any,
    *,
    methods: Any = None,
    n_features_to_select: int | float | None = None,
    n_resamples: int | None = None,
    alpha: float = 0.01,
    n_folds: int | None = None,
    quick: bool = False,
    task: str = "auto",
    feature_names: Any = None,
    categorical: Any = "auto",
    random_state: int = 0,
    cache_dir: str | Path | None = None,
    progress: bool | None = None,
    n_jobs: int | None = None,
    fdr: float | None = 0.1,
) -> FeatureReport:
    """Which features matter for ``y``, how sure, how stable, and is keeping them worth it.

    Runs every method on the whole table, on ``n_resamples`` bootstrap samples
    (stability, NPFS) and inside the training folds of a ``n_folds``-fold
    cross-validation (the curves), and returns a :class:`FeatureReport`.

    Parameters
    ----------
    X : array-like, DataFrame or scipy.sparse matrix of shape (n_samples, n_features)
        Missing values (NaN) are counted in the summary; a method that refuses them
        is reported as failed, the others go on. The methods get a sparse matrix as
        it is; the summary, the nearest-neighbour curves and the knockoffs read a dense
        copy, so it must fit in memory as a dense array.
    y : array-like of shape (n_samples,)
    methods : str or list of str, optional
        Method names (``fsel methods``), comma-separated or a list. Default:
        ``jmi, mrmr, cmim, relieff, multisurf, k3`` for class labels, the ranking
        indices ``k3, in, chi2, mi-index`` for a regression target. The first method is
        the one NPFS tests.
    n_features_to_select : int or float, optional
        Features each method selects: an int, or a float in (0, 1], that fraction of
        the features (rounded, at least 1), as in :func:`fsel.select`; default
        ``min(20, n_features // 2)`` (at least 1).
    n_resamples : int, optional
        Bootstrap samples for stability and NPFS; default 100 (20 with ``quick``).
    alpha : float
        Level of the NPFS test.
    n_folds : int, optional
        Cross-validation folds of the curves; default 5 (3 with ``quick``). Every
        training fold must hold the model's 5 neighbours: a table with fewer rows
        (fewer than 7 with 5 folds, 8 with 3) is refused.
    quick : bool
        A small, fast run (fewer bootstraps and folds).
    task : {"auto", "classification", "regression"}
        ``"auto"``: regression for a float target with fractional values or more than
        20 distinct values, else classification.
    feature_names : list of str, optional
        Names of the columns (default: the DataFrame's, else ``x0, x1, ...``).
    categorical : "auto", list of int or str, default="auto"
        Columns holding category codes, beside those the library's rule takes as
        categorical (``"auto"``, the default everywhere: text, ``category`` and boolean
        columns). None means the same as ``"auto"`` (kept for compatibility); a bare
        string other than ``"auto"`` is refused, as by every estimator.
    random_state : int
        Seeds the bootstraps, the folds and randomised methods; a fixed value gives
        the same report.
    cache_dir : path, optional
        Cache every unit of work there, so an interrupted report resumes.
    progress : bool or None
        A progress bar on stderr; None draws it only when stderr is a terminal. (The
        estimators call this ``verbose``; the report's name is kept, see the
        vocabulary.)
    n_jobs : int or None
        joblib workers for the bootstrap replicates (the results do not depend on it).
    fdr : float or None
        Target false discovery rate of the knockoff filter run beside NPFS on the first
        method (with stability selection on ``n_resamples // 2`` complementary pairs);
        None skips both.

    Returns
    -------
    FeatureReport

    Examples
    --------
    >>> import numpy as np
    >>> import fsel
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 6))
    >>> y = (X[:, 1] + X[:, 4] > 0).astype(int)
    >>> rep = fsel.report(
    ...     X, y, methods="mim,relieff", n_features_to_select=2, quick=True, progress=False
    ... )
    >>> sorted(rep.selections["mim"].features.tolist())
    [1, 4]
    >>> sorted(rep.consensus.tolist())
    [1, 4]
    """
    from fsel._registry import get_method
    from fsel.experiments.cache import (
        ResultCache,
        array_fingerprint,
        estimator_fingerprint,
        timed,
    )
    from fsel.meta.npfs import npfs_test
    from fsel.meta.resampling import resample_indices, selection_matrix
    from fsel.meta.stability import jaccard_index, kuncheva_index, nogueira_stability
    from fsel.utils.progress import Progress
    from fsel.utils.validation import check_n_features_to_select, is_dataframe, is_sparse

    start = time.perf_counter()
    if not isinstance(quick, bool):
        raise TypeError(f"fsel.report: quick must be True or False, got {quick!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"fsel.report: alpha must be a number in (0, 1), got {alpha!r}")
    bad_fdr = isinstance(fdr, bool) or not isinstance(fdr, (int, float)) or not 0 < fdr < 1
    if fdr is not None and bad_fdr:
        raise ValueError(
            f"fsel.report: fdr must be a number in (0, 1), got {fdr!r} (None: no knockoffs)"
        )
    from fsel.utils.params import check_categorical, check_n_jobs

    check_n_jobs(n_jobs, owner="fsel.report")
    check_categorical(categorical, owner="fsel.report")
    if isinstance(categorical, str):  # "auto": the rule alone, as None has always meant
        categorical = None
    seed = _check_int("random_state", random_state, 0)
    X_sel, values, y_arr, summary, cat = prepare(X, y, feature_names, categorical, task)
    task = summary.task
    n, d = values.shape

    if methods is None:
        names = list(DEFAULT_METHODS[task])
    else:
        names = (
            [m.strip() for m in methods.split(",")] if isinstance(methods, str) else list(methods)
        )
        names = [str(m) for m in names if str(m).strip()]
        if not names:
            raise ValueError("fsel.report: methods is empty")
    resolved = []
    for m in names:
        meth = get_method(m)
        if task == "regression" and meth.target == "classification":
            raise ValueError(
                f"method {meth.name!r} needs class labels, but the target is numeric "
                "(regression); use ranking indices such as k3, in, chi2, mi-index, the "
                "nearest-neighbour information criteria (mim-knn, jmi-knn, mrmr-knn, "
                "cmim-knn), or "
                "task='classification'"
            )
        if meth.name not in resolved:
            resolved.append(meth.name)
    names = resolved

    k = (
        min(20, max(1, d // 2))
        if n_features_to_select is None
        else check_n_features_to_select(n_features_to_select, d, owner="fsel.report")
    )
    B = (20 if quick else 100) if n_resamples is None else _check_int("n_resamples", n_resamples, 2)
    folds = (3 if quick else 5) if n_folds is None else _check_int("n_folds", n_folds, 2)
    if folds > n:
        raise ValueError(f"fsel.report: n_folds={folds} is larger than the number of rows ({n})")
    _check_rows(n, folds)
    params = {
        "methods": names,
        "k": k,
        "n_bootstraps": B,
        "alpha": float(alpha),
        "n_folds": folds,
        "task": task,
        "random_state": seed,
        "fdr": None if fdr is None else float(fdr),
        "categorical": None if categorical is None else _as_list(categorical),
        "model": f"{_N_NEIGHBORS}-nearest-neighbour "
        + ("classifier" if task == "classification" else "regressor")
        + " on standardised features",
    }
    dtypes = [str(t) for t in X_sel.dtypes] if is_dataframe(X_sel) else [str(X_sel.dtype)]
    data_key = {
        "X": array_fingerprint(values),
        "dtypes": dtypes,
        "y": array_fingerprint(np.asarray(y_arr).astype(str)),
        "categorical": cat,
    }
    cache = ResultCache(cache_dir)
    trains = resample_indices(n, folds, resampling="kfold", random_state=seed)

    selections: dict[str, MethodSelection] = {}
    errors: dict[str, str] = {}
    mats: dict[str, np.ndarray] = {}
    curves: dict[str, CurveResult] = {}
    total = len(names) * (1 + B + folds) + folds
    with Progress(total, "fsel report", enabled=progress) as bar:
        base_scores, base_ber = [], []
        for f, train in enumerate(trains):
            a, b = cache.get_or_compute(
                {
                    "unit": "report-cv",
                    "fold": f,
                    "folds": folds,
                    "seed": seed,
                    "task": task,
                    "selector": None,
                    "data": data_key,
                    "n_neighbors": _N_NEIGHBORS,
                },
                lambda train=train: _cv_unit(None, X_sel, values, y_arr, train, k, task),
            )
            base_scores.append(a[0])
            base_ber.append(b[0])
            bar.update()
        baseline = CurveResult(
            np.array([d]), np.array(base_scores)[:, None], np.array(base_ber)[:, None]
        )
        for m in names:
            sel = _make_selector(m, k, cat, seed)
            key = {"method": m, "selector": estimator_fingerprint(sel), "data": data_key}
            try:
                (feats, scores), sec_fit = cache.get_or_compute(
                    {**key, "unit": "report-fit"},
                    lambda sel=sel: timed(_fit_unit, sel, X_sel, y_arr),
                )
                bar.update()
                parts = {**key, "unit": "report-resamples", "B": B, "seed": seed}
                stored = cache.get(parts)
                if stored is None:
                    stored = timed(
                        selection_matrix,
                        sel,
                        X_sel,
                        y_arr,
                        B,
                        random_state=seed,
                        n_jobs=n_jobs,
                        progress=bar.update,
                    )
                    cache.set(parts, stored, seconds=stored[1])
                else:
                    bar.update(B)
                M, sec_boot = stored
                fold_scores, fold_ber = [], []
                sec_cv = 0.0
                for f, train in enumerate(trains):
                    (a, b), secs = cache.get_or_compute(
                        {
                            **key,
                            "unit": "report-cv",
                            "fold": f,
                            "folds": folds,
                            "seed": seed,
                            "k": k,
                            "task": task,
                            "n_neighbors": _N_NEIGHBORS,
                        },
                        lambda sel=sel, train=train: timed(
                            _cv_unit, sel, X_sel, values, y_arr, train, k, task
                        ),
                    )
                    fold_scores.append(a)
                    fold_ber.append(b)
                    sec_cv += secs
                    bar.update()
            except (ValueError, TypeError) as exc:
                errors[m] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                continue
            selections[m] = MethodSelection(
                m, feats, scores, {"fit": sec_fit, "bootstrap": sec_boot, "cv": sec_cv}
            )
            mats[m] = np.asarray(M, dtype=bool)
            S, Bm = np.array(fold_scores), np.array(fold_ber)
            kept = np.flatnonzero(~np.isnan(S).any(axis=0))
            curves[m] = CurveResult(kept + 1, S[:, kept], Bm[:, kept])

    ok = [m for m in names if m in selections]
    freqs = {m: mats[m].mean(axis=0) for m in ok}
    stab: dict[str, Any] = {}
    for m in ok:
        try:
            stab[m] = nogueira_stability(mats[m], alpha=0.05)
        except ValueError:
            stab[m] = None
    q = len(ok)
    kun = np.full((q, q), np.nan)
    jac = np.full((q, q), np.nan)
    for i, a in enumerate(ok):
        for j, b in enumerate(ok):
            fa, fb = selections[a].features, selections[b].features
            jac[i, j] = jaccard_index(fa, fb, d)
            if fa.size == fb.size and 0 < fa.size < d:
                kun[i, j] = kuncheva_index(fa, fb, d)
    npfs = None
    if ok and mats[ok[0]].sum(axis=1).min() < d:
        npfs = npfs_test(mats[ok[0]], alpha=alpha)
    guar = None
    if ok and fdr is not None:
        from fsel.experiments.report_guarantees import guarantees

        guar = guarantees(
            _make_selector(ok[0], k, cat, seed),
            X_sel.toarray() if is_sparse(X_sel) else X_sel,  # knockoffs need a dense X
            y_arr,
            list(summary.feature_names),
            fdr=fdr,
            n_pairs=max(2, B // 2),
            random_state=seed,
            n_jobs=n_jobs,
        )
    rep = FeatureReport(
        summary=summary,
        methods=names,
        k=k,
        selections=selections,
        errors=errors,
        bootstrap_matrices=mats,
        frequencies=freqs,
        stability=stab,
        kuncheva=kun,
        jaccard=jac,
        npfs=npfs,
        curves=curves,
        baseline=baseline,
        params=params,
        command=_python_command(params, quick),
        guarantees=guar,
    )
    rep.seconds = time.perf_counter() - start
    return rep


def _as_list(categorical: Any) -> list[Any]:
    """The ``categorical`` argument as a JSON-ready list (names, indices or a mask)."""
    return [c.item() if isinstance(c, np.generic) else c for c in list(categorical)]


def _python_command(params: dict[str, Any], quick: bool) -> str:
    """The call that makes this report again: every setting spelled out."""
    cat = "" if params["categorical"] is None else f"categorical={params['categorical']!r}, "
    return (
        f"fsel.report(X, y, methods={','.join(params['methods'])!r}, "
        f"n_features_to_select={params['k']}, "
        f"n_resamples={params['n_bootstraps']}, alpha={params['alpha']!r}, "
        f"n_folds={params['n_folds']}, task={params['task']!r}, "
        f"fdr={params['fdr']!r}, {cat}random_state={params['random_state']})"
    )


def cli_command(argv: list[str]) -> str:
    """The shell form of a ``fsel report`` command line."""
    return "fsel report " + " ".join(shlex.quote(a) for a in argv)
