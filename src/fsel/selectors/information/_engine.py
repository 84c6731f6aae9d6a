"""The one greedy forward-selection engine of the information-theoretic criteria.

Rules, the same for every criterion:

* step 1 picks ``argmax_k I(Xk;Y)``;
* at every later step each unselected candidate gets its criterion score and the
  maximum is added; **ties go to the lowest index** (scores within ``TIE_TOL`` =
  1e-10 bits of the maximum count as tied, so that rounding noise between equal
  quantities computed along different paths cannot break a tie);
* a selected feature is never a candidate again (its score is ``-inf``);
* **constant features come last**: a feature with zero entropy on the rows (one value,
  or one bin once binned) tells nothing about anything, yet some criteria score it
  above informative features (DISR's normaliser ``H(Xk,Xj,Y)`` is smallest for it;
  mRMR and MIFS subtract no redundancy for it). Such a feature is a candidate only
  once every other feature is selected; then the constant features are taken in
  column order, each with the score its criterion gives it at its step (CMI, which
  stops when nothing adds information, never reaches them);
* **"no candidate adds anything"**: every criterion except CMI still returns exactly
  ``k`` features — when all remaining scores are equal (for instance all zero) the
  tie rule picks the lowest indices, which is deterministic and never repeats a
  feature. CMI stops early instead, as soon as the best ``I(Xk;Y|S)`` is not above
  ``cmi_tol`` bits (once the joint of ``S`` has about one state per sample every score
  is zero up to rounding, and picking among rounding noise would be arbitrary).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fsel.kernels.information import ZERO_ENTROPY, InformationTable, PairTerms
from fsel.selectors.information._criteria import CRITERIA

__all__ = ["DEFAULT_CMI_TOL", "GreedyResult", "constant_features", "greedy_select"]

DEFAULT_CMI_TOL = 1e-10


@dataclass
class GreedyResult:
    """Selection order, the criterion value of each pick at its step, and the last
    scores of the candidates left unselected."""

    order: np.ndarray
    step_scores: np.ndarray
    last_scores: np.ndarray


TIE_TOL = 1e-10  # bits: scores this close to the best are ties (rounding noise)


# candidates per chunk of the argmax: its temporaries stay bounded on wide tables
# (16,384 candidates: 128 KiB of masked scores, small beside the table)
_CHUNK = 1 << 14


def _argmax_unselected(scores: np.ndarray, selected: np.ndarray) -> int:
    K = scores.size
    if K <= _CHUNK:
        masked = np.where(selected, -np.inf, scores)
        best = masked.max()
        if not np.isfinite(best):
            return int(np.argmax(masked))
        # lowest index among the scores within TIE_TOL of the best: mathematically equal
        # scores computed along different paths differ by rounding, and must still tie
        return int(np.argmax(masked >= best - TIE_TOL))
    # the same answer, chunk by chunk
    spans = [(a, min(K, a + _CHUNK)) for a in range(0, K, _CHUNK)]
    best = np.max([np.where(selected[a:b], -np.inf, scores[a:b]).max() for a, b in spans])
    if not np.isfinite(best):
        return int(np.argmax(np.where(selected, -np.inf, scores)))
    for a, b in spans:
        hit = np.where(selected[a:b], -np.inf, scores[a:b]) >= best - TIE_TOL
        if hit.any():
            return a + int(np.argmax(hit))
    raise AssertionError("unreachable: the best score is among the chunks")


def constant_features(table: InformationTable) -> np.ndarray:
    """Mask of the table's features with zero entropy (constant on its rows).

    A table that knows it says so (``constant_features``); otherwise the features
    whose ``feature_entropy`` is not above :data:`fsel.kernels.information.ZERO_ENTROPY`.
    """
    mask = getattr(table, "constant_features", None)
    if mask is None:
        mask = np.asarray(table.feature_entropy) <= ZERO_ENTROPY
    return np.asarray(mask, dtype=bool)


def _next_pick(scores: np.ndarray, selected: np.ndarray, held: np.ndarray | None) -> int:
    """The best unselected candidate; the ``held`` (constant) features only once no
    other is left, and then the first of them in column order."""
    if held is None:
        return _argmax_unselected(scores, selected)
    blocked = selected | held
    if not blocked.all():
        return _argmax_unselected(scores, blocked)
    return int(np.argmax(~selected))


def greedy_select(
    table: InformationTable,
    criterion: str,
    k: int,
    *,
    params: dict[str, float] | None = None,
    cmi_tol: float = DEFAULT_CMI_TOL,
    progress: Callable[[], None] | None = None,
) -> GreedyResult:
    """Run greedy forward selection of ``k`` features with a named criterion.

    Parameters
    ----------
    table : InformationTable
    criterion : str
        One of ``"mim", "mifs", "mrmr", "jmi", "cmim", "icap", "cife", "disr",
        "condred", "betagamma", "jmim", "cmi"``.
    k : int
        Number of features (CMI may return fewer).
    params : dict
        ``beta``/``gamma`` for the beta-gamma family.
    cmi_tol : float
        CMI stops when the best score is not above this (bits).
    progress : callable
        Called once per selected feature.
    """
    K = table.n_features
    rel = table.relevance
    selected = np.zeros(K, dtype=bool)
    # constant features: out of the running while another candidate is left
    held = constant_features(table)
    if not held.any():
        held = None
    first = _argmax_unselected(rel, selected if held is None else held)
    order = [first]
    step_scores = [float(rel[first])]
    selected[first] = True
    last = rel
    if progress is not None:
        progress()
    if criterion == "cmi":
        return _greedy_cmi(table, k, order, step_scores, selected, cmi_tol, progress)
    if criterion == "mim":
        # no pair terms needed: the ranking by relevance (TIE_TOL steps; a stable sort
        # leaves ties in index order)
        key = rel / TIE_TOL
        np.negative(np.round(key, out=key), out=key)
        if held is not None:
            key[held] = np.inf  # after every other feature, in column order
        ranked = np.argsort(key, kind="stable")[:k].copy()
        del key
        if progress is not None:
            for _ in range(k - 1):
                progress()
        return GreedyResult(ranked.astype(np.intp), rel[ranked].astype(float), rel)
    if criterion == "cmim":
        lazy = table.lazy_cmim(k, TIE_TOL)
        if lazy is not None:
            order_l, steps_l, partial = lazy
            if progress is not None:
                for _ in range(k - 1):
                    progress()
            return GreedyResult(order_l.astype(np.intp), steps_l, partial)
    rule = CRITERIA[criterion](**(params or {}))
    rule.start(rel)
    newest = first
    # MIFS/mRMR read I(Xk;Xj) only: tables that can count it alone do (same values)
    mi_only = tuple(rule.terms) == ("mi",) and hasattr(table, "pair_mi")
    # a table with partial_terms (sparse) gives the terms the rule reads, in blocks
    partial = getattr(table, "partial_terms", False)
    while len(order) < k:
        if partial:  # block by block: no temporary over all candidates
            rule.begin_step()
            for sl, t in table.pair_term_blocks(newest, rule.terms):
                rule.update_block(t, sl)
                del t  # (freed before the next block is counted)
        elif mi_only:
            rule.update(PairTerms(table.pair_mi(newest)))
        else:
            rule.update(table.pair_terms(newest))
        last = rule.score()
        newest = _next_pick(last, selected, held)
        order.append(newest)
        step_scores.append(float(last[newest]))
        selected[newest] = True
        if progress is not None:
            progress()
    return GreedyResult(np.asarray(order, np.intp), np.asarray(step_scores), np.asarray(last))


def _greedy_cmi(
    table: InformationTable,
    k: int,
    order: list[int],
    step_scores: list[float],
    selected: np.ndarray,
    tol: float,
    progress: Callable[[], None] | None,
) -> GreedyResult:
    s = table.joint_codes(None, order[0])
    last = table.relevance
    if step_scores[0] <= tol:  # not even the first feature tells anything about Y
        return GreedyResult(np.asarray(order, np.intp), np.asarray(step_scores), last)
    while len(order) < k:
        last = table.conditional_relevance(s)
        best = _argmax_unselected(last, selected)
        if not last[best] > tol:
            break
        order.append(best)
        step_scores.append(float(last[best]))
        selected[best] = True
        if len(order) < k:  # the joint only a further step conditions on
            s = table.joint_codes(s, best)
        if progress is not None:
            progress()
    return GreedyResult(np.asarray(order, np.intp), np.asarray(step_scores), np.asarray(last))
