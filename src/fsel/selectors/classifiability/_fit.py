"""Classifiability-based forward subset selection (Dong & Kothari 2003,
docs/user_guide/classifiability.rst).

:func:`classifiability` measures how easily labelled data can be classified: for each
sample, the class fractions ``p_i(c)`` among its neighbours within a radius ``d``;
``L = mean_i sum_c p_i(c)**2`` lies in ``[0, 1]`` and is 1 when every neighbourhood is
pure. :class:`Classifiability` adds, one at a time, the feature that increases ``L``
most, and stops when the gain is not above ``epsilon``.

The numeric work lives in :mod:`fsel.kernels.classifiability`.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, ClassVar

import numpy as np

from fsel.kernels.classifiability import (
    IncrementalSearch,
    ScaledColumns,
    empty_subset_value,
    scale_columns,
    subset_scores,
)
from fsel.kernels.classifiability_partial import PartialSearch, subset_scores_partial
from fsel.kernels.distances import DEFAULT_MEMORY_BUDGET
from fsel.selectors._core import SelectorCore
from fsel.utils.parallel import effective_n_jobs
from fsel.utils.params import (
    check_categorical,
    check_memory_budget,
    check_option,
)
from fsel.utils.progress import Progress
from fsel.utils.targets import check_target, is_continuous_target
from fsel.utils.validation import Table, check_n_features_to_select, check_table

__all__ = ["Classifiability", "classifiability"]

#: ``missing=`` rules of classifiability (docs/user_guide/missing_sparse.rst).
MISSING_RULES = ("partial", "error")


def _check_radius_factor(radius_factor: Any) -> float:
    if isinstance(radius_factor, (bool, np.bool_)) or not isinstance(radius_factor, Real):
        raise TypeError(f"radius_factor must be a real number, got {radius_factor!r}")
    rf = float(radius_factor)
    if not np.isfinite(rf) or rf < 0:
        raise ValueError(f"radius_factor must be finite and >= 0, got {radius_factor!r}")
    return rf


def _symbolic_mask(table: Table, categorical: Any) -> np.ndarray:
    """The symbolic columns: the table's categorical columns (the one rule of
    :func:`fsel.utils.column_types.column_types`)."""
    return table.categorical.copy()


def classifiability(
    X: Any,
    y: Any,
    features: Any = None,
    radius_factor: float = 3.0,
    categorical: Any = None,
    *,
    return_samples: bool = False,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    missing: str = "partial",
) -> float | tuple[float, np.ndarray]:
    r"""Dong & Kothari's classifiability ``L`` of a data set on a feature subset.

    Each numeric feature is divided by its range; the squared distance between two
    samples is the sum over numeric features of squared differences plus 1 for every
    symbolic feature on which they differ. With ``r`` the root-mean-square over samples
    of the distance to the nearest other sample and ``d = radius_factor * r``, let
    ``p_i(c)`` be the fraction of the other samples within distance ``d`` (inclusive)
    of sample ``i`` that belong to class ``c`` (an empty neighbourhood falls back to the
    nearest other sample(s)). Then

    .. math:: L = \frac{1}{N} \sum_{i=1}^{N} \sum_c p_i(c)^2 \in [0, 1],

    an affine map of the paper's ``mean_i C(x_i)`` with
    ``C(x_i) = 2 sum_c p_i(c)^2 - 1`` (the diagonal minus the off-diagonal of the joint
    class matrix ``w_jk = p_i(j) p_i(k)``), so rankings and selections are identical.
    The empty feature set, where every sample is a neighbour, has
    ``L = sum_c prior(c)^2``.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels (at least two classes).
    features : None or sequence of int
        Column indices of the subset (None: all columns; ``[]``: the empty set).
    radius_factor : float, default=3.0
        ``d = radius_factor * r``; the paper's value is 3. ``0`` is legal: only exact
        duplicates (or, failing those, the nearest samples) are neighbours.
    categorical : "auto", bool mask or list of column indices/names, default="auto"
        Symbolic columns.
        ``"auto"``: the library's one rule
        (:func:`fsel.utils.column_types.column_types`): text, pandas
        ``category``/``string``, polars ``Categorical``/``Utf8`` and boolean columns
        are categorical, numeric ones (integers included) are not; a list or a mask
        overrides it.
    return_samples : bool, default=False
        Also return the per-sample values ``sum_c p_i(c)^2`` (their mean is ``L``).
    memory_budget : int
        Bytes allowed for distance blocks (no ``N x N`` matrix beyond it is built).
    missing : {"partial", "error"}, default="partial"
        Missing values in ``X`` (NaN, None, ``pd.NA``; docs/user_guide/missing_sparse.rst).
        ``"partial"``:
        the partial-distance rule. Over a subset of ``k`` features, a pair's squared
        distance is ``(k / c) * sum`` of its ``c`` observed per-feature terms: a numeric
        term is observed when both values are, a symbolic term always (a missing
        symbolic value mismatches every value, another missing one included, and adds
        1). Ranges are those of the observed values. A pair with no observed term is
        not comparable (never a neighbour); a sample comparable with no other sample
        gets the empty set's value ``sum_c prior(c)^2`` and is left out of the radius.
        The rule assumes the missing terms would on average contribute like the
        observed ones (values missing at random). ``"error"`` refuses missing values.
        Without missing values both give the same result.

    Returns
    -------
    L : float
    samples : ndarray of shape (n_samples,)
        Only with ``return_samples=True``.

    Notes
    -----
    ``L`` measures neighbourhood *purity*: a neighbourhood made only of another class
    also scores 1 (docs/user_guide/classifiability.rst follows the paper's ``w_jk = p_i(j)
    p_i(k)``). With
    few neighbours per sample the purity of random labels is inflated (about
    ``0.5 + 0.5 E[1/k]`` for two balanced classes and ``k`` neighbours), so a pure-noise
    feature can score above a weakly relevant one; a larger ``radius_factor`` reduces
    this. ``L(empty)`` is the limit ``sum_c prior(c)^2``. A subset of constant columns,
    on which all samples coincide, carries no information and also gets
    ``sum_c prior(c)^2`` (its neighbourhoods, every *other* sample, would give
    leave-one-out fractions that differ by ``O(1/N)`` and look like a gain over the
    empty set), so the forward search never selects a constant column.

    References
    ----------
    Dong, M. & Kothari, R. (2003). Feature subset selection using a new definition of
    classifiability. Pattern Recognition Letters 24(9-10), 1215-1225.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import classifiability
    >>> X = np.array([[0.0], [0.1], [0.9], [1.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> classifiability(X, y, radius_factor=1.0)
    1.0
    >>> classifiability(X, y, features=[])
    0.5
    """
    name = "classifiability"
    rf = _check_radius_factor(radius_factor)
    budget = check_memory_budget(memory_budget)
    check_categorical(categorical)
    missing = check_option(missing, MISSING_RULES, "missing", name)
    table = check_table(
        X,
        categorical=categorical,
        min_samples=2,
        estimator_name=name,
        allow_missing=missing != "error",
        accept_sparse=True,
    )
    y_codes, classes = check_target(y, table.values.shape[0], estimator_name=name)
    symbolic = _symbolic_mask(table, categorical)
    n, d = table.values.shape
    feats = _check_features(features, d)
    n_classes = classes.size
    if not feats:
        value = empty_subset_value(y_codes, n_classes)
        samples = np.full(n, value)
    else:
        Xs = _scaled(table, symbolic)
        if table.has_missing:
            samples = subset_scores_partial(Xs, symbolic, y_codes, n_classes, feats, rf, budget)
        else:
            samples, _ = subset_scores(Xs, symbolic, y_codes, n_classes, feats, rf, budget)
        value = float(np.mean(samples))
    return (value, samples) if return_samples else value


def _scaled(table: Table, symbolic: np.ndarray) -> Any:
    """Range-scaled columns: a dense copy, or for a sparse table a column-at-a-time view
    (:class:`~fsel.kernels.classifiability.ScaledColumns`), never densified whole."""
    if table.is_sparse:
        return ScaledColumns(table.values, symbolic)
    return scale_columns(table.values, symbolic)


def _check_features(features: Any, n_features: int) -> list[int]:
    if features is None:
        return list(range(n_features))
    arr = np.atleast_1d(np.asarray(features))
    if arr.size == 0:
        return []
    if arr.dtype == bool:
        if arr.shape != (n_features,):
            raise ValueError(f"a boolean features mask needs {n_features} entries, got {arr.size}")
        return [int(i) for i in np.flatnonzero(arr)]
    if arr.dtype.kind not in "iu":
        raise TypeError(f"features must be column indices (ints), got {features!r}")
    out = []
    for f in arr.tolist():
        if not -n_features <= f < n_features:
            raise ValueError(f"feature index {f} is out of range for {n_features} features")
        f = f % n_features
        if f in out:
            raise ValueError(f"feature {f} is listed twice")
        out.append(f)
    return out


#: Gains within this many units of the score's last place are ties (rounding).
_TIE_ULPS = 64


def step_gain(value: float, current: float) -> float:
    """The gain ``value - current`` of a forward step, with a difference of a few units
    in the last place taken as exactly 0: two sums of the same quantity in another
    order (a subset of constant columns scores the empty set's ``sum_c prior(c)^2``)
    tie, and a tie is not an improvement.

    Examples
    --------
    >>> step_gain(0.1 + 0.2, 0.3), step_gain(0.3, 0.1 + 0.2)
    (0.0, 0.0)
    >>> step_gain(0.75, 0.5)
    0.25
    """
    gain = value - current
    if abs(gain) <= _TIE_ULPS * np.spacing(max(abs(value), abs(current))):
        return 0.0
    return gain


class Classifiability(SelectorCore):
    """The logic of :class:`fsel.selectors.classifiability.Classifiability` (documented there)."""

    _param_kinds: ClassVar[dict[str, Any]] = {
        "n_features_to_select": "n_features_to_select_or_auto",
        "categorical": "categorical",
        "n_jobs": "n_jobs",
        "memory_budget": "memory_budget",
        "missing": MISSING_RULES,
        "verbose": "verbose",
    }

    def __init__(
        self,
        n_features_to_select: int | float | str | None = "auto",
        *,
        epsilon: float = 0.0,
        radius_factor: float = 3.0,
        categorical: Any = "auto",
        n_jobs: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        missing: str = "partial",
        verbose: int = 0,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.epsilon = epsilon
        self.radius_factor = radius_factor
        self.categorical = categorical
        self.n_jobs = n_jobs
        self.memory_budget = memory_budget
        self.missing = missing
        self.verbose = verbose

    def fit(self, X: Any, y: Any) -> Classifiability:
        """Run the forward search.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        return super().fit(X, y)

    def _check_param_table(self) -> dict[str, Any]:
        params = super()._check_param_table()
        if isinstance(self.epsilon, (bool, np.bool_)) or not isinstance(self.epsilon, Real):
            raise TypeError(f"epsilon must be a real number, got {self.epsilon!r}")
        if not np.isfinite(float(self.epsilon)):
            raise ValueError(f"epsilon must be finite, got {self.epsilon!r}")
        params["radius_factor"] = _check_radius_factor(self.radius_factor)
        return params

    def _table_options(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "categorical": params["categorical"],
            "min_samples": 2,
            "allow_missing": params["missing"] != "error",
            "accept_sparse": True,
        }

    def _fit(self, table: Any, y_codes: Any, classes: Any, params: dict[str, Any]) -> Any:
        if is_continuous_target(classes):
            raise ValueError(
                "Classifiability needs class labels, but y is a continuous target "
                f"({classes.size} distinct values, not all whole numbers, in {y_codes.size} "
                "samples; scikit-learn's type_of_target rule). Classifiability measures how "
                "well classes separate: bin a regression target into classes first, encode "
                "float class labels as integers or strings, or rank a regression target "
                "with fsel.RankingIndex"
            )
        eps = float(self.epsilon)
        rf = params["radius_factor"]
        budget = params["memory_budget"]
        n_jobs = effective_n_jobs(params["n_jobs"])
        symbolic = _symbolic_mask(table, params["categorical"])
        self.classes_ = classes
        d = table.values.shape[1]
        if isinstance(self.n_features_to_select, str) and self.n_features_to_select == "auto":
            k_max = d  # the search decides: it stops when the score stops improving
        else:
            k_max = check_n_features_to_select(self.n_features_to_select, d)
        n_classes = classes.size
        Xs = _scaled(table, symbolic)
        engine = PartialSearch if table.has_missing else IncrementalSearch
        search = engine(Xs, symbolic, y_codes, n_classes, rf, budget, n_jobs)
        current = empty_subset_value(y_codes, n_classes)
        order: list[int] = []
        step_scores: list[float] = []
        rows: list[np.ndarray] = []
        scores = np.full(d, np.nan)
        remaining = list(range(d))
        # a step per feature added ("auto": the search may stop before k_max)
        bar = Progress(k_max, "Classifiability", enabled=None if self.verbose else False)
        with bar:
            while remaining and len(order) < k_max:
                cand = np.asarray(remaining, dtype=np.intp)
                values = search.evaluate(cand).mean(axis=1)
                row = np.full(d, np.nan)
                row[cand] = values
                rows.append(row)
                scores[cand] = values
                best = int(np.argmax(values))
                if not step_gain(float(values[best]), current) > eps:
                    break
                f = int(cand[best])
                order.append(f)
                step_scores.append(float(values[best]))
                current = float(values[best])
                remaining.remove(f)
                search.add(f)
                bar.update()
        self.symbolic_ = symbolic
        self.classifiability_empty_ = empty_subset_value(y_codes, n_classes)
        self.selection_scores_ = np.asarray(step_scores, dtype=np.float64)
        self.candidate_scores_ = np.vstack(rows) if rows else np.empty((0, d))
        self._set_selection(order, scores)
        return self
