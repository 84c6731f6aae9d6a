r"""The model-X knockoff filter around any selector (Candès, Fan, Janson & Lv 2018).

:class:`KnockoffFilter` builds a knockoff copy :math:`\tilde X` of the features
(second-order Gaussian knockoffs with a Ledoit-Wolf covariance; the formulas are in
:mod:`fsel.meta._knockoff_construction`), runs a statistic on the ``2p`` columns
:math:`[X, \tilde X]` after a seeded shuffle of their order (so that no tie-break
favours originals over knockoffs), takes :math:`W_j = Z_j - \tilde Z_j` and keeps the
features with :math:`W_j \ge T`, :math:`T` the knockoff+ threshold at the target false
discovery rate ``fdr``. When the knockoffs are valid (Gaussian features with a known
covariance) the false discovery rate
:math:`E[\#\text{false selections} / \max(1, \#\text{selections})]` is at most ``fdr``
in finite samples, whatever the statistic and the law of ``y`` given ``X``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np

from fsel.meta._knockoff_construction import (
    S_METHODS,
    ebh_select,
    gaussian_knockoffs,
    knockoff_evalues,
    knockoff_sampler,
    knockoff_threshold,
    knockoff_w,
    pick_order_importances,
    shrinkage_covariance,
    solve_s,
)
from fsel.meta.resampling import replicate_seeds, run_replicates
from fsel.selectors._base import BaseSelector
from fsel.selectors._core import rfe_ranking
from fsel.utils.compat import check_feature_names as _check_feature_names
from fsel.utils.parallel import effective_n_jobs
from fsel.utils.targets import check_target
from fsel.utils.validation import check_table

__all__ = ["KnockoffFilter", "default_statistic", "knockoff_importances", "rfe_ranking"]

_STATISTICS = ("auto", "order", "scores")


#: rows the default statistic (5-fold cross-validation) needs at least
_MIN_ROWS_DEFAULT = 10


def _check_spread(X: np.ndarray, names: list[str] | None, owner: str) -> None:
    """Gaussian knockoffs need every column's variance positive and finite in float64:
    a constant column (its knockoff would be itself), or values so large or small that
    the variance overflows or underflows, is an error naming the column."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        var = X.var(axis=0)
    bad = np.flatnonzero(~(np.isfinite(var) & (var > 0)))
    if bad.size:
        j = int(bad[0])
        col = names[j] if names else j
        raise ValueError(
            f"{owner}: column {col!r} has a variance of {var[j]:.3g} in float64 (constant, "
            "or values too large or too small); Gaussian knockoffs need a positive, finite "
            "spread in every column: drop constant columns, rescale the others"
        )


def _seeded_clone(selector: Any, seed: int) -> Any:
    from sklearn.base import clone

    est = clone(selector)
    params = est.get_params(deep=True)
    fixed = {k: seed for k, v in params.items() if k.endswith("random_state") and v is None}
    if fixed:
        est.set_params(**fixed)
    return est


def knockoff_importances(
    selector: Any, X2: np.ndarray, y: Any, *, statistic: str = "auto", seed: int = 0
) -> np.ndarray:
    """Importances ``Z`` of the ``2p`` columns ``X2`` by ``selector``.

    * an fsel selector (it has ``selection_order_``): with ``statistic="auto"`` or
      ``"order"`` its pick order, :math:`Z = 2p - \\text{position}` for picked columns
      and 0 for the others; with ``"scores"`` its ``scores_`` (higher is better);
    * a scikit-learn estimator: :math:`|coef_|` (summed over classes) or
      ``feature_importances_``;
    * a callable ``(X2, y) -> Z``.

    An unset ``random_state`` of the selector is fixed to ``seed``.

    Examples
    --------
    >>> import numpy as np
    >>> X2 = np.random.default_rng(0).normal(size=(50, 4))
    >>> knockoff_importances(lambda X, y: np.abs(X.T @ y), X2, X2[:, 1]).argmax()
    np.int64(1)
    """
    n_columns = X2.shape[1]
    if not hasattr(selector, "fit"):
        z = np.asarray(selector(X2, y), dtype=np.float64).reshape(-1)
        if z.shape != (n_columns,):
            raise ValueError(
                f"the statistic callable must return {n_columns} importances (one per column "
                f"of [X, X~]), got shape {z.shape}"
            )
        return np.nan_to_num(z, nan=0.0)
    est = _seeded_clone(selector, seed)
    est.fit(X2, y)
    if statistic in ("auto", "order") and hasattr(est, "selection_order_"):
        return pick_order_importances(est.selection_order_, n_columns)
    if statistic == "order":
        raise TypeError(
            f"statistic='order' needs a selector with selection_order_ (an fsel selector); "
            f"{type(selector).__name__} has none"
        )
    # an fsel selector's scores_ (higher is better); else a model's |coef_| or importances
    names = ("scores_",) if hasattr(est, "selection_order_") else ("coef_", "feature_importances_")
    for name in names:
        value = getattr(est, name, None)
        if value is not None:
            z = np.asarray(value, dtype=np.float64)
            z = np.abs(z) if name == "coef_" else z
            if z.ndim == 2:
                z = z.sum(axis=0)
            return np.nan_to_num(z.reshape(-1), nan=0.0, neginf=0.0)
    raise TypeError(
        f"{type(selector).__name__} gives no importances: a knockoff statistic needs an fsel "
        "selector, an estimator with coef_ or feature_importances_, or a callable (X, y) -> Z"
    )


def default_statistic(y: Any) -> Any:
    """The statistic ``KnockoffFilter(selector=None)`` uses, by target.

    * a regression target (floats that are not all integers): the absolute
      coefficients of ``LassoCV(cv=5)``;
    * two classes: the absolute coefficients of an L1-penalised logistic regression
      with its penalty chosen by 5-fold cross-validation on the log-loss (liblinear, at
      most 100 iterations a fit: a fit that converges takes far fewer, while at the
      weakest penalties of the grid on well separated classes each iteration grows
      slower and 1,000 of them took 30 s a fit);
    * more classes: ``fsel.JMI(n_features_to_select=0.25)``'s pick order.

    The lasso statistics had the highest power at the target false discovery rate in
    the linear and logistic cells of ``fsel reproduce fdr``; JMI's order is the
    choice for non-linear responses (see the reproduction's page).

    Examples
    --------
    >>> type(default_statistic([0.5, 1.25, 2.0])).__name__
    'LassoCV'
    >>> type(default_statistic([0, 1, 2])).__name__
    'JMI'
    """
    arr = np.asarray(y)
    if arr.dtype.kind == "f" and not np.all(arr == np.round(arr)):
        from sklearn.linear_model import LassoCV

        return LassoCV(cv=5, max_iter=5000)
    if np.unique(arr).size == 2:
        from sklearn.linear_model import LogisticRegressionCV

        return LogisticRegressionCV(
            Cs=10,
            cv=5,
            l1_ratios=(1.0,),
            solver="liblinear",
            scoring="neg_log_loss",
            max_iter=100,
            use_legacy_attributes=False,
        )
    from fsel.selectors.information import JMI

    return JMI(n_features_to_select=0.25)


def _with_threads(selector: Any, n_jobs: int | None) -> Any:
    """A clone of ``selector`` fitting in ``n_jobs`` threads where it takes ``n_jobs``
    and leaves it unset (its results do not depend on it); else ``selector``."""
    if n_jobs in (None, 1) or not hasattr(selector, "get_params"):
        return selector
    if "n_jobs" not in selector.get_params(deep=False) or selector.get_params()["n_jobs"]:
        return selector
    from sklearn.base import clone

    # never more workers than cores: joblib refuses a huge n_jobs (10**6) outright
    workers = min(effective_n_jobs(n_jobs), effective_n_jobs(-1))
    return clone(selector).set_params(n_jobs=workers)


def _check_finite_knockoffs(Xk: np.ndarray, what: str) -> None:
    """Refuse knockoffs with a missing or infinite value: a NaN column standardises to
    NaN, scores 0, and every statistic W then looks like a discovery."""
    if not np.isfinite(Xk).all():
        raise ValueError(f"{what} NaN or inf values; knockoffs need complete data, as X does")


def _one_draw(
    X: np.ndarray,
    y: Any,
    seed: np.random.SeedSequence,
    *,
    knockoffs: Any,
    mu: np.ndarray | None,
    sigma: np.ndarray | None,
    s: np.ndarray | None,
    sampler: tuple[np.ndarray, np.ndarray] | None,
    selector: Any,
    statistic: str,
    keep: bool,
) -> tuple[np.ndarray, np.ndarray | None]:
    """One knockoff draw: sample X~, shuffle the 2p columns, score them, return W."""
    rng = np.random.default_rng(seed)
    p = X.shape[1]
    if isinstance(knockoffs, np.ndarray):
        Xk = knockoffs
    elif callable(knockoffs):
        Xk = np.asarray(knockoffs(X, rng), dtype=np.float64)
        if Xk.shape != X.shape:
            raise ValueError(
                f"the knockoffs callable must return an array of shape {X.shape}, got {Xk.shape}"
            )
        _check_finite_knockoffs(Xk, "the knockoffs callable returned")
    else:
        Xk = gaussian_knockoffs(X, mu, sigma, s, rng, sampler)  # type: ignore[arg-type]
    perm = rng.permutation(2 * p)
    X2 = np.hstack([X, Xk])[:, perm]
    # standardised column by column (the same rule for every column keeps the swap
    # symmetry): a penalised model then treats the columns alike
    sd = X2.std(axis=0)
    X2 = (X2 - X2.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    z2 = knockoff_importances(
        selector, X2, y, statistic=statistic, seed=int(rng.integers(0, 2**31 - 1))
    )
    z = np.empty(2 * p)
    z[perm] = z2
    return knockoff_w(z), (Xk if keep else None)


class KnockoffFilter(BaseSelector):
    r"""The model-X knockoff filter: a selection whose false discovery rate is at most ``fdr``.

    For every feature a knockoff copy is drawn that mimics the features' joint law but
    is independent of ``y`` given ``X``; the statistic scores the ``2p`` columns
    :math:`[X, \tilde X]` (their order shuffled by the seed, each column standardised)
    and
    :math:`W_j = Z_j - \tilde Z_j`; the features with :math:`W_j \ge T` are kept, with

    .. math::

        T = \min\Big\{t : \frac{1 + \#\{j : W_j \le -t\}}{\max(1, \#\{j : W_j \ge t\})}
            \le q\Big\}

    (knockoff+, Barber & Candès 2015). With valid knockoffs the expected share of
    false selections is at most ``q = fdr`` in finite samples, for any statistic and
    any dependence of ``y`` on ``X``. Knockoff+ needs at least ``1/q`` strong
    features to select anything: with ``q = 0.1``, fewer than 10 relevant features
    usually give an empty selection.

    Parameters
    ----------
    selector : estimator, callable or None, default=None
        The statistic. An fsel selector (its pick order: :math:`Z = 2p -` position for
        picked columns, 0 for the others; ``statistic="scores"`` takes its ``scores_``
        instead), a scikit-learn estimator with ``coef_`` (absolute values) or
        ``feature_importances_``, or a callable ``(X2, y) -> Z`` returning ``2p``
        importances. None: :func:`default_statistic` (a cross-validated lasso, L1
        logistic regression for two classes, for more classes JMI's pick order).
    fdr : float, default=0.1
        The target false discovery rate ``q``, in (0, 1).
    knockoffs : "gaussian", ndarray or callable, default="gaussian"
        ``"gaussian"``: second-order Gaussian knockoffs with the Ledoit-Wolf covariance
        of ``X`` (valid when the features are Gaussian; matches the first two moments
        otherwise). An array of shape ``(n_samples, n_features)`` (or
        ``(n_draws, n_samples, n_features)``): knockoffs you built with a sampler valid
        for your data (e.g. for categorical features). A callable ``(X, rng) ->
        X~``: such a sampler, called once per draw.
    n_draws : int, default=1
        Independent knockoff draws. Above 1 the draws are combined by e-values (Ren &
        Barber 2024): draw ``d`` runs knockoff+ at level ``fdr / 2`` and gives
        :math:`e_j^d = p\,1\{W_j^d \ge T_d\} / (1 + \#\{k : W_k^d \le -T_d\})`; the mean
        e-values go through e-BH at level ``fdr``, which keeps the false discovery rate
        at most ``fdr`` and removes most of the dependence on one random draw.
    random_state : None, int, SeedSequence or Generator, default=None
        Seeds the knockoffs, the column shuffle and a randomised statistic (one child
        seed per draw).
    n_jobs : int or None, default=None
        joblib workers over the draws (any joblib backend, Dask included); results do
        not depend on it.
    s_method : {"asdp", "equicorrelated", "sdp"}, default="asdp"
        How the knockoffs' distance from the features is chosen (see
        :mod:`fsel.meta._knockoff_construction`). ``"asdp"`` solves the SDP on blocks
        of at most 50 clustered features (seconds for ``p = 500``); ``"sdp"`` on all of
        them (:math:`O(p^3)` per sweep, for ``p`` up to a few hundred).
    statistic : {"auto", "order", "scores"}, default="auto"
        For an fsel selector: its pick order (``"auto"``, ``"order"``) or its
        ``scores_``.
    categorical : "auto", list or mask, default="auto"
        Which columns are categorical: with ``"auto"`` the library's one rule
        (:func:`fsel.utils.column_types.column_types`: text, category and boolean columns
        are, integer columns are numeric, datetimes are seconds). Gaussian knockoffs are not valid
        for a categorical column: with ``knockoffs="gaussian"`` any categorical column
        is an error (pass knockoffs built by a valid sampler instead).
    offset : {1, 0}, default=1
        1 is knockoff+ (controls the false discovery rate); 0 the plain knockoff
        threshold, which only controls the modified rate
        :math:`E[V / (R + 1/q)]` but can select with fewer than ``1/q`` features.
    keep_knockoffs : bool, default=False
        Keep the drawn knockoffs in ``knockoffs_``.

    Attributes
    ----------
    W_ : ndarray of shape (n_features,)
        The statistics :math:`W_j` (with ``n_draws > 1``, their mean over the draws, a
        summary only: the selection uses the e-values).
    W_draws_ : ndarray of shape (n_draws, n_features)
        :math:`W` of every draw (one row a draw).
    threshold_ : float
        The knockoff+ threshold :math:`T` (``inf`` when nothing passes). With
        ``n_draws > 1``, the e-BH cut-off on ``evalues_``.
    thresholds_ : ndarray of shape (n_draws,)
        Every draw's own threshold (at ``fdr / 2`` with ``n_draws > 1``).
    evalues_ : ndarray of shape (n_features,)
        The mean e-values (``n_draws > 1`` only).
    selection_frequencies_ : ndarray of shape (n_features,)
        The share of draws whose own threshold kept each feature.
    support_ : ndarray of bool
    relevant_features_ : ndarray of int
        The kept features by decreasing ``scores_``, then index.
    selection_order_ : ndarray of int
        Same as ``relevant_features_``.
    scores_ : ndarray of float
        ``W_`` (one draw) or ``evalues_``; higher is better.
    ranking_ : ndarray of int
        1 for every kept feature, the others 2, 3, ... by decreasing ``scores_``.
    s_ : ndarray of shape (n_features,) or None
        The diagonal of :math:`S` (Gaussian knockoffs only).
    knockoffs_ : ndarray
        The knockoffs, ``(n_samples, n_features)`` or ``(n_draws, n_samples,
        n_features)``; only with ``keep_knockoffs=True``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    References
    ----------
    Barber & Candès (2015), Ann. Statist. 43(5); Candès, Fan, Janson & Lv (2018),
    JRSS-B 80(3); Ren & Barber (2024), JRSS-B 86(1).

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import KnockoffFilter
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(600, 40))
    >>> y = (X[:, :12] @ np.ones(12) + rng.normal(size=600) > 0).astype(int)
    >>> kf = KnockoffFilter(fdr=0.2, random_state=0).fit(X, y)
    >>> n_false = int((kf.relevant_features_ >= 12).sum())
    >>> kf.support_[:12].sum() >= 8, n_false <= 3
    (np.True_, True)
    """

    _target_kind = "any"
    #: its own resampling or knockoffs follow the columns: shown as given
    _column_order_free = False

    def __init__(
        self,
        selector: Any = None,
        fdr: float = 0.1,
        knockoffs: Any = "gaussian",
        n_draws: int = 1,
        random_state: Any = None,
        n_jobs: int | None = None,
        *,
        s_method: str = "asdp",
        statistic: str = "auto",
        categorical: Any = "auto",
        offset: int = 1,
        keep_knockoffs: bool = False,
    ) -> None:
        self.selector = selector
        self.fdr = fdr
        self.knockoffs = knockoffs
        self.n_draws = n_draws
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.s_method = s_method
        self.statistic = statistic
        self.categorical = categorical
        self.offset = offset
        self.keep_knockoffs = keep_knockoffs

    # ------------------------------------------------------------------ validation
    _param_kinds: ClassVar[dict[str, Any]] = {
        "fdr": "fraction_open",
        "n_draws": "positive_int",
        "random_state": "random_state",
        "n_jobs": "n_jobs",
        "s_method": S_METHODS,
        "statistic": _STATISTICS,
        "categorical": "categorical",
        "offset": (1, 0),
        "keep_knockoffs": "flag",
    }

    def _check_params(self) -> dict[str, Any]:
        from fsel.utils.params import validate_params

        params = validate_params(self, self._param_kinds)
        name = type(self).__name__
        k = self.knockoffs
        if not (
            isinstance(k, np.ndarray) or callable(k) or (isinstance(k, str) and k == "gaussian")
        ):
            raise ValueError(
                f"{name}: knockoffs must be 'gaussian', an array of knockoffs or a callable "
                f"(X, rng) -> X~, got {k!r}"
            )
        sel = self.selector
        if sel is not None and (isinstance(sel, str) or not (hasattr(sel, "fit") or callable(sel))):
            raise TypeError(
                f"{name}: selector must be None, an fsel selector, an estimator with coef_ or "
                f"feature_importances_, or a callable (X, y) -> importances; got {sel!r}"
            )
        return params

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any) -> KnockoffFilter:
        """Draw the knockoffs, compute the statistics and apply the threshold.

        Parameters
        ----------
        X : array-like, pandas or polars DataFrame of shape (n_samples, n_features)
            Numeric features without missing values.
        y : array-like of shape (n_samples,)
            Class labels or a numeric target (as the statistic supports).

        Returns
        -------
        self
        """
        params = self._check_params()
        name = type(self).__name__
        # which columns are categorical: the library's one rule
        # (fsel.utils.column_types.column_types; a list or a mask overrides it)
        table = check_table(
            X,
            categorical=params["categorical"],
            min_samples=3,
            estimator_name=name,
            allow_missing=True,
        )
        n_samples, p = table.values.shape
        if table.has_missing:
            col = int(np.flatnonzero(table.missing)[0])
            raise ValueError(
                f"{name}: Input X contains NaN (missing values, first in column {col}); knockoffs "
                "need complete data: impute the missing values or drop those rows first"
            )
        names = None if table.feature_names is None else [str(c) for c in table.feature_names]
        categorical = np.asarray(table.categorical, dtype=bool)
        _check_feature_names(self, X, reset=True)
        self.n_features_in_ = p
        codes, classes = check_target(y, n_samples, kind=self._target_kind, estimator_name=name)
        y_arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
        if y_arr.ndim == 2:
            y_arr = y_arr.ravel()
        if classes is not None and y_arr.dtype == object:  # mixed labels: their codes
            y_arr = np.asarray(codes)
        if self.selector is None and n_samples < _MIN_ROWS_DEFAULT:
            raise ValueError(
                f"{name}: the default statistic cross-validates in 5 folds and needs at "
                f"least {_MIN_ROWS_DEFAULT} rows, got {n_samples}; pass a selector"
            )
        if self.selector is None and classes is not None:
            counts = np.bincount(np.asarray(codes), minlength=len(classes))
            if counts.min() < 2:
                rare = np.asarray(classes)[int(np.argmin(counts))].item()
                raise ValueError(
                    f"{name}: class {rare!r} has {int(counts.min())} row; the default "
                    "statistic cross-validates a logistic regression and needs at least 2 "
                    "rows of every class; pass a selector or drop that class"
                )
        Xv = np.ascontiguousarray(table.values, dtype=np.float64)

        k = self.knockoffs
        n_draws = int(self.n_draws)
        mu = sigma = s = sampler = None
        given: list[Any] | None = None
        if isinstance(k, str):
            if categorical.any():
                bad = (
                    names[int(np.flatnonzero(categorical)[0])]
                    if names
                    else int(np.flatnonzero(categorical)[0])
                )
                raise ValueError(
                    f"{name}: column {bad!r} is categorical and Gaussian knockoffs are not valid "
                    "for categorical features; pass knockoffs= built by a sampler valid for them "
                    "(an array or a callable (X, rng) -> X~), or encode the column as a number "
                    "if it truly is one"
                )
            _check_spread(Xv, names, name)
            mu, sigma = shrinkage_covariance(Xv)
            s = solve_s(sigma, self.s_method)
            sampler = knockoff_sampler(sigma, s)  # the O(p^3) set-up, once for every draw
        elif isinstance(k, np.ndarray):
            arr = np.asarray(k, dtype=np.float64)
            _check_finite_knockoffs(arr, f"{name}: knockoffs holds")
            if arr.shape == Xv.shape and n_draws == 1:
                given = [arr]
            elif arr.shape == (n_draws, *Xv.shape):
                given = list(arr)
            else:
                raise ValueError(
                    f"{name}: knockoffs has shape {arr.shape}; expected {Xv.shape} (one draw) or "
                    f"({n_draws}, {n_samples}, {p})"
                )
        selector = self.selector if self.selector is not None else default_statistic(y_arr)
        if n_draws == 1:  # one draw: the workers go to its selector instead
            selector = _with_threads(selector, self.n_jobs)
        seeds = replicate_seeds(self.random_state, n_draws)
        draw_fdr = self.fdr if n_draws == 1 else self.fdr / 2.0
        common = dict(
            mu=mu,
            sigma=sigma,
            s=s,
            sampler=sampler,
            selector=selector,
            statistic=self.statistic,
            keep=params["keep_knockoffs"],
        )
        if given is None:
            out = run_replicates(
                _one_draw, Xv, y_arr, seeds, n_jobs=self.n_jobs, knockoffs=k, **common
            )
        else:
            out = [
                _one_draw(Xv, y_arr, seed, knockoffs=g, **common)
                for seed, g in zip(seeds, given, strict=True)
            ]
        Wd = np.vstack([w for w, _ in out])
        thresholds = np.array([knockoff_threshold(w, draw_fdr, self.offset) for w in Wd])
        self.W_draws_ = Wd
        self.thresholds_ = thresholds
        self.selection_frequencies_ = np.mean(Wd >= thresholds[:, None], axis=0)
        self.s_ = s
        if params["keep_knockoffs"]:
            ks = [x for _, x in out]
            self.knockoffs_ = ks[0] if n_draws == 1 else np.stack(ks)
        if n_draws == 1:
            W = Wd[0]
            T = float(thresholds[0])
            support = W >= T
            scores = W
        else:
            e = np.mean(
                [knockoff_evalues(w, t) for w, t in zip(Wd, thresholds, strict=True)],
                axis=0,
            )
            kept = ebh_select(e, self.fdr)
            support = np.zeros(p, dtype=bool)
            support[kept] = True
            T = p / (self.fdr * kept.size) if kept.size else math.inf
            self.evalues_ = e
            W = Wd.mean(axis=0)
            scores = e
        if not support.any():
            self._warn_empty()
        idx = np.flatnonzero(support)
        order = idx[np.lexsort((idx, -scores[idx]))].astype(np.intp)
        self.W_ = W
        self.threshold_ = T
        self.support_ = support
        self.relevant_features_ = order
        self.selection_order_ = order
        self.scores_ = np.asarray(scores, dtype=np.float64)
        self.ranking_ = rfe_ranking(support, self.scores_)
        return self

    def _warn_empty(self) -> None:
        """One warning for an empty selection (an infinite threshold)."""
        if self.offset == 1:
            why = (
                f"knockoff+ needs roughly 1/fdr = {1 / self.fdr:.0f} relevant features to "
                "select any; try offset=0, a larger fdr, or NPFS"
            )
        else:
            why = "try a larger fdr, or NPFS"
        warnings.warn(
            f"KnockoffFilter: no feature passed at fdr={self.fdr:g} (threshold_ is "
            f"infinite): {why}",
            UserWarning,
            stacklevel=3,
        )

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = False
        tags.non_deterministic = self.random_state is None
        return tags
