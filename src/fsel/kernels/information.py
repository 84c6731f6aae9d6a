r"""Entropy, mutual information and conditional mutual information on discrete codes.

Plug-in (maximum-likelihood) estimates in bits by default (SPEC section 1):

.. math::

    H(X) = -\sum_x p(x) \log p(x), \qquad I(X;Y) = H(X) + H(Y) - H(X,Y),

    I(X;Y|Z) = H(X,Z) + H(Y,Z) - H(X,Y,Z) - H(Z).

The Miller-Madow correction adds ``(m - 1) / (2 N)`` nats to each entropy, ``m`` being
the number of non-empty cells. A joint variable ``XY`` is the code pair merged into
one code (:func:`joint`).

Two vocabularies live here:

* scalar functions on 1-D code arrays (:func:`entropy`, :func:`mutual_information`,
  :func:`conditional_mutual_information`, :func:`joint`) for users and tests;
* :class:`InformationTable`, the vectorised form the selectors use: it scores one
  variable against **all** candidate features in a single ``O(N K)`` pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsel.kernels._counting import cmim_lazy, grouped_nlogn, nlogn_table, numba_enabled

__all__ = [
    "InformationTable",
    "PairTerms",
    "conditional_mutual_information",
    "entropy",
    "joint",
    "mutual_information",
    "pair_terms_from_entropies",
]

_ESTIMATORS = ("plugin", "miller_madow")


def _as_codes(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"codes must be 1-D, got shape {x.shape}")
    _, inv = np.unique(x, return_inverse=True)
    return inv.reshape(-1)


def joint(*codes: np.ndarray) -> np.ndarray:
    """Merge several discrete variables into one: codes ``0..a-1`` of the tuples.

    Examples
    --------
    >>> joint([0, 0, 1, 1], [0, 1, 0, 1]).tolist()
    [0, 1, 2, 3]
    >>> joint([5, 5, 7], [1, 1, 1]).tolist()
    [0, 0, 1]
    """
    if not codes:
        raise ValueError("joint needs at least one variable")
    arrs = [_as_codes(c) for c in codes]
    n = arrs[0].size
    if any(a.size != n for a in arrs):
        raise ValueError("all variables must have the same length")
    out = arrs[0].astype(np.int64)
    for a in arrs[1:]:
        out = _as_codes(out * (int(a.max()) + 1) + a)
    return _as_codes(out)


def _entropy_of_codes(x: np.ndarray, base: float, estimator: str) -> float:
    if estimator not in _ESTIMATORS:
        raise ValueError(f"estimator must be one of {_ESTIMATORS}, got {estimator!r}")
    n = x.size
    if n == 0:
        raise ValueError("entropy of an empty sample is undefined")
    counts = np.bincount(x)
    counts = counts[counts > 0]
    p = counts / n
    h = float(-(p * np.log(p)).sum())
    if estimator == "miller_madow":
        h += (counts.size - 1) / (2.0 * n)
    return float(h / np.log(base))


def entropy(*codes: np.ndarray, base: float = 2.0, estimator: str = "plugin") -> float:
    """Joint entropy of one or more discrete variables.

    Parameters
    ----------
    *codes : 1-D arrays of equal length
        Discrete values (any labels); several arrays give the joint entropy.
    base : float
        Logarithm base (2 gives bits).
    estimator : {"plugin", "miller_madow"}

    Examples
    --------
    >>> entropy([0, 1, 0, 1])
    1.0
    >>> entropy([0, 0, 1, 1], [0, 1, 0, 1])
    2.0
    """
    return _entropy_of_codes(joint(*codes), base, estimator)


def mutual_information(
    x: np.ndarray, y: np.ndarray, *, base: float = 2.0, estimator: str = "plugin"
) -> float:
    """``I(X;Y) = H(X) + H(Y) - H(X,Y)``, clipped at 0 against rounding.

    Examples
    --------
    >>> mutual_information([0, 0, 1, 1], [0, 0, 1, 1])
    1.0
    >>> mutual_information([0, 1, 0, 1], [0, 0, 1, 1])
    0.0
    """
    hx = entropy(x, base=base, estimator=estimator)
    hy = entropy(y, base=base, estimator=estimator)
    hxy = entropy(x, y, base=base, estimator=estimator)
    return float(max(0.0, hx + hy - hxy))


def conditional_mutual_information(
    x: np.ndarray, y: np.ndarray, z: np.ndarray, *, base: float = 2.0, estimator: str = "plugin"
) -> float:
    """``I(X;Y|Z) = H(X,Z) + H(Y,Z) - H(X,Y,Z) - H(Z)``, clipped at 0.

    Examples
    --------
    >>> x = [0, 0, 1, 1]; z = [0, 1, 0, 1]
    >>> y = [0, 1, 1, 0]  # y = x XOR z
    >>> conditional_mutual_information(x, y, z)
    1.0
    >>> mutual_information(x, y)
    0.0
    """
    kw = {"base": base, "estimator": estimator}
    val = entropy(x, z, **kw) + entropy(y, z, **kw) - entropy(x, y, z, **kw) - entropy(z, **kw)
    return float(max(0.0, val))


@dataclass
class PairTerms:
    """Terms of every candidate ``Xk`` against one variable ``Xj`` (and the target ``Y``).

    All arrays have one entry per candidate feature, in bits.

    Attributes
    ----------
    mi : ``I(Xk;Xj)``
    cmi_given_y : ``I(Xk;Xj|Y)``
    joint_mi : ``I(XkXj;Y)``
    joint_entropy : ``H(Xk,Xj,Y)``
    cmi_given_j : ``I(Xk;Y|Xj)``
    """

    mi: np.ndarray
    cmi_given_y: np.ndarray
    joint_mi: np.ndarray
    joint_entropy: np.ndarray
    cmi_given_j: np.ndarray


def pair_terms_from_entropies(
    j: int,
    h_k: np.ndarray,
    h_ky: np.ndarray,
    h_y: float,
    h_kj: np.ndarray,
    h_kjy: np.ndarray,
) -> PairTerms:
    """The pair terms of every candidate ``Xk`` against ``Xj`` from the entropies
    ``H(Xk)``, ``H(Xk,Y)``, ``H(Y)``, ``H(Xk,Xj)`` and ``H(Xk,Xj,Y)`` (bits), whatever
    storage they were counted on."""
    h_j = h_k[j]
    h_jy = h_ky[j]
    return PairTerms(
        mi=np.maximum(0.0, h_k + h_j - h_kj),
        cmi_given_y=np.maximum(0.0, h_ky + h_jy - h_kjy - h_y),
        joint_mi=np.maximum(0.0, h_kj + h_y - h_kjy),
        joint_entropy=h_kjy,
        cmi_given_j=np.maximum(0.0, h_kj + h_jy - h_kjy - h_j),
    )


class InformationTable:
    """Discrete features and a target, ready to be scored in ``O(N K)`` passes.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples)
        Feature-major integer codes ``0..a_k-1`` (see :func:`fsel.kernels.discretize.discretize`).
    n_levels : ndarray of shape (n_features,)
    y : ndarray of shape (n_samples,)
        Target codes ``0..c-1``.
    estimator : {"plugin", "miller_madow"}
    n_jobs : int
        Threads for the counting pass (numba back-end).

    Attributes
    ----------
    relevance : ndarray of shape (n_features,)
        ``I(Xk;Y)`` in bits.
    feature_entropy : ndarray of shape (n_features,)
        ``H(Xk)`` in bits.
    """

    def __init__(
        self,
        codes: np.ndarray,
        n_levels: np.ndarray,
        y: np.ndarray,
        *,
        estimator: str = "plugin",
        n_jobs: int = 1,
    ) -> None:
        if estimator not in _ESTIMATORS:
            raise ValueError(f"estimator must be one of {_ESTIMATORS}, got {estimator!r}")
        self.codes = np.ascontiguousarray(codes)
        self.n_levels = np.asarray(n_levels, dtype=np.int64)
        self.y = np.asarray(y, dtype=np.int64)
        self.n_classes = int(self.y.max()) + 1
        self.n_samples = self.y.size
        self.estimator = estimator
        self.n_jobs = max(1, int(n_jobs))
        self._table = nlogn_table(self.n_samples)
        self._log2n = float(np.log2(self.n_samples))
        self._mm = (
            1.0 / (2.0 * self.n_samples * np.log(2.0)) if estimator == "miller_madow" else 0.0
        )
        ycounts = np.bincount(self.y)
        self._s_y = float(self._table[ycounts].sum())
        self._m_y = int(np.count_nonzero(ycounts))
        # (Xk, Y) and Xk alone for every feature, in one pass
        s_ky, s_k, m_ky, m_k = grouped_nlogn(
            self.codes, self.y, self.n_classes, self.n_classes, self._table, self.n_jobs
        )
        self._s_ky, self._s_k, self._m_ky, self._m_k = s_ky, s_k, m_ky, m_k
        self.feature_entropy = self._h(s_k, m_k)
        self.target_entropy = float(self._h(np.array(self._s_y), np.array(self._m_y)))
        self.relevance = np.maximum(
            0.0, self.feature_entropy + self.target_entropy - self._h(s_ky, m_ky)
        )

    @property
    def n_features(self) -> int:
        return self.codes.shape[0]

    def _h(self, s: np.ndarray, m: np.ndarray) -> np.ndarray:
        """Entropy in bits from ``sum c log2 c`` and the non-empty cell count."""
        h = self._log2n - np.asarray(s) / self.n_samples
        if self._mm:
            h = h + (np.asarray(m) - 1) * self._mm
        return h

    def pair_terms(self, j: int) -> PairTerms:
        """All pairwise terms of every candidate against feature ``j``, one pass."""
        ny = self.n_classes
        z = self.codes[j].astype(np.int64) * ny + self.y
        s_kjy, s_kj, m_kjy, m_kj = grouped_nlogn(
            self.codes, z, int(self.n_levels[j]) * ny, ny, self._table, self.n_jobs
        )
        return pair_terms_from_entropies(
            j,
            self.feature_entropy,
            self._h(self._s_ky, self._m_ky),
            self.target_entropy,
            self._h(s_kj, m_kj),
            self._h(s_kjy, m_kjy),
        )

    def lazy_cmim(self, k: int, tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Fleuret's lazy CMIM when the numba back-end is available, else None.

        Same picks and step scores as the vectorised engine; the third array holds,
        for unselected features, upper bounds of their last-step scores.
        """
        if not numba_enabled():
            return None
        return cmim_lazy(
            self.codes,
            self.y,
            self.n_levels,
            self.relevance,
            self._s_k,
            self._s_ky,
            self._m_k,
            self._m_ky,
            self._table,
            self._mm,
            k,
            tol,
        )

    def joint_codes(self, s: np.ndarray | None, j: int) -> np.ndarray:
        """Codes ``0..ns-1`` of the joint of the conditioning variable ``s`` and feature
        ``j`` (``s=None``: feature ``j`` alone), for :meth:`conditional_relevance`."""
        if s is None:
            return self.codes[j].astype(np.int64)
        merged = s * int(self.n_levels[j]) + self.codes[j].astype(np.int64)
        _, out = np.unique(merged, return_inverse=True)
        return out.reshape(-1)

    def conditional_relevance(self, s: np.ndarray) -> np.ndarray:
        """``I(Xk;Y|S)`` for every candidate, ``s`` being the codes ``0..ns-1`` of a
        (joint) conditioning variable."""
        s = np.asarray(s, dtype=np.int64)
        ns = int(s.max()) + 1
        ny = self.n_classes
        z = s * ny + self.y
        s_ksy, s_ks, m_ksy, m_ks = grouped_nlogn(
            self.codes, z, ns * ny, ny, self._table, self.n_jobs
        )
        zc = np.bincount(z, minlength=ns * ny)
        sc = np.bincount(s, minlength=ns)
        h_sy = float(self._h(self._table[zc].sum(), np.count_nonzero(zc)))
        h_s = float(self._h(self._table[sc].sum(), np.count_nonzero(sc)))
        return np.maximum(0.0, self._h(s_ks, m_ks) + h_sy - self._h(s_ksy, m_ksy) - h_s)
