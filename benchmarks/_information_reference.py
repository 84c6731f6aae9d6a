"""The independent plain-numpy reference of benchmarks/bench_information.py: joint
entropies from plain counts (``np.unique``), each criterion's score of a candidate
(:func:`reference_score`) and the comparison of a pick sequence with FEAST's
(:func:`compare_with`), whose first difference it calls an exact tie or not.

Imported by benchmarks/bench_information.py (its driver compares every selection with
FEAST's). Plain numpy: independent of fsel's kernels and of FEAST; slow, for a handful
of candidates only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

TIE_TOL = 1e-9  # bits; scores closer than this (relative to max(1, |score|)) are "tied"


def _entropy(*cols: np.ndarray) -> float:
    """Plug-in joint entropy in bits of the given code columns."""
    _, counts = np.unique(np.column_stack(cols), axis=0, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def _mi(a: np.ndarray, b: np.ndarray) -> float:
    return _entropy(a) + _entropy(b) - _entropy(a, b)


def _cmi(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    return _entropy(a, c) + _entropy(b, c) - _entropy(a, b, c) - _entropy(c)


def reference_score(
    X: np.ndarray, y: np.ndarray, selected: list[int], k: int, criterion: str
) -> float:
    """Score ``J(X_k)`` of candidate ``k`` given the already selected ``selected``.

    Written from SPEC section 2 with plain joint counts (``np.unique``), independent of
    fsel's kernels and of FEAST; slow, for a handful of candidates only.
    """
    xk = X[:, k]
    relevance = _mi(xk, y)
    if not selected:
        return relevance
    cols = [X[:, j] for j in selected]
    if criterion == "JMI":
        return sum(_entropy(xk, xj) + _entropy(y) - _entropy(xk, xj, y) for xj in cols)
    if criterion == "mRMR":
        return relevance - sum(_mi(xk, xj) for xj in cols) / len(cols)
    if criterion == "CMIM":
        return min(relevance, *(_cmi(xk, y, xj) for xj in cols))
    if criterion == "DISR":
        return sum(
            (_entropy(xk, xj) + _entropy(y) - _entropy(xk, xj, y)) / _entropy(xk, xj, y)
            for xj in cols
        )
    if criterion == "CIFE":
        return relevance - sum(_mi(xk, xj) for xj in cols) + sum(_cmi(xk, xj, y) for xj in cols)
    if criterion == "CMI":
        _, s = np.unique(np.column_stack(cols), axis=0, return_inverse=True)
        return _cmi(xk, y, s.ravel())
    raise ValueError(f"unknown criterion {criterion!r}")


def _tied(a: float, b: float) -> bool:
    return abs(a - b) <= TIE_TOL * max(1.0, abs(a), abs(b))


def compare_with(
    reference: list[int], other: list[int], X: np.ndarray, y: np.ndarray, criterion: str
) -> dict[str, Any]:
    """Compare ``other``'s pick sequence with ``reference``'s (FEAST's).

    Returns ``identical`` (bool), ``step`` (first differing 0-based position or None),
    the two picks there, their reference scores given the common prefix, ``tied`` and a
    one-line ``summary``.
    """
    out: dict[str, Any] = {"identical": False, "step": None, "tied": None}
    n_features = X.shape[1]
    bad = [f for f in other if not (isinstance(f, int) and 0 <= f < n_features)]
    if bad:
        out["summary"] = f"invalid indices returned (e.g. {bad[0]!r})"
        return out
    if len(set(other)) != len(other):
        dup = next(f for i, f in enumerate(other) if f in other[:i])
        note = f"re-selects feature {dup}"
    else:
        note = ""
    n = min(len(reference), len(other))
    step = next((i for i in range(n) if reference[i] != other[i]), None)
    if step is None:
        if len(reference) == len(other):
            out["identical"] = True
            out["summary"] = "identical" + (f" ({note})" if note else "")
            return out
        longer, who = (reference, "FEAST") if len(reference) > len(other) else (other, "it")
        extra = longer[n]
        s = reference_score(X, y, list(longer[:n]), extra, criterion)
        out.update(step=n, tied=None, extra_pick=extra, extra_score=s)
        out["summary"] = (
            f"same first {n} picks; then {who} goes on with feature {extra} "
            f"(reference score {s:.3g}) while the other has stopped"
        )
        return out
    prefix = list(reference[:step])
    a, b = reference[step], other[step]
    sa = reference_score(X, y, prefix, a, criterion)
    sb = reference_score(X, y, prefix, b, criterion)
    tied = _tied(sa, sb)
    out.update(step=step, feast_pick=a, other_pick=b, feast_score=sa, other_score=sb, tied=tied)
    kind = f"exact tie (diff {sa - sb:+.1e})" if tied else f"not a tie: diff {sa - sb:+.3g}"
    out["summary"] = f"differs at step {step}: FEAST {a} ({sa:.6f}) vs {b} ({sb:.6f}), {kind}" + (
        f"; {note}" if note else ""
    )
    return out
