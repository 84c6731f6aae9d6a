"""The information table on sparse codes: every counting pass costs ``O(nnz + K)``.

:class:`SparseInformationTable` is the sparse variant of
:class:`fsel.kernels.information.InformationTable` (the same protocol, so the one greedy
engine runs on it unchanged); its counting pass is
:func:`fsel.kernels._sparse_counting.sparse_grouped_nlogn`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from fsel.kernels._sparse_counting import sparse_grouped_nlogn
from fsel.kernels.discretize_sparse import SparseCodes
from fsel.kernels.information import _TERMS, InformationTable, PairTerms, pair_terms_from_entropies

__all__ = ["SparseInformationTable"]


class SparseInformationTable(InformationTable):
    """:class:`InformationTable` on sparse codes: every pass costs ``O(nnz + K)``.

    The same protocol (``relevance``, ``feature_entropy``, :meth:`pair_terms`,
    :meth:`conditional_relevance`, :meth:`lazy_cmim`, ``n_levels``, ``codes[j]``), so
    the one greedy engine runs on it unchanged. The counts of a feature against a
    variable come from its explicit entries (codes other than its zero code) plus the
    column totals of the variable (:func:`fsel.kernels._sparse_counting.sparse_grouped_nlogn`).

    Memory: every pass counts ``block_features`` candidates at a time, and
    :meth:`pair_term_blocks` (what the engine reads, ``partial_terms``) yields only the
    terms a criterion names, block by block, so a step holds no temporary over all
    candidates; ``feature_entropy`` is counted on first use (criteria reading
    ``I(Xk;Xj)`` or ``I(Xk;Xj|Y)``).

    Parameters
    ----------
    codes : SparseCodes
        From :func:`fsel.kernels.discretize_sparse.discretize_sparse`.
    n_levels, y, estimator, n_jobs
        As in :class:`InformationTable`.
    missing_codes : None
        Pairwise deletion is not available on sparse codes: a stored NaN is one more
        level of its column (``missing="level"``); a missing code raises ValueError.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from fsel.kernels.discretize_sparse import discretize_sparse
    >>> X = sp.csc_matrix(np.array([[1, 0], [1, 0], [0, 1], [0, 0]]))
    >>> sc, levels, _ = discretize_sparse(X, np.array([True, True]))
    >>> table = SparseInformationTable(sc, levels, np.array([1, 1, 0, 0]))
    >>> table.relevance.round(3).tolist()
    [1.0, 0.311]
    """

    codes: SparseCodes  # type: ignore[assignment]

    #: candidates per counting pass: the per-candidate temporaries of a pass stay
    #: ``O(block_features)``, whatever the number of features
    block_features = 4096
    #: :meth:`pair_terms` computes only the fields named in ``terms``
    partial_terms = True

    def _prepare_codes(self, codes: SparseCodes) -> SparseCodes:  # type: ignore[override]
        if not isinstance(codes, SparseCodes):
            raise TypeError("SparseInformationTable needs SparseCodes (see discretize_sparse)")
        return codes

    def _init_available(self) -> None:
        raise ValueError(
            "pairwise deletion (missing='available') is not supported on sparse codes; "
            "a stored NaN is one more level of its column (missing='level')"
        )

    def _blocks(
        self, z: np.ndarray, nz: int, group: int, k0: int = 0, k1: int | None = None
    ) -> Iterator[tuple[slice, tuple[np.ndarray, ...]]]:
        """:func:`~fsel.kernels._sparse_counting.sparse_grouped_nlogn` of the explicit entries
        against ``z``, block of ``block_features`` candidates by block (of features
        ``k0..k1-1``): ``(slice, sums)`` pairs. Each feature's sums do not depend on
        the blocks (the dense table's paired kernel does not apply)."""
        c = self.codes
        a_max = int(self.n_levels.max(initial=1))
        z = np.ascontiguousarray(z, dtype=np.int64)
        k1 = self.n_features if k1 is None else k1
        for b0 in range(k0, k1, self.block_features):
            b1 = min(k1, b0 + self.block_features)
            p0, p1 = int(c.indptr[b0]), int(c.indptr[b1])
            ip = c.indptr[b0 : b1 + 1].astype(np.int64) - p0
            sums = sparse_grouped_nlogn(
                ip, c.rows[p0:p1], c.codes[p0:p1], a_max, z, nz, group, self._table, self.n_jobs
            )
            yield slice(b0, b1), sums
            del sums  # (freed before the next block is counted)

    def _count(self, z: np.ndarray, nz: int, group: int) -> tuple[np.ndarray, ...]:
        """The sums of every feature against ``z`` (see :meth:`_blocks`), whole."""
        outs = tuple(np.empty(self.n_features, dt) for dt in (float, float, np.int64, np.int64))
        for sl, sums in self._blocks(z, nz, group):
            for o, v in zip(outs, sums, strict=True):
                o[sl] = v
        return outs

    def _init_relevance(self) -> None:
        """``relevance`` block by block; ``H(Xk)`` and ``H(Xk,Y)`` are counted again
        when a criterion first needs them (:attr:`feature_entropy`)."""
        self._h_k: np.ndarray | None = None
        self._h_ky: np.ndarray | None = None
        ny = self.n_classes
        rel = np.empty(self.n_features)
        cells = np.empty(self.n_features, dtype=np.int64)
        for sl, (s_ky, s_k, m_ky, m_k) in self._blocks(self.y, ny, ny):
            rel[sl] = self._relevance(self._h(s_k, m_k), s_ky, m_ky)
            cells[sl] = m_k
        self.relevance = rel
        self._cells = cells  # the levels each feature takes on the rows

    @property
    def constant_features(self) -> np.ndarray:  # type: ignore[override]
        """Mask of the features with a single level on the rows (zero entropy), from
        the relevance pass (no second count)."""
        cells = getattr(self, "_cells", None)
        return super().constant_features if cells is None else cells <= 1

    def _marginals(self) -> tuple[np.ndarray, np.ndarray]:
        if self._h_k is None:
            ny = self.n_classes
            h_k, h_ky = np.empty(self.n_features), np.empty(self.n_features)
            for sl, (s_ky, s_k, m_ky, m_k) in self._blocks(self.y, ny, ny):
                h_k[sl] = self._h(s_k, m_k)
                h_ky[sl] = self._h(s_ky, m_ky)
            self._h_k, self._h_ky = h_k, h_ky
        return self._h_k, self._h_ky  # type: ignore[return-value]

    @property
    def feature_entropy(self) -> np.ndarray:  # type: ignore[override]
        """``H(Xk)`` in bits, counted on first use."""
        return self._marginals()[0]

    def _marginals_of(self, j: int) -> tuple[float, float]:
        """``H(Xj)`` and ``H(Xj,Y)``: the same numbers as in :attr:`feature_entropy`."""
        if self._h_k is not None:
            return float(self._h_k[j]), float(self._h_ky[j])  # type: ignore[index]
        ny = self.n_classes
        ((_, (s_ky, s_k, m_ky, m_k)),) = self._blocks(self.y, ny, ny, j, j + 1)
        return float(self._h(s_k, m_k)[0]), float(self._h(s_ky, m_ky)[0])

    def pair_terms(self, j: int, terms: Sequence[str] | None = None) -> PairTerms:
        """The pairwise terms of every candidate against feature ``j``; ``terms``: only
        these :class:`PairTerms` fields (the others are None)."""
        names = _TERMS if terms is None else tuple(terms)
        out = {name: np.empty(self.n_features) for name in names}
        for sl, t in self.pair_term_blocks(j, names):
            for name in names:
                out[name][sl] = getattr(t, name)
        return PairTerms(**out)

    def pair_term_blocks(
        self, j: int, terms: Sequence[str] = _TERMS
    ) -> Iterator[tuple[slice, PairTerms]]:
        """:meth:`pair_terms` block of ``block_features`` candidates by block:
        ``(slice, terms of those candidates)`` pairs (what the greedy engine reads)."""
        names = tuple(terms)
        ny = self.n_classes
        z = self.codes[j].astype(np.int64) * ny + self.y
        h_k = h_ky = None
        if "mi" in names or "cmi_given_y" in names:
            h_k, h_ky = self._marginals()
        h_j, h_jy = 0.0, 0.0
        if {"mi", "cmi_given_y", "cmi_given_j"} & set(names):
            h_j, h_jy = self._marginals_of(j)
        for sl, (s_kjy, s_kj, m_kjy, m_kj) in self._blocks(z, int(self.n_levels[j]) * ny, ny):
            t = pair_terms_from_entropies(
                j,
                None if h_k is None else h_k[sl],
                None if h_ky is None else h_ky[sl],
                self.target_entropy,
                self._h(s_kj, m_kj),
                self._h(s_kjy, m_kjy),
                h_j=h_j,
                h_jy=h_jy,
            )
            yield sl, t
            del t, s_kjy, s_kj, m_kjy, m_kj  # one block's arrays alive at a time

    def pair_mi(self, j: int) -> np.ndarray:
        """``I(Xk;Xj)`` of every candidate (:meth:`pair_terms` with ``mi`` only)."""
        return self.pair_terms(j, ("mi",)).mi  # type: ignore[return-value]

    def conditional_relevance(self, s: np.ndarray) -> np.ndarray:
        """``I(Xk;Y|S)`` for every candidate, block by block."""
        s = np.asarray(s, dtype=np.int64)
        ns = int(s.max()) + 1
        ny = self.n_classes
        z = s * ny + self.y
        h_sy, h_s = self._conditioning_entropies(s, z, ns)
        out = np.empty(self.n_features)
        for sl, sums in self._blocks(z, ns * ny, ny):
            out[sl] = self._cmi_from_sums(h_sy, h_s, *sums)
        return out

    def lazy_cmim(self, k: int, tol: float) -> None:
        """No lazy CMIM on sparse codes: the engine's vectorised path (``O(nnz)`` a
        step) is used."""
        return None
