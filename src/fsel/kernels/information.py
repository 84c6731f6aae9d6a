r"""Entropy, mutual information and conditional mutual information on discrete codes.

Plug-in (maximum-likelihood) estimates in bits by default (docs/user_guide/information.rst):

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
  variable against **all** candidate features in a single ``O(N K)`` pass (its sparse
  variant: :class:`fsel.kernels.information_sparse.SparseInformationTable`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fsel.kernels._counting import (
    PairCodes,
    _small_dense,
    available_nlogn,
    grouped_nlogn,
    nlogn_table,
    numba_enabled,
    pack_pairs,
    pack_pairs_in_place,
    paired_nlogn,
)
from fsel.kernels.discretize import smallest_code_dtype
from fsel.kernels.lazy_cmim import MAX_BATCH, dense_refresh, lazy_cmim_search
from fsel.kernels.value_ranks import joint_ranks, joint_target, value_ranks
from fsel.utils.parallel import spans, thread_map

__all__ = [
    "ZERO_ENTROPY",
    "InformationTable",
    "PairTerms",
    "conditional_mutual_information",
    "entropy",
    "joint",
    "label_summary",
    "miller_madow_per_cell",
    "mutual_information",
    "pair_terms_from_entropies",
    "value_ranks",
]


_ESTIMATORS = ("plugin", "miller_madow")

#: bits: a feature whose entropy is not above this takes a single level on the rows
#: (a constant column; rounding leaves ~1e-15 where the exact value is 0, while one row
#: out of N at another level gives about log2(N) / N bits, far above it)
ZERO_ENTROPY = 1e-10
_TERMS = ("mi", "cmi_given_y", "joint_mi", "joint_entropy", "cmi_given_j")


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


def miller_madow_per_cell(estimator: str, n_samples: int) -> float:
    """The Miller-Madow bias correction of an entropy, in bits, per observed cell.

    ``H_MM = H_plugin + (m - 1) / (2 N ln 2)`` for ``m`` observed cells of ``N`` rows:
    this returns ``1 / (2 N ln 2)`` for ``estimator="miller_madow"`` and 0 for the
    plug-in estimator; the tables multiply it by their cell counts.

    Examples
    --------
    >>> round(miller_madow_per_cell("miller_madow", 100) * 200 * float(np.log(2)), 12)
    1.0
    >>> miller_madow_per_cell("plugin", 100)
    0.0
    """
    return 1.0 / (2.0 * n_samples * float(np.log(2.0))) if estimator == "miller_madow" else 0.0


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

    All arrays have one entry per candidate feature, in bits. A criterion that needs
    only ``mi`` (``Criterion.terms == ("mi",)``) may get the other fields as None
    (:meth:`InformationTable.pair_mi`); so may one that reads only the fields it names
    in ``Criterion.terms``, from a table with ``partial_terms`` (the sparse table).

    Attributes
    ----------
    mi : ``I(Xk;Xj)``
    cmi_given_y : ``I(Xk;Xj|Y)``
    joint_mi : ``I(XkXj;Y)``
    joint_entropy : ``H(Xk,Xj,Y)``
    cmi_given_j : ``I(Xk;Y|Xj)``
    """

    mi: np.ndarray | None = None
    cmi_given_y: np.ndarray | None = None
    joint_mi: np.ndarray | None = None
    joint_entropy: np.ndarray | None = None
    cmi_given_j: np.ndarray | None = None


def pair_terms_from_entropies(
    j: int,
    h_k: np.ndarray | None,
    h_ky: np.ndarray | None,
    h_y: float,
    h_kj: np.ndarray,
    h_kjy: np.ndarray,
    *,
    h_j: np.ndarray | None = None,
    h_jy: np.ndarray | None = None,
) -> PairTerms:
    """The pair terms of every candidate ``Xk`` against ``Xj`` from the entropies
    ``H(Xk)``, ``H(Xk,Y)``, ``H(Y)``, ``H(Xk,Xj)`` and ``H(Xk,Xj,Y)`` (bits), whatever
    storage they were counted on. ``h_j``/``h_jy`` (default ``h_k[j]``/``h_ky[j]``):
    per-candidate ``H(Xj)``/``H(Xj,Y)`` where every term has its own rows (pairwise
    deletion). ``h_k``/``h_ky`` None (with ``h_j``/``h_jy`` given): ``mi``/
    ``cmi_given_y`` are not computed (None)."""
    h_j = h_k[j] if h_j is None else h_j
    h_jy = h_ky[j] if h_jy is None else h_jy
    return PairTerms(
        mi=None if h_k is None else np.maximum(0.0, h_k + h_j - h_kj),
        cmi_given_y=None if h_ky is None else np.maximum(0.0, h_ky + h_jy - h_kjy - h_y),
        joint_mi=np.maximum(0.0, h_kj + h_y - h_kjy),
        joint_entropy=h_kjy,
        cmi_given_j=np.maximum(0.0, h_kj + h_jy - h_kjy - h_j),
    )


#: Rows a thread of :func:`pair_z_codes` takes at least (fewer: not worth a thread).
_Z_ROWS_PER_THREAD = 1 << 18


def pair_z_codes(codes: Any, j: int, ny: int, y: np.ndarray, dtype: Any, n_jobs: int) -> np.ndarray:
    """``Z = Xj * ny + Y`` in ``dtype`` (an integer type that holds ``aj * ny - 1``)
    from the code matrix ``codes`` (an ndarray or :class:`PairCodes`) and the target
    codes ``y``, row spans in ``n_jobs`` threads (numpy's integer ufuncs release the
    GIL): the same integers as the one-thread ``codes[j].astype(dtype) * ny + y``.

    Examples
    --------
    >>> C = np.array([[0, 1, 2], [2, 2, 0]], dtype=np.uint8)
    >>> pair_z_codes(C, 1, 2, np.array([1, 0, 1], dtype=np.uint8), np.uint8, 2).tolist()
    [5, 4, 1]
    """
    n = codes.shape[1]
    z = np.empty(n, dtype=dtype)
    mult = np.dtype(dtype).type(ny)

    def fill(a: int, b: int) -> None:
        seg = z[a:b]
        seg[...] = codes.row_span(j, a, b) if isinstance(codes, PairCodes) else codes[j, a:b]
        seg *= mult
        seg += y[a:b]

    threads = max(1, min(int(n_jobs), n // _Z_ROWS_PER_THREAD))
    thread_map(fill, spans(n, threads) or [(0, 0)], threads)
    return z


#: Rows a thread of :func:`label_summary` takes at least (fewer: not worth a thread).
_LABEL_ROWS_PER_THREAD = 1 << 18


def label_summary(y: np.ndarray, n_jobs: int = 1) -> tuple[np.ndarray, np.ndarray | None]:
    """The counts of the label codes ``y`` (``np.bincount(y)``: up to the largest) and
    ``y`` in one byte a label, in one pass split by rows among ``n_jobs`` threads where
    numba counts a large target with labels below 256 (the same numbers for any
    ``n_jobs``); numpy's counts and None otherwise.

    Examples
    --------
    >>> counts, small = label_summary(np.array([0, 2, 2, 1, 2]))
    >>> counts.tolist(), small  # a small target: numpy
    ([1, 1, 3], None)
    """
    n = y.size
    if n > _LABEL_ROWS_PER_THREAD and numba_enabled():
        from fsel.kernels._numba_labels import label_counts_rows

        parts = spans(n, max(1, min(int(n_jobs), n // _LABEL_ROWS_PER_THREAD)))
        small = np.empty(n, dtype=np.uint8)
        counts = np.zeros((len(parts), 256), dtype=np.int64)
        ok = thread_map(
            lambda t, a, b: label_counts_rows(y, small, counts[t], a, b),
            [(t, a, b) for t, (a, b) in enumerate(parts)],
            len(parts),
        )
        if all(ok):
            total = counts.sum(axis=0)
            return total[: int(np.flatnonzero(total)[-1]) + 1], small
    return np.bincount(y), None


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
    missing_codes : ndarray of shape (n_features,) or None
        Pairwise deletion (``missing="available"``, docs/user_guide/missing_sparse.rst): the code
        that
        marks a missing value of every feature (-1 for a feature without any). Each
        term is then estimated on the rows where its own variables are observed, with
        its own sample size: ``I(Xk;Y)`` where ``Xk`` is observed; the pair terms where
        ``Xk`` and ``Xj`` both are; ``I(Xk;Y|S)`` where ``Xk`` and every member of
        ``S`` are (the conditioning codes carry -1 for the rows to drop). These terms
        do not come from one joint distribution, so identities such as the chain rule
        need not hold between them. None (or no feature with a missing code): every
        row counts, missing codes being ordinary levels (``missing="level"``).

    Attributes
    ----------
    relevance : ndarray of shape (n_features,)
        ``I(Xk;Y)`` in bits.
    feature_entropy : ndarray of shape (n_features,)
        ``H(Xk)`` in bits.
    missing_codes : ndarray or None
        As given, or None when no feature has a missing code.
    """

    #: per feature the code of a missing value (-1: none), for pairwise deletion
    missing_codes: np.ndarray | None = None

    def __init__(
        self,
        codes: np.ndarray,
        n_levels: np.ndarray,
        y: np.ndarray,
        *,
        estimator: str = "plugin",
        n_jobs: int = 1,
        missing_codes: np.ndarray | None = None,
        pack_in_place: bool = False,
    ) -> None:
        if estimator not in _ESTIMATORS:
            raise ValueError(f"estimator must be one of {_ESTIMATORS}, got {estimator!r}")
        self.codes = self._prepare_codes(codes)
        self._pack_in_place = bool(pack_in_place)
        self.n_jobs = max(1, int(n_jobs))
        self.n_levels = np.asarray(n_levels, dtype=np.int64)
        self.y = np.asarray(y, dtype=np.int64)
        ycounts, self._y_codes = label_summary(self.y, self.n_jobs)
        self.n_classes = ycounts.size
        self.n_samples = self.y.size
        self.estimator = estimator
        self._table = nlogn_table(self.n_samples, self.n_jobs)
        self._log2n = float(np.log2(self.n_samples))
        self._mm = miller_madow_per_cell(estimator, self.n_samples)
        self._s_y = float(self._table[ycounts].sum())
        self._m_y = int(np.count_nonzero(ycounts))
        self.missing_codes = None
        if missing_codes is not None:
            miss = np.asarray(missing_codes, dtype=np.int64)
            if miss.shape != (self.codes.shape[0],):
                raise ValueError("missing_codes must hold one code per feature")
            if (miss >= 0).any():
                self.missing_codes = miss
                self._init_available()
                return
        self.target_entropy = float(self._h(np.array(self._s_y), np.array(self._m_y)))
        self._init_relevance()

    def _init_relevance(self) -> None:
        """``feature_entropy`` and ``relevance``: (Xk, Y) and Xk alone for every
        feature, in one pass."""
        sums = self._step_sums(None, True)  # the packed pairs against Y, if they apply
        if sums is None:
            y = self._y_small() if type(self)._count is InformationTable._count else self.y
            sums = self._count(y, self.n_classes, self.n_classes)
        s_ky, s_k, m_ky, m_k = sums
        self._s_ky, self._s_k, self._m_ky, self._m_k = s_ky, s_k, m_ky, m_k
        self.feature_entropy = self._h(s_k, m_k)
        self.relevance = self._relevance(self.feature_entropy, s_ky, m_ky)

    def _relevance(self, h_k: np.ndarray, s_ky: np.ndarray, m_ky: np.ndarray) -> np.ndarray:
        """``I(Xk;Y)`` from ``H(Xk)`` and the sums of ``(Xk, Y)``."""
        return np.maximum(0.0, h_k + self.target_entropy - self._h(s_ky, m_ky))

    @property
    def n_features(self) -> int:
        return self.codes.shape[0]

    @property
    def constant_features(self) -> np.ndarray:
        """Mask of the features with zero entropy (a single level on the rows that
        count): the greedy engine takes them after every other feature."""
        return np.asarray(self.feature_entropy) <= ZERO_ENTROPY

    def _prepare_codes(self, codes: np.ndarray) -> np.ndarray:
        if isinstance(codes, PairCodes):  # already packed (packed_integer_codes)
            return codes
        return np.ascontiguousarray(codes)

    # ------------------------------------------------ pairwise deletion ("available")

    def _h_rows(self, s: np.ndarray, m: np.ndarray, n: np.ndarray) -> np.ndarray:
        """Entropies in bits from ``sum c log2 c``, non-empty cells and the per-term
        sample size ``n`` (0 where no row is left)."""
        n = np.asarray(n, dtype=np.float64)
        safe = np.maximum(n, 1.0)
        h = np.log2(safe) - np.asarray(s) / safe
        if self._mm:
            h = h + (np.asarray(m) - 1) / (2.0 * safe * np.log(2.0))
        return np.where(n > 0, h, 0.0)

    def _available_entropies(self, z: np.ndarray, nz: int) -> tuple[np.ndarray, ...]:
        """The seven entropies of :func:`available_nlogn` for ``z = u * ny + y``."""
        if nz == 0:  # no row observed at all
            zero = np.zeros(self.n_features)
            return (zero,) * 7
        packed = self._packed_codes()  # first: it may turn the codes into PairCodes
        s, m, n = available_nlogn(
            self.codes,
            self.missing_codes,
            z,
            nz,
            self.n_classes,
            self._table,
            self.n_jobs,
            packed=packed,
        )
        return tuple(self._h_rows(s[r], m[r], n) for r in range(s.shape[0]))

    def _packed_codes(self) -> tuple[np.ndarray, int] | None:
        """:meth:`_pairs` where numba counts (None otherwise)."""
        return self._pairs() if numba_enabled() else None

    def _pairs(self) -> tuple[np.ndarray, int] | None:
        """The codes packed two features per byte (:func:`pack_pairs`), made once; None
        when the alphabets are too large. With ``pack_in_place`` (the caller gave up the
        code matrix) the pairs are written over the matrix itself, which then becomes a
        :class:`~fsel.kernels._counting.PairCodes` (rows unpacked when read): no second
        copy, so a fit's memory stays near one code matrix."""
        if not hasattr(self, "_packed"):
            self._packed = None
            if isinstance(self.codes, PairCodes):  # given packed
                self._packed = (self.codes.packed, self.codes.a)
            if self._pack_in_place and isinstance(self.codes, np.ndarray):
                top = int(self.n_levels.max()) - 1 if self.n_levels.size else 0
                # the codes are 0..n_levels-1: the largest is known, no pass to find it
                paired = pack_pairs_in_place(self.codes, self.n_jobs, top=top)
                if paired is not None:
                    self.codes = paired
                    self._packed = (paired.packed, paired.a)
            if self._packed is None and isinstance(self.codes, np.ndarray):
                self._packed = pack_pairs(self.codes)
        return self._packed

    def _init_available(self) -> None:
        ny = self.n_classes
        h_ky, _, h_k, _, _, _, h_y = self._available_entropies(self.y, ny)
        self.feature_entropy = h_k
        self.target_entropy = float(self._h(np.array(self._s_y), np.array(self._m_y)))
        self.relevance = np.maximum(0.0, h_k + h_y - h_ky)

    def _available_pair_terms(self, j: int) -> PairTerms:
        ny = self.n_classes
        cj = self.codes[j].astype(np.int64)
        z = cj * ny + self.y
        if self.missing_codes[j] >= 0:
            z[cj == self.missing_codes[j]] = -1
        h_kjy, h_kj, h_k, h_ky, h_jy, h_j, h_y = self._available_entropies(
            z, int(self.n_levels[j]) * ny
        )
        return pair_terms_from_entropies(j, h_k, h_ky, h_y, h_kj, h_kjy, h_j=h_j, h_jy=h_jy)

    def _h(self, s: np.ndarray, m: np.ndarray) -> np.ndarray:
        """Entropy in bits from ``sum c log2 c`` and the non-empty cell count."""
        h = self._log2n - np.asarray(s) / self.n_samples
        if self._mm:
            h = h + (np.asarray(m) - 1) * self._mm
        return h

    def pair_terms(self, j: int) -> PairTerms:
        """All pairwise terms of every candidate against feature ``j``, one pass."""
        if self.missing_codes is not None:
            return self._available_pair_terms(j)
        ny = self.n_classes
        sums = self._step_sums(j, True)
        if sums is None:
            sums = self._count(self._pair_z(j), int(self.n_levels[j]) * ny, ny)
        return self._terms_from_sums(j, *sums)

    def _step_sums(self, j: int | None, with_y: bool) -> tuple[np.ndarray, ...] | None:
        """The sums of :meth:`_count` against ``Xj * ny + Y`` (``with_y`` False:
        against ``Xj``; ``j`` None: against ``Y``, the relevance pass) from
        :class:`~fsel.kernels.pair_step.PairStep` (``z`` never built whole, the
        threads' histograms reused, the reduction parallel: the same numbers bit for
        bit), where :meth:`_count` would take its packed-pair path; None elsewhere."""
        if type(self)._count is not InformationTable._count or self.missing_codes is not None:
            return None
        ny = self.n_classes if with_y else 1
        aj = 1 if j is None else int(self.n_levels[j])
        if j is None and (self.n_classes > 256 or not self.n_levels.size):
            return None
        a = int(self.n_levels.max())
        if _small_dense(self.codes, aj * ny) or a * aj * ny > max(4 * self.n_samples, 4096):
            return None
        if not numba_enabled():  # after the small-table check: no numba import there
            return None
        from fsel.kernels import pair_step

        if self.n_samples < 2 * pair_step._MIN_ROWS_PER_THREAD:
            # too few rows to split among threads: the packed-pair kernel of
            # :meth:`_count`, which sums each pair's histogram while it is in cache
            # (threads split the pairs), is faster (2,000 x 500 codes, JMI(20), one
            # thread: 16 ms against the step's 26 ms, which writes every pair's
            # histogram out and reads it back)
            return None
        packed = self._pairs()
        if packed is None:
            return None
        if getattr(self, "_step", None) is None:
            self._step = pair_step.PairStep(self.codes, packed[0], packed[1], self.n_jobs)
        y = self._y_small() if with_y else None
        return self._step.count(j, y, ny, aj, ny, self._table)

    def _y_small(self) -> np.ndarray:
        """The target codes in the smallest dtype (the counting kernels read them once
        per pair of features: one byte a row for up to 256 classes)."""
        if getattr(self, "_y_codes", None) is None:
            self._y_codes = self.y.astype(smallest_code_dtype(self.n_classes))
        return self._y_codes

    def _pair_z(self, j: int) -> np.ndarray:
        """``Xj * ny + Y`` (codes ``0..aj * ny - 1``) in the smallest dtype that holds
        them, built in place (no ``int64`` temporary of the table's length)."""
        ny = self.n_classes
        dtype = smallest_code_dtype(int(self.n_levels[j]) * ny)
        if isinstance(self.codes, (np.ndarray, PairCodes)) and self.n_jobs > 1:
            return pair_z_codes(self.codes, j, ny, self._y_small(), dtype, self.n_jobs)
        z = np.array(self.codes[j], dtype=dtype)
        z *= dtype(ny)
        z += self._y_small()
        return z

    def _terms_from_sums(
        self, j: int, s_kjy: np.ndarray, s_kj: np.ndarray, m_kjy: np.ndarray, m_kj: np.ndarray
    ) -> PairTerms:
        """:class:`PairTerms` from the :func:`grouped_nlogn` sums of ``(Xk, Xj, Y)``."""
        return pair_terms_from_entropies(
            j,
            self.feature_entropy,
            self._h(self._s_ky, self._m_ky),
            self.target_entropy,
            self._h(s_kj, m_kj),
            self._h(s_kjy, m_kjy),
        )

    def _count(self, z: np.ndarray, nz: int, group: int) -> tuple[np.ndarray, ...]:
        """:func:`grouped_nlogn` of the codes against ``z``; two features per pass
        (:func:`paired_nlogn`, same numbers) where the numba dense kernel would run and
        the alphabets are small enough to pack."""
        a = int(self.n_levels.max()) if self.n_levels.size else 1
        # a small table is counted with numpy (same numbers, no numba import or JIT)
        small = _small_dense(self.codes, nz)
        if not small and numba_enabled() and a * nz <= max(4 * self.n_samples, 4096):
            if isinstance(self.codes, np.ndarray) and np.may_share_memory(z, self.codes):
                z = z.copy()  # a row of the codes, which packing in place may overwrite
            packed = self._pairs()
            if packed is not None:
                return paired_nlogn(self.codes, packed, z, nz, group, self._table, self.n_jobs)
        # (np.asarray unpacks PairCodes: only for a histogram too large for the pair path)
        return grouped_nlogn(np.asarray(self.codes), z, nz, group, self._table, self.n_jobs)

    def pair_mi(self, j: int) -> np.ndarray:
        """``I(Xk;Xj)`` of every candidate, alone: what MIFS and mRMR need per step.

        The same values as ``pair_terms(j).mi``, bit for bit; where ``pair_terms``
        would count on the numba dense path, only the ``(Xk, Xj)`` histograms are
        counted (``ny`` times fewer cells). Under pairwise deletion, the available-case
        ``(Xk, Xj)`` histograms of the rows where both are observed (the target has no
        holes, so these are the rows of the full terms).
        """
        if self.missing_codes is not None:
            cj = self.codes[j].astype(np.int64)
            if self.missing_codes[j] >= 0:
                cj[cj == self.missing_codes[j]] = -1
            packed = self._packed_codes()  # first: it may turn the codes into PairCodes
            s, m, n = available_nlogn(
                self.codes,
                self.missing_codes,
                cj,
                int(self.n_levels[j]),
                1,
                self._table,
                self.n_jobs,
                packed=packed,
            )
            h_kj, h_k, h_j = (self._h_rows(s[r], m[r], n) for r in (0, 2, 4))
            return np.maximum(0.0, h_k + h_j - h_kj)
        aj = int(self.n_levels[j])
        a = int(self.n_levels.max())
        nz = aj * self.n_classes
        dense = (
            not _small_dense(self.codes, nz)  # small tables: numpy, no numba import
            and numba_enabled()
            and a * nz <= max(4 * self.n_samples, 4096)
        )
        if not dense:
            return self.pair_terms(j).mi
        sums = self._step_sums(j, False)
        s_kj, _, m_kj, _ = self._count(self.codes[j], aj, 1) if sums is None else sums
        h_k = self.feature_entropy
        return np.maximum(0.0, h_k + h_k[j] - self._h(s_kj, m_kj))

    def lazy_cmim(self, k: int, tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Fleuret's lazy CMIM (:func:`fsel.kernels.lazy_cmim.lazy_cmim_search`) when
        the numba back-end is available, else None (the engine's vectorised path then
        runs).

        Same picks and step scores as the engine; the third array holds, for
        unselected features, upper bounds of their last-step scores. Under pairwise
        deletion (``missing_codes``) the search runs with the available-case counts
        (:meth:`_lazy_cmim_available`, either back-end).
        """
        if self.missing_codes is not None:
            return self._lazy_cmim_available(k, tol)
        if not numba_enabled():
            return None
        y = self._y_codes if self._y_codes is not None else self.y
        refresh = dense_refresh(
            np.asarray(self.codes),
            y,
            self.n_classes,
            self.n_levels,
            (self._s_k, self._s_ky, self._m_k, self._m_ky),
            self._table,
            self._mm,
            self.n_jobs,
        )
        return lazy_cmim_search(self.relevance, k, tol, refresh, last=self.constant_features)

    #: the most candidates :meth:`_lazy_cmim_available` refreshes together
    LAZY_BATCH = MAX_BATCH

    def _available_cmi_given_j(self, sub: np.ndarray, j: int, bound: int) -> np.ndarray:
        """``I(Xk;Y|Xj)`` under pairwise deletion for the candidates ``sub`` only: the
        same numbers, bit for bit, as :meth:`pair_terms` ``(j).cmi_given_j[sub]`` (each
        feature is counted on its own; ``bound``, the whole table's ``codes.max() + 1``,
        picks the kernel)."""
        ny = self.n_classes
        cj = self.codes[j].astype(np.int64)
        z = cj * ny + self.y
        if self.missing_codes[j] >= 0:
            z[cj == self.missing_codes[j]] = -1
        s, m, n = available_nlogn(
            self.codes[sub],
            self.missing_codes[sub],
            z,
            int(self.n_levels[j]) * ny,
            ny,
            self._table,
            1,
            levels=bound,
        )
        h_kjy, h_kj, _, _, h_jy, h_j, _ = (self._h_rows(s[r], m[r], n) for r in range(7))
        return np.maximum(0.0, h_kj + h_jy - h_kjy - h_j)

    def _lazy_cmim_available(self, k: int, tol: float) -> tuple[np.ndarray, ...]:
        """Fleuret's lazy CMIM with pairwise deletion (:func:`lazy_cmim_search`, in
        batches of up to ``LAZY_BATCH``), with the same terms as the vectorised engine."""
        bound = int(self.codes.max()) + 1 if self.n_features else 1

        def refresh(top: np.ndarray, seen: np.ndarray, order: list[int], t: int) -> np.ndarray:
            score = np.full(top.size, np.inf)
            for s_ in range(int(seen.min()), t):
                mask = seen <= s_
                cmi = self._available_cmi_given_j(top[mask], order[s_], bound)
                score[mask] = np.minimum(score[mask], cmi)
            return score

        return lazy_cmim_search(
            self.relevance, k, tol, refresh, self.LAZY_BATCH, last=self.constant_features
        )

    def joint_codes(self, s: np.ndarray | None, j: int) -> np.ndarray:
        """Codes ``0..ns-1`` of the joint of the conditioning variable ``s`` and feature
        ``j`` (``s=None``: feature ``j`` alone), for :meth:`conditional_relevance`.

        Under pairwise deletion (``missing_codes``) the rows where ``Xj`` or a member of
        ``S`` is missing get -1 (dropped by :meth:`conditional_relevance`).
        """
        c = self.codes[j]
        if self.missing_codes is not None:
            return _merge_available(s, c.astype(np.int64), int(self.missing_codes[j]))
        if s is None:
            return c.astype(np.int64)
        return joint_ranks(s, c, int(self.n_levels[j]), self.n_jobs)

    def conditional_relevance(self, s: np.ndarray) -> np.ndarray:
        """``I(Xk;Y|S)`` for every candidate, ``s`` being the codes ``0..ns-1`` of a
        (joint) conditioning variable (under pairwise deletion, -1 marks the rows where
        a member of ``S`` is missing)."""
        s = np.asarray(s, dtype=np.int64)
        ns = int(s.max()) + 1
        ny = self.n_classes
        if self.missing_codes is not None:
            z = np.where(s < 0, -1, s * ny + self.y)
            h_ksy, h_ks, _, _, h_sy, h_s, _ = self._available_entropies(z, max(ns, 0) * ny)
            return np.maximum(0.0, h_ks + h_sy - h_ksy - h_s)
        z, zc = joint_target(s, self.y, ny, self.n_jobs)
        s_ksy, s_ks, m_ksy, m_ks = self._count(z, ns * ny, ny)
        h_sy, h_s = self.conditioning_entropies(zc)
        return self._cmi_from_sums(h_sy, h_s, s_ksy, s_ks, m_ksy, m_ks)

    def _conditioning_entropies(self, s: np.ndarray, z: np.ndarray, ns: int) -> tuple[float, float]:
        """``H(S, Y)`` and ``H(S)`` for :meth:`conditional_relevance`."""
        return self.conditioning_entropies(np.bincount(z, minlength=ns * self.n_classes))

    def conditioning_entropies(self, zc: np.ndarray) -> tuple[float, float]:
        """``H(S, Y)`` and ``H(S)`` from the counts ``zc`` of ``Z = S |Y| + Y`` (the
        counts of ``S`` are their sums over ``Y``)."""
        sc = zc.reshape(-1, self.n_classes).sum(axis=1)
        h_sy = float(self._h(self._table[zc].sum(), np.count_nonzero(zc)))
        h_s = float(self._h(self._table[sc].sum(), np.count_nonzero(sc)))
        return h_sy, h_s

    def _cmi_from_sums(
        self,
        h_sy: float,
        h_s: float,
        s_ksy: np.ndarray,
        s_ks: np.ndarray,
        m_ksy: np.ndarray,
        m_ks: np.ndarray,
    ) -> np.ndarray:
        """``I(Xk;Y|S)`` from ``H(S,Y)``, ``H(S)`` and the sums of ``(Xk, S, Y)``."""
        return np.maximum(0.0, self._h(s_ks, m_ks) + h_sy - self._h(s_ksy, m_ksy) - h_s)


def _merge_available(s: np.ndarray | None, c: np.ndarray, miss: int) -> np.ndarray:
    """Joint codes ``0..ns-1`` of ``(S, Xj)`` on the rows where ``S`` and ``Xj`` are
    observed, -1 elsewhere (``s`` None: ``S`` is empty)."""
    keep = c != miss if miss >= 0 else np.ones(c.size, dtype=bool)
    merged = c.copy()
    a = int(c.max()) + 1 if c.size else 1
    ns = 1
    if s is not None:
        keep &= s >= 0
        merged = s * a + c
        ns = int(s.max()) + 1 if s.size else 1
    out = np.full(c.size, -1, dtype=np.int64)
    if keep.any():
        out[keep] = value_ranks(merged[keep], max(ns, 1) * a)
    return out
