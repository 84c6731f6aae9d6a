"""Evaluation protocols of the papers, reusable with any fsel selector.

Everything here takes a *selector* (any estimator with ``fit`` and ``get_support``;
fsel selectors also give ``selection_order_``) and arrays, and returns plain numbers
or small result objects. Resampling goes through :mod:`fsel.meta.resampling` (the one
resampling engine), stability through :mod:`fsel.meta.stability`.

Protocols
---------
* :func:`knn_predict`, :func:`loo_knn_mistakes` -- the k-nearest-neighbour classifier
  the Brown et al. (2012) experiments use (k = 3, Euclidean), written out so that ties
  are broken the same way everywhere: among equally distant neighbours the one with
  the lower training index wins, and a tied vote goes to the smallest class code.
* :func:`bootstrap_oob_error` -- fit a selector on each of ``B`` bootstrap samples and
  score the selected features by the out-of-bag error of a 3-NN; also returns the
  ``B`` selected subsets (the input of every stability measure).
* :func:`kuncheva_stability`, :func:`information_stability`,
  :func:`subset_similarity`, :func:`similarity_matrix`, :func:`classical_mds`.
* the comparison of methods by their ranks over data sets (Pareto and average ranks,
  Friedman and Nemenyi tests, the two diagrams) is in
  :mod:`fsel.experiments.rank_comparison`.
* :func:`probe_roc` (feature-selection ROC against probe features),
  :func:`balanced_error_rate`, :func:`cv_error` (k-fold error of naive Bayes / CART).

References
----------
Brown, Pocock, Zhao & Lujan (2012), "Conditional likelihood maximisation: a unifying
framework for information theoretic feature selection", JMLR 13:27-66.
Demsar (2006), "Statistical comparisons of classifiers over multiple data sets",
JMLR 7:1-30.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone

from fsel.kernels.distances import distance_blocks, sq_delta
from fsel.meta.resampling import resample_indices, run_replicates

__all__ = [
    "BootstrapRun",
    "InformationWeights",
    "balanced_error_rate",
    "bootstrap_oob_error",
    "classical_mds",
    "cv_error",
    "fit_subset",
    "holdout_knn_error",
    "information_stability",
    "knn_predict",
    "kuncheva_stability",
    "loo_knn_mistakes",
    "probe_roc",
    "similarity_matrix",
    "subset_similarity",
]


# --------------------------------------------------------------------------- helpers
def fit_subset(selector: Any, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Fit a clone of ``selector`` on ``(X, y)`` and return the selected features.

    The features come in selection order when the selector records one
    (``selection_order_``), otherwise in index order.
    """
    with warnings.catch_warnings():
        # resampled rows often leave a column constant; the engine takes it last, and
        # the protocols fit many resamples: one warning per fit would be noise
        warnings.filterwarnings("ignore", message=".*take a single value on the training rows")
        est = clone(selector).fit(X, y)
    support = np.asarray(est.get_support(), dtype=bool)
    order = getattr(est, "selection_order_", None)
    if order is not None:
        order = np.asarray(order, dtype=np.intp)
        return order[support[order]]
    return np.flatnonzero(support)


def _class_codes(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    return classes, codes.reshape(-1)


def _knn_vote(D: np.ndarray, codes: np.ndarray, k: int, n_classes: int) -> np.ndarray:
    """k-NN majority vote from a distance block ``D`` (test rows x training rows).

    The k nearest are the entries below the k-th smallest distance plus, among the
    entries equal to it, those with the lowest training index -- what a stable sort
    would pick -- found with one partition instead of a sort. A tied vote goes to the
    smallest class code.
    """
    kth = np.partition(D, k - 1, axis=1)[:, k - 1 : k]
    chosen = D < kth
    need = k - chosen.sum(axis=1)
    equal = D == kth
    fits = equal.sum(axis=1) <= need
    chosen[fits] |= equal[fits]
    if not fits.all():
        rest = ~fits
        eq = equal[rest]
        chosen[rest] |= eq & (np.cumsum(eq, axis=1) <= need[rest, None])
    rows, cols = np.nonzero(chosen)
    counts = np.bincount(rows * n_classes + codes[cols], minlength=D.shape[0] * n_classes)
    return counts.reshape(D.shape[0], n_classes).argmax(axis=1)


def knn_predict(
    X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray, n_neighbors: int = 3
) -> np.ndarray:
    """Predict with a ``k``-nearest-neighbour majority vote (Euclidean distance).

    Ties among equally distant neighbours go to the lower training index; a tied vote
    goes to the smallest class label. With no feature, every test row gets the most
    frequent training class.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [0.2], [1.0], [1.1]])
    >>> y = np.array([0, 0, 0, 1, 1])
    >>> knn_predict(X, y, np.array([[0.05], [1.05]]), n_neighbors=3).tolist()
    [0, 1]
    """
    if n_neighbors < 1:
        raise ValueError(f"n_neighbors must be at least 1, got {n_neighbors}")
    X_train = np.asarray(X_train, dtype=np.float64)
    X_test = np.asarray(X_test, dtype=np.float64)
    classes, codes = _class_codes(y_train)
    if X_train.ndim != 2 or X_test.ndim != 2 or X_train.shape[1] != X_test.shape[1]:
        raise ValueError("X_train and X_test must be 2-D with the same number of columns")
    if X_train.shape[0] != codes.shape[0]:
        raise ValueError("X_train and y_train have inconsistent lengths")
    if X_train.shape[1] == 0:
        return np.full(X_test.shape[0], classes[np.bincount(codes).argmax()])
    k = min(int(n_neighbors), X_train.shape[0])
    out = np.empty(X_test.shape[0], dtype=np.intp)
    for start, stop, D in distance_blocks(X_test, X_train, metric="sqeuclidean"):
        out[start:stop] = _knn_vote(D, codes, k, classes.size)
    return classes[out]


def holdout_knn_error(
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    n_neighbors: int = 3,
    *,
    balanced: bool = False,
) -> float:
    """Test error (or balanced error rate) of :func:`knn_predict`."""
    pred = knn_predict(X_train, y_train, X_test, n_neighbors)
    if balanced:
        return balanced_error_rate(y_test, pred)
    return float(np.mean(pred != np.asarray(y_test)))


def loo_knn_mistakes(
    X: np.ndarray,
    y: np.ndarray,
    order: Sequence[int],
    n_neighbors: int = 3,
) -> np.ndarray:
    """Leave-one-out mistakes of a k-NN on the first ``m`` features of ``order``,
    for ``m = 1, ..., len(order)``.

    Squared distances are accumulated one feature at a time, so the whole curve costs
    ``O(len(order) N^2)``. Tie rules as in :func:`knn_predict`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0, 5], [0, 1], [0, 9], [1, 2], [1, 7], [1, 3]], dtype=float)
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> loo_knn_mistakes(X, y, [0, 1], n_neighbors=3).tolist()
    [0, 6]
    """
    X = np.asarray(X, dtype=np.float64)
    classes, codes = _class_codes(y)
    n = X.shape[0]
    if n < 2:
        raise ValueError("leave-one-out needs at least 2 samples")
    k = min(int(n_neighbors), n - 1)
    D2 = np.zeros((n, n))
    diag = np.arange(n)
    mistakes = np.empty(len(order), dtype=np.int64)
    for m, f in enumerate(order):
        col = X[:, int(f)]
        D2 += sq_delta(col[:, None], col[None, :], False)
        D = D2.copy()
        D[diag, diag] = np.inf
        pred = _knn_vote(D, codes, k, classes.size)
        mistakes[m] = int(np.sum(pred != codes))
    return mistakes


def balanced_error_rate(y_true: Any, y_pred: Any) -> float:
    """Balanced error rate: the mean over classes of the per-class error rate.

    .. math:: \\mathrm{BER} = \\frac{1}{C} \\sum_c \\frac{\\#\\{i: y_i = c,
              \\hat y_i \\ne c\\}}{\\#\\{i: y_i = c\\}}

    Classes absent from ``y_true`` do not count.

    Examples
    --------
    >>> balanced_error_rate([0, 0, 0, 1], [0, 0, 1, 0])
    0.6666666666666666
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError("y_true and y_pred must have the same shape")
    if y_true.size == 0:
        raise ValueError("balanced_error_rate needs at least one sample")
    rates = [float(np.mean(y_pred[y_true == c] != c)) for c in np.unique(y_true)]
    return float(np.mean(rates))


# --------------------------------------------------------------------------- bootstrap
@dataclass
class BootstrapRun:
    """Subsets selected on ``B`` bootstrap samples and their out-of-bag errors."""

    subsets: list[np.ndarray]
    oob_error: np.ndarray
    n_features: int

    @property
    def accuracy(self) -> float:
        """Mean out-of-bag accuracy over the bootstraps."""
        return float(1.0 - np.nanmean(self.oob_error))


def _bootstrap_task(
    X: np.ndarray,
    y: np.ndarray,
    idx: np.ndarray,
    *,
    selector: Any,
    X_eval: np.ndarray | None,
    n_neighbors: int,
) -> tuple[np.ndarray, float]:
    subset = fit_subset(selector, X[idx], y[idx])
    oob = np.ones(X.shape[0], dtype=bool)
    oob[idx] = False
    if not oob.any():
        return subset, float("nan")
    Z = X if X_eval is None else X_eval
    Ztr = Z[idx][:, subset]
    Zte = Z[oob][:, subset]
    err = float(np.mean(knn_predict(Ztr, y[idx], Zte, n_neighbors) != y[oob]))
    return subset, err


def bootstrap_oob_error(
    selector: Any,
    X: np.ndarray,
    y: np.ndarray,
    *,
    n_bootstraps: int = 50,
    X_eval: np.ndarray | None = None,
    n_neighbors: int = 3,
    random_state: Any = None,
    n_jobs: int | None = None,
    progress: Callable[[], None] | None = None,
) -> BootstrapRun:
    """Bootstrap out-of-bag error of a k-NN on the features a selector picks.

    For ``b = 1..B``: draw a bootstrap sample (through
    :func:`fsel.meta.resampling.resample_indices`), fit a clone of ``selector`` on it,
    train a ``n_neighbors``-NN on the selected columns of the bootstrap rows and count
    its errors on the out-of-bag rows (Brown et al. 2012, section 5.5). The same
    ``random_state`` gives the same bootstrap samples to every selector, so the
    subsets of two selectors can be compared bootstrap by bootstrap.

    Parameters
    ----------
    selector : estimator
    X, y : arrays
        The data the selector sees.
    X_eval : array or None
        The features the classifier sees (e.g. scaled); None uses ``X``.
    n_neighbors : int
    random_state, n_jobs : seed and number of joblib workers; the result does not
        depend on ``n_jobs``.
    progress : callable or None
        Called once per finished bootstrap.

    Returns
    -------
    BootstrapRun
    """
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError("X must be 2-D with as many rows as y")
    if X_eval is not None:
        X_eval = np.asarray(X_eval, dtype=np.float64)
        if X_eval.shape != X.shape:
            raise ValueError(f"X_eval must have the shape of X {X.shape}, got {X_eval.shape}")
    indices = resample_indices(
        X.shape[0], n_bootstraps, resampling="bootstrap", random_state=random_state
    )
    results = run_replicates(
        _bootstrap_task,
        X,
        y,
        indices,
        n_jobs=n_jobs,
        progress=progress,
        selector=selector,
        X_eval=X_eval,
        n_neighbors=n_neighbors,
    )
    return BootstrapRun(
        subsets=[np.asarray(s, dtype=np.intp) for s, _ in results],
        oob_error=np.array([e for _, e in results], dtype=np.float64),
        n_features=int(X.shape[1]),
    )


# --------------------------------------------------------------------------- stability
def kuncheva_stability(subsets: Sequence[np.ndarray], n_features: int) -> float:
    """Mean pairwise Kuncheva consistency of equal-size subsets
    (docs/user_guide/npfs_stability.rst),
    computed by :func:`fsel.meta.stability.mean_pairwise_kuncheva`."""
    from fsel.meta.stability import mean_pairwise_kuncheva

    return float(mean_pairwise_kuncheva([np.asarray(s) for s in subsets], n_features))


def _kuncheva_pair(a: np.ndarray, b: np.ndarray, n_features: int) -> float:
    from fsel.meta.stability import kuncheva_index

    return float(kuncheva_index(np.asarray(a), np.asarray(b), n_features))


class InformationWeights:
    """Yu, Ding & Loscalzo's weights ``I(Xa;Xb) / (H(Xa) + H(Xb))`` between every pair
    of a set of features, computed once (by :mod:`fsel.meta.stability`), so that the
    information consistency of many pairs of subsets costs one Hungarian matching each
    instead of ``k^2`` mutual-information estimates each.

    :meth:`consistency` equals :func:`fsel.meta.stability.information_consistency`.
    """

    def __init__(self, codes: np.ndarray, features: Sequence[int]) -> None:
        from fsel.meta.stability import _weights

        self.features = np.unique(np.asarray(features, dtype=np.intp))
        self._pos = {int(f): i for i, f in enumerate(self.features)}
        C = np.asarray(codes)
        if C.ndim != 2:
            raise ValueError(f"codes must be a 2-D (samples x features) array, got {C.shape}")
        self.W = (
            _weights(self.features, self.features, C) if self.features.size else np.zeros((0, 0))
        )

    @classmethod
    def for_subsets(cls, codes: np.ndarray, *groups: Sequence[np.ndarray]) -> InformationWeights:
        """Weights over the union of the features of every subset given."""
        feats = [np.asarray(s, dtype=np.intp) for g in groups for s in g]
        union = np.unique(np.concatenate(feats)) if feats else np.empty(0, dtype=np.intp)
        return cls(codes, union)

    def consistency(self, a: Sequence[int], b: Sequence[int]) -> float:
        """Maximum-weight matching total between subsets ``a`` and ``b``."""
        from scipy.optimize import linear_sum_assignment

        ia = [self._pos[int(f)] for f in np.unique(np.asarray(a, dtype=np.intp))]
        ib = [self._pos[int(f)] for f in np.unique(np.asarray(b, dtype=np.intp))]
        if not ia or not ib:
            return 0.0
        W = self.W[np.ix_(ia, ib)]
        rows, cols = linear_sum_assignment(W, maximize=True)
        return float(W[rows, cols].sum())


def information_stability(
    subsets: Sequence[np.ndarray],
    codes: np.ndarray,
    *,
    weights: InformationWeights | None = None,
) -> float:
    """Mean pairwise Yu-Ding-Loscalzo information consistency of the subsets
    (:func:`fsel.meta.stability.mean_information_consistency`, with the feature-pair
    weights computed once).

    ``codes`` is the discretised data (samples x features) the weights
    ``I(Xa;Xb) / (H(Xa)+H(Xb))`` are estimated from.
    """
    pairs = list(itertools.combinations(range(len(subsets)), 2))
    if not pairs:
        raise ValueError("information stability needs at least two subsets")
    w = weights or InformationWeights.for_subsets(codes, subsets)
    return float(np.mean([w.consistency(subsets[i], subsets[j]) for i, j in pairs]))


def subset_similarity(
    subsets_a: Sequence[np.ndarray],
    subsets_b: Sequence[np.ndarray],
    n_features: int,
    *,
    measure: str = "kuncheva",
    codes: np.ndarray | None = None,
    weights: InformationWeights | None = None,
) -> float:
    """Similarity of two selectors: the mean over bootstraps ``b`` of the consistency
    of their subsets on the same bootstrap sample ``b`` (Brown et al. 2012, 5.2)."""
    if len(subsets_a) != len(subsets_b) or not subsets_a:
        raise ValueError("both selectors need the same, non-zero number of subsets")
    pairs = list(zip(subsets_a, subsets_b, strict=True))
    if measure == "kuncheva":
        vals = [_kuncheva_pair(a, b, n_features) for a, b in pairs]
    elif measure == "information":
        if codes is None and weights is None:
            raise ValueError("measure='information' needs the discretised data in codes=")
        w = weights or InformationWeights.for_subsets(codes, subsets_a, subsets_b)  # type: ignore[arg-type]
        vals = [w.consistency(a, b) for a, b in pairs]
    else:
        raise ValueError(f"measure must be 'kuncheva' or 'information', got {measure!r}")
    return float(np.mean(vals))


def similarity_matrix(
    subsets: Mapping[str, Sequence[np.ndarray]],
    n_features: int,
    *,
    measure: str = "kuncheva",
    codes: np.ndarray | None = None,
    weights: InformationWeights | None = None,
) -> tuple[list[str], np.ndarray]:
    """Pairwise :func:`subset_similarity` of several selectors (diagonal: stability)."""
    names = list(subsets)
    m = len(names)
    S = np.zeros((m, m))
    w = weights
    if measure == "information" and w is None:
        if codes is None:
            raise ValueError("measure='information' needs the discretised data in codes=")
        w = InformationWeights.for_subsets(codes, *subsets.values())
    for i in range(m):
        for j in range(i, m):
            a = subsets[names[i]]
            if i == j:
                if measure == "kuncheva":
                    S[i, i] = kuncheva_stability(a, n_features)
                else:
                    S[i, i] = information_stability(a, codes, weights=w)  # type: ignore[arg-type]
            else:
                S[i, j] = S[j, i] = subset_similarity(
                    a, subsets[names[j]], n_features, measure=measure, codes=codes, weights=w
                )
    return names, S


def classical_mds(D: np.ndarray, n_components: int = 2) -> np.ndarray:
    """Classical (Torgerson) multi-dimensional scaling of a distance matrix.

    ``B = -1/2 J D^2 J`` with ``J = I - 11'/n``; the coordinates are the top
    eigenvectors of ``B`` scaled by the square roots of their (non-negative)
    eigenvalues. Signs are fixed so that the largest-magnitude entry of each axis is
    positive.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
    >>> D = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))
    >>> Y = classical_mds(D)
    >>> bool(np.allclose(np.sqrt(((Y[:, None] - Y[None]) ** 2).sum(-1)), D))
    True
    """
    D = np.asarray(D, dtype=np.float64)
    if D.ndim != 2 or D.shape[0] != D.shape[1]:
        raise ValueError("D must be a square matrix")
    if not np.allclose(D, D.T):
        raise ValueError("D must be symmetric")
    n = D.shape[0]
    J = np.eye(n) - np.full((n, n), 1.0 / n)
    B = -0.5 * J @ (D**2) @ J
    vals, vecs = np.linalg.eigh(B)
    top = np.argsort(vals)[::-1][:n_components]
    Y = vecs[:, top] * np.sqrt(np.clip(vals[top], 0.0, None))
    for c in range(Y.shape[1]):
        if Y[np.argmax(np.abs(Y[:, c])), c] < 0:
            Y[:, c] = -Y[:, c]
    return Y


# --------------------------------------------------------------------------- ROC, CV
def probe_roc(
    scores_or_order: Sequence[float], is_probe: Sequence[bool], *, order_given: bool = False
) -> tuple[np.ndarray, np.ndarray, float]:
    """Feature-selection ROC against probe features (Yang & Hu 2012, Figs. 2 and 4).

    Walk down the ranking (by decreasing score, or the given order); after each
    feature, the x value is the fraction of probes selected so far and the y value
    the fraction of original (non-probe) features selected so far. Returns
    ``(fpr, tpr, auc)`` with the curve starting at (0, 0) and the area by the
    trapezoid rule (1 = every original feature ranked above every probe). Tied
    scores keep the lower index first.

    Examples
    --------
    >>> fpr, tpr, auc = probe_roc([0.9, 0.1, 0.8, 0.2], [False, True, False, True])
    >>> auc
    1.0
    """
    is_probe = np.asarray(is_probe, dtype=bool)
    if order_given:
        order = np.asarray(scores_or_order, dtype=np.intp)
        if order.size != is_probe.size or np.unique(order).size != order.size:
            raise ValueError("an order must be a permutation of all features")
    else:
        s = np.asarray(scores_or_order, dtype=np.float64)
        if s.shape != is_probe.shape:
            raise ValueError("scores and is_probe must have the same length")
        order = np.argsort(-s, kind="stable")
    n_probe = int(is_probe.sum())
    n_real = is_probe.size - n_probe
    if n_probe == 0 or n_real == 0:
        raise ValueError("probe_roc needs at least one probe and one original feature")
    p = is_probe[order]
    fpr = np.concatenate([[0.0], np.cumsum(p) / n_probe])
    tpr = np.concatenate([[0.0], np.cumsum(~p) / n_real])
    auc = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))
    return fpr, tpr, auc


def cv_error(
    X: np.ndarray,
    y: np.ndarray,
    *,
    classifier: str | Any = "naive_bayes",
    features: Sequence[int] | None = None,
    n_splits: int = 10,
    random_state: Any = None,
) -> tuple[float, np.ndarray]:
    """k-fold cross-validated error of naive Bayes or CART on some features.

    Folds come from :func:`fsel.meta.resampling.resample_indices` (``resampling="kfold"``).
    ``classifier`` is ``"naive_bayes"`` (Gaussian naive Bayes), ``"cart"`` (a
    scikit-learn decision tree, ``random_state=0``) or any classifier estimator.
    Returns the mean error and the per-fold errors.
    """
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if features is not None:
        X = X[:, np.asarray(features, dtype=np.intp)]
    if isinstance(classifier, str):
        if classifier == "naive_bayes":
            model: Any = GaussianNB()
        elif classifier == "cart":
            model = DecisionTreeClassifier(random_state=0)
        else:
            raise ValueError(
                f"classifier must be 'naive_bayes', 'cart' or an estimator, got {classifier!r}"
            )
    else:
        model = classifier
    n = X.shape[0]
    errs = []
    for train in resample_indices(n, n_splits, resampling="kfold", random_state=random_state):
        test = np.ones(n, dtype=bool)
        test[train] = False
        m = clone(model).fit(X[train], y[train])
        errs.append(float(np.mean(m.predict(X[test]) != y[test])))
    arr = np.asarray(errs)
    return float(arr.mean()), arr
