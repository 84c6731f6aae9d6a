r"""Stability of feature selection: how much the selected subsets agree across resamples.

Three measures, each cited where it is implemented:

* Kuncheva's consistency index of two equal-size subsets (Kuncheva 2007) and its mean
  over all pairs of many subsets,

  .. math:: I_C(A, B) = \frac{r K - k^2}{k (K - k)}, \qquad r = |A \cap B|;

* Yu, Ding & Loscalzo's information consistency (2008): a bipartite graph between two
  subsets weighted by :math:`I(X_a;X_b) / (H(X_a) + H(X_b))`, solved as a
  maximum-weight matching (Hungarian algorithm); the similarity is the matched weight
  total, so redundant but different features still count as agreeing;
* Nogueira, Sechidis & Brown's estimator (JMLR 2018), defined for subsets of any
  sizes, with its variance and an asymptotic confidence interval,

  .. math::

      \hat\Phi = 1 - \frac{\frac{1}{d}\sum_f \frac{M}{M-1}\hat p_f (1-\hat p_f)}
                           {\frac{\bar k}{d}\left(1-\frac{\bar k}{d}\right)}.

With equal subset sizes :math:`\hat\Phi` equals the mean pairwise Kuncheva index.

Subsets may be given as a list of index arrays (with ``n_features``) or as a boolean
matrix of shape ``(n_subsets, n_features)`` (one row per subset; the transpose of
NPFS's ``selection_matrix_``).

References
----------
Kuncheva, L. I. (2007). A stability index for feature selection. Proc. IASTED AIA,
390-395.
Yu, L., Ding, C. & Loscalzo, S. (2008). Stable feature selection via dense feature
groups. Proc. KDD, 803-811.
Nogueira, S., Sechidis, K. & Brown, G. (2018). On the stability of feature selection
algorithms. JMLR 18(174):1-54.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.stats import norm

__all__ = [
    "NogueiraStability",
    "StabilityReport",
    "information_consistency",
    "jaccard_index",
    "kuncheva_index",
    "mean_information_consistency",
    "mean_pairwise_kuncheva",
    "nogueira_stability",
    "stability_report",
    "subsets_to_matrix",
]


# --------------------------------------------------------------------------- helpers
def _as_index_set(s: Any, n_features: int) -> np.ndarray:
    arr = np.asarray(s)
    if arr.dtype == bool:
        if arr.shape != (n_features,):
            raise ValueError(
                f"a boolean subset mask must have shape ({n_features},), got {arr.shape}"
            )
        return np.flatnonzero(arr)
    arr = arr.reshape(-1)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"subsets must be integer indices or boolean masks, got dtype {arr.dtype}")
    arr = arr.astype(np.intp)
    if arr.size and (arr.min() < 0 or arr.max() >= n_features):
        raise ValueError(f"subset index out of range for n_features={n_features}")
    u = np.unique(arr)
    if u.size != arr.size:
        raise ValueError("a subset lists the same feature twice")
    return u


def subsets_to_matrix(subsets: Any, n_features: int | None = None) -> np.ndarray:
    """Return the boolean ``(n_subsets, n_features)`` matrix of some subsets.

    ``subsets`` is a 2-D boolean (or 0/1) matrix, returned as bool, or a sequence of
    index arrays / boolean masks, which needs ``n_features``.

    Examples
    --------
    >>> subsets_to_matrix([[0, 2], [1, 2]], 3).astype(int).tolist()
    [[1, 0, 1], [0, 1, 1]]
    """
    if isinstance(subsets, np.ndarray) and subsets.ndim == 2:
        Z = subsets
        if Z.dtype != bool:
            if not np.isin(Z, (0, 1)).all():
                raise ValueError("a selection matrix must hold only 0/1 or booleans")
            Z = Z.astype(bool)
        if n_features is not None and Z.shape[1] != n_features:
            raise ValueError(
                f"the selection matrix has {Z.shape[1]} columns but n_features={n_features}"
            )
        return Z.copy()
    if n_features is None:
        raise ValueError("n_features is needed when subsets are given as index arrays")
    sets = [_as_index_set(s, n_features) for s in subsets]
    Z = np.zeros((len(sets), int(n_features)), dtype=bool)
    for i, s in enumerate(sets):
        Z[i, s] = True
    return Z


# --------------------------------------------------------------------------- Kuncheva
def kuncheva_index(a: Any, b: Any, n_features: int) -> float:
    r"""Kuncheva's consistency index of two subsets of the same size ``k``.

    .. math:: I_C(A, B) = \frac{r K - k^2}{k (K - k)}, \qquad r = |A \cap B|,

    1 for identical subsets, about 0 for independent random ones, and as low as
    ``-1`` (Kuncheva 2007). Defined for ``0 < k < K`` only.

    Parameters
    ----------
    a, b : array-like of int indices, or boolean masks of length ``n_features``
    n_features : int
        ``K``, the number of candidate features.

    Examples
    --------
    >>> kuncheva_index([0, 1], [0, 2], 4)   # r=1, (1*4 - 4) / (2*2)
    0.0
    >>> kuncheva_index([0, 1], [0, 1], 4)
    1.0
    >>> kuncheva_index([0, 1], [2, 3], 4)
    -1.0
    """
    K = int(n_features)
    A, B = _as_index_set(a, K), _as_index_set(b, K)
    k = A.size
    if B.size != k:
        raise ValueError(
            f"Kuncheva's index needs subsets of equal size, got {k} and {B.size}; use "
            "nogueira_stability for subsets of different sizes"
        )
    if not 0 < k < K:
        raise ValueError(f"Kuncheva's index is undefined for subset size k={k} with K={K}")
    r = np.intersect1d(A, B, assume_unique=True).size
    return float((r * K - k * k) / (k * (K - k)))


def jaccard_index(a: Any, b: Any, n_features: int) -> float:
    r"""Jaccard similarity of two subsets (of any sizes): :math:`|A \cap B| / |A \cup B|`.

    1 for identical subsets, 0 for disjoint ones; two empty subsets score 1. Unlike
    Kuncheva's index it is not corrected for chance.

    Examples
    --------
    >>> jaccard_index([0, 1], [1, 2, 3], 5)
    0.25
    """
    K = int(n_features)
    A, B = _as_index_set(a, K), _as_index_set(b, K)
    union = np.union1d(A, B).size
    if union == 0:
        return 1.0
    return float(np.intersect1d(A, B, assume_unique=True).size / union)


def mean_pairwise_kuncheva(subsets: Any, n_features: int | None = None) -> float:
    """Mean Kuncheva index over all pairs of equal-size subsets (a selector's stability).

    Examples
    --------
    >>> round(mean_pairwise_kuncheva([[0, 1], [0, 2], [0, 1]], 4), 4)
    0.3333
    """
    Z = subsets_to_matrix(subsets, n_features)
    M, K = Z.shape
    if M < 2:
        raise ValueError(f"stability needs at least two subsets, got {M}")
    sizes = Z.sum(axis=1)
    k = int(sizes[0])
    if (sizes != k).any():
        raise ValueError(
            "Kuncheva's index needs subsets of equal size, got sizes "
            f"{sorted(set(sizes.tolist()))}; use nogueira_stability instead"
        )
    if not 0 < k < K:
        raise ValueError(f"Kuncheva's index is undefined for subset size k={k} with K={K}")
    # the overlaps |A_i & A_j| as a float product (BLAS; an int64 product has no fast
    # path): every partial sum is an integer at most K, exact in float32 below 2**24
    Zf = Z.astype(np.float32 if K < 1 << 24 else np.float64)
    R = Zf @ Zf.T
    iu = np.triu_indices(M, 1)
    r = R[iu].astype(np.float64)
    return float(np.mean((r * K - k * k) / (k * (K - k))))


# --------------------------------------------------------------------------- Yu et al.
def _codes_2d(codes: Any) -> np.ndarray:
    C = np.asarray(codes)
    if C.ndim != 2:
        raise ValueError(f"codes must be a 2-D (samples x features) array, got shape {C.shape}")
    if C.dtype.kind == "f" and not np.isfinite(C).all():
        raise ValueError("codes contain NaN or inf")
    return C


def _weights(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    from fsel.kernels.information import entropy, mutual_information

    h = {j: entropy(C[:, j]) for j in np.union1d(A, B).tolist()}
    W = np.zeros((A.size, B.size))
    for i, a in enumerate(A.tolist()):
        for j, b in enumerate(B.tolist()):
            den = h[a] + h[b]
            if den > 0:
                mi = h[a] if a == b else mutual_information(C[:, a], C[:, b])
                W[i, j] = mi / den
    return W


def information_consistency(a: Any, b: Any, codes: Any) -> float:
    r"""Yu, Ding & Loscalzo's information consistency of two subsets.

    Builds the bipartite graph between the features of ``A`` and of ``B`` with weights

    .. math:: w_{ab} = \frac{I(X_a; X_b)}{H(X_a) + H(X_b)} \in [0, \tfrac12],

    finds the maximum-weight matching (Hungarian algorithm,
    :func:`scipy.optimize.linear_sum_assignment`) and returns the matched weight total
    (docs/user_guide/npfs_stability.rst). A feature matched with itself weighs 1/2, so identical
    subsets
    of size ``k`` score ``k/2`` (for non-constant features). A pair of constant
    features (zero entropies) weighs 0. Entropies and mutual information are plug-in
    estimates in bits from :mod:`fsel.kernels.information`.

    Parameters
    ----------
    a, b : array-like of int
        Feature indices (the subsets may differ in size).
    codes : array-like of shape (n_samples, n_features)
        The discretised data; every distinct value of a column is one state
        (discretise float data first, e.g. with :mod:`fsel.kernels.discretize`).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[0, 0, 1], [0, 0, 0], [1, 1, 1], [1, 1, 0]])
    >>> information_consistency([0], [1], C)   # feature 1 copies feature 0
    0.5
    >>> information_consistency([0], [2], C)   # independent
    0.0
    """
    C = _codes_2d(codes)
    K = C.shape[1]
    A, B = _as_index_set(a, K), _as_index_set(b, K)
    if A.size == 0 or B.size == 0:
        return 0.0
    W = _weights(A, B, C)
    rows, cols = linear_sum_assignment(W, maximize=True)
    return float(W[rows, cols].sum())


def mean_information_consistency(subsets: Sequence[Any], codes: Any) -> float:
    """Mean :func:`information_consistency` over all pairs of subsets."""
    C = _codes_2d(codes)
    sets = [_as_index_set(s, C.shape[1]) for s in subsets]
    if len(sets) < 2:
        raise ValueError(f"stability needs at least two subsets, got {len(sets)}")
    vals = [
        information_consistency(sets[i], sets[j], C)
        for i in range(len(sets))
        for j in range(i + 1, len(sets))
    ]
    return float(np.mean(vals))


# --------------------------------------------------------------------------- Nogueira
@dataclass(frozen=True)
class NogueiraStability:
    """Nogueira et al.'s stability estimate with its variance and confidence interval.

    Attributes
    ----------
    stability : float
    variance : float
        Estimated variance of the estimate.
    lower, upper : float
        The ``1 - alpha`` asymptotic (normal) confidence interval.
    alpha : float
    """

    stability: float
    variance: float
    lower: float
    upper: float
    alpha: float


def nogueira_stability(
    subsets: Any, n_features: int | None = None, *, alpha: float = 0.05
) -> NogueiraStability:
    r"""Stability estimator of Nogueira, Sechidis & Brown (JMLR 2018).

    For ``M`` subsets of ``d`` features with selection frequencies
    :math:`\hat p_f` and mean size :math:`\bar k`,

    .. math::

        \hat\Phi = 1 - \frac{\frac{1}{d}\sum_f s_f^2}
                            {\frac{\bar k}{d}(1 - \frac{\bar k}{d})},
        \qquad s_f^2 = \frac{M}{M-1}\hat p_f (1 - \hat p_f).

    Its variance is :math:`\frac{4}{M^2}\sum_i (\hat\phi_i - \bar\phi)^2` with

    .. math::

        \hat\phi_i = \frac{1}{\frac{\bar k}{d}(1-\frac{\bar k}{d})}
          \Big[\frac{1}{d}\sum_f z_{if}\hat p_f - \frac{k_i \bar k}{d^2}
          + \frac{\hat\Phi}{2}\Big(\frac{2 k_i \bar k}{d^2} - \frac{k_i}{d}
          - \frac{\bar k}{d} + 1\Big)\Big],

    and the interval is :math:`\hat\Phi \pm z_{1-\alpha/2}\sqrt{\mathrm{Var}}`
    (their Theorem 8 and Corollary 9). Subsets may have different sizes; with equal
    sizes :math:`\hat\Phi` is the mean pairwise Kuncheva index.

    Parameters
    ----------
    subsets : bool matrix (M, d) or sequence of index arrays
    n_features : int, optional
        ``d``; needed for index arrays.
    alpha : float
        Level of the confidence interval (0.05 gives a 95% interval).

    Examples
    --------
    >>> r = nogueira_stability([[0, 1], [0, 2], [0, 1]], 4)
    >>> round(r.stability, 4)
    0.3333
    >>> r.lower < r.stability < r.upper
    True
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    Z = subsets_to_matrix(subsets, n_features).astype(np.float64)
    M, d = Z.shape
    if M < 2:
        raise ValueError(f"stability needs at least two subsets, got {M}")
    p = Z.mean(axis=0)
    kbar = float(p.sum())
    denom = (kbar / d) * (1.0 - kbar / d)
    if denom <= 0:
        raise ValueError(
            "Nogueira's stability is undefined when every subset is empty or every subset "
            "holds all features"
        )
    stab = 1.0 - (M / (M - 1)) * float(np.mean(p * (1.0 - p))) / denom
    k = Z.sum(axis=1)
    phi = (
        (Z @ p) / d
        - k * kbar / d**2
        + (stab / 2.0) * (2.0 * k * kbar / d**2 - k / d - kbar / d + 1.0)
    ) / denom
    var = float(4.0 / M**2 * np.sum((phi - phi.mean()) ** 2))
    half = float(norm.ppf(1.0 - alpha / 2.0)) * math.sqrt(var)
    return NogueiraStability(float(stab), var, float(stab - half), float(stab + half), alpha)


# --------------------------------------------------------------------------- report
@dataclass(frozen=True)
class StabilityReport:
    """Stability of a set of resampled selections (e.g. NPFS's ``stability_``).

    Attributes
    ----------
    n_subsets : int
    n_features : int
    mean_size : float
        Mean number of selected features per subset.
    kuncheva : float
        Mean pairwise Kuncheva index (NaN when the subset sizes differ or ``k`` is 0
        or ``K``).
    nogueira : NogueiraStability or None
        None when undefined (all subsets empty or full).
    """

    n_subsets: int
    n_features: int
    mean_size: float
    kuncheva: float
    nogueira: NogueiraStability | None

    def __str__(self) -> str:
        nog = (
            "undefined"
            if self.nogueira is None
            else f"{self.nogueira.stability:.3f} "
            f"[{self.nogueira.lower:.3f}, {self.nogueira.upper:.3f}] "
            f"({100 * (1 - self.nogueira.alpha):.0f}% CI)"
        )
        return (
            f"{self.n_subsets} subsets of {self.mean_size:.1f}/{self.n_features} features: "
            f"Kuncheva {self.kuncheva:.3f}, Nogueira {nog}"
        )


def stability_report(
    subsets: Any, n_features: int | None = None, *, alpha: float = 0.05
) -> StabilityReport:
    """Kuncheva and Nogueira stability of some subsets in one object.

    Examples
    --------
    >>> rep = stability_report([[0, 1], [0, 2], [0, 1]], 4)
    >>> round(rep.kuncheva, 4), round(rep.nogueira.stability, 4)
    (0.3333, 0.3333)
    """
    Z = subsets_to_matrix(subsets, n_features)
    M, d = Z.shape
    try:
        kun = mean_pairwise_kuncheva(Z)
    except ValueError:
        kun = float("nan")
    try:
        nog: NogueiraStability | None = nogueira_stability(Z, alpha=alpha)
    except ValueError:
        nog = None
    return StabilityReport(M, d, float(Z.sum(axis=1).mean()) if M else 0.0, kun, nog)
