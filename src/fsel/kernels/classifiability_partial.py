"""Dong & Kothari's classifiability with missing values: the partial distance.

Over a subset ``v`` of ``k`` features, a pair (i, j) has the sum of its *observed*
per-feature contributions ``S_v(i, j)`` and their number ``C_v(i, j)``; the partial
distance is ``D2_v(i, j) = S_v(i, j) * (k / C_v(i, j))`` (infinite when
``C_v(i, j) = 0``). The rest of the rule (radius, neighbourhoods, purity) is that of
:mod:`fsel.kernels.classifiability`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fsel.kernels.classifiability import (
    _blocks,
    _onehot,
    _within_purity,
    all_zero,
    empty_subset_value,
    radius_sq,
)
from fsel.kernels.distances import DEFAULT_MEMORY_BUDGET, block_rows_for_budget, sq_delta

__all__ = ["PartialSearch", "subset_scores_partial"]

# ------------------------------------------------------- missing values: partial distance
# docs/user_guide/missing_sparse.rst. Over a subset ``v`` of ``k`` features, a pair (i, j) has the
# sum of
# its *observed* per-feature contributions ``S_v(i, j)`` and their number ``C_v(i, j)``;
# the partial distance is
#
#     D2_v(i, j) = S_v(i, j) * (k / C_v(i, j))       (infinite when C_v(i, j) = 0).
#
# A numeric contribution is observed when both values are; a symbolic one always is
# (a missing symbolic value mismatches everything, itself included: ``NaN != x``).
# ``S`` and ``C`` are sums over the features, so the forward search keeps them and adds
# a candidate's terms (exact: ``C`` counts, ``S`` adds in list order); ``D2`` itself is
# not additive (its factor changes with the subset), so the search evaluates every
# pair of every candidate, in row blocks under the memory budget.


def _observed_terms(Xs: np.ndarray, f: int, sym: bool, blk: slice) -> tuple[np.ndarray, np.ndarray]:
    """Feature ``f``'s contribution for the rows ``blk`` against all rows (0 where it
    is not observed) and the 'observed' flags."""
    z = Xs[:, f]
    delta = sq_delta(z[blk, None], z[None, :], sym)
    obs = ~np.isnan(delta)
    delta[~obs] = 0.0
    return delta, obs


def _partial_state(
    Xs: np.ndarray, symbolic: np.ndarray, features: Sequence[int], blk: slice
) -> tuple[np.ndarray, np.ndarray]:
    """``S`` and ``C`` of the rows ``blk`` over ``features`` (added in list order)."""
    n = Xs.shape[0]
    rows = blk.stop - blk.start
    S = np.zeros((rows, n))
    C = np.zeros((rows, n))
    for f in features:
        delta, obs = _observed_terms(Xs, int(f), bool(symbolic[f]), blk)
        S += delta
        C += obs
    return S, C


def _partial_d2(S: np.ndarray, C: np.ndarray, k: int, blk: slice) -> np.ndarray:
    """Partial squared distances of a row block; the sample itself and pairs with no
    observed component get ``inf`` (never a neighbour)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        D2 = np.where(C > 0, S * (k / C), np.inf)
    idx = np.arange(blk.start, blk.stop)
    D2[idx - blk.start, idx] = np.inf
    return D2


def _partial_samples(
    state,  # type: ignore[no-untyped-def]
    n: int,
    k: int,
    y: np.ndarray,
    n_classes: int,
    radius_factor: float,
    block: int,
    constant: bool = False,
) -> np.ndarray:
    """Per-sample purity from the partial distances; ``state(blk)`` gives ``(S, C)``.

    ``constant``: the subset is constant (:func:`all_zero`); every sample gets the
    empty set's value.

    A sample with no comparable other sample (no pair with an observed component) gets
    the empty set's value ``sum_c prior(c)**2`` and is left out of the radius mean.
    """
    blocks = _blocks(n, block)
    nn2 = np.empty(n)
    kept: list[np.ndarray] = []  # one block holds all rows: keep D2 for the second pass
    for blk in blocks:
        D2 = _partial_d2(*state(blk), k, blk)
        nn2[blk] = D2.min(axis=1)
        if len(blocks) == 1:
            kept.append(D2)
    finite = np.isfinite(nn2)
    out = np.full(n, empty_subset_value(y, n_classes))
    if not finite.any() or constant:
        return out
    thr = radius_sq(nn2[finite], radius_factor)
    onehot = _onehot(y, n_classes)
    for blk in blocks:
        D2 = kept[0] if kept else _partial_d2(*state(blk), k, blk)
        theta = np.maximum(thr, nn2[blk])
        values = _within_purity(D2 <= theta[:, None], y, onehot, n_classes)
        ok = finite[blk]
        out[blk][ok] = values[ok]
    return out


def _partial_block_rows(n: int, memory_budget: int) -> int:
    # S, C, the candidate's terms and flags, D2 and the neighbour flags per row block
    return block_rows_for_budget(n, memory_budget, factor=6)


def subset_scores_partial(
    Xs: np.ndarray,
    symbolic: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    features: Sequence[int],
    radius_factor: float,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> np.ndarray:
    """Per-sample values ``sum_c p_i(c)**2`` with missing values (partial distance).

    ``Xs`` from :func:`scale_columns`, NaN for a missing value; see the section comment
    above for the rule. ``features`` must not be empty.
    """
    features = [int(f) for f in features]
    if not features:
        raise ValueError("features must not be empty; use empty_subset_value")
    n = Xs.shape[0]
    k = len(features)

    def state(blk: slice) -> tuple[np.ndarray, np.ndarray]:
        return _partial_state(Xs, symbolic, features, blk)

    block = _partial_block_rows(n, memory_budget)
    constant = all_zero(Xs, symbolic, features)
    return _partial_samples(state, n, k, y, n_classes, radius_factor, block, constant)


class PartialSearch:
    """The forward search with missing values (partial distance,
    docs/user_guide/missing_sparse.rst).

    Same interface as :class:`IncrementalSearch` (``add``, ``evaluate``). ``S`` and
    ``C`` of the selected set are kept for all pairs when ``16 * N**2`` bytes fit half
    of ``memory_budget`` (otherwise rebuilt per row block from the selected features,
    the same additions in the same order); a candidate adds its own terms, so the
    result equals :func:`subset_scores_partial` of ``v + f`` exactly.
    """

    def __init__(
        self,
        Xs: np.ndarray,
        symbolic: np.ndarray,
        y: np.ndarray,
        n_classes: int,
        radius_factor: float,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        n_jobs: int | None = None,
    ) -> None:
        self.Xs = Xs
        self.symbolic = np.asarray(symbolic, dtype=bool)
        self.y = y
        self.n_classes = n_classes
        self.radius_factor = float(radius_factor)
        self.n_jobs = n_jobs
        self.selected: list[int] = []
        n = Xs.shape[0]
        budget = int(memory_budget)
        self.cache = 16 * n * n <= budget // 2
        self.block = _partial_block_rows(n, budget // 2 if self.cache else budget)
        self._S = np.zeros((n, n)) if self.cache else None
        self._C = np.zeros((n, n)) if self.cache else None

    def add(self, f: int) -> None:
        """Add feature ``f`` to the selected set."""
        f = int(f)
        if self._S is not None and self._C is not None:
            delta, obs = _observed_terms(self.Xs, f, bool(self.symbolic[f]), slice(None))
            self._S += delta
            self._C += obs
        self.selected.append(f)

    def _base(self, blk: slice) -> tuple[np.ndarray, np.ndarray]:
        if self._S is not None and self._C is not None:
            return self._S[blk], self._C[blk]
        return _partial_state(self.Xs, self.symbolic, self.selected, blk)

    def _one(self, f: int) -> np.ndarray:
        sym = bool(self.symbolic[f])

        def state(blk: slice) -> tuple[np.ndarray, np.ndarray]:
            S, C = self._base(blk)
            delta, obs = _observed_terms(self.Xs, f, sym, blk)
            return S + delta, C + obs

        n = self.Xs.shape[0]
        k = len(self.selected) + 1
        constant = all_zero(self.Xs, self.symbolic, [*self.selected, f])
        y, c, rf = self.y, self.n_classes, self.radius_factor
        return _partial_samples(state, n, k, y, c, rf, self.block, constant)

    def evaluate(self, candidates: Sequence[int]) -> np.ndarray:
        """Per-sample values of ``v + f`` for every candidate ``f``: shape (k, n)."""
        cand = np.asarray(candidates, dtype=np.intp)
        out = np.empty((cand.size, self.Xs.shape[0]))
        for q, f in enumerate(cand):
            out[q] = self._one(int(f))
        return out
